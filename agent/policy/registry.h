/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The registry: which container runs in which cgroup under which profile. Pure logic; the
 * daemon mirrors every change into the pinned cgroups and registry maps.
 *
 * Sized for 10,000 containers and more: an entry holds its strings at their exact size, not in
 * the pinned map's fixed fields, and two hash indices find it by container id and by cgroup id
 * in O(1), so that a registration costs the same at the ten-thousandth container as at the
 * first.
 */
#ifndef KRSI_REGISTRY_H
#define KRSI_REGISTRY_H

#include <stdint.h>

#include "bpf/krsi.h"
#include "lib/util.h"

/*
 * A registered container. An entry the registry holds owns its strings: read them, never
 * write through them; registry_entry_set_rootfs() and registry_set_profile() change them. An
 * entry passed to registry_add() only describes one: its strings are the caller's, copied.
 */
struct registry_entry {
	const char *container; /* the two keys: fixed for the entry's life, stored with it */
	const char *cgroup;    /* relative to the cgroup2 mount, "/a/b" */
	const char *profile;   /* interned: the registry holds one copy of each profile name */
	const char *rootfs;    /* from the bundle, where file identities are resolved; "" if none */
	uint64_t cgroup_id;
	uint64_t registered_ns;
	int64_t pid; /* the process whose root the live identity view is resolved in (0: none) */
	uint64_t learn_until_ns; /* CLOCK_MONOTONIC end of learning (KRSI_CG_LEARN), or 0 */
	/* Its root did not answer in time: no refresh of its views before this (CLOCK_MONOTONIC). */
	uint64_t resolve_retry_ns;
	uint32_t resolve_backoff_s; /* the wait after the last time out, doubled at each */
	/*
	 * Registered before its first instruction (until_exec: the OCI hook): every mount in its
	 * roots is the runtime's, until its profile lets it mount. Else it ran unconfined first.
	 */
	bool from_start;
	uint32_t level;		 /* depth of cgroup: set by registry_add() */
	uint32_t pos;		 /* its index in registry.v: set by the registry */
};

/* A profile name and the number of entries under it. */
struct registry_name {
	char *name;
	size_t users;
};

/*
 * Iterate with: for (size_t i = 0; i < r->n; i++) { struct registry_entry *e = r->v[i]; ... }.
 * Each entry is allocated on its own: a pointer to it stays valid until that entry is removed,
 * whatever else is added or removed. Removing an entry moves the last one into its place in V.
 * A zeroed struct registry is an empty registry; registry_clear() frees it all.
 */
struct registry {
	struct registry_entry **v;
	size_t n, cap;
	/* Open addressing, linear probing, at most 3/4 full: slots are entries or NULL. */
	struct registry_entry **by_container, **by_cgroup;
	size_t index_size; /* slots in each index: 0 or a power of two */
	struct registry_name *names;
	size_t n_names, cap_names;
	uint32_t levels[KRSI_MAX_LEVELS]; /* entries at each cgroup depth */
};

/*
 * Add a copy of E (its container, cgroup, profile and rootfs; a NULL rootfs is ""). Registering
 * a container again with the same cgroup changes its profile and rootfs and returns 1; another
 * cgroup for a known container, or a cgroup that another container holds, is -EEXIST; a cgroup
 * deeper than KRSI_MAX_LEVELS - 1 is -E2BIG; more than KRSI_MAX_CGROUPS entries is -ENOSPC; a
 * string longer than its KRSI_*_MAX allows is -ENAMETOOLONG. On error nothing has changed.
 */
int registry_add(struct registry *r, const struct registry_entry *e, struct krsi_err *err);
/* Remove CONTAINER's entry (CONTAINER may be that entry's own string); -ENOENT if none. */
int registry_remove(struct registry *r, const char *container);
struct registry_entry *registry_find(struct registry *r, const char *container);
struct registry_entry *registry_find_cgroup(struct registry *r, uint64_t cgroup_id);
/* Replace the strings of E, an entry R holds; on error E is unchanged. */
int registry_entry_set_rootfs(struct registry_entry *e, const char *rootfs, struct krsi_err *err);
int registry_set_profile(struct registry *r, struct registry_entry *e, const char *profile,
			 struct krsi_err *err);
size_t registry_count_profile(const struct registry *r, const char *profile);
/* Bit L set when an entry sits at depth L (the BPF programs' krsi_config.level_mask). */
uint64_t registry_level_mask(const struct registry *r);
/*
 * The heap R holds, in bytes: entries, strings, the array and the indices, each allocation
 * counted with what malloc adds to it. O(n): for tests and status, not for every request.
 */
size_t registry_bytes(const struct registry *r);
void registry_clear(struct registry *r);

/* Depth of a cgroup path: "/" is 0, "/a" 1, "/a/b" 2. */
uint32_t registry_cgroup_level(const char *path);

#endif
