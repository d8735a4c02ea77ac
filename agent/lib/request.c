// SPDX-License-Identifier: GPL-2.0
/* Requests written as JSON lines without a JSON library (request.h). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "lib/request.h"

enum {
	F_CONTAINER = 1 << 0,
	F_NAME = 1 << 1,
	F_PROFILE = 1 << 2,
	F_CGROUP = 1 << 3,
	F_CGROUP_ID = 1 << 4,
	F_PID = 1 << 5,
	F_BUNDLE = 1 << 6,
	F_UNTIL_EXEC = 1 << 7,
	F_FOLLOW = 1 << 8,
	F_SECONDS = 1 << 9,
	F_STOP = 1 << 10,
};

/* Each op's name, the fields it takes and those it needs: what proto_request_parse() accepts
 * (tests/unit/test_request.c holds the two to each other). */
static const struct {
	const char *name;
	unsigned int takes, needs;
} ops[PROTO_OP_COUNT] = {
	[PROTO_STATUS] = { "status" },
	[PROTO_PS] = { "ps" },
	[PROTO_PROFILE_LIST] = { "profile_list" },
	[PROTO_PROFILE_SHOW] = { "profile_show", F_NAME, F_NAME },
	[PROTO_RELOAD] = { "reload" },
	[PROTO_REGISTER] = { "register",
			     F_CONTAINER | F_PROFILE | F_CGROUP | F_CGROUP_ID | F_PID | F_BUNDLE |
				     F_UNTIL_EXEC,
			     F_CONTAINER },
	[PROTO_UNREGISTER] = { "unregister", F_CONTAINER, F_CONTAINER },
	[PROTO_ASSIGN] = { "assign", F_CONTAINER | F_PROFILE, F_CONTAINER | F_PROFILE },
	[PROTO_EVENTS] = { "events", F_FOLLOW | F_CONTAINER },
	[PROTO_METRICS] = { "metrics" },
	[PROTO_LEARN] = { "learn", F_CONTAINER | F_SECONDS | F_STOP, F_CONTAINER },
};

const char *proto_op_name(enum proto_op op)
{
	return (unsigned int)op < PROTO_OP_COUNT ? ops[op].name : NULL;
}

/* The line being written: once something does not fit, FULL stays set and nothing more is. */
struct out {
	char *buf;
	size_t size, off;
	bool full;
};

static void put_raw(struct out *o, const char *s, size_t n)
{
	if (o->full || o->size - o->off < n) {
		o->full = true;
		return;
	}
	memcpy(o->buf + o->off, s, n);
	o->off += n;
}

static void put_key(struct out *o, const char *key)
{
	put_raw(o, ",\"", 2);
	put_raw(o, key, strlen(key));
	put_raw(o, "\":", 2);
}

/* S as a JSON string: a quote or a backslash escaped with a backslash, a control character as
 * \u00XX; every other byte as it is (krsid's json-c takes UTF-8 and other bytes alike). */
static void put_string(struct out *o, const char *key, const char *s)
{
	static const char hex[] = "0123456789abcdef";

	if (!s)
		return;
	put_key(o, key);
	put_raw(o, "\"", 1);
	for (; *s && !o->full; s++) {
		unsigned char c = *s;
		char esc[6] = { '\\', 'u', '0', '0', hex[c >> 4], hex[c & 15] };

		if (c == '"' || c == '\\') {
			esc[1] = c;
			put_raw(o, esc, 2);
		} else if (c < 0x20) {
			put_raw(o, esc, sizeof(esc));
		} else {
			put_raw(o, s, 1);
		}
	}
	put_raw(o, "\"", 1);
}

static void put_number(struct out *o, const char *key, bool present, bool is_signed,
		       uint64_t v)
{
	char num[24];
	int n;

	if (!present)
		return;
	put_key(o, key);
	if (is_signed)
		n = snprintf(num, sizeof(num), "%lld", (long long)(int64_t)v);
	else
		n = snprintf(num, sizeof(num), "%llu", (unsigned long long)v);
	put_raw(o, num, n);
}

static void put_true(struct out *o, const char *key, bool present)
{
	if (!present)
		return;
	put_key(o, key);
	put_raw(o, "true", 4);
}

/* The fields R sets, as F_* bits. */
static unsigned int fields_set(const struct krsi_request *r)
{
	return (r->container ? F_CONTAINER : 0) | (r->name ? F_NAME : 0) |
	       (r->profile ? F_PROFILE : 0) | (r->cgroup ? F_CGROUP : 0) |
	       (r->has_cgroup_id ? F_CGROUP_ID : 0) | (r->has_pid ? F_PID : 0) |
	       (r->bundle ? F_BUNDLE : 0) | (r->until_exec ? F_UNTIL_EXEC : 0) |
	       (r->follow ? F_FOLLOW : 0) | (r->seconds ? F_SECONDS : 0) | (r->stop ? F_STOP : 0);
}

int krsi_request_write(const struct krsi_request *r, char *buf, size_t size)
{
	struct out o = { .buf = buf, .size = size };
	unsigned int set;
	char head[64];
	int n;

	if (size)
		buf[0] = 0;
	if ((unsigned int)r->op >= PROTO_OP_COUNT)
		return -EINVAL;
	set = fields_set(r);
	if (set & ~ops[r->op].takes || ops[r->op].needs & ~set)
		return -EINVAL;
	n = snprintf(head, sizeof(head), "{\"%s\":%d,\"%s\":\"%s\"", PROTO_KEY_VERSION,
		     PROTO_VERSION, PROTO_KEY_OP, ops[r->op].name);
	put_raw(&o, head, n);
	put_string(&o, PROTO_KEY_CONTAINER, r->container);
	put_string(&o, PROTO_KEY_NAME, r->name);
	put_string(&o, PROTO_KEY_PROFILE, r->profile);
	put_string(&o, PROTO_KEY_CGROUP, r->cgroup);
	put_number(&o, PROTO_KEY_CGROUP_ID, r->has_cgroup_id, false, r->cgroup_id);
	put_number(&o, PROTO_KEY_PID, r->has_pid, true, (uint64_t)r->pid);
	put_string(&o, PROTO_KEY_BUNDLE, r->bundle);
	put_true(&o, PROTO_KEY_UNTIL_EXEC, r->until_exec);
	put_true(&o, PROTO_KEY_FOLLOW, r->follow);
	put_number(&o, PROTO_KEY_SECONDS, r->seconds != 0, true, (uint64_t)r->seconds);
	put_true(&o, PROTO_KEY_STOP, r->stop);
	put_raw(&o, "}\n", 3); /* with the NUL */
	if (o.full || o.off - 1 > INT_MAX) {
		if (size)
			buf[0] = 0;
		return -ENOSPC;
	}
	return o.off - 1;
}

bool profile_name_valid(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n >= KRSI_NAME_MAX || s[0] == '.' || s[0] == '-')
		return false;
	for (size_t i = 0; i < n; i++)
		if (!(islower((unsigned char)s[i]) || isdigit((unsigned char)s[i]) || s[i] == '.' ||
		      s[i] == '_' || s[i] == '-'))
			return false;
	return true;
}
