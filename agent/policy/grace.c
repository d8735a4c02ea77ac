// SPDX-License-Identifier: GPL-2.0
/* Profile ids, rule slots and policies entries, and their grace periods (grace.h). */
#include <errno.h>
#include <stdlib.h>

#include "policy/grace.h"

/* The lowest clear bit of the N in W from FIRST on, now set; -1 when every one is set. */
static int64_t bit_take(uint64_t *w, uint32_t n, uint32_t first)
{
	for (uint32_t i = first; i < n; i++)
		if (!(w[i / 64] & (1ULL << (i % 64)))) {
			w[i / 64] |= 1ULL << (i % 64);
			return i;
		}
	return -1;
}

static void bit_put(uint64_t *w, uint32_t i, bool on)
{
	if (on)
		w[i / 64] |= 1ULL << (i % 64);
	else
		w[i / 64] &= ~(1ULL << (i % 64));
}

int64_t grace_take_id(struct grace *g)
{
	return bit_take(g->id_used, KRSI_MAX_PROFILES, 0);
}

int64_t grace_take_pidx(struct grace *g)
{
	return bit_take(g->pidx_used, KRSI_POLICY_SLOTS, 1);
}

void grace_mark_id(struct grace *g, uint32_t id, bool on)
{
	if (id < KRSI_MAX_PROFILES)
		bit_put(g->id_used, id, on);
}

void grace_mark_pidx(struct grace *g, uint32_t pidx, bool on)
{
	if (pidx < KRSI_POLICY_SLOTS)
		bit_put(g->pidx_used, pidx, on);
}

bool grace_pidx_taken(const struct grace *g, uint32_t pidx)
{
	return pidx < KRSI_POLICY_SLOTS && (g->pidx_used[pidx / 64] & (1ULL << (pidx % 64)));
}

uint32_t grace_new_slot(struct grace *g)
{
	if (!g->next_slot)
		g->next_slot = 1;
	return g->next_slot++;
}

int grace_stage_take(struct grace *g, int64_t old_id, struct grace_stage *ret,
		     const char **ret_what)
{
	int64_t id = old_id >= 0 ? old_id : grace_take_id(g);
	int64_t pidx = grace_take_pidx(g);

	if (id < 0 || pidx < 0) {
		if (pidx >= 0)
			grace_mark_pidx(g, (uint32_t)pidx, false);
		if (id >= 0 && old_id < 0)
			grace_mark_id(g, (uint32_t)id, false);
		*ret_what = id < 0 ? "profile id" : "policy entry";
		return -EBUSY;
	}
	*ret = (struct grace_stage){ (uint32_t)id, (uint32_t)pidx, grace_new_slot(g), old_id < 0 };
	return 0;
}

void grace_stage_untake(struct grace *g, const struct grace_stage *st)
{
	grace_mark_pidx(g, st->pidx, false);
	if (st->fresh_id)
		grace_mark_id(g, st->id, false);
}

int grace_retire(struct grace *g, uint32_t slot, uint32_t pidx, uint32_t id, bool free_id,
		 uint64_t now)
{
	struct retired *v = realloc(g->retired, (g->n_retired + 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	g->retired = v;
	g->retired[g->n_retired++] = (struct retired){ slot, pidx, id, free_id, now };
	return 0;
}

bool grace_is_due(const struct grace *g, const struct retired *r, bool force, uint64_t now)
{
	return force || now - r->at_ns >= g->grace_ns;
}

bool grace_slot_due(const struct grace *g, uint32_t slot, bool force, uint64_t now)
{
	for (size_t i = 0; i < g->n_retired; i++)
		if (g->retired[i].slot == slot && grace_is_due(g, &g->retired[i], force, now))
			return true;
	return false;
}

bool grace_any_due(const struct grace *g, bool force, uint64_t now)
{
	for (size_t i = 0; i < g->n_retired; i++)
		if (grace_is_due(g, &g->retired[i], force, now))
			return true;
	return false;
}

size_t grace_release(struct grace *g, bool force, uint64_t now,
		     bool (*release)(void *ctx, const struct retired *r), void *ctx)
{
	size_t kept = 0, released = 0;

	for (size_t i = 0; i < g->n_retired; i++) {
		const struct retired *r = &g->retired[i];

		if (!grace_is_due(g, r, force, now)) {
			g->retired[kept++] = *r;
			continue;
		}
		if (r->pidx && release(ctx, r))
			grace_mark_pidx(g, r->pidx, false);
		if (r->free_id)
			grace_mark_id(g, r->id, false);
		released++;
	}
	g->n_retired = kept;
	return released;
}

void grace_free(struct grace *g)
{
	free(g->retired);
	g->retired = NULL;
	g->n_retired = 0;
}
