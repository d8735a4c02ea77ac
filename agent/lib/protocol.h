/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The control protocol between krsid and its clients (krsictl, krsi-oci-hook): the one place
 * that defines the message shapes. Pure logic plus socket I/O; no BPF.
 *
 * A client connects to the unix socket, writes one JSON object (at most PROTO_REQUEST_MAX
 * bytes), and reads one JSON object per line: one reply, or for "events" a reply followed by
 * events until either side closes. Every request carries "version": PROTO_VERSION and "op".
 * Clients write requests with krsi_request_write() (request.h: the ops, their names and
 * fields, the limits, connect and send, all without json-c), krsid reads them with
 * proto_request_parse(). This header is the json-c side: krsid's parser and replies, and
 * reading replies.
 *
 *   op            fields                                    reply fields
 *   status        -                                         agent, kernel, stats, counts
 *   ps            -                                         containers: [entry...]
 *   profile_list  -                                         profiles: [...]
 *   profile_show  name                                      profile: {...}
 *   reload        -                                         changed: [...], unchanged: [...]
 *   register      container, profile?, one of cgroup (path), cgroup_id, pid, until_exec?
 *                                                           container: entry
 *                 until_exec: only exec rules apply until the cgroup's first execve (the
 *                 OCI hook's registrations, made while the runtime still sets up)
 *                 bundle?: an OCI bundle directory; the exact rules' file identities
 *                 are resolved in the rootfs its config.json names (agent/identity.h)
 *   unregister    container                                 -
 *   assign        container, profile                        container: entry
 *   events        follow?, container?                       events: [...], then lines when follow
 *   metrics       -                                         text
 *   learn         container, seconds (1..86400) or stop     container: entry, lost
 *                 while learned, the container's exec, write-open, connect and bind that no
 *                 deny rule denies are allowed and reported as "learn" events; it ends at
 *                 stop, after SECONDS, at unregistration, or when krsid stops
 *
 * Replies: {"version":1,"ok":true,...} or {"version":1,"ok":false,"error":"..."}.
 */
#ifndef KRSI_PROTOCOL_H
#define KRSI_PROTOCOL_H

#include <stdbool.h>
#include <stdint.h>
#include "lib/jsonc.h"

#include "lib/request.h"
#include "lib/util.h"

struct proto_request {
	enum proto_op op;
	const char *container; /* strings point into doc */
	const char *profile;
	const char *cgroup;
	const char *name;
	const char *bundle; /* register: the OCI bundle, whose rootfs identities are resolved in */
	uint64_t cgroup_id;
	int64_t pid;
	int64_t seconds; /* learn: how long at most, from now */
	bool has_cgroup_id, has_pid, follow, until_exec, stop;
	json_object *doc;
};

/* Parse and validate a request; on success ret->doc holds a reference (proto_request_clear). */
int proto_request_parse(const char *buf, size_t len, struct proto_request *ret,
			struct krsi_err *err);
/* The same for a request already parsed (proto_recv(), a proto_reader): DOC is not consumed. */
int proto_request_from_doc(json_object *doc, struct proto_request *ret, struct krsi_err *err);
void proto_request_clear(struct proto_request *req);

/* The fields of a parsed request as a krsi_request (request.h), which writes it again. */
void proto_request_fields(const struct proto_request *q, struct krsi_request *ret);
json_object *proto_reply_ok(void);
json_object *proto_reply_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Write O as one line. Returns 0 or -errno. */
int proto_send(int fd, json_object *o);
/*
 * One message read in pieces, as they arrive on a non-blocking socket: proto_reader_feed()
 * returns 1 and the object once it is whole, 0 while more is needed, and a negative errno with
 * the reason for a message that is too big or not JSON. N = 0 is the peer's end of input.
 */
struct proto_reader {
	struct json_tokener *tok;
	size_t total, max;
	bool seen; /* a byte other than leading whitespace */
};
int proto_reader_init(struct proto_reader *r, size_t max);
int proto_reader_feed(struct proto_reader *r, const char *buf, size_t n, json_object **ret,
		      struct krsi_err *err);
void proto_reader_free(struct proto_reader *r);
/* Read one JSON object of at most MAX bytes from FD (the peer need not close). */
int proto_recv(int fd, size_t max, json_object **ret, struct krsi_err *err);
/* Client side: connect, send the request line LINE (LEN bytes, krsi_request_write()), read
 * the reply; an {"ok":false} reply is returned as is. */
int proto_call(const char *path, const char *line, size_t len, int timeout_ms,
	       json_object **ret_reply, struct krsi_err *err);

#endif
