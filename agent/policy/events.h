/* SPDX-License-Identifier: GPL-2.0 */
/* Turning ring buffer records into JSON; the recent-events ring for `krsictl events`. */
#ifndef KRSI_EVENTS_H
#define KRSI_EVENTS_H

#include <stdint.h>
#include <json-c/json.h>

#include "bpf/krsi.h"

struct event_names {
	const char *container; /* NULL when the cgroup is no longer registered */
	const char *profile;
	const char *mode;
	const char *cgroup;
};

/* BOOT_TO_REAL_NS converts CLOCK_BOOTTIME to CLOCK_REALTIME. Pure; tested on the host. */
/* REAL_NS (CLOCK_REALTIME) as events write it: "2026-12-04T19:35:52.813749Z" (UTC, µs). */
void event_time_str(int64_t real_ns, char *buf, size_t size);
json_object *event_to_json(const struct krsi_event *e, const struct event_names *n,
			   int64_t boot_to_real_ns);

#define EVENTS_RECENT 1024

struct event_ring {
	json_object *v[EVENTS_RECENT];
	size_t next, n;
};

void event_ring_push(struct event_ring *r, json_object *o); /* takes a reference */
void event_ring_clear(struct event_ring *r);

#endif
