// SPDX-License-Identifier: GPL-2.0
/*
 * Profiles from the directory to the maps: read, staged under fresh slots, published
 * with one map write each, uninstalled; a reload does all of it or nothing.
 */
#include <dirent.h>
#include <sys/stat.h>

#include "daemon/krsid.h"

/*
 * A reload installs in two steps, so that running out of map space changes nothing: every
 * changed profile's rules are written under a fresh slot first (staged), and only when all
 * of them fit are the policies flipped (published), one map update each.
 */
struct staged {
	struct profile *p;
	struct profile_compiled c;
	struct grace_stage g; /* its id, policies entry and slot */
	bool same;	      /* the installed version already: nothing written */
};

/* A map write failed with errno E: say which limit when the map is full. */
static int rule_write_error(struct krsi_err *err, const char *profile, const char *what,
			    size_t i, int e, int max, const char *limit)
{
	if (e == ENOSPC || e == E2BIG || e == ENOMEM)
		return err_set(err, -ENOSPC, "profile %s: %s map full at rule %zu: it holds %d "
			       "entries (%s) for all profiles together, a replaced version's "
			       "included until it is retired", profile, what, i, max, limit);
	return err_set(err, -e, "profile %s: writing %s rule %zu: %s", profile, what, i,
		       strerror(e));
}

/* Give back the policies entry and the id that staging took for ST. */
static void prof_untake(struct krsid *d, struct staged *st)
{
	grace_stage_untake(&d->grace, &st->g);
}

/* Take back what staging wrote under ST's slot: nothing points at it yet. */
static void prof_unstage(struct krsid *d, struct staged *st)
{
	if (st->same)
		return;
	prof_untake(d, st);
	for (size_t i = 0; i < st->c.n_paths; i++)
		map_delete(d->obj.maps.path_rules, &st->c.paths[i]);
	for (size_t j = 0; j < st->c.n_net; j++)
		map_delete(d->obj.maps.net_rules, &st->c.net[j]);
	for (size_t m = 0; m < st->c.n_names; m++)
		map_delete(d->obj.maps.name_rules, &st->c.names[m]);
	identity_drop_slot(&d->ids, st->g.slot);
	profile_compiled_clear(&st->c);
}

/* Write P's rules and identities under a fresh slot; no program sees them yet. */
static int prof_stage(struct krsid *d, struct profile *p, struct staged *st, struct krsi_err *err)
{
	struct installed *old = prof_find(d, p->name);
	struct krsi_err herr = { "" };
	const char *what;
	__u8 one = 1;
	int r = 0;
	size_t i = 0, j = 0, m = 0;

	memset(st, 0, sizeof(*st));
	st->p = p;
	if (old && old->digest == p->digest) {
		st->same = true;
		return 0;
	}
	if (grace_stage_take(&d->grace, old ? (int64_t)old->id : -1, &st->g, &what) < 0)
		return err_set(err, -EBUSY, "profile %s: no free %s: the ones of profiles replaced "
			       "or removed in the last %llu s are still retiring; try again",
			       p->name, what, SLOT_GRACE_NS / 1000000000ULL);
	r = profile_compile(p, st->g.id, st->g.slot, &st->c);
	if (r < 0) {
		prof_untake(d, st);
		return err_set(err, r, "profile %s: %s", p->name, strerror(-r));
	}
	/* The hooks first: once the policy is published, every hook it names must run. */
	r = hooks_attach(d, st->c.policy.deny, &herr);
	if (r == 0)
		r = config_set_deny(d, st->c.policy.deny, st->c.policy.caps, true);
	if (r < 0) {
		prof_untake(d, st);
		profile_compiled_clear(&st->c);
		return err_set(err, r, "profile %s: %s", p->name,
			       herr.msg[0] ? herr.msg : "writing the config");
	}
	for (i = 0; i < st->c.n_paths; i++)
		if (map_update(d->obj.maps.path_rules, &st->c.paths[i], &one, BPF_ANY) < 0) {
			r = rule_write_error(err, p->name, "path", i, errno, KRSI_MAX_PATH_RULES,
					     "KRSI_MAX_PATH_RULES");
			goto undo;
		}
	for (j = 0; j < st->c.n_net; j++)
		if (map_update(d->obj.maps.net_rules, &st->c.net[j], &st->c.net_val[j],
					BPF_ANY) < 0) {
			r = rule_write_error(err, p->name, "network", j, errno, KRSI_MAX_NET_RULES,
					     "KRSI_MAX_NET_RULES");
			goto undo;
		}
	for (m = 0; m < st->c.n_names; m++)
		if (map_update(d->obj.maps.name_rules, &st->c.names[m], &one, BPF_ANY) < 0) {
			r = rule_write_error(err, p->name, "name", m, errno, KRSI_MAX_NAME_RULES,
					     "KRSI_MAX_NAME_RULES");
			goto undo;
		}
	/* The identities of its exact rules, for the host and every container under it. */
	r = ids_profile(d, p, st->g.slot, err);
	if (r < 0) {
		err_wrap(err, r, "profile %s", p->name);
		goto undo;
	}
	return 0;
undo:
	while (i-- > 0)
		map_delete(d->obj.maps.path_rules, &st->c.paths[i]);
	while (j-- > 0)
		map_delete(d->obj.maps.net_rules, &st->c.net[j]);
	while (m-- > 0)
		map_delete(d->obj.maps.name_rules, &st->c.names[m]);
	identity_drop_slot(&d->ids, st->g.slot);
	prof_untake(d, st);
	profile_compiled_clear(&st->c);
	return r;
}

