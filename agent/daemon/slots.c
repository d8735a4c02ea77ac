// SPDX-License-Identifier: GPL-2.0
/*
 * Profile ids, rule slots and entries of the policies array: taken when a profile is
 * staged, retired when it is replaced or removed, reused only after a grace period in which
 * no program can still be reading them.
 */
#include <time.h>

#include "daemon/krsid.h"

struct installed *prof_find(struct krsid *d, const char *name)
{
	for (size_t i = 0; i < d->n_prof; i++)
		if (!strcmp(d->prof[i].name, name))
			return &d->prof[i];
	return NULL;
}

struct installed *prof_find_id(struct krsid *d, uint32_t id)
{
	for (size_t i = 0; i < d->n_prof; i++)
		if (d->prof[i].id == id)
			return &d->prof[i];
	return NULL;
}

/* Point profile ID at entry PIDX of policies (0: none): the one store a program sees. */
void profile_point(struct krsid *d, uint32_t id, uint32_t pidx)
{
	__atomic_store_n(&d->profile_policy[id], pidx, __ATOMIC_RELEASE);
}

/*
 * Start the grace period of SLOT's rules and of entry PIDX (0: none) of the policies array;
 * FREE_ID: of profile ID too. Nothing is reused before it ends.
 */
void retire(struct krsid *d, uint32_t slot, uint32_t pidx, uint32_t id, bool free_id)
{
	/* Out of memory: the rules stay, and the entry and id stay taken: harmless. */
	grace_retire(&d->grace, slot, pidx, id, free_id, now_ns(CLOCK_MONOTONIC));
}

void slot_retire(struct krsid *d, uint32_t slot)
{
	retire(d, slot, 0, 0, false);
}

/* R's grace period is over: its policies entry is zeroed, so that a restarted agent knows
 * the entry is free. */
static bool retired_release(void *ctx, const struct retired *r)
{
	struct krsid *d = ctx;
	struct krsi_policy zero = { 0 };

	return map_update(d->obj.maps.policies, &r->pidx, &zero, BPF_ANY) == 0;
}

bool slot_in_use(struct krsid *d, uint32_t slot)
{
	for (size_t i = 0; i < d->n_prof; i++)
		if (d->prof[i].slot == slot)
			return true;
	return false;
}

bool slot_due(struct krsid *d, uint32_t slot, bool force, uint64_t now)
{
	return grace_slot_due(&d->grace, slot, force, now);
}

/*
 * Delete the rules of MAP whose slot is due. One walk collects the keys, then they are
 * deleted: deleting while walking would restart the walk at every deletion, which made a
 * reload of a large profile cost time cubic in its rules.
 */
static void rules_collect(struct krsid *d, int map, size_t key_size, size_t slot_off, bool force,
			  uint64_t now)
{
	_cleanup_free_ uint8_t *keys = NULL;
	union {
		struct krsi_path_key p;
		struct krsi_net_key n;
		struct krsi_inode_key i;
		struct krsi_name_key m;
	} next, prev;
	size_t n = 0, cap = 0;
	uint32_t slot;

	map_for_each_key(map, next, prev) {
		memcpy(&slot, (uint8_t *)&next + slot_off, sizeof(slot));
		if (slot_due(d, slot, force, now)) {
			if (n == cap) {
				size_t c = cap ? 2 * cap : 256;
				uint8_t *v = realloc(keys, c * key_size);

				if (!v)
					break; /* the rest waits for the next collection */
				keys = v;
				cap = c;
			}
			memcpy(keys + n++ * key_size, &next, key_size);
		}
	}
	for (size_t i = 0; i < n; i++)
		if (map_delete(map, keys + i * key_size) == 0 && map == d->obj.maps.inode_rules)
			ifl_del(d, (const struct krsi_inode_key *)(keys + i * key_size));
}

/* Delete rules of retired slots whose grace period is over (or all retired slots: FORCE). */
void slots_collect(struct krsid *d, bool force)
{
	uint64_t now = now_ns(CLOCK_MONOTONIC);

	if (!grace_any_due(&d->grace, force, now))
		return;
	rules_collect(d, d->obj.maps.path_rules, sizeof(struct krsi_path_key),
		      offsetof(struct krsi_path_key, slot), force, now);
	rules_collect(d, d->obj.maps.net_rules, sizeof(struct krsi_net_key),
		      offsetof(struct krsi_net_key, slot), force, now);
	rules_collect(d, d->obj.maps.name_rules, sizeof(struct krsi_name_key),
		      offsetof(struct krsi_name_key, slot), force, now);
	/* The identity views of a due slot, then whatever no view holds (left by a restart). */
	for (size_t i = 0; i < d->grace.n_retired; i++)
		if (grace_is_due(&d->grace, &d->grace.retired[i], force, now))
			identity_drop_slot(&d->ids, d->grace.retired[i].slot);
	rules_collect(d, d->obj.maps.inode_rules, sizeof(struct krsi_inode_key),
		      offsetof(struct krsi_inode_key, slot), force, now);
	grace_release(&d->grace, force, now, retired_release, d);
}
