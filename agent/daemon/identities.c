// SPDX-License-Identifier: GPL-2.0
/*
 * File identities of exact rules (policy/identity.h): resolved for each profile on
 * the host and in each container's root, mirrored in inode_rules and its filter.
 */
#include <dirent.h>
#include <time.h>
#include <sys/mman.h>

#include "daemon/krsid.h"

static uint32_t ifl_bit(const struct krsi_inode_key *k)
{
	return krsi_inode_bit(k->slot, k->kind, k->dev, k->ino);
}

static void ifl_add(struct krsid *d, const struct krsi_inode_key *k)
{
	uint32_t b = ifl_bit(k);

	if (!d->ifl.counts)
		return; /* before ifl_rebuild(), which counts what the map holds */
	bitfilter_add(&d->ifl, b);
	__atomic_fetch_or(&d->ifl_words[b >> 6], 1ULL << (b & 63), __ATOMIC_SEQ_CST);
}

/* K was deleted from inode_rules. */
void ifl_del(struct krsid *d, const struct krsi_inode_key *k)
{
	uint32_t b = ifl_bit(k);

	if (d->ifl.counts && bitfilter_del(&d->ifl, b))
		__atomic_fetch_and(&d->ifl_words[b >> 6], ~(1ULL << (b & 63)), __ATOMIC_SEQ_CST);
}

/* Map the filter and count what inode_rules holds now (a restart adopts its keys). */
int ifl_rebuild(struct krsid *d)
{
	size_t size = (size_t)KRSI_INODE_FILTER_WORDS * sizeof(uint64_t);
	struct krsi_inode_key key, prev;
	void *m;

	if (!d->ifl_words) {
		m = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, d->obj.maps.inode_filter, 0);
		if (m == MAP_FAILED)
			return -errno;
		d->ifl_words = m;
	}
	if (bitfilter_init(&d->ifl, (uint32_t)1 << KRSI_INODE_FILTER_LOG2) < 0)
		return -ENOMEM;
	map_for_each_key(d->obj.maps.inode_rules, key, prev)
		bitfilter_add(&d->ifl, ifl_bit(&key));
	/* Each word as counted: what a key in the map needs is set, the rest cleared. */
	for (uint32_t w = 0; w < KRSI_INODE_FILTER_WORDS; w++) {
		__atomic_store_n(&d->ifl_words[w], bitfilter_word(&d->ifl, w), __ATOMIC_SEQ_CST);
	}
	return 0;
}

int ids_write(void *ctx, const struct krsi_inode_key *k, bool add)
{
	static const __u8 one = 1;
	struct krsid *d = ctx;
	int r;

	if (add) {
		ifl_add(d, k);
		if (map_update(d->obj.maps.inode_rules, k, &one, BPF_ANY) == 0)
			return 0;
		r = -errno;
		ifl_del(d, k);
		return r;
	}
	if (map_delete(d->obj.maps.inode_rules, k) < 0)
		return -errno;
	ifl_del(d, k);
	return 0;
}

/* Host views are owned by "profile:NAME"; a container id has no ":". */
static void ids_host_owner(const char *profile, char *buf, size_t size)
{
	snprintf(buf, size, "profile:%s", profile);
}

/*
 * The views of OWNER from SRC under SLOT, resolved in ROOT (WHERE names it in messages).
 * ISOLATE: the root may hold mounts its container made (ids_container()): resolved by a child
 * process, waited for at most --resolve-timeout (agent/resolve.c). Else in krsid itself.
 */
