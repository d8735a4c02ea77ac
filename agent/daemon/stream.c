// SPDX-License-Identifier: GPL-2.0
/*
 * Denial events: read from the ring buffer, written to the events log and to the
 * subscribers of `krsictl events`.
 */
#include <time.h>
#include <sys/epoll.h>

#include "daemon/krsid.h"

static int64_t boot_to_real(void)
{
	return (int64_t)now_ns(CLOCK_REALTIME) - (int64_t)now_ns(CLOCK_BOOTTIME);
}

void sub_remove(struct krsid *d, size_t i)
{
	epoll_ctl(d->epfd, EPOLL_CTL_DEL, d->subs[i].fd, NULL);
	close(d->subs[i].fd);
	d->subs[i] = d->subs[--d->n_subs];
}

/*
 * An event to the events log, the subscribers (all, and those that follow CONTAINER; an AGENT
 * event goes to every subscriber) and the recent ring, which takes O's reference.
 */
static void publish(struct krsid *d, json_object *o, const char *container, bool agent)
{
	const char *line = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN);

	if (d->events) {
		fprintf(d->events, "%s\n", line);
		fflush(d->events);
	}
	for (size_t i = 0; i < d->n_subs;) {
		if (d->subs[i].container[0] && !agent &&
		    (!container || strcmp(d->subs[i].container, container))) {
			i++;
			continue;
		}
		if (proto_send(d->subs[i].fd, o) < 0) {
			sub_remove(d, i); /* gone, or too slow to keep up */
			d->n.subscribers_dropped++;
			continue;
		}
		i++;
	}
	event_ring_push(&d->recent, o);
}

/* An event of the agent itself: {"time", "type": TYPE, ...O's fields}. Takes O. */
void publish_agent(struct krsid *d, const char *type, json_object *o)
{
	json_object *e = json_object_new_object();
	char ts[64];

	event_time_str((int64_t)now_ns(CLOCK_REALTIME), ts, sizeof(ts));
	json_object_object_add(e, "time", json_object_new_string(ts));
	json_object_object_add(e, "type", json_object_new_string(type));
	json_object_object_foreach(o, k, v)
		json_object_object_add(e, k, json_object_get(v));
	json_object_put(o);
	publish(d, e, NULL, true);
}

int on_event(void *ctx, void *data, size_t size)
{
	const struct krsi_event *e = data;
	struct krsid *d = ctx;
	struct registry_entry *re;
	struct installed *ip;
	struct event_names n = { 0 };
	json_object *o;

	if (size < sizeof(*e))
		return 0;
	re = registry_find_cgroup(&d->reg, e->policy_cgroup_id);
	if (e->hook == KRSI_EVENT_GONE) {
		char c[KRSI_CONTAINER_MAX];

		if (re) {
			snprintf(c, sizeof(c), "%s", re->container);
			reg_delete(d, c, "its cgroup was removed");
		}
		return 0;
	}
	if (e->hook == KRSI_EVENT_ARMED) {
		/*
		 * The container runs in its own root now: resolve its live view there. Its bundle
		 * view is as fresh as its registration; the periodic refresh redoes both.
		 */
		struct krsi_err err = { "" };

		ip = re ? prof_find(d, re->profile) : NULL;
		if (ip && ip->p) {
			int r;

			re->pid = e->pid;
			r = ids_container(d, re, ip->p, ip->slot, false, true, &err);
			ids_container_result(d, re, r);
			if (r < 0)
				log_info("container %s: %s", re->container, err.msg);
		}
		return 0;
	}
	ip = prof_find_id(d, e->profile_id);
	if (re) {
		n.container = re->container;
		n.cgroup = re->cgroup;
	}
	if (ip)
		n.profile = ip->name;
	o = event_to_json(e, &n, boot_to_real());
	publish(d, o, re ? re->container : NULL, false);
	return 0;
}

json_object *op_events(struct krsid *d, struct proto_request *q, int fd, bool *ret_keep)
{
	json_object *rep = proto_reply_ok(), *arr = json_object_new_array();

	for (size_t k = 0; k < d->recent.n; k++) {
		size_t i = (d->recent.next + EVENTS_RECENT - d->recent.n + k) % EVENTS_RECENT;
		json_object *ev = d->recent.v[i], *c;

		if (q->container && (!json_object_object_get_ex(ev, "container", &c) ||
				     strcmp(json_object_get_string(c), q->container)))
			continue;
		json_object_array_add(arr, json_object_get(ev));
	}
	json_object_object_add(rep, "events", arr);
	if (q->follow) {
		struct epoll_event ev = { .events = EPOLLRDHUP | EPOLLHUP, .data.fd = fd };

		if (d->n_subs >= MAX_SUBSCRIBERS) {
			json_object_put(rep);
			return proto_reply_error("too many subscribers (%d)", MAX_SUBSCRIBERS);
		}
		d->subs[d->n_subs].fd = fd;
		snprintf(d->subs[d->n_subs].container, KRSI_CONTAINER_MAX, "%s",
			 q->container ? q->container : "");
		d->n_subs++;
		epoll_ctl(d->epfd, EPOLL_CTL_ADD, fd, &ev);
		*ret_keep = true;
	}
	return rep;
}
