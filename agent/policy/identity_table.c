// SPDX-License-Identifier: GPL-2.0
/*
 * The refcounted table of identity views (identity.h): which owner (a profile on the host, a
 * container) holds which inode keys under which slot, and how many views hold each key, so
 * that a key is written to inode_rules once and deleted after its last view goes. Pure: the
 * table calls its write function for the map.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "policy/identity.h"

static uint64_t key_hash(const struct krsi_inode_key *k)
{
	uint64_t h = k->ino * 0x9e3779b97f4a7c15ULL;

	h ^= (k->dev + ((uint64_t)k->slot << 32 | k->kind)) * 0xc2b2ae3d27d4eb4fULL;
	return h ^ h >> 29;
}

static bool key_eq(const struct krsi_inode_key *a, const struct krsi_inode_key *b)
{
	return a->slot == b->slot && a->kind == b->kind && a->dev == b->dev && a->ino == b->ino;
}

static bool ref_is_tombstone(const struct identity_ref *r)
{
	return !r->refs && (r->key.kind || r->key.ino || r->key.dev || r->key.slot);
}

static struct identity_ref *ref_find(const struct identity_table *t, const struct krsi_inode_key *k)
{
	if (!t->cap_refs)
		return NULL;
	for (size_t i = key_hash(k) & (t->cap_refs - 1);; i = (i + 1) & (t->cap_refs - 1)) {
		struct identity_ref *r = &t->refs[i];

		if (!r->refs && !ref_is_tombstone(r))
			return NULL; /* never used: the end of the probe sequence */
		if (r->refs && key_eq(&r->key, k))
			return r;
	}
}

/* Rebuild the buckets into CAP ones, leaving the tombstones (freed buckets) behind. */
static int refs_rebuild(struct identity_table *t, size_t cap)
{
	struct identity_ref *old = t->refs, *v = calloc(cap, sizeof(*v));

	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < t->cap_refs; i++) {
		size_t j;

		if (!old[i].refs)
			continue;
		for (j = key_hash(&old[i].key) & (cap - 1); v[j].refs; j = (j + 1) & (cap - 1))
			;
		v[j] = old[i];
	}
	free(old);
	t->refs = v;
	t->cap_refs = cap;
	t->n_used = t->n_refs;
	return 0;
}

/* Take a reference; 1 when the key is new (to be written), 0 when it was held, or -ENOMEM. */
static int ref_get(struct identity_table *t, const struct krsi_inode_key *k)
{
	struct identity_ref *r = ref_find(t, k);
	size_t i;

	if (r) {
		r->refs++;
		return 0;
	}
	/* At most half the buckets used (keys and tombstones): every probe ends. */
	if ((t->n_used + 1) * 2 > t->cap_refs) {
		size_t cap = t->cap_refs ? t->cap_refs : 1024;

		while ((t->n_refs + 1) * 4 > cap)
			cap *= 2;
		if (refs_rebuild(t, cap) < 0)
			return -ENOMEM;
	}
	for (i = key_hash(k) & (t->cap_refs - 1); t->refs[i].refs; i = (i + 1) & (t->cap_refs - 1))
		;
	if (!ref_is_tombstone(&t->refs[i]))
		t->n_used++;
	t->refs[i].key = *k;
	t->refs[i].refs = 1;
	t->n_refs++;
	return 1;
}

/* Drop a reference; 1 when it was the last (the key is to be deleted). */
static int ref_put(struct identity_table *t, const struct krsi_inode_key *k)
{
	struct identity_ref *r = ref_find(t, k);

	if (!r)
		return 0;
	if (--r->refs)
		return 0;
	t->n_refs--; /* the key stays in the bucket as a tombstone */
	return 1;
}

static void keys_put(struct identity_table *t, const struct krsi_inode_key *keys, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (ref_put(t, &keys[i]) == 1)
			t->write(t->ctx, &keys[i], false);
}