static int ids_view(struct krsid *d, const struct profile *p, uint32_t slot, const char *owner,
		    enum identity_source src, struct identity_root *root, const char *where,
		    bool isolate, struct krsi_err *err)
{
	const struct identity_view *old = identity_view_find(&d->ids, owner, src, slot);
	struct krsi_inode_key *keys;
	struct identity_hold *holds;
	size_t n;
	int r;

	/* A new slot (a reload) takes over what the owner's view under the old one held. */
	for (size_t i = 0; !old && i < d->ids.n_views; i++)
		if (d->ids.views[i].source == src && !strcmp(d->ids.views[i].owner, owner))
			old = &d->ids.views[i];
	if (!isolate)
		r = identity_view_keys(p, slot, root, old, &keys, &holds, &n);
	else
		r = resolve_view_keys(&d->children, p, slot, root, old, d->resolve_timeout_ms, &keys, &holds, &n);
	if (r == -ETIMEDOUT) {
		d->n.resolve_timeouts++;
		err_set(err, r, "resolving its rules in %s: no answer within %d ms (a file system "
				"there that does not answer?)", where, d->resolve_timeout_ms);
		/* Under a new slot (a profile changed), what the old view held carries over. */
		if (old && old->slot != slot && old->n) {
			struct krsi_err serr = { "" };

			keys = calloc(old->n, sizeof(*keys));
			holds = calloc(old->n, sizeof(*holds));
			if (keys && holds) {
				for (size_t i = 0; i < old->n; i++) {
					keys[i] = old->keys[i];
					keys[i].slot = slot;
					if (old->holds)
						holds[i] = old->holds[i];
					holds[i].key = keys[i];
				}
				identity_view_set(&d->ids, owner, src, slot, keys, holds, old->n,
						  &serr);
			} else {
				free(keys);
				free(holds);
			}
		}
		return r;
	}
	if (r < 0)
		return err_set(err, r, "file identities in %s: %s", where, strerror(-r));
	return identity_view_set(&d->ids, owner, src, slot, keys, holds, n, err);
}

/* P's exact rules as the host sees them, under SLOT. */
static int ids_host(struct krsid *d, const struct profile *p, uint32_t slot, struct krsi_err *err)
{
	struct identity_root root;
	char owner[KRSI_CONTAINER_MAX];
	int r;

	r = identity_root_open_path("/", &root, err);
	if (r < 0)
		return r;
	ids_host_owner(p->name, owner, sizeof(owner));
	r = ids_view(d, p, slot, owner, IDENTITY_HOST, &root, "the host's root", false, err);
	identity_root_close(&root);
	return r;
}

/* The lowest pid in cgroup CG or below it (a runtime may use sub-cgroups); 0 if none. */
int64_t cgroup_some_pid(const char *cg, int depth)
{
	const char *mnt;
	char path[4096];
	_cleanup_fclose_ FILE *f = NULL;
	long long pid, best = 0;
	size_t hidden = 0;
	DIR *dir;
	struct dirent *de;

	if (cgroup_mount(&mnt) < 0)
		return 0;
	/*
	 * No process in it or below it: one read of cgroup.events, where cgroup.procs and a walk
	 * of its sub-cgroups cost the 30-second refresh most of krsid's idle CPU at 16,384
	 * registered cgroups without processes.
	 */
	if (cgroup_populated(cg) == 0)
		return 0;
	snprintf(path, sizeof(path), "%s%s/cgroup.procs", mnt, cg);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (fscanf(f, "%lld", &pid) == 1) {
		if (pid > 0 && (!best || pid < best))
			best = pid;
		hidden += pid == 0;
	}
	/* In a pod's own PID namespace cgroup.procs shows the host's processes as pid 0. */
	if (!best && hidden)
		return cgroup_scan_pid(cg);
	if (best || depth <= 0)
		return best;
	snprintf(path, sizeof(path), "%s%s", mnt, cg);
	dir = opendir(path);
	if (!dir)
		return 0;
	while (!best && (de = readdir(dir))) {
		char sub[KRSI_CGROUP_PATH_MAX * 2];

		if (de->d_type != DT_DIR || de->d_name[0] == '.')
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", strcmp(cg, "/") ? cg : "", de->d_name);
		best = cgroup_some_pid(sub, depth - 1);
	}
	closedir(dir);
	return best;
}

/*
 * Container E's views under SLOT: its rootfs as its bundle names it, and the root of process
 * E->pid once it runs. STRICT (a registration): a rootfs that cannot be read is an error;
 * otherwise (a refresh) the old view stays. LIVE_ONLY: the live view alone (the container has
 * just armed; its bundle view was resolved when it registered, moments before).
 */
