// SPDX-License-Identifier: GPL-2.0
/*
 * Containers registered, assigned and unregistered: the registry, the cgroups map and
 * the registered-cgroup filter.
 */
#include <time.h>
#include <sys/stat.h>

#include "daemon/krsid.h"

static int filter_word_write(struct krsid *d, uint32_t w)
{
	uint64_t v = bitfilter_word(&d->cgroup_filter, w);

	return map_update(d->obj.maps.cgroup_filter, &w, &v, BPF_ANY) < 0 ? -errno : 0;
}

static int filter_add(struct krsid *d, uint64_t id)
{
	if (!bitfilter_add(&d->cgroup_filter, id & (KRSI_FILTER_BITS - 1)))
		return 0;
	return filter_word_write(d, KRSI_FILTER_WORD(id));
}

static void filter_drop(struct krsid *d, uint64_t id)
{
	if (bitfilter_del(&d->cgroup_filter, id & (KRSI_FILTER_BITS - 1))) {
		int r = filter_word_write(d, KRSI_FILTER_WORD(id));

		/* The bit stays set: a hash lookup for a host task, never a verdict. */
		if (r < 0)
			log_warn("cgroup filter: clearing a bit: %s", strerror(-r));
	}
}

/*
 * Count the filter from the cgroups map (what the programs look up, whether or not the
 * registry could take it back) and write every word: a pinned filter kept a superset.
 */
int filter_rebuild(struct krsid *d)
{
	uint64_t cg, prev;

	if (bitfilter_init(&d->cgroup_filter, KRSI_FILTER_BITS) < 0)
		return -ENOMEM;
	map_for_each_key(d->obj.maps.cgroups, cg, prev)
		bitfilter_add(&d->cgroup_filter, cg & (KRSI_FILTER_BITS - 1));
	for (uint32_t w = 0; w < KRSI_FILTER_WORDS; w++) {
		int r = filter_word_write(d, w);

		if (r < 0)
			return r;
	}
	return 0;
}

static int reg_write(struct krsid *d, const struct registry_entry *e, uint32_t profile_id,
		     bool until_exec)
{
	struct krsi_registry_entry re = { 0 };
	struct krsi_cgroup cg = { .flags = until_exec ? 0 : KRSI_CG_ARMED };

	snprintf(re.container, sizeof(re.container), "%s", e->container);
	snprintf(re.profile, sizeof(re.profile), "%s", e->profile);
	snprintf(re.cgroup, sizeof(re.cgroup), "%s", e->cgroup);
	snprintf(re.rootfs, sizeof(re.rootfs), "%s", e->rootfs);
	re.registered_ns = e->registered_ns;
	re.level = registry_cgroup_level(e->cgroup);
	if (map_update(d->obj.maps.registry, &e->cgroup_id, &re, BPF_ANY) < 0)
		return -errno;
	/* Keep the counters of an existing registration. */
	map_lookup(d->obj.maps.cgroups, &e->cgroup_id, &cg);
	cg.profile_id = profile_id;
	if (map_update(d->obj.maps.cgroups, &e->cgroup_id, &cg, BPF_ANY) < 0)
		return -errno;
	return 0;
}

/*
 * Unregister CONTAINER. Its cgroups entry goes first: if that delete fails, the container
 * stays registered and confined (the registry and the maps still agree), and the caller is
 * told. What follows only narrows what the programs look at; a failure there is logged.
 */
