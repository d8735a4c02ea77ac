/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The registry: which container runs in which cgroup under which profile. Pure logic; the
 * daemon mirrors every change into the pinned cgroups and registry maps.
 */
#ifndef KRSI_REGISTRY_H
#define KRSI_REGISTRY_H

#include <stdint.h>

#include "../bpf/krsi.h"
#include "util.h"

struct registry_entry {
	char container[KRSI_CONTAINER_MAX];
	char profile[KRSI_NAME_MAX];
	char cgroup[KRSI_CGROUP_PATH_MAX];
	char rootfs[KRSI_ROOTFS_MAX]; /* from the bundle, where file identities are resolved */
	uint64_t cgroup_id;
	uint64_t registered_ns;
	uint32_t level;
	int64_t pid; /* the process whose root the live identity view is resolved in (0: none) */
	uint64_t learn_until_ns; /* CLOCK_MONOTONIC end of learning (KRSI_CG_LEARN), or 0 */
};

struct registry {
	struct registry_entry *v;
	size_t n, cap;
};

/*
 * Add E. Registering a container again with the same cgroup changes its profile and returns
 * 1; another cgroup for a known container, or a cgroup that another container holds, is
 * -EEXIST; more than KRSI_MAX_CGROUPS entries is -ENOSPC.
 */
int registry_add(struct registry *r, const struct registry_entry *e, struct krsi_err *err);
int registry_remove(struct registry *r, const char *container);
struct registry_entry *registry_find(struct registry *r, const char *container);
struct registry_entry *registry_find_cgroup(struct registry *r, uint64_t cgroup_id);
size_t registry_count_profile(const struct registry *r, const char *profile);
/* Bit L set when an entry sits at depth L (the BPF programs' krsi_config.level_mask). */
uint64_t registry_level_mask(const struct registry *r);
void registry_clear(struct registry *r);

/* Depth of a cgroup path: "/" is 0, "/a" 1, "/a/b" 2. */
uint32_t registry_cgroup_level(const char *path);

#endif
