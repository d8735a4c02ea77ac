/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a program does once a rule matched: struct report (what an event says), report() with its
 * throttle and the ring buffer event, the verdict counters, verdict_errno() (-EPERM or 0, bounded
 * for the verifier), decide() (audit or enforce, by the policy's mode), learn(), and flag_check()
 * for the deny kinds that are one switch. Depends on kdefs.bpf.h (EPERM), maps.bpf.h and
 * cgroup.bpf.h (struct ctx, policy_get()).
 */
#ifndef KRSI_BPF_VERDICT_H
#define KRSI_BPF_VERDICT_H

struct report {
	__u32 hook;
	__s32 arg;
	__u64 object; /* what makes two reports identical, besides hook and verdict */
	__u64 value;
	__u32 dev;
	const char *path; /* kernel string or NULL */
	struct krsi_event_net *net;
};

static __always_inline void report(struct ctx *c, __u32 verdict, struct report *r)
{
	struct krsi_throttle_key tk = {
		.cgroup_id = c->cgid, .object = r->object, .hook = r->hook, .verdict = verdict
	};
	struct krsi_throttle_val *t, tv = {};
	struct krsi_stats *st;
	struct krsi_event *e;
	__u32 zero = 0, suppressed = 0;
	__u64 now = bpf_ktime_get_boot_ns();

	st = bpf_map_lookup_elem(&stats, &zero);
	t = bpf_map_lookup_elem(&throttle, &tk);
	if (t) {
		if (now - t->last_ns < c->cfg->throttle_ns) {
			__sync_fetch_and_add(&t->suppressed, 1);
			if (st)
				st->throttled++;
			return;
		}
		suppressed = t->suppressed;
		t->suppressed = 0;
		t->last_ns = now;
	} else {
		tv.last_ns = now;
		bpf_map_update_elem(&throttle, &tk, &tv, BPF_ANY);
	}
	e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (!e) {
		if (st)
			st->lost++;
		return;
	}
	e->time_ns = now;
	e->cgroup_id = bpf_get_current_cgroup_id();
	e->policy_cgroup_id = c->cgid;
	e->pid = bpf_get_current_pid_tgid() >> 32;
	e->tid = (__u32)bpf_get_current_pid_tgid();
	e->hook = r->hook;
	e->verdict = verdict;
	e->profile_id = c->cg->profile_id;
	e->slot = c->pol->slot;
	e->suppressed = suppressed;
	e->arg = r->arg;
	e->value = r->value;
	e->dev = r->dev;
	bpf_get_current_comm(e->comm, sizeof(e->comm));
	if (r->net)
		__builtin_memcpy(&e->net, r->net, sizeof(e->net));
	else
		__builtin_memset(&e->net, 0, sizeof(e->net));
	e->path[0] = 0;
	if (r->path)
		bpf_probe_read_kernel_str(e->path, sizeof(e->path), r->path);
	bpf_ringbuf_submit(e, 0);
	if (st)
		st->events++;
}

/* One more verdict of this profile on this hook, for the metrics. */
static __always_inline void count_verdict(struct ctx *c, __u32 hook, __u32 verdict)
{
	struct krsi_verdict_key vk = {
		.profile_id = c->cg->profile_id, .hook = hook, .verdict = verdict
	};
	__u64 *n, one = 1;

	n = bpf_map_lookup_elem(&verdicts, &vk);
	if (n)
		*n += 1; /* this CPU's count */
	else if (bpf_map_update_elem(&verdicts, &vk, &one, BPF_NOEXIST) < 0 &&
		 (n = bpf_map_lookup_elem(&verdicts, &vk)))
		*n += 1; /* another CPU made the key first */
}

/*
 * -EPERM when ENFORCE, else 0, as a value the verifier knows the range of: the kernel series'
 * return check (patch 5) refuses a program whose return it cannot bound, and the compiler
 * likes to make this -(enforce & 1), a negation the verifier does not follow. The barrier
 * hides what the compiler knows, and the compare gives the verifier both values.
 */
static __always_inline int verdict_errno(bool enforce)
{
	int r = enforce ? -EPERM : 0;

	barrier_var(r);
	if (r != -EPERM)
		r = 0;
	return r;
}

/* A rule matched: count, report, and return the verdict of the policy's mode. */
static __always_inline int decide(struct ctx *c, struct report *r)
{
	struct krsi_stats *st;
	__u32 zero = 0;
	bool enforce = c->pol->mode == KRSI_MODE_ENFORCE;

	count_verdict(c, r->hook, enforce ? KRSI_VERDICT_DENY : KRSI_VERDICT_AUDIT);
	st = bpf_map_lookup_elem(&stats, &zero);
	if (enforce) {
		__sync_fetch_and_add(&c->cg->denied, 1);
		if (st)
			st->denied++;
	} else {
		__sync_fetch_and_add(&c->cg->audited, 1);
		if (st)
			st->audited++;
	}
	report(c, enforce ? KRSI_VERDICT_DENY : KRSI_VERDICT_AUDIT, r);
	return verdict_errno(enforce);
}

/*
 * A learned container did what R says, and no deny rule denies it: report it (verdict learn,
 * throttled as any report) and allow it. Counted as neither a denial nor an audit.
 */
static __always_inline int learn(struct ctx *c, struct report *r)
{
	report(c, KRSI_VERDICT_LEARN, r);
	return 0;
}

/* For the deny kinds that are one switch. */
static __always_inline int flag_check(__u32 hook, __s32 arg, __u64 value, const char *path)
{
	struct ctx c;
	struct report r = { .hook = hook, .arg = arg, .value = value, .path = path };

	if (!policy_get(&c) || !(c.pol->deny & KRSI_DENY(hook)))
		return 0;
	r.object = arg;
	return decide(&c, &r);
}

#endif /* KRSI_BPF_VERDICT_H */