int reg_delete(struct krsid *d, const char *container, const char *why)
{
	struct registry_entry *e = registry_find(&d->reg, container);
	uint64_t id;
	int r;

	if (!e)
		return 0;
	id = e->cgroup_id;
	if (map_delete(d->obj.maps.cgroups, &id) < 0 && errno != ENOENT) {
		r = -errno;
		log_info("container %s: unregistering (%s): deleting its cgroups entry: %s; it "
			 "stays registered", container, why, strerror(-r));
		return r;
	}
	filter_drop(d, id);
	if (map_delete(d->obj.maps.registry, &id) < 0 && errno != ENOENT)
		log_info("container %s: deleting its registry entry: %s (a restart would find "
			 "it without a cgroups entry and drop it)", container, strerror(errno));
	ids_container_drop(d, container, -1);
	log_info("container %s: unregistered (%s)", container, why);
	d->n.unregistrations++;
	registry_remove(&d->reg, container);
	r = config_update_mask(d);
	if (r < 0)
		log_info("config: narrowing the level mask: %s (a cost, not a verdict)",
			 strerror(-r));
	return 0;
}

/* Collect registrations whose cgroup is gone and whose cgroup_rmdir report was lost (a full
 * ring buffer) or came while no krsid ran. */
void reg_collect(struct krsid *d)
{
	for (size_t i = 0; i < d->reg.n;) {
		struct registry_entry *e = d->reg.v[i];
		uint64_t id = 0;
		int r = cgroup_id(e->cgroup, &id);

		if (r == -ENOENT || (r == 0 && id != e->cgroup_id)) {
			char c[KRSI_CONTAINER_MAX];

			snprintf(c, sizeof(c), "%s", e->container);
			reg_delete(d, c, "its cgroup is gone");
			continue; /* entry i now holds another one */
		}
		i++;
	}
}

/*
 * The cgroup_rmdir program reports a registered cgroup's removal as it happens (KRSI_EVENT_GONE),
 * so the sweep, one stat() per registration, is only the backstop: every SWEEP_INTERVAL_S, and
 * at the next tick after the ring buffer lost events (a removal notice may be among them).
 */
void reg_sweep_due(struct krsid *d)
{
	uint64_t now = now_ns(CLOCK_MONOTONIC), lost = stats_sum(d).lost;

	if (lost == d->swept_lost && now - d->swept_ns < SWEEP_INTERVAL_S * 1000000000ULL)
		return;
	reg_collect(d);
	d->swept_lost = lost;
	d->swept_ns = now;
}

json_object *entry_json(struct krsid *d, const struct registry_entry *e)
{
	json_object *o = json_object_new_object();
	struct installed *ip = prof_find(d, e->profile);
	struct krsi_cgroup cg = { 0 };

	map_lookup(d->obj.maps.cgroups, &e->cgroup_id, &cg);
	json_object_object_add(o, "container", json_object_new_string(e->container));
	json_object_object_add(o, "cgroup", json_object_new_string(e->cgroup));
	json_object_object_add(o, "cgroup_id", json_object_new_uint64(e->cgroup_id));
	json_object_object_add(o, "profile", json_object_new_string(e->profile));
	json_object_object_add(o, "mode", json_object_new_string(
						  ip && ip->mode == KRSI_MODE_AUDIT ? "audit" : "enforce"));
	if (ip)
		json_object_object_add(o, "version", json_object_new_uint64(ip->version));
	json_object_object_add(o, "denied", json_object_new_uint64(cg.denied));
	json_object_object_add(o, "audited", json_object_new_uint64(cg.audited));
	json_object_object_add(o, "armed", json_object_new_boolean(cg.flags & KRSI_CG_ARMED));
	json_object_object_add(o, "learning", json_object_new_boolean(e->learn_until_ns));
	return o;
}

/*
 * A new registration's entry E from request Q: its cgroup (by pid, path or id) into CGROUP,
 * the rootfs of its bundle into ROOTFS, the live process to resolve its rules in, and what a
 * registration again of the same cgroup keeps. NULL, or the error reply.
 */