/* Flip ST's policy to its staged slot: the one update a program sees. P is owned after. */
static int prof_publish(struct krsid *d, struct staged *st, bool *ret_changed, struct krsi_err *err)
{
	struct installed *old = prof_find(d, st->p->name);
	struct profile *p = st->p;

	*ret_changed = false;
	if (st->same) { /* unchanged, or adopted unchanged: only the parsed copy is new */
		profile_free(old->p);
		old->p = p;
		return 0;
	}
	/* The entry first, while nothing points at it; then the one store that publishes it. */
	if (map_update(d->obj.maps.policies, &st->g.pidx, &st->c.policy, BPF_ANY) < 0) {
		int r = err_set(err, -errno, "profile %s: writing policy: %s", p->name,
				strerror(errno));

		prof_unstage(d, st);
		profile_free(p);
		return r;
	}
	profile_point(d, st->g.id, st->g.pidx);
	if (old) {
		retire(d, old->slot, old->pidx, old->id, false);
		profile_free(old->p);
	} else {
		struct installed *v = realloc(d->prof, (d->n_prof + 1) * sizeof(*v));

		if (!v) {
			/* The policy is in the map; the next start adopts it. */
			profile_compiled_clear(&st->c);
			profile_free(p);
			return err_set(err, -ENOMEM, "out of memory");
		}
		d->prof = v;
		old = &d->prof[d->n_prof++];
		memset(old, 0, sizeof(*old));
		snprintf(old->name, sizeof(old->name), "%s", p->name);
		old->id = st->g.id;
	}
	old->slot = st->g.slot;
	old->pidx = st->g.pidx;
	old->mode = p->mode;
	old->digest = p->digest;
	old->version = p->version;
	old->deny = st->c.policy.deny;
	old->caps = st->c.policy.caps;
	old->p = p;
	*ret_changed = true;
	profile_compiled_clear(&st->c);
	return 0;
}

/*
 * Take a profile out of the maps: no container has it, and it is gone from the directory. Its
 * rules and identities go with its slot after the grace period; its hooks are detached by the
 * caller's hooks_detach_unused() once nothing else needs them.
 */
