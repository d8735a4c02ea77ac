// SPDX-License-Identifier: GPL-2.0
/*
 * A restart: the pinned maps read back into the registry and the installed profiles.
 */
#include <sys/mman.h>

#include "daemon/krsid.h"

/* Retire the slots of MAP's keys that no policy names; raise *MAX_SLOT to the highest seen. */
static void slots_scan(struct krsid *d, int map, size_t key_size, size_t slot_off,
		       uint32_t *max_slot)
{
	uint8_t key[sizeof(struct krsi_path_key) + sizeof(struct krsi_inode_key)],
		prev[sizeof(key)];
	uint32_t slot;

	map_for_each_key(map, key, prev) {
		memcpy(&slot, key + slot_off, sizeof(slot));
		if (slot > *max_slot)
			*max_slot = slot;
		if (!slot_in_use(d, slot) && !slot_due(d, slot, true, 0))
			slot_retire(d, slot);
	}
}

int recover(struct krsid *d)
{
	struct krsi_policy pol;
	struct krsi_registry_entry re;
	uint64_t cg, prev_cg;
	uint32_t max_slot = 0;
	struct krsi_err err = { "" };
	void *pp = mmap(NULL, KRSI_MAX_PROFILES * sizeof(uint64_t), PROT_READ | PROT_WRITE,
			MAP_SHARED, d->obj.maps.profile_policy, 0);

	if (pp == MAP_FAILED)
		return -errno;
	d->profile_policy = pp;
	memset(d->grace.id_used, 0, sizeof(d->grace.id_used));
	memset(d->grace.pidx_used, 0, sizeof(d->grace.pidx_used));
	for (uint32_t id = 0; id < KRSI_MAX_PROFILES; id++) {
		uint64_t at = __atomic_load_n(&d->profile_policy[id], __ATOMIC_ACQUIRE);
		uint32_t pidx = at;

		if (!at)
			continue;
		if (at >= KRSI_POLICY_SLOTS ||
		    map_lookup(d->obj.maps.policies, &pidx, &pol) < 0 || !pol.slot) {
			log_info("pinned profile id %u points at policy entry %u, which holds "
				 "none: unpointed", id, (unsigned)at);
			profile_point(d, id, 0);
			continue;
		}
		struct installed *v = realloc(d->prof, (d->n_prof + 1) * sizeof(*v));

		if (!v)
			return -ENOMEM;
		d->prof = v;
		memset(&d->prof[d->n_prof], 0, sizeof(*v));
		snprintf(d->prof[d->n_prof].name, KRSI_NAME_MAX, "%.*s", KRSI_NAME_MAX - 1, pol.name);
		d->prof[d->n_prof].id = id;
		d->prof[d->n_prof].pidx = pidx;
		d->prof[d->n_prof].slot = pol.slot;
		d->prof[d->n_prof].mode = pol.mode;
		d->prof[d->n_prof].digest = pol.digest;
		d->prof[d->n_prof].version = pol.version;
		d->prof[d->n_prof].deny = pol.deny;
		d->prof[d->n_prof].caps = pol.caps;
		d->n_prof++;
		grace_mark_id(&d->grace, id, true);
		grace_mark_pidx(&d->grace, pidx, true);
		if (pol.slot > max_slot)
			max_slot = pol.slot;
	}
	/*
	 * Entries that no profile points at but that hold a policy: replaced or removed shortly
	 * before the restart, perhaps still read. Their grace period starts now.
	 */
	for (uint32_t pidx = 1; pidx < KRSI_POLICY_SLOTS; pidx++) {
		if (grace_pidx_taken(&d->grace, pidx) ||
		    map_lookup(d->obj.maps.policies, &pidx, &pol) < 0 || !pol.slot)
			continue;
		grace_mark_pidx(&d->grace, pidx, true);
		retire(d, slot_in_use(d, pol.slot) ? 0 : pol.slot, pidx, 0, false);
		if (pol.slot > max_slot)
			max_slot = pol.slot;
	}
	map_for_each_key(d->obj.maps.registry, cg, prev_cg) {
		/* The map's fields may lack a NUL: read each no further than its size. */
		char container[KRSI_CONTAINER_MAX], profile[KRSI_NAME_MAX];
		char cgroup[KRSI_CGROUP_PATH_MAX], rootfs[KRSI_ROOTFS_MAX];
		struct registry_entry e = { 0 };

		if (map_lookup(d->obj.maps.registry, &cg, &re) < 0)
			continue;
		snprintf(container, sizeof(container), "%.*s", KRSI_CONTAINER_MAX - 1,
			 re.container);
		snprintf(profile, sizeof(profile), "%.*s", KRSI_NAME_MAX - 1, re.profile);
		snprintf(cgroup, sizeof(cgroup), "%.*s", KRSI_CGROUP_PATH_MAX - 1, re.cgroup);
		snprintf(rootfs, sizeof(rootfs), "%.*s", KRSI_ROOTFS_MAX - 1, re.rootfs);
		e.container = container;
		e.profile = profile;
		e.cgroup = cgroup;
		e.rootfs = rootfs;
		e.cgroup_id = cg;
		e.registered_ns = re.registered_ns;
		if (registry_add(&d->reg, &e, &err) < 0)
			log_warn("pinned registry: %s, ignoring", err.msg);
		/* Learning ends with the agent that reported it: nobody collects its events. */
		{
			struct krsi_cgroup c;

			if (map_lookup(d->obj.maps.cgroups, &cg, &c) == 0 &&
			    c.flags & KRSI_CG_LEARN) {
				c.flags &= ~KRSI_CG_LEARN;
				/* Left set, its allow lists would admit everything, unwatched. */
				if (map_update(d->obj.maps.cgroups, &cg, &c, BPF_EXIST) < 0) {
					log_info("container %s: ending its learning: %s", e.container,
						 strerror(errno));
					return -errno;
				}
				log_info("container %s: learning ended (the agent restarted)",
					 e.container);
			}
		}
	}
	/* Rule slots that no policy names (a reload cut short by a kill): collect them. */
	slots_scan(d, d->obj.maps.path_rules, sizeof(struct krsi_path_key),
		   offsetof(struct krsi_path_key, slot), &max_slot);
	slots_scan(d, d->obj.maps.net_rules, sizeof(struct krsi_net_key),
		   offsetof(struct krsi_net_key, slot), &max_slot);
	slots_scan(d, d->obj.maps.name_rules, sizeof(struct krsi_name_key),
		   offsetof(struct krsi_name_key, slot), &max_slot);
	slots_scan(d, d->obj.maps.inode_rules, sizeof(struct krsi_inode_key),
		   offsetof(struct krsi_inode_key, slot), &max_slot);
	d->grace.next_slot = max_slot + 1;
	return 0;
}