static json_object *reg_entry_new(struct krsid *d, const struct proto_request *q,
				  struct registry_entry *e, char *cgroup, size_t cgroup_size,
				  char *rootfs, size_t rootfs_size)
{
	struct krsi_err err = { "" };
	struct registry_entry *cur;
	int r;

	e->container = q->container;
	e->cgroup = cgroup;
	e->rootfs = rootfs;
	if (q->has_pid) {
		if (q->pid <= 0 || q->pid > INT32_MAX)
			return proto_reply_error("pid %lld: not a process id", (long long)q->pid);
		r = cgroup_of_pid(q->pid, cgroup, cgroup_size);
		if (r < 0)
			return proto_reply_error("pid %lld: cannot read its cgroup: %s",
						 (long long)q->pid, strerror(-r));
	} else if (q->cgroup) {
		e->cgroup = q->cgroup;
	} else {
		r = cgroup_find_id(q->cgroup_id, cgroup, cgroup_size);
		if (r < 0)
			return proto_reply_error("cgroup id %llu: not found: %s",
						 (unsigned long long)q->cgroup_id, strerror(-r));
	}
	r = cgroup_id(e->cgroup, &e->cgroup_id);
	if (r < 0)
		return proto_reply_error("cgroup %s: %s", e->cgroup, strerror(-r));
	if (!strcmp(e->cgroup, "/"))
		return proto_reply_error("cgroup /: the root cgroup holds the host, refusing");
	e->registered_ns = now_ns(CLOCK_REALTIME);
	if (q->bundle) {
		r = identity_bundle_rootfs(q->bundle, rootfs, rootfs_size, &err);
		if (r < 0)
			return proto_reply_error("container %s: %s", e->container, err.msg);
	}
	e->from_start = q->until_exec;
	/* A live root: the process named, unless it has still to exec into it. */
	if (q->has_pid && !q->until_exec)
		e->pid = q->pid;
	else if (!q->until_exec)
		e->pid = cgroup_some_pid(e->cgroup, 3);
	cur = registry_find(&d->reg, e->container);
	if (cur && cur->cgroup_id == e->cgroup_id) { /* registered again: keep what it had */
		if (!q->bundle)
			e->rootfs = cur->rootfs;
		if (!e->pid)
			e->pid = cur->pid;
		e->learn_until_ns = cur->learn_until_ns; /* its cgroups entry keeps the flag */
		e->from_start = cur->from_start && q->until_exec;
	}
	return NULL;
}

/*
 * The file identities of E's rules under the profile IP's slot, before the cgroups entry
 * names the profile: a hard link made at the container's first instruction is already
 * denied. On failure, the views this registration made are dropped again.
 */
static int reg_identities(struct krsid *d, const struct registry_entry *e,
			  const struct installed *ip, struct krsi_err *err)
{
	struct registry_entry *cur;
	struct installed *had;
	int r;

	if (!ip->p)
		return 0;
	r = ids_container(d, e, ip->p, ip->slot, true, false, err);
	if (r >= 0)
		return r;
	cur = registry_find(&d->reg, e->container);
	if (!cur) {
		ids_container_drop(d, e->container, -1);
		return r;
	}
	had = prof_find(d, cur->profile);
	if (!had || had->slot != ip->slot) {
		identity_view_drop_one(&d->ids, e->container, IDENTITY_BUNDLE, ip->slot);
		identity_view_drop_one(&d->ids, e->container, IDENTITY_LIVE, ip->slot);
	}
	return r;
}

/*
 * E, added to the registry (ADDED: 1 when it was there already), into the maps: the level
 * and filter bits first (a cgroups entry at an unmarked level, or whose filter bit is clear,
 * would not be seen), then its entries. On failure nothing of it stays.
 */
static int reg_commit(struct krsid *d, const struct registry_entry *e, uint32_t profile_id,
		      int added, bool until_exec)
{
	bool filtered = false;
	int r;

	r = config_update_mask(d);
	if (r == 0 && added == 0) {
		r = filter_add(d, e->cgroup_id);
		filtered = true;
	}
	if (r == 0)
		r = reg_write(d, e, profile_id, until_exec);
	if (r < 0) {
		registry_remove(&d->reg, e->container);
		config_update_mask(d);
		map_delete(d->obj.maps.cgroups, &e->cgroup_id);
		if (filtered)
			filter_drop(d, e->cgroup_id);
		map_delete(d->obj.maps.registry, &e->cgroup_id);
		ids_container_drop(d, e->container, -1);
	}
	return r;
}

