/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The requests of the control protocol, as a client writes and sends them: the ops, their
 * names and fields, the limits, krsi_request_write(), which turns a typed request into the one
 * JSON line a client sends, and the socket it goes to. No JSON library: krsi-oci-hook (static,
 * musl, no json-c) includes this and not protocol.h, and builds its requests here like krsictl
 * and the test tools do. krsid reads them with proto_request_parse() (protocol.h, which lists
 * what each op takes and replies).
 */
#ifndef KRSI_REQUEST_H
#define KRSI_REQUEST_H

#include <ctype.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "bpf/krsi.h"

#include "lib/util.h"

#define PROTO_VERSION 1
#define PROTO_REQUEST_MAX (64 * 1024)
#define PROTO_REPLY_MAX (16 * 1024 * 1024)
#define PROTO_LEARN_MAX_S 86400
#define PROTO_SOCKET_PATH "/run/krsi/krsid.sock"

enum proto_op {
	PROTO_STATUS,
	PROTO_PS,
	PROTO_PROFILE_LIST,
	PROTO_PROFILE_SHOW,
	PROTO_RELOAD,
	PROTO_REGISTER,
	PROTO_UNREGISTER,
	PROTO_ASSIGN,
	PROTO_EVENTS,
	PROTO_METRICS,
	PROTO_LEARN,
	PROTO_OP_COUNT,
};

/* The members of a request, for the writer here and the parser in protocol.c. */
#define PROTO_KEY_VERSION "version"
#define PROTO_KEY_OP "op"
#define PROTO_KEY_CONTAINER "container"
#define PROTO_KEY_NAME "name"
#define PROTO_KEY_PROFILE "profile"
#define PROTO_KEY_CGROUP "cgroup"
#define PROTO_KEY_CGROUP_ID "cgroup_id"
#define PROTO_KEY_PID "pid"
#define PROTO_KEY_BUNDLE "bundle"
#define PROTO_KEY_UNTIL_EXEC "until_exec"
#define PROTO_KEY_FOLLOW "follow"
#define PROTO_KEY_SECONDS "seconds"
#define PROTO_KEY_STOP "stop"

/*
 * A request. A NULL string, a false flag, a zero SECONDS and a number without its has_* flag
 * are left out; what is set must be a field its op takes (protocol.h). Written in this order.
 */
struct krsi_request {
	enum proto_op op;
	const char *container;
	const char *name;    /* profile_show */
	const char *profile; /* register, assign */
	const char *cgroup;  /* register: one of cgroup, cgroup_id, pid */
	uint64_t cgroup_id;
	int64_t pid;
	const char *bundle; /* register */
	bool has_cgroup_id, has_pid;
	bool until_exec; /* register */
	bool follow;	 /* events */
	int64_t seconds; /* learn: start or extend learning; or */
	bool stop;	 /* learn: end it */
};

/* "status", "profile_show", ...: the op's name on the wire; NULL for no op. */
const char *proto_op_name(enum proto_op op);

/*
 * R as one line, {"version":1,"op":"...",...}\n, NUL-terminated in BUF of SIZE: strings are
 * escaped (quote, backslash, control characters). Returns the line's length (without the NUL),
 * -EINVAL for an op out of range, a field its op does not take or a missing one it needs, or
 * -ENOSPC when the line and its NUL do not fit. On an error BUF holds "" (when SIZE allows):
 * never part of a request that could be sent.
 */
int krsi_request_write(const struct krsi_request *r, char *buf, size_t size);

/*
 * The client's socket, in agent/lib/proto_connect.c. proto_connect(): connected to PATH, with a
 * timeout of TIMEOUT_MS on every read and write (0: none); or -errno and ERR.
 * proto_send_line(): LEN bytes of BUF, a request's line, written to FD (no SIGPIPE); 0 or
 * -errno.
 */
int proto_connect(const char *path, int timeout_ms, struct krsi_err *err);
int proto_send_line(int fd, const char *buf, size_t len);

/* Container ids: [A-Za-z0-9_.-], 1..127 chars, not starting with "." or "-". */
static inline bool proto_container_valid(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n >= KRSI_CONTAINER_MAX || s[0] == '.' || s[0] == '-')
		return false;
	for (size_t i = 0; i < n; i++)
		if (!(isalnum((unsigned char)s[i]) || s[i] == '.' || s[i] == '_' || s[i] == '-'))
			return false;
	return true;
}

/* A valid profile (and container) name: 1 to KRSI_NAME_MAX - 1 of [a-z0-9._-], not starting
 * with '.' or '-'. krsid checks it, and so do the clients that send one. */
bool profile_name_valid(const char *s);

#endif
