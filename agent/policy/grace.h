/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Profile ids, rule slots and entries of the policies array (bpf/krsi.h), and their grace
 * periods. A profile's version is staged under a fresh slot and a free policies entry, then
 * published; the slot and entry it replaces, and the id of a profile that is gone, are
 * retired: a program that looked them up just before may still be reading them, so none is
 * reused, and the slot's rules are not deleted, before GRACE_NS has passed.
 *
 * Pure state: krsid (daemon/slots.c) deletes the rules of a due slot and zeroes a due entry
 * in the maps, then calls grace_release().
 */
#ifndef KRSI_GRACE_H
#define KRSI_GRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bpf/krsi.h"

struct retired {
	uint32_t slot, pidx, id; /* slot 0, pidx 0: none */
	bool free_id;		 /* the profile is gone: ID is free after the grace period */
	uint64_t at_ns;		 /* when it was retired (CLOCK_MONOTONIC) */
};

struct grace {
	uint64_t id_used[KRSI_MAX_PROFILES / 64];   /* installed, staged or retiring */
	uint64_t pidx_used[KRSI_POLICY_SLOTS / 64]; /* the same, for entries of policies */
	uint32_t next_slot;			    /* slots are never reused: 1, 2, ... */
	struct retired *retired;
	size_t n_retired;
	uint64_t grace_ns;
};

/* The lowest free profile id (from 0) or policies entry (from 1, 0 is "none"), now taken;
 * -1 when every one is taken. */
int64_t grace_take_id(struct grace *g);
int64_t grace_take_pidx(struct grace *g);
/* Mark ID or PIDX taken (ON) or free: a staging undone, or a restart reading the maps. */
void grace_mark_id(struct grace *g, uint32_t id, bool on);
void grace_mark_pidx(struct grace *g, uint32_t pidx, bool on);
bool grace_pidx_taken(const struct grace *g, uint32_t pidx);
/* A fresh slot, never handed out before (slot 0 marks a free policies entry). */
uint32_t grace_new_slot(struct grace *g);

/*
 * What staging a profile's new version takes: its id (OLD_ID, the installed version's, or a
 * free one when OLD_ID is -1: FRESH_ID), a free policies entry and a fresh slot. All or
 * nothing: -EBUSY names in *RET_WHAT the one that ran out ("profile id", "policy entry"),
 * and nothing is taken.
 */
struct grace_stage {
	uint32_t id, pidx, slot;
	bool fresh_id;
};
int grace_stage_take(struct grace *g, int64_t old_id, struct grace_stage *ret,
		     const char **ret_what);
/* Give back what grace_stage_take() took, when the version is not published (the slot is
 * never handed out again: nothing is under it once the caller deleted its rules). */
void grace_stage_untake(struct grace *g, const struct grace_stage *st);

/* Start the grace period of SLOT and entry PIDX (0: none) and, FREE_ID, of ID, at NOW.
 * 0 or -ENOMEM (then nothing is retired: the rules stay and the ids stay taken). */
int grace_retire(struct grace *g, uint32_t slot, uint32_t pidx, uint32_t id, bool free_id,
		 uint64_t now);
/* R's grace period is over at NOW (or FORCE: any retired one). */
bool grace_is_due(const struct grace *g, const struct retired *r, bool force, uint64_t now);
/* SLOT is retired and due. */
bool grace_slot_due(const struct grace *g, uint32_t slot, bool force, uint64_t now);
/* Some retired slot is due. */
bool grace_any_due(const struct grace *g, bool force, uint64_t now);

/*
 * Forget every due retirement, calling RELEASE(CTX, r) for each first: it returns whether
 * R's policies entry was zeroed in the map, and only then is the entry free again (an entry
 * that could not be zeroed stays taken: a restarted agent would read it as in use). A freed
 * id is free again. Returns how many were released.
 */
size_t grace_release(struct grace *g, bool force, uint64_t now,
		     bool (*release)(void *ctx, const struct retired *r), void *ctx);

void grace_free(struct grace *g);

#endif /* KRSI_GRACE_H */