static void prof_uninstall(struct krsid *d, size_t i, const char *why)
{
	struct installed *ip = &d->prof[i];
	_cleanup_free_ struct krsi_verdict_key *gone = NULL;
	struct krsi_verdict_key k, prev;
	size_t n_gone = 0, cap = 0;

	profile_point(d, ip->id, 0);
	retire(d, ip->slot, ip->pidx, ip->id, true);
	/* Its verdict counters: the metrics of a profile that is gone go with it. Collected in
	 * one walk, then deleted: a deletion during the walk would restart it. Out of memory,
	 * the counters not collected stay, and a profile that takes the id later counts on. */
	map_for_each_key(d->obj.maps.verdicts, k, prev) {
		if (k.profile_id != ip->id)
			continue;
		if (n_gone == cap) {
			size_t c = cap ? 2 * cap : 64;
			struct krsi_verdict_key *v = realloc(gone, c * sizeof(*v));

			if (!v)
				break;
			gone = v;
			cap = c;
		}
		gone[n_gone++] = k;
	}
	for (size_t g = 0; g < n_gone; g++)
		map_delete(d->obj.maps.verdicts, &gone[g]);
	log_info("profile %s: uninstalled (%s)", ip->name, why);
	profile_free(ip->p);
	memmove(ip, ip + 1, (d->n_prof - i - 1) * sizeof(*ip));
	d->n_prof--;
	d->n.uninstalled++;
}

/* Uninstall the removed profiles whose last container is gone. */
bool prof_collect(struct krsid *d)
{
	bool any = false;

	for (size_t i = 0; i < d->n_prof;) {
		if (d->prof[i].removed && !registry_count_profile(&d->reg, d->prof[i].name)) {
			prof_uninstall(d, i, "removed from the directory, and its last container is gone");
			any = true;
			continue;
		}
		i++;
	}
	if (any) {
		hooks_detach_unused(d);
		config_narrow(d);
	}
	return any;
}

/*
 * What the directory's "..data" symlink points at ("" without one). A Kubernetes ConfigMap
 * volume is a directory of NAME -> ..data/NAME links, updated by writing a new timestamped
 * directory and renaming a new ..data over the old one: a reload that saw ..data change while
 * it read the files may have mixed two versions, and reads them again.
 */
static void dir_generation(struct krsid *d, char *buf, size_t size)
{
	char path[4096];
	ssize_t n;

	snprintf(path, sizeof(path), "%s/..data", d->profile_dir);
	n = readlink(path, buf, size - 1);
	buf[n < 0 ? 0 : n] = 0;
}