int ids_container(struct krsid *d, const struct registry_entry *e, const struct profile *p,
		  uint32_t slot, bool strict, bool live_only, struct krsi_err *err)
{
	struct identity_root root;
	struct krsi_err lerr;
	char where[KRSI_ROOTFS_MAX + 32];
	/*
	 * Only mounts make a root block a resolution (an automount, FUSE, a network file system;
	 * a FIFO, a symlink chain or a big directory do not, with O_PATH and the kernel's limits).
	 * A container registered before its first instruction whose profile denies mount has
	 * only the runtime's; any other may have made its own: resolved by a child.
	 */
	bool isolate = !e->from_start || !p->mount;
	int r;

	if (e->rootfs[0] && !live_only) {
		r = identity_root_open_path(e->rootfs, &root, strict ? err : &lerr);
		if (r < 0 && strict)
			return err_set(err, r, "container %s: rootfs %s: %s", e->container, e->rootfs,
				       strerror(-r));
		if (r == 0) {
			snprintf(where, sizeof(where), "rootfs %s", e->rootfs);
			r = ids_view(d, p, slot, e->container, IDENTITY_BUNDLE, &root, where, isolate,
				     err);
			identity_root_close(&root);
			if (r < 0)
				return r;
		}
	}
	if (e->pid > 0 && identity_root_open_pid(e->pid, &root, &lerr) == 0) {
		snprintf(where, sizeof(where), "the root of pid %lld", (long long)e->pid);
		r = ids_view(d, p, slot, e->container, IDENTITY_LIVE, &root, where, isolate, err);
		identity_root_close(&root);
		if (r < 0)
			return r;
	}
	return 0;
}

/*
 * After ids_container() of E returned R: a root that did not answer is not asked again for a
 * while (4 refresh intervals, at least 4 s, doubling up to 30 minutes), so that it costs the
 * main loop one deadline now and then, not one every refresh; one that answered is asked again
 * at every refresh.
 */
void ids_container_result(struct krsid *d, struct registry_entry *e, int r)
{
	if (r != -ETIMEDOUT) {
		e->resolve_backoff_s = 0;
		e->resolve_retry_ns = 0;
		return;
	}
	if (!e->resolve_backoff_s)
		e->resolve_backoff_s = d->refresh_s * 4 > 4 ? d->refresh_s * 4 : 4;
	else if (e->resolve_backoff_s < 1800)
		e->resolve_backoff_s = e->resolve_backoff_s * 2 < 1800 ? e->resolve_backoff_s * 2 : 1800;
	e->resolve_retry_ns = now_ns(CLOCK_MONOTONIC) + e->resolve_backoff_s * 1000000000ULL;
}

/* Drop container C's views under every slot but KEEP (-1: all). */
void ids_container_drop(struct krsid *d, const char *c, int64_t keep)
{
	identity_view_drop(&d->ids, c, IDENTITY_BUNDLE, keep);
	identity_view_drop(&d->ids, c, IDENTITY_LIVE, keep);
}

/*
 * The views of profile P under SLOT, before a policy naming SLOT is published: the host's and
 * those of every container registered under P.
 */
int ids_profile(struct krsid *d, const struct profile *p, uint32_t slot, struct krsi_err *err)
{
	int r = ids_host(d, p, slot, err);

	for (size_t i = 0; r == 0 && i < d->reg.n; i++) {
		struct krsi_err cerr = { "" };
		int cr;

		if (strcmp(d->reg.v[i]->profile, p->name))
			continue;
		/* A container's root that does not answer delays no profile change. */
		cr = ids_container(d, d->reg.v[i], p, slot, false, false, &cerr);
		ids_container_result(d, d->reg.v[i], cr);
		if (cr == -ETIMEDOUT)
			log_info("container %s: %s; what its views held carries over",
				 d->reg.v[i]->container, cerr.msg);
		else if (cr < 0)
			r = err_set(err, cr, "%s", cerr.msg);
	}
	return r;
}

