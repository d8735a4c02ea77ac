// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <string.h>

#include "policy/registry.h"

/* What glibc's malloc adds to an allocation, about: its size word and rounding up to 16. */
#define MALLOC_OVERHEAD 16
#define INDEX_MIN 16

/* An entry without a rootfs points here: nothing is allocated for "". */
static const char no_rootfs[] = "";

/* splitmix64's finalizer: every bit of the key reaches the low bits that pick a slot. */
static uint64_t mix64(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

static uint64_t hash_container(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL; /* FNV-1a */

	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 0x100000001b3ULL;
	}
	return mix64(h);
}

static size_t slot_of(const struct registry_entry *e, bool by_cgroup, size_t mask)
{
	return (by_cgroup ? mix64(e->cgroup_id) : hash_container(e->container)) & mask;
}

static void index_put(struct registry_entry **t, size_t mask, struct registry_entry *e,
		      bool by_cgroup)
{
	size_t i = slot_of(e, by_cgroup, mask);

	while (t[i])
		i = (i + 1) & mask;
	t[i] = e;
}

/*
 * Take E out of index T by shifting back the entries that follow it in its probe sequence:
 * no tombstones, so lookups do not slow down as containers come and go.
 */
static void index_del(struct registry_entry **t, size_t mask, const struct registry_entry *e,
		      bool by_cgroup)
{
	size_t i = slot_of(e, by_cgroup, mask);

	while (t[i] != e)
		i = (i + 1) & mask;
	for (size_t j = (i + 1) & mask; t[j]; j = (j + 1) & mask) {
		size_t home = slot_of(t[j], by_cgroup, mask);

		/* T[j] may fill the hole at I unless its home lies in (I, J], cyclically. */
		if (((j - home) & mask) >= ((j - i) & mask)) {
			t[i] = t[j];
			i = j;
		}
	}
	t[i] = NULL;
}

/* Room in both indices for N entries, at most 3/4 full so that probe sequences stay short. */
static int index_reserve(struct registry *r, size_t n)
{
	size_t size = r->index_size ? r->index_size : INDEX_MIN;
	struct registry_entry **a, **b;

	while (n * 4 > size * 3)
		size *= 2;
	if (size == r->index_size)
		return 0;
	a = calloc(size, sizeof(*a));
	b = calloc(size, sizeof(*b));
	if (!a || !b) {
		free(a);
		free(b);
		return -ENOMEM;
	}
	for (size_t i = 0; i < r->n; i++) {
		index_put(a, size - 1, r->v[i], false);
		index_put(b, size - 1, r->v[i], true);
	}
	free(r->by_container);
	free(r->by_cgroup);
	r->by_container = a;
	r->by_cgroup = b;
	r->index_size = size;
	return 0;
}

struct registry_entry *registry_find(struct registry *r, const char *container)
{
	size_t mask = r->index_size - 1;

	if (!r->index_size)
		return NULL;
	for (size_t i = hash_container(container) & mask; r->by_container[i]; i = (i + 1) & mask)
		if (!strcmp(r->by_container[i]->container, container))
			return r->by_container[i];
	return NULL;
}

struct registry_entry *registry_find_cgroup(struct registry *r, uint64_t cgroup_id)
{
	size_t mask = r->index_size - 1;

	if (!r->index_size)
		return NULL;
	for (size_t i = mix64(cgroup_id) & mask; r->by_cgroup[i]; i = (i + 1) & mask)
		if (r->by_cgroup[i]->cgroup_id == cgroup_id)
			return r->by_cgroup[i];
	return NULL;
}

/*
 * Profile names, interned: thousands of containers share a few profiles. The search is linear
 * in the profiles (KRSI_MAX_PROFILES at most, whatever the number of containers), as krsid's
 * own lookup of a profile is.
 */
static struct registry_name *name_find(const struct registry *r, const char *name)
{
	for (size_t i = 0; i < r->n_names; i++)
		if (!strcmp(r->names[i].name, name))
			return &r->names[i];
	return NULL;
}

/* One more user of profile name NAME: the registry's copy of it, NULL when out of memory. */
static const char *name_get(struct registry *r, const char *name)
{
	struct registry_name *rn = name_find(r, name);
	char *s;

	if (!rn) {
		if (r->n_names == r->cap_names) {
			size_t cap = r->cap_names ? 2 * r->cap_names : 8;
			struct registry_name *v = realloc(r->names, cap * sizeof(*v));

			if (!v)
				return NULL;
			r->names = v;
			r->cap_names = cap;
		}
		s = strdup(name);
		if (!s)
			return NULL;
		rn = &r->names[r->n_names++];
		rn->name = s;
		rn->users = 0;
	}
	rn->users++;
	return rn->name;
}

