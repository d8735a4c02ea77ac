// SPDX-License-Identifier: GPL-2.0
/*
 * policy/grace.c and policy/bitfilter.c: the state krsid mirrors into its maps, without the
 * maps. Ids, slots and policies entries are reused only after their grace period; a filter
 * bit is set while one key holds it.
 */
#include <errno.h>

#include "policy/bitfilter.h"
#include "policy/grace.h"
#include "unit.h"

#define GRACE 2000

struct released {
	uint32_t pidx[8];
	size_t n;
	bool zeroed; /* what the map write returns */
};

static bool on_release(void *ctx, const struct retired *r)
{
	struct released *rel = ctx;

	if (rel->n < 8)
		rel->pidx[rel->n++] = r->pidx;
	return rel->zeroed;
}

static void test_grace_take(void)
{
	struct grace g = { .grace_ns = GRACE };
	int64_t last = -1;
	bool all = true;

	CHECK(grace_take_id(&g) == 0, "grace: the first profile id is 0");
	CHECK(grace_take_pidx(&g) == 1, "grace: the first policies entry is 1 (0 means none)");
	CHECK(grace_new_slot(&g) == 1 && grace_new_slot(&g) == 2, "grace: slots count from 1");
	grace_mark_id(&g, 5, true);
	CHECK(grace_take_id(&g) == 1, "grace: the lowest free id is taken");
	for (uint32_t i = 2; i < KRSI_MAX_PROFILES; i++) {
		int64_t id = grace_take_id(&g);

		if (id == 5 || id < 0 || id <= last)
			all = false;
		last = id;
		if (id == KRSI_MAX_PROFILES - 1)
			break;
	}
	CHECK(all, "grace: ids are handed out in order, none twice");
	CHECK(grace_take_id(&g) == -1, "grace: every id taken: -1");
	grace_mark_id(&g, 7, false);
	CHECK(grace_take_id(&g) == 7, "grace: a freed id is taken again");
	grace_free(&g);
}

static void test_grace_periods(void)
{
	struct grace g = { .grace_ns = GRACE };
	struct released rel = { .zeroed = true };
	int64_t pidx = grace_take_pidx(&g), id = grace_take_id(&g);

	CHECK(grace_retire(&g, 3, (uint32_t)pidx, (uint32_t)id, true, 1000) == 0,
	      "grace: a removed profile's slot, entry and id are retired");
	CHECK(!grace_slot_due(&g, 3, false, 1000 + GRACE - 1), "grace: not due before its period");
	CHECK(!grace_any_due(&g, false, 1000 + GRACE - 1), "grace: nothing due before its period");
	CHECK(grace_take_id(&g) != id && grace_take_pidx(&g) != pidx,
	      "grace: a retiring id and entry are not handed out");
	CHECK(grace_slot_due(&g, 3, true, 0), "grace: FORCE makes any retired slot due");
	CHECK(!grace_slot_due(&g, 4, true, 0), "grace: a slot never retired is never due");
	CHECK(grace_release(&g, false, 1000 + GRACE - 1, on_release, &rel) == 0 && rel.n == 0,
	      "grace: release before the period releases nothing");
	CHECK(grace_slot_due(&g, 3, false, 1000 + GRACE), "grace: due once its period is over");
	CHECK(grace_release(&g, false, 1000 + GRACE, on_release, &rel) == 1 && rel.n == 1 &&
		      rel.pidx[0] == pidx && g.n_retired == 0,
	      "grace: release zeroes the entry and forgets the retirement");
	CHECK(!grace_pidx_taken(&g, (uint32_t)pidx), "grace: a zeroed entry is free again");
	CHECK(grace_take_id(&g) == id, "grace: the gone profile's id is free again");
	grace_free(&g);
}

static void test_grace_kept(void)
{
	struct grace g = { .grace_ns = GRACE };
	struct released rel = { .zeroed = false };
	int64_t pidx = grace_take_pidx(&g), id = grace_take_id(&g);

	/* A replaced version: its id stays the profile's; an entry not zeroed stays taken. */
	grace_retire(&g, 9, (uint32_t)pidx, (uint32_t)id, false, 0);
	grace_retire(&g, 10, 0, 0, false, GRACE);
	CHECK(grace_release(&g, false, GRACE, on_release, &rel) == 1 && g.n_retired == 1 &&
		      g.retired[0].slot == 10,
	      "grace: only the due retirement is released, the other kept");
	CHECK(grace_pidx_taken(&g, (uint32_t)pidx),
	      "grace: an entry the map did not zero stays taken");
	CHECK(grace_take_id(&g) != id, "grace: a replaced version's id stays its profile's");
	CHECK(grace_release(&g, true, 0, on_release, &rel) == 1 && rel.n == 1,
	      "grace: a retirement without an entry releases without a map write");
	grace_free(&g);
}

