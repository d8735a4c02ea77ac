// SPDX-License-Identifier: GPL-2.0
/*
 * Learn mode: a container's denials reported, not enforced, for a while.
 */
#include <time.h>

#include "daemon/krsid.h"

/* Set or clear KRSI_CG_LEARN on E's cgroups entry; E->learn_until_ns says which. */
static int learn_write(struct krsid *d, struct registry_entry *e, struct krsi_err *err)
{
	struct krsi_cgroup cg;

	if (map_lookup(d->obj.maps.cgroups, &e->cgroup_id, &cg) < 0)
		return err_set(err, -errno, "container %s: its cgroups entry: %s", e->container,
			       strerror(errno));
	/* Only an armed entry is written: the programs set ARMED, never clear it. */
	if (!(cg.flags & KRSI_CG_ARMED))
		return err_set(err, -EAGAIN, "container %s: has not run its first program yet "
				"(registered until exec); learn once it runs", e->container);
	cg.flags = e->learn_until_ns ? cg.flags | KRSI_CG_LEARN : cg.flags & ~KRSI_CG_LEARN;
	if (map_update(d->obj.maps.cgroups, &e->cgroup_id, &cg, BPF_EXIST) < 0)
		return err_set(err, -errno, "container %s: writing its cgroups entry: %s",
			       e->container, strerror(errno));
	return 0;
}

static void learn_end(struct krsid *d, struct registry_entry *e, const char *why)
{
	struct krsi_err err = { "" };

	e->learn_until_ns = 0;
	if (learn_write(d, e, &err) < 0)
		log_info("%s", err.msg);
	log_info("container %s: learning ended (%s)", e->container, why);
	hooks_detach_unused(d);
	config_narrow(d);
}

/* Learning that ran out of time ends. */
void learn_expire(struct krsid *d)
{
	uint64_t now = now_ns(CLOCK_MONOTONIC);

	for (size_t i = 0; i < d->reg.n; i++)
		if (d->reg.v[i]->learn_until_ns && d->reg.v[i]->learn_until_ns <= now)
			learn_end(d, d->reg.v[i], "its time is up");
}

json_object *op_learn(struct krsid *d, struct proto_request *q)
{
	struct registry_entry *e = registry_find(&d->reg, q->container);
	struct krsi_stats st = stats_sum(d);
	struct krsi_err err = { "" };
	json_object *rep;
	int r;

	if (!e)
		return proto_reply_error("container %s: not registered", q->container);
	if (q->stop) {
		if (!e->learn_until_ns)
			return proto_reply_error("container %s: not being learned", q->container);
		/* What was reported before the stop reaches the subscribers before its reply. */
		bpfobj_events_consume(&d->obj);
		learn_end(d, e, "on request");
	} else {
		bool was = e->learn_until_ns != 0;

		/* The hooks first: a flag that no running hook reads would learn nothing. */
		r = hooks_attach(d, KRSI_LEARN_DENY, &err);
		if (r < 0)
			return proto_reply_error("%s", err.msg);
		e->learn_until_ns = now_ns(CLOCK_MONOTONIC) + (uint64_t)q->seconds * 1000000000ULL;
		r = learn_write(d, e, &err);
		if (r < 0) {
			e->learn_until_ns = 0;
			hooks_detach_unused(d);
			return proto_reply_error("%s", err.msg);
		}
		config_narrow(d);
		log_info("container %s: %s for %lld s", e->container,
			 was ? "learning extended" : "learning", (long long)q->seconds);
	}
	rep = proto_reply_ok();
	json_object_object_add(rep, "container", entry_json(d, e));
	/* Loss anywhere may have been this container's: the client compares two replies. */
	json_object_object_add(rep, "lost", json_object_new_uint64(st.lost));
	return rep;
}
