// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <string.h>

#include "registry.h"

struct registry_entry *registry_find(struct registry *r, const char *container)
{
	for (size_t i = 0; i < r->n; i++)
		if (!strcmp(r->v[i].container, container))
			return &r->v[i];
	return NULL;
}

struct registry_entry *registry_find_cgroup(struct registry *r, uint64_t cgroup_id)
{
	for (size_t i = 0; i < r->n; i++)
		if (r->v[i].cgroup_id == cgroup_id)
			return &r->v[i];
	return NULL;
}

int registry_add(struct registry *r, const struct registry_entry *e, struct krsi_err *err)
{
	struct registry_entry *old = registry_find(r, e->container);
	struct registry_entry *other = registry_find_cgroup(r, e->cgroup_id);

	if (old && old->cgroup_id != e->cgroup_id)
		return err_set(err, -EEXIST, "container %s: already registered with cgroup %s",
			       e->container, old->cgroup);
	if (!old && other)
		return err_set(err, -EEXIST, "cgroup %s: already registered for container %s",
			       e->cgroup, other->container);
	if (registry_cgroup_level(e->cgroup) >= KRSI_MAX_LEVELS)
		return err_set(err, -E2BIG, "cgroup %s: deeper than the %d levels krsi tracks",
			       e->cgroup, KRSI_MAX_LEVELS - 1);
	if (old) {
		snprintf(old->profile, sizeof(old->profile), "%s", e->profile);
		return 1;
	}
	if (r->n >= KRSI_MAX_CGROUPS)
		return err_set(err, -ENOSPC, "container %s: registry full (%d entries)", e->container,
			       KRSI_MAX_CGROUPS);
	if (r->n == r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 16;
		struct registry_entry *v = realloc(r->v, cap * sizeof(*v));

		if (!v)
			return err_set(err, -ENOMEM, "out of memory");
		r->v = v;
		r->cap = cap;
	}
	r->v[r->n] = *e;
	r->v[r->n].level = registry_cgroup_level(e->cgroup);
	r->n++;
	return 0;
}

int registry_remove(struct registry *r, const char *container)
{
	struct registry_entry *e = registry_find(r, container);

	if (!e)
		return -ENOENT;
	*e = r->v[--r->n];
	return 0;
}

size_t registry_count_profile(const struct registry *r, const char *profile)
{
	size_t n = 0;

	for (size_t i = 0; i < r->n; i++)
		n += !strcmp(r->v[i].profile, profile);
	return n;
}

uint64_t registry_level_mask(const struct registry *r)
{
	uint64_t mask = 0;

	for (size_t i = 0; i < r->n; i++)
		if (r->v[i].level < KRSI_MAX_LEVELS)
			mask |= 1ULL << r->v[i].level;
	return mask;
}

void registry_clear(struct registry *r)
{
	free(r->v);
	r->v = NULL;
	r->n = r->cap = 0;
}

uint32_t registry_cgroup_level(const char *path)
{
	uint32_t level = 0;

	for (const char *p = path; *p; p++)
		if (*p == '/' && p[1] && p[1] != '/')
			level++;
	return level;
}
