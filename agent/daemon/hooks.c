// SPDX-License-Identifier: GPL-2.0
/*
 * Which LSM programs are attached (those some installed profile needs, hookset.h) and the
 * config map's deny bits and level mask.
 */
#include "daemon/krsid.h"

/*
 * config.deny_any and config.caps_any: OR (WIDEN) or replace with the installed policies'
 * deny bits and denied capabilities.
 */
int config_set_deny(struct krsid *d, uint64_t deny, uint64_t caps, bool widen)
{
	struct krsi_config cfg;
	__u32 zero = 0;

	if (map_lookup(d->obj.maps.config, &zero, &cfg) < 0)
		return -errno;
	cfg.deny_any = widen ? cfg.deny_any | deny : deny;
	cfg.caps_any = widen ? cfg.caps_any | caps : caps;
	return map_update(d->obj.maps.config, &zero, &cfg, BPF_ANY) < 0 ? -errno : 0;
}

/*
 * Narrow deny_any and caps_any to what the installed policies need. A failed write keeps the
 * wider bits, which only lets a hook look further than it needs to: never a verdict.
 */
void config_narrow(struct krsid *d)
{
	int r = config_set_deny(d, prof_deny_all(d), prof_caps_all(d), false);

	if (r < 0)
		log_info("config: narrowing the hooks' deny bits: %s (the wider bits stay: a cost, "
			 "not a verdict)", strerror(-r));
}

uint64_t prof_caps_all(struct krsid *d)
{
	uint64_t caps = 0;

	for (size_t i = 0; i < d->n_prof; i++)
		caps |= d->prof[i].caps;
	return caps;
}

uint64_t prof_deny_all(struct krsid *d)
{
	uint64_t deny = 0;

	for (size_t i = 0; i < d->n_prof; i++)
		deny |= d->prof[i].deny;
	/* A learned container needs the hooks of what it learns. */
	for (size_t i = 0; i < d->reg.n; i++)
		if (d->reg.v[i]->learn_until_ns)
			deny |= KRSI_LEARN_DENY;
	return deny;
}

/*
 * Attach every program that deny bits DENY need: called before a policy with those bits is
 * published, so that no policy ever names a hook that does not run.
 */
int hooks_attach(struct krsid *d, uint64_t deny, struct krsi_err *err)
{
	for (int i = 0; i < d->obj.n_programs; i++) {
		struct bpfobj_prog *p = &d->obj.progs[i];
		int r;

		if (p->attached || p->absent || !hookset_needed(p->name, deny))
			continue;
		r = bpfobj_attach(&d->obj, i, err);
		if (r < 0)
			return r;
		log_info("hook %s attached", p->name);
	}
	return 0;
}

/* Detach the programs that no installed policy needs: called once the policies are published. */
void hooks_detach_unused(struct krsid *d)
{
	uint64_t deny = prof_deny_all(d);
	struct krsi_err err = { "" };

	for (int i = 0; i < d->obj.n_programs; i++) {
		struct bpfobj_prog *p = &d->obj.progs[i];

		if (!p->attached || hookset_needed(p->name, deny))
			continue;
		if (bpfobj_detach(&d->obj, i, &err) < 0)
			log_warn("%s, ignoring", err.msg);
		else
			log_info("hook %s detached: no installed profile uses it", p->name);
	}
}

json_object *hooks_json(struct krsid *d)
{
	json_object *arr = json_object_new_array();

	for (int i = 0; i < d->obj.n_programs; i++)
		if (d->obj.progs[i].attached)
			json_object_array_add(arr, json_object_new_string(d->obj.progs[i].name));
	return arr;
}

/*
 * Say at start-up what this kernel cannot enforce: the programs it has no hook for, and the
 * routes they would see.
 */
void hooks_log_absent(struct krsid *d)
{
	for (int i = 0; i < d->obj.n_programs; i++) {
		const char *name = d->obj.progs[i].name, *route = hookset_route(name);

		if (!d->obj.progs[i].absent)
			continue;
		log_warn("kernel: no %s hook (kernel/patches adds it): %s is not enforced on this "
			 "kernel", name, route ? route : "its route");
	}
}

/* The programs this kernel has no hook for (kernel_has_target() in bpfobj.c). */
json_object *hooks_absent_json(struct krsid *d)
{
	json_object *arr = json_object_new_array();

	for (int i = 0; i < d->obj.n_programs; i++)
		if (d->obj.progs[i].absent)
			json_object_array_add(arr, json_object_new_string(d->obj.progs[i].name));
	return arr;
}

int hooks_attached(struct krsid *d)
{
	int n = 0;

	for (int i = 0; i < d->obj.n_programs; i++)
		n += d->obj.progs[i].attached;
	return n;
}

int config_update_mask(struct krsid *d)
{
	uint64_t mask = registry_level_mask(&d->reg);
	struct krsi_config cfg;
	__u32 zero = 0;

	if (map_lookup(d->obj.maps.config, &zero, &cfg) < 0)
		return -errno;
	if (cfg.level_mask == mask)
		return 0; /* most registrations: a depth that has some already */
	cfg.level_mask = mask;
	return map_update(d->obj.maps.config, &zero, &cfg, BPF_ANY) < 0 ? -errno : 0;
}
