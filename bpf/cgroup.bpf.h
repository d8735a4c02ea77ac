/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which policy the current task is under, if any: struct ctx (what a program knows once it has
 * found it), the walk over the task's ancestor cgroups at the registered depths (the filter,
 * then the cgroups hash) to its profile's policy, the arming of a registration at the first
 * execve with its notice to the agent, and deny_anywhere(), the one config lookup that spares a
 * program the walk while no policy sets its deny bit. Depends on maps.bpf.h.
 */
#ifndef KRSI_BPF_CGROUP_H
#define KRSI_BPF_CGROUP_H

struct ctx {
	struct krsi_config *cfg;
	struct krsi_policy *pol;
	struct krsi_cgroup *cg;
	__u64 cgid; /* the registered cgroup */
	__u64 learn; /* KRSI_LEARN_DENY while the cgroup is learned (KRSI_CG_LEARN), else 0 */
};

/*
 * Tell the agent that an until_exec registration is armed: the task is in the container's own
 * root now, where the agent resolves the identities of exact rules again.
 */
static __always_inline void armed_notify(__u64 cgid)
{
	struct krsi_event *e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);

	if (!e)
		return; /* the agent's periodic refresh catches up */
	__builtin_memset(e, 0, sizeof(*e));
	e->time_ns = bpf_ktime_get_boot_ns();
	e->cgroup_id = bpf_get_current_cgroup_id();
	e->policy_cgroup_id = cgid;
	e->pid = bpf_get_current_pid_tgid() >> 32;
	e->tid = (__u32)bpf_get_current_pid_tgid();
	e->hook = KRSI_EVENT_ARMED;
	bpf_ringbuf_submit(e, 0);
}

/* Whether some registered cgroup may have id ID: false is certain, true needs the hash. */
static __always_inline bool filter_maybe(__u64 id)
{
	__u32 w = KRSI_FILTER_WORD(id);
	__u64 *word = bpf_map_lookup_elem(&cgroup_filter, &w);

	return word && (*word & KRSI_FILTER_MASK(id));
}

/*
 * Find the policy of the current task's nearest registered cgroup; false = not confined, or
 * registered but not armed yet (the runtime still setting the container up) unless ARM: the
 * exec hook arms it.
 *
 * Only the depths whose bit is set in the level mask are looked at, from the root down: at
 * each, the task's cgroup or its ancestor at that depth by one helper call (0 once the depth
 * is below the task's own: no deeper one can be its ancestor either), then the filter, then
 * the cgroups hash; the deepest registered one wins. An unmarked depth costs a shift and a
 * bit test, and the walk ends at the deepest marked one, so a host task at any depth pays
 * one helper call and one filter load per registered depth at or above its own.
 */
static __always_inline bool policy_get_arm(struct ctx *c, bool arm)
{
	struct krsi_cgroup *cg = NULL;
	struct krsi_policy *pol;
	__u32 zero = 0, pidx;
	__u64 *at;
	__u64 mask, id = 0;

	c->cfg = bpf_map_lookup_elem(&config, &zero);
	if (!c->cfg)
		return false;
	mask = c->cfg->level_mask;
	for (int l = 0; l < KRSI_MAX_LEVELS && mask; l++, mask >>= 1) {
		struct krsi_cgroup *at;
		__u64 aid;

		if (!(mask & 1))
			continue;
		aid = bpf_get_current_ancestor_cgroup_id(l);
		if (!aid)
			break;
		if (!filter_maybe(aid))
			continue;
		at = bpf_map_lookup_elem(&cgroups, &aid);
		if (at) {
			cg = at;
			id = aid;
		}
	}
	if (!cg)
		return false;
	at = bpf_map_lookup_elem(&profile_policy, &cg->profile_id);
	if (!at)
		return false;
	pidx = *at; /* read once: the agent may store a new index meanwhile */
	if (!pidx)
		return false; /* a registration without a profile: the agent's bug, allow */
	pol = bpf_map_lookup_elem(&policies, &pidx);
	if (!pol)
		return false;
	if (!(cg->flags & KRSI_CG_ARMED)) {
		if (!arm)
			return false;
		cg->flags |= KRSI_CG_ARMED; /* racing CPUs set the same bit */
		armed_notify(id);
	}
	if (arm && !cg->root_dentry) {
		struct task_struct *task = bpf_get_current_task_btf();

		cg->root_mnt = (__u64)task->fs->root.mnt;
		cg->root_dentry = (__u64)task->fs->root.dentry;
	}
	c->cg = cg;
	c->pol = pol;
	c->cgid = id;
	c->learn = cg->flags & KRSI_CG_LEARN ? KRSI_LEARN_DENY : 0;
	return true;
}

static __always_inline bool policy_get(struct ctx *c)
{
	return policy_get_arm(c, false);
}

/* Some installed policy sets one of the deny bits MASK: if none does, look no further. */
static __always_inline bool deny_any_of(__u64 mask)
{
	__u32 zero = 0;
	struct krsi_config *cfg = bpf_map_lookup_elem(&config, &zero);

	return cfg && cfg->deny_any & mask;
}

/* Some installed policy sets deny bit HOOK. */
static __always_inline bool deny_anywhere(__u32 hook)
{
	return deny_any_of(KRSI_DENY(hook));
}

/*
 * The current task's policy, when it sets one of the deny bits MASK: one lookup for the hooks
 * that check two kinds (replace and write), which some installed policy must set first.
 */
static __always_inline bool policy_with(struct ctx *c, __u64 mask)
{
	return deny_any_of(mask) && policy_get(c) && c->pol->deny & mask;
}

#endif /* KRSI_BPF_CGROUP_H */