static bool cgroup_armed(struct krsid *d, uint64_t cgroup_id)
{
	struct krsi_cgroup cg = { 0 };

	return map_lookup(d->obj.maps.cgroups, &cgroup_id, &cg) == 0 &&
	       cg.flags & KRSI_CG_ARMED;
}

/*
 * Resolve every view again: files replaced at a rule's path, inode numbers freed and reused,
 * a live root's pid that exited (another process of the cgroup takes over).
 */
void ids_refresh(struct krsid *d)
{
	struct krsi_err err = { "" };
	size_t keys = d->ids.n_refs;

	for (size_t i = 0; i < d->n_prof; i++)
		if (d->prof[i].p && ids_host(d, d->prof[i].p, d->prof[i].slot, &err) < 0)
			log_info("profile %s: %s", d->prof[i].name, err.msg);
	for (size_t i = 0; i < d->reg.n; i++) {
		struct registry_entry *e = d->reg.v[i];
		struct installed *ip = prof_find(d, e->profile);
		char live[320];

		int r;

		if (!ip || !ip->p)
			continue;
		if (e->resolve_retry_ns && now_ns(CLOCK_MONOTONIC) < e->resolve_retry_ns)
			continue; /* its root did not answer last time: its views stay as they are */
		snprintf(live, sizeof(live), "%s/%lld/root", host_proc(), (long long)e->pid);
		if (cgroup_armed(d, e->cgroup_id) && (e->pid <= 0 || access(live, F_OK) < 0))
			e->pid = cgroup_some_pid(e->cgroup, 3);
		r = ids_container(d, e, ip->p, ip->slot, false, false, &err);
		ids_container_result(d, e, r);
		if (r == -ETIMEDOUT)
			log_info("container %s: %s; its file identities stay as they were, next try "
				 "in %u s", e->container, err.msg, e->resolve_backoff_s);
		else if (r < 0)
			log_info("container %s: %s", e->container, err.msg);
	}
	d->refreshed_ns = now_ns(CLOCK_MONOTONIC);
	d->n.refreshes++;
	log_debug("file identities refreshed: %zu keys (%zu before)", d->ids.n_refs, keys);
}

/*
 * After a restart: the views are resolved again, then the keys in the map that no view holds
 * are adopted under their slot when a profile uses it (a file renamed away from its rule's
 * path before the restart stays denied until that profile changes), and deleted otherwise.
 */
void ids_sweep(struct krsid *d)
{
	_cleanup_free_ struct krsi_inode_key *extra = NULL;
	struct krsi_inode_key next, prev;
	size_t n = 0, cap = 0, adopted = 0, deleted = 0;

	map_for_each_key(d->obj.maps.inode_rules, next, prev) {
		if (!identity_has(&d->ids, &next)) {
			if (n == cap) {
				size_t c = cap ? 2 * cap : 256;
				struct krsi_inode_key *v = realloc(extra, c * sizeof(*v));

				if (!v)
					break;
				extra = v;
				cap = c;
			}
			extra[n++] = next;
		}
	}
	for (size_t i = 0; i < d->n_prof; i++) {
		struct krsi_inode_key *keys = calloc(n + 1, sizeof(*keys));
		struct krsi_err err = { "" };
		size_t k = 0;

		if (!keys)
			return;
		for (size_t j = 0; j < n; j++)
			if (extra[j].slot == d->prof[i].slot)
				keys[k++] = extra[j];
		if (!k) {
			free(keys);
			continue;
		}
		if (identity_view_set(&d->ids, "restart:adopted", IDENTITY_HOST, d->prof[i].slot, keys, NULL,
				      k, &err) < 0)
			log_info("profile %s: %s", d->prof[i].name, err.msg);
		else
			adopted += k;
	}
	for (size_t j = 0; j < n; j++)
		if (!identity_has(&d->ids, &extra[j]) &&
		    map_delete(d->obj.maps.inode_rules, &extra[j]) == 0) {
			ifl_del(d, &extra[j]);
			deleted++;
		}
	if (adopted || deleted)
		log_info("file identities from before the restart: %zu kept, %zu deleted", adopted,
			 deleted);
}