/* One user less of NAME, a string name_get() returned: the last one frees it. */
static void name_put(struct registry *r, const char *name)
{
	for (size_t i = 0; i < r->n_names; i++) {
		if (r->names[i].name != name)
			continue;
		if (!--r->names[i].users) {
			free(r->names[i].name);
			r->names[i] = r->names[--r->n_names];
		}
		return;
	}
}

static const char *rootfs_dup(const char *s)
{
	return s[0] ? strdup(s) : no_rootfs;
}

static void rootfs_free(const char *s)
{
	if (s != no_rootfs)
		free((char *)s);
}

/* The limits of the pinned map's fields still bound what is accepted: its copy is whole. */
static int check_len(const char *what, const char *s, size_t max, struct krsi_err *err)
{
	size_t n = strlen(s);

	if (n < max)
		return 0;
	return err_set(err, -ENAMETOOLONG,
		       "%s %.64s...: %zu bytes long, longer than the %zu krsi keeps", what, s, n,
		       max - 1);
}

static int entry_check(const struct registry_entry *e, const char *rootfs, struct krsi_err *err)
{
	int r;

	if (!e->container || !e->cgroup || !e->profile)
		return err_set(err, -EINVAL,
			       "registry entry: without a container, cgroup or profile");
	r = check_len("container", e->container, KRSI_CONTAINER_MAX, err);
	if (r < 0)
		return r;
	r = check_len("cgroup", e->cgroup, KRSI_CGROUP_PATH_MAX, err);
	if (r < 0)
		return r;
	r = check_len("rootfs", rootfs, KRSI_ROOTFS_MAX, err);
	if (r < 0)
		return r;
	return check_len("profile", e->profile, KRSI_NAME_MAX, err);
}

int registry_entry_set_rootfs(struct registry_entry *e, const char *rootfs, struct krsi_err *err)
{
	const char *s;
	int r;

	if (!rootfs)
		rootfs = "";
	if (!strcmp(e->rootfs, rootfs)) /* ROOTFS may be E's own */
		return 0;
	r = check_len("rootfs", rootfs, KRSI_ROOTFS_MAX, err);
	if (r < 0)
		return r;
	s = rootfs_dup(rootfs);
	if (!s)
		return err_set(err, -ENOMEM, "container %s: rootfs %s: out of memory", e->container,
			       rootfs);
	rootfs_free(e->rootfs);
	e->rootfs = s;
	return 0;
}

int registry_set_profile(struct registry *r, struct registry_entry *e, const char *profile,
			 struct krsi_err *err)
{
	const char *s;
	int ret;

	if (!strcmp(e->profile, profile)) /* PROFILE may be E's own */
		return 0;
	ret = check_len("profile", profile, KRSI_NAME_MAX, err);
	if (ret < 0)
		return ret;
	s = name_get(r, profile);
	if (!s)
		return err_set(err, -ENOMEM, "container %s: profile %s: out of memory",
			       e->container, profile);
	name_put(r, e->profile);
	e->profile = s;
	return 0;
}

/* A container registered again: its new profile and rootfs, both or neither. */
static int entry_update(struct registry *r, struct registry_entry *old, const char *profile,
			const char *rootfs, struct krsi_err *err)
{
	const char *p = NULL, *s = NULL;

	if (strcmp(old->rootfs, rootfs)) {
		s = rootfs_dup(rootfs);
		if (!s)
			return err_set(err, -ENOMEM, "container %s: out of memory", old->container);
	}
	if (strcmp(old->profile, profile)) {
		p = name_get(r, profile);
		if (!p) {
			rootfs_free(s);
			return err_set(err, -ENOMEM, "container %s: out of memory", old->container);
		}
	}
	if (s) {
		rootfs_free(old->rootfs);
		old->rootfs = s;
	}
	if (p) {
		name_put(r, old->profile);
		old->profile = p;
	}
	return 1;
}