static void test_grace_stage(void)
{
	struct grace g = { .grace_ns = GRACE };
	struct grace_stage a, b, c;
	const char *what = NULL;
	int64_t id;

	CHECK(grace_stage_take(&g, -1, &a, &what) == 0 && a.fresh_id && a.id == 0 && a.pidx == 1 &&
		      a.slot == 1,
	      "grace stage: a new profile takes a fresh id, an entry and a slot");
	CHECK(grace_stage_take(&g, a.id, &b, &what) == 0 && !b.fresh_id && b.id == a.id &&
		      b.pidx != a.pidx && b.slot != a.slot,
	      "grace stage: a new version keeps its id, with an entry and slot of its own");
	grace_stage_untake(&g, &b);
	CHECK(!grace_pidx_taken(&g, b.pidx) && grace_stage_take(&g, -1, &c, &what) == 0 &&
		      c.id != a.id && c.slot > b.slot,
	      "grace stage: untaken, the entry is free again, the id stays its profile's, "
	      "and no slot is handed out twice");
	grace_stage_untake(&g, &c);
	CHECK(grace_take_id(&g) == c.id, "grace stage: a fresh id untaken is free again");
	/* Every entry taken: staging takes nothing and says what ran out. */
	while (grace_take_pidx(&g) >= 0)
		;
	id = grace_take_id(&g);
	grace_mark_id(&g, (uint32_t)id, false); /* the lowest free id, what staging tries */
	CHECK(grace_stage_take(&g, -1, &c, &what) == -EBUSY && !strcmp(what, "policy entry"),
	      "grace stage: no free policies entry: -EBUSY, named");
	CHECK(!(g.id_used[id / 64] & (1ULL << (id % 64))),
	      "grace stage: the id it tried is given back when the entry ran out");
	grace_free(&g);
}

static void test_bitfilter(void)
{
	struct bitfilter f = { 0 };
	bool word_ok;

	CHECK(bitfilter_init(&f, 128) == 0, "bitfilter: 128 bits");
	CHECK(bitfilter_add(&f, 70), "bitfilter: the first key sets its bit (word to write)");
	CHECK(!bitfilter_add(&f, 70), "bitfilter: a second key at the bit writes nothing");
	CHECK(bitfilter_word(&f, 1) == 1ULL << 6 && bitfilter_word(&f, 0) == 0,
	      "bitfilter: word 1 holds bit 70, word 0 nothing");
	CHECK(!bitfilter_del(&f, 70) && bitfilter_test(&f, 70),
	      "bitfilter: one key of two deleted: the bit stays");
	CHECK(bitfilter_del(&f, 70) && !bitfilter_test(&f, 70),
	      "bitfilter: the last key deleted clears the bit");
	CHECK(!bitfilter_del(&f, 70), "bitfilter: a delete below zero changes nothing");
	CHECK(bitfilter_add(&f, 128 + 3) && bitfilter_test(&f, 3), "bitfilter: bits wrap");
	for (uint32_t i = 0; i < BITFILTER_SATURATED + 10u; i++)
		bitfilter_add(&f, 5);
	for (uint32_t i = 0; i < BITFILTER_SATURATED + 10u; i++)
		bitfilter_del(&f, 5);
	CHECK(bitfilter_test(&f, 5), "bitfilter: a saturated bit stays set for good");
	word_ok = bitfilter_word(&f, 0) == ((1ULL << 3) | (1ULL << 5));
	CHECK(word_ok, "bitfilter: the word is what the counts say");
	CHECK(bitfilter_init(&f, 64) == 0 && bitfilter_word(&f, 0) == 0,
	      "bitfilter: init again starts empty");
	bitfilter_free(&f);
}

void test_grace(void)
{
	test_grace_take();
	test_grace_periods();
	test_grace_kept();
	test_grace_stage();
	test_bitfilter();
}