/*
 * A cgroup removed before its cgroups entry was written sent no notice (the cgroup_rmdir
 * program found nothing to report): look once more, now that the entry is there and a
 * later removal would be reported. NULL, or the error reply.
 */
static json_object *reg_recheck(struct krsid *d, const struct registry_entry *e)
{
	char cg[KRSI_CGROUP_PATH_MAX];
	uint64_t id = 0;
	int r;

	r = cgroup_id(e->cgroup, &id);
	if (r >= 0 && id == e->cgroup_id)
		return NULL;
	snprintf(cg, sizeof(cg), "%s", e->cgroup);
	reg_delete(d, e->container, "its cgroup was removed while it registered");
	return proto_reply_error("cgroup %s: removed while it was being registered", cg);
}

json_object *op_register(struct krsid *d, struct proto_request *q, bool assign)
{
	struct registry_entry e = { 0 };
	struct krsi_err err = { "" };
	const char *profile = q->profile ? q->profile : d->default_profile;
	struct installed *ip = prof_find(d, profile);
	/* E's strings until registry_add() copies them. */
	char cgroup[KRSI_CGROUP_PATH_MAX], rootfs[KRSI_ROOTFS_MAX] = "";
	struct registry_entry *cur;
	json_object *rep;
	int r, added;

	if (!ip)
		return proto_reply_error("profile %s: no such profile", profile);
	cur = registry_find(&d->reg, q->container);
	if (ip->removed && !(cur && !strcmp(cur->profile, profile)))
		return proto_reply_error("profile %s: removed from %s; it stays in force only for the "
					 "containers that had it", profile, d->profile_dir);
	if (assign) {
		if (!cur)
			return proto_reply_error("container %s: not registered", q->container);
		/*
		 * Its cgroup and rootfs are CUR's own strings, valid while CUR is registered; the
		 * container's name is the request's, still there when a failure removes CUR.
		 */
		e = *cur;
		e.container = q->container;
	} else {
		rep = reg_entry_new(d, q, &e, cgroup, sizeof(cgroup), rootfs, sizeof(rootfs));
		if (rep)
			return rep;
	}
	e.profile = profile;
	if (reg_identities(d, &e, ip, &err) < 0)
		return proto_reply_error("container %s: %s", e.container, err.msg);
	added = registry_add(&d->reg, &e, &err);
	if (added < 0) {
		if (!registry_find(&d->reg, e.container))
			ids_container_drop(d, e.container, -1);
		return proto_reply_error("%s", err.msg);
	}
	/* A container registered again: registry_add() took its profile and rootfs, not its pid. */
	cur = registry_find(&d->reg, e.container);
	cur->pid = e.pid;
	r = reg_commit(d, &e, ip->id, added, !assign && q->until_exec);
	if (r < 0)
		return proto_reply_error("container %s: writing the maps: %s", e.container,
					 strerror(-r));
	/* Its views under the profile it had are no longer read. */
	ids_container_drop(d, e.container, ip->slot);
	if (added == 0 && (rep = reg_recheck(d, &e)))
		return rep;
	log_info("container %s: %s cgroup %s (id %llu), profile %s", e.container,
		 assign || added == 1 ? "assigned in" : "registered with", e.cgroup,
		 (unsigned long long)e.cgroup_id, profile);
	rep = proto_reply_ok();
	json_object_object_add(rep, "container", entry_json(d, registry_find(&d->reg, e.container)));
	return rep;
}

json_object *op_ps(struct krsid *d)
{
	json_object *rep = proto_reply_ok(), *arr = json_object_new_array();

	for (size_t i = 0; i < d->reg.n; i++)
		json_object_array_add(arr, entry_json(d, d->reg.v[i]));
	json_object_object_add(rep, "containers", arr);
	return rep;
}