static struct identity_view *view_find(const struct identity_table *t, const char *owner,
				       enum identity_source source, uint32_t slot)
{
	for (size_t i = 0; i < t->n_views; i++)
		if (t->views[i].source == source && t->views[i].slot == slot &&
		    !strcmp(t->views[i].owner, owner))
			return &t->views[i];
	return NULL;
}

const struct identity_view *identity_view_find(const struct identity_table *t, const char *owner,
					       enum identity_source source, uint32_t slot)
{
	return view_find(t, owner, source, slot);
}

int identity_view_set(struct identity_table *t, const char *owner, enum identity_source source,
		      uint32_t slot, struct krsi_inode_key *keys, struct identity_hold *holds,
		      size_t n, struct krsi_err *err)
{
	struct identity_view *v = view_find(t, owner, source, slot);
	size_t done;
	int r = 0;

	if (!v) {
		struct identity_view *nv = realloc(t->views, (t->n_views + 1) * sizeof(*nv));

		if (!nv) {
			free(keys);
			free(holds);
			return err_set(err, -ENOMEM, "out of memory");
		}
		t->views = nv;
		v = &t->views[t->n_views];
		memset(v, 0, sizeof(*v));
		snprintf(v->owner, sizeof(v->owner), "%s", owner);
		v->source = source;
		v->slot = slot;
	}
	for (done = 0; done < n; done++) {
		r = ref_get(t, &keys[done]);
		if (r < 0) {
			err_set(err, r, "file identities: out of memory");
			break;
		}
		if (r == 1) {
			r = t->write(t->ctx, &keys[done], true);
			if (r < 0) {
				ref_put(t, &keys[done]);
				if (r == -E2BIG || r == -ENOMEM || r == -ENOSPC)
					err_set(err, r, "file identities: the inode_rules map is full "
							"(%d entries, KRSI_MAX_INODE_RULES)",
						KRSI_MAX_INODE_RULES);
				else
					err_set(err, r, "file identities: writing the inode_rules "
							"map: %s", strerror(-r));
				break;
			}
		}
		r = 0;
	}
	if (r < 0) {
		keys_put(t, keys, done); /* take back what this call wrote */
		free(keys); /* a new view was never counted in n_views */
		free(holds);
		return r;
	}
	if (v == &t->views[t->n_views])
		t->n_views++;
	keys_put(t, v->keys, v->n); /* the old keys, after the new ones are in */
	free(v->keys);
	free(v->holds);
	v->keys = keys;
	v->holds = holds;
	v->n = n;
	return 0;
}

static void view_remove(struct identity_table *t, size_t i)
{
	keys_put(t, t->views[i].keys, t->views[i].n);
	free(t->views[i].keys);
	free(t->views[i].holds);
	t->views[i] = t->views[--t->n_views];
}

void identity_view_drop(struct identity_table *t, const char *owner, int source, int64_t keep_slot)
{
	for (size_t i = 0; i < t->n_views;) {
		struct identity_view *v = &t->views[i];

		if (!strcmp(v->owner, owner) && (source < 0 || (int)v->source == source) &&
		    (keep_slot < 0 || v->slot != (uint32_t)keep_slot)) {
			view_remove(t, i);
			continue;
		}
		i++;
	}
}

void identity_view_drop_one(struct identity_table *t, const char *owner,
			    enum identity_source source, uint32_t slot)
{
	struct identity_view *v = view_find(t, owner, source, slot);

	if (v)
		view_remove(t, v - t->views);
}

void identity_drop_slot(struct identity_table *t, uint32_t slot)
{
	for (size_t i = 0; i < t->n_views;) {
		if (t->views[i].slot == slot) {
			view_remove(t, i);
			continue;
		}
		i++;
	}
}

bool identity_has(const struct identity_table *t, const struct krsi_inode_key *key)
{
	return ref_find(t, key) != NULL;
}

void identity_table_clear(struct identity_table *t)
{
	for (size_t i = 0; i < t->n_views; i++) {
		free(t->views[i].keys);
		free(t->views[i].holds);
	}
	free(t->views);
	free(t->refs);
	t->views = NULL;
	t->refs = NULL;
	t->n_views = t->n_refs = t->n_used = t->cap_refs = 0;
}