int registry_add(struct registry *r, const struct registry_entry *e, struct krsi_err *err)
{
	const char *rootfs = e->rootfs ? e->rootfs : "";
	struct registry_entry *old, *other, *n;
	size_t lc, lg;
	uint32_t level;
	char *keys;
	int ret;

	ret = entry_check(e, rootfs, err);
	if (ret < 0)
		return ret;
	old = registry_find(r, e->container);
	other = registry_find_cgroup(r, e->cgroup_id);
	if (old && old->cgroup_id != e->cgroup_id)
		return err_set(err, -EEXIST, "container %s: already registered with cgroup %s",
			       e->container, old->cgroup);
	if (!old && other)
		return err_set(err, -EEXIST, "cgroup %s: already registered for container %s",
			       e->cgroup, other->container);
	level = registry_cgroup_level(e->cgroup);
	if (level >= KRSI_MAX_LEVELS)
		return err_set(err, -E2BIG, "cgroup %s: deeper than the %d levels krsi tracks",
			       e->cgroup, KRSI_MAX_LEVELS - 1);
	if (old)
		return entry_update(r, old, e->profile, rootfs, err);
	if (r->n >= KRSI_MAX_CGROUPS)
		return err_set(err, -ENOSPC, "container %s: registry full (%d entries)",
			       e->container, KRSI_MAX_CGROUPS);
	if (r->n == r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 16;
		struct registry_entry **v = realloc(r->v, cap * sizeof(*v));

		if (!v)
			return err_set(err, -ENOMEM, "container %s: out of memory", e->container);
		r->v = v;
		r->cap = cap;
	}
	if (index_reserve(r, r->n + 1) < 0)
		return err_set(err, -ENOMEM, "container %s: out of memory", e->container);
	/* The keys never change: they live in the entry's own allocation. */
	lc = strlen(e->container) + 1;
	lg = strlen(e->cgroup) + 1;
	n = malloc(sizeof(*n) + lc + lg);
	if (!n)
		return err_set(err, -ENOMEM, "container %s: out of memory", e->container);
	*n = *e;
	keys = (char *)(n + 1);
	memcpy(keys, e->container, lc);
	memcpy(keys + lc, e->cgroup, lg);
	n->container = keys;
	n->cgroup = keys + lc;
	n->level = level;
	n->pos = r->n;
	n->rootfs = rootfs_dup(rootfs);
	n->profile = n->rootfs ? name_get(r, e->profile) : NULL;
	if (!n->profile) {
		rootfs_free(n->rootfs);
		free(n);
		return err_set(err, -ENOMEM, "container %s: out of memory", e->container);
	}
	r->v[r->n++] = n;
	index_put(r->by_container, r->index_size - 1, n, false);
	index_put(r->by_cgroup, r->index_size - 1, n, true);
	r->levels[level]++;
	return 0;
}

int registry_remove(struct registry *r, const char *container)
{
	struct registry_entry *e = registry_find(r, container), *last;

	if (!e)
		return -ENOENT;
	/* CONTAINER may be E's own string: not read from here on. */
	index_del(r->by_container, r->index_size - 1, e, false);
	index_del(r->by_cgroup, r->index_size - 1, e, true);
	r->levels[e->level]--;
	last = r->v[--r->n];
	r->v[e->pos] = last;
	last->pos = e->pos;
	name_put(r, e->profile);
	rootfs_free(e->rootfs);
	free(e);
	return 0;
}

size_t registry_count_profile(const struct registry *r, const char *profile)
{
	const struct registry_name *rn = name_find(r, profile);

	return rn ? rn->users : 0;
}

uint64_t registry_level_mask(const struct registry *r)
{
	uint64_t mask = 0;

	for (int l = 0; l < KRSI_MAX_LEVELS; l++)
		if (r->levels[l])
			mask |= 1ULL << l;
	return mask;
}

static size_t heap(size_t n)
{
	return n ? n + MALLOC_OVERHEAD : 0;
}

size_t registry_bytes(const struct registry *r)
{
	size_t b = heap(r->cap * sizeof(*r->v)) + 2 * heap(r->index_size * sizeof(*r->by_cgroup)) +
		   heap(r->cap_names * sizeof(*r->names));

	for (size_t i = 0; i < r->n_names; i++)
		b += heap(strlen(r->names[i].name) + 1);
	for (size_t i = 0; i < r->n; i++) {
		const struct registry_entry *e = r->v[i];

		b += heap(sizeof(*e) + strlen(e->container) + 1 + strlen(e->cgroup) + 1);
		if (e->rootfs != no_rootfs)
			b += heap(strlen(e->rootfs) + 1);
	}
	return b;
}

void registry_clear(struct registry *r)
{
	for (size_t i = 0; i < r->n; i++) {
		rootfs_free(r->v[i]->rootfs);
		free(r->v[i]);
	}
	for (size_t i = 0; i < r->n_names; i++)
		free(r->names[i].name);
	free(r->v);
	free(r->by_container);
	free(r->by_cgroup);
	free(r->names);
	memset(r, 0, sizeof(*r));
}

uint32_t registry_cgroup_level(const char *path)
{
	uint32_t level = 0;

	for (const char *p = path; *p; p++)
		if (*p == '/' && p[1] && p[1] != '/')
			level++;
	return level;
}
