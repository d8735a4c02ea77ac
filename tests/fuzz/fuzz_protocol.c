// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: a control request, as krsid reads one from its socket. The bytes go through
 * a socketpair into proto_recv(), the object into proto_request_from_doc(), as krsid's serve()
 * does; then the raw bytes into proto_request_parse() too, which sees them without a NUL
 * terminator. A refusal must say why; an accepted request must be one the
 * daemon can act on, and written again by krsi_request_write(), as the clients write theirs,
 * it must be accepted with the same fields: the clients' writer and krsid's parser agree.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "lib/protocol.h"
#include "bpf/krsi.h"

/* Every string the daemon acts on is the whole JSON string: none holds a NUL ("\u0000") that
 * would cut what was checked short. */
static void check_string(const struct proto_request *q, const char *key, const char *s)
{
	json_object *v;

	if (s && (!json_object_object_get_ex(q->doc, key, &v) ||
		  strlen(s) != (size_t)json_object_get_string_len(v)))
		abort();
}

static void check_request(const struct proto_request *q)
{
	check_string(q, "container", q->container);
	check_string(q, "profile", q->profile);
	check_string(q, "cgroup", q->cgroup);
	check_string(q, "name", q->name);
	if (q->op >= PROTO_OP_COUNT || !q->doc)
		abort();
	if (q->container && !proto_container_valid(q->container))
		abort();
	if ((q->op == PROTO_REGISTER || q->op == PROTO_UNREGISTER || q->op == PROTO_ASSIGN) &&
	    !q->container)
		abort();
	if (q->op == PROTO_REGISTER && !!q->cgroup + q->has_cgroup_id + q->has_pid != 1)
		abort();
	if (q->cgroup && (q->cgroup[0] != '/' || strlen(q->cgroup) >= KRSI_CGROUP_PATH_MAX))
		abort();
	if (q->has_pid && (q->pid <= 0 || q->pid > INT32_MAX))
		abort();
	if (q->op == PROTO_PROFILE_SHOW && !q->name)
		abort();
	/* learn: a container, and exactly one of 1..86400 seconds or stop */
	if (q->op == PROTO_LEARN &&
	    (!q->container || q->stop == (q->seconds != 0) || q->seconds < 0 ||
	     q->seconds > PROTO_LEARN_MAX_S))
		abort();
}

static bool same_str(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

static void check_round_trip(const struct proto_request *q)
{
	/* Escapes make a string at most six times longer ("\u001f" for one byte). */
	static char buf[8 * PROTO_REQUEST_MAX];
	struct krsi_err err = { "" };
	struct krsi_request r, b;
	struct proto_request back;
	int n;

	proto_request_fields(q, &r);
	n = krsi_request_write(&r, buf, sizeof(buf));
	if (n < 0)
		abort();
	if (n > PROTO_REQUEST_MAX) /* longer than krsid reads: only raw control characters */
		return;
	if (proto_request_parse(buf, n, &back, &err) < 0)
		abort();
	proto_request_fields(&back, &b);
	if (b.op != r.op || !same_str(b.container, r.container) || !same_str(b.name, r.name) ||
	    !same_str(b.profile, r.profile) || !same_str(b.cgroup, r.cgroup) ||
	    !same_str(b.bundle, r.bundle) || b.has_cgroup_id != r.has_cgroup_id ||
	    b.cgroup_id != r.cgroup_id || b.has_pid != r.has_pid || b.pid != r.pid ||
	    b.until_exec != r.until_exec || b.follow != r.follow || b.seconds != r.seconds ||
	    b.stop != r.stop)
		abort();
	proto_request_clear(&back);
}

static void parse(const char *buf, size_t len)
{
	struct krsi_err err = { "" };
	struct proto_request q;

	if (proto_request_parse(buf, len, &q, &err) < 0) {
		if (!err.msg[0])
			abort();
		return;
	}
	check_request(&q);
	check_round_trip(&q);
	proto_request_clear(&q);
}

static void via_socket(const uint8_t *data, size_t size)
{
	struct krsi_err err = { "" };
	json_object *o = NULL;
	int sv[2];

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
		abort();
	/* -max_len keeps inputs far below the socket buffer: one send, never blocking. */
	if (size && send(sv[0], data, size, MSG_DONTWAIT | MSG_NOSIGNAL) != (ssize_t)size)
		abort();
	shutdown(sv[0], SHUT_WR);
	if (proto_recv(sv[1], PROTO_REQUEST_MAX, &o, &err) == 0) {
		struct proto_request q;

		if (proto_request_from_doc(o, &q, &err) < 0) {
			if (!err.msg[0])
				abort();
		} else {
			check_request(&q);
			check_round_trip(&q);
			proto_request_clear(&q);
		}
		json_object_put(o);
	} else if (!err.msg[0]) {
		abort();
	}
	close(sv[0]);
	close(sv[1]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	via_socket(data, size);
	parse((const char *)data, size);
	return 0;
}