/* Read every *.json of the directory, all or nothing; *RET_FILE names the one that failed. */
static int prof_read_dir(struct krsid *d, struct profile ***ret, size_t *ret_n, char *ret_file,
			 size_t file_size, struct krsi_err *err)
{
	struct profile **loaded = NULL;
	struct dirent **names = NULL;
	size_t n = 0;
	int nn, r = 0;

	*ret = NULL;
	*ret_n = 0;
	nn = scandir(d->profile_dir, &names, NULL, alphasort);
	if (nn < 0) {
		snprintf(ret_file, file_size, "%s", d->profile_dir);
		return err_set(err, -errno, "profile directory %s: %s", d->profile_dir,
			       strerror(errno));
	}
	loaded = calloc(nn + 1, sizeof(*loaded));
	if (!loaded) {
		r = err_set(err, -ENOMEM, "out of memory");
		goto out;
	}
	for (int i = 0; i < nn; i++) {
		size_t len = strlen(names[i]->d_name);
		char path[4096];

		if (len < 6 || strcmp(names[i]->d_name + len - 5, ".json") ||
		    names[i]->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", d->profile_dir, names[i]->d_name);
		r = profile_load_file(path, true, &loaded[n], err);
		if (r < 0) {
			snprintf(ret_file, file_size, "%s", path);
			goto out;
		}
		n++;
	}
out:
	if (r < 0) {
		for (size_t i = 0; i < n; i++)
			profile_free(loaded[i]);
		free(loaded);
		loaded = NULL;
		n = 0;
	}
	for (int i = 0; i < nn; i++)
		free(names[i]);
	free(names);
	*ret = loaded;
	*ret_n = n;
	return r;
}

/*
 * Load every *.json of the profile directory. All or nothing: if one file is invalid, no
 * profile changes, and the error names the file, the field and the reason. A profile that is
 * no longer in the directory is uninstalled when no container has it; otherwise it stays in
 * force for those containers (and refuses new ones) until the last one is gone.
 */
int prof_reload(struct krsid *d, json_object *changed, json_object *unchanged, json_object *removed,
		char *ret_file, size_t file_size, struct krsi_err *err)
{
	struct profile **loaded = NULL;
	struct staged *st = NULL;
	size_t n = 0, fresh = 0;
	char gen[4096], gen2[4096], (*names)[KRSI_NAME_MAX] = NULL;
	int r = 0;

	ret_file[0] = 0;
	for (int tries = 0;; tries++) {
		dir_generation(d, gen, sizeof(gen));
		r = prof_read_dir(d, &loaded, &n, ret_file, file_size, err);
		dir_generation(d, gen2, sizeof(gen2));
		if (!strcmp(gen, gen2) || tries == 4)
			break;
		/* ..data was swapped while the files were read: read the new version whole */
		for (size_t i = 0; i < n; i++)
			profile_free(loaded[i]);
		free(loaded);
		loaded = NULL;
	}
	if (r < 0)
		return r;
	names = calloc(n + 1, sizeof(*names));
	if (!names) {
		r = err_set(err, -ENOMEM, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		snprintf(names[i], sizeof(names[i]), "%s", loaded[i]->name);
		fresh += !prof_find(d, loaded[i]->name);
	}
	if (d->n_prof + fresh > KRSI_MAX_PROFILES) {
		r = err_set(err, -ENOSPC, "%zu profiles installed and %zu new ones: more than the %d "
			    "that krsi holds (KRSI_MAX_PROFILES)", d->n_prof, fresh, KRSI_MAX_PROFILES);
		goto out;
	}
	st = calloc(n + 1, sizeof(*st));
	if (!st) {
		r = err_set(err, -ENOMEM, "out of memory");
		goto out;
	}
	/* Every changed profile's rules first: one that does not fit changes nothing. */
	for (size_t i = 0; i < n; i++) {
		r = prof_stage(d, loaded[i], &st[i], err);
		if (r < 0) {
			snprintf(ret_file, file_size, "%s/%s.json", d->profile_dir, loaded[i]->name);
			while (i-- > 0)
				prof_unstage(d, &st[i]);
			goto out;
		}
	}
	for (size_t i = 0; i < n; i++) {
		bool ch;

		r = prof_publish(d, &st[i], &ch, err);
		loaded[i] = NULL; /* owned by its installed entry now, or freed */
		if (r < 0) {
			/* A policy write after all rules fit: the ones before it are published. */
			for (size_t k = i + 1; k < n; k++)
				prof_unstage(d, &st[k]);
			snprintf(ret_file, file_size, "%s/%s.json", d->profile_dir, names[i]);
			goto out;
		}
		prof_find(d, names[i])->removed = false;
		if (ch && changed)
			json_object_array_add(changed, json_object_new_string(names[i]));
		if (!ch && unchanged)
			json_object_array_add(unchanged, json_object_new_string(names[i]));
		if (ch)
			log_info("profile %s: version %llu installed (slot %u)", names[i],
				 (unsigned long long)prof_find(d, names[i])->version,
				 prof_find(d, names[i])->slot);
	}
	/* Every file read and installed: what the directory no longer has goes, or waits. */
	for (size_t i = 0; i < d->n_prof;) {
		struct installed *ip = &d->prof[i];
		size_t users = registry_count_profile(&d->reg, ip->name);
		bool seen = false;

		for (size_t k = 0; k < n && !seen; k++)
			seen = !strcmp(names[k], ip->name);
		if (seen) {
			i++;
			continue;
		}
		if (!users) {
			if (removed)
				json_object_array_add(removed, json_object_new_string(ip->name));
			prof_uninstall(d, i, "no longer in the directory, and no container has it");
			continue;
		}
		if (!ip->removed)
			log_info("profile %s: no longer in %s; stays in force for its %zu container%s, "
				 "refuses new ones", ip->name, d->profile_dir, users, users == 1 ? "" : "s");
		ip->removed = true;
		profile_free(ip->p);
		ip->p = NULL;
		i++;
	}
out:
	/* The hooks and config bits the staging added for what was not published go again. */
	hooks_detach_unused(d);
	config_narrow(d);
	for (size_t i = 0; i < n; i++)
		profile_free(loaded[i]);
	free(loaded);
	free(st);
	free(names);
	return r;
}

json_object *prof_json(struct krsid *d, const struct installed *ip, bool full)
{
	json_object *o = json_object_new_object();
	char digest[32];

	snprintf(digest, sizeof(digest), "%016llx", (unsigned long long)ip->digest);
	json_object_object_add(o, "name", json_object_new_string(ip->name));
	json_object_object_add(o, "version", json_object_new_uint64(ip->version));
	json_object_object_add(o, "mode", json_object_new_string(ip->mode == KRSI_MODE_AUDIT ?
								  "audit" : "enforce"));
	json_object_object_add(o, "digest", json_object_new_string(digest));
	json_object_object_add(o, "slot", json_object_new_int64(ip->slot));
	json_object_object_add(o, "id", json_object_new_int64(ip->id));
	json_object_object_add(o, "policy_entry", json_object_new_int64(ip->pidx));
	json_object_object_add(o, "containers",
			       json_object_new_int(registry_count_profile(&d->reg, ip->name)));
	json_object_object_add(o, "in_directory", json_object_new_boolean(ip->p != NULL));
	json_object_object_add(o, "removed", json_object_new_boolean(ip->removed));
	if (full && ip->p)
		json_object_object_add(o, "document", json_object_get(ip->p->doc));
	return o;
}

json_object *op_profile_list(struct krsid *d)
{
	json_object *rep = proto_reply_ok(), *arr = json_object_new_array();

	for (size_t i = 0; i < d->n_prof; i++)
		json_object_array_add(arr, prof_json(d, &d->prof[i], false));
	json_object_object_add(rep, "profiles", arr);
	return rep;
}

/*
 * Reload the profile directory (TRIGGER: "request", "directory" or "signal"), log it, and
 * publish a "reload" event either way. Returns the reply for a request.
 */
json_object *reload_run(struct krsid *d, const char *trigger)
{
	json_object *ch = json_object_new_array(), *un = json_object_new_array(),
		    *rm = json_object_new_array(), *ev = json_object_new_object(), *rep;
	struct krsi_err err = { "" };
	char file[4096];
	int r = prof_reload(d, ch, un, rm, file, sizeof(file), &err);

	json_object_object_add(ev, "trigger", json_object_new_string(trigger));
	json_object_object_add(ev, "directory", json_object_new_string(d->profile_dir));
	if (r < 0) {
		d->n.reload_failures++;
		log_warn("reload (%s) refused: %s; the running policy stays", trigger, err.msg);
		json_object_object_add(ev, "result", json_object_new_string("refused"));
		if (file[0])
			json_object_object_add(ev, "file", json_object_new_string(file));
		json_object_object_add(ev, "reason", json_object_new_string(err.msg));
		publish_agent(d, "reload", ev);
		json_object_put(ch);
		json_object_put(un);
		json_object_put(rm);
		rep = proto_reply_error("%s", err.msg);
		if (file[0])
			json_object_object_add(rep, "file", json_object_new_string(file));
		return rep;
	}
	d->n.reloads++;
	if (json_object_array_length(ch) || json_object_array_length(rm) || !strcmp(trigger, "request")) {
		json_object_object_add(ev, "result", json_object_new_string("ok"));
		json_object_object_add(ev, "changed", json_object_get(ch));
		json_object_object_add(ev, "removed", json_object_get(rm));
		publish_agent(d, "reload", ev);
	} else {
		json_object_put(ev); /* a change that changed nothing (a touched file) */
	}
	rep = proto_reply_ok();
	json_object_object_add(rep, "changed", ch);
	json_object_object_add(rep, "unchanged", un);
	json_object_object_add(rep, "removed", rm);
	return rep;
}
