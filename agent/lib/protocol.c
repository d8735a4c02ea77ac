// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>

#include "bpf/krsi.h"
#include "lib/protocol.h"

enum ftype { T_STR, T_U64, T_INT, T_BOOL };

struct pfield {
	const char *name;
	enum ftype type;
	bool required;
	size_t off;	  /* where the value goes in struct proto_request */
	size_t has_off;	  /* its has_* flag, or 0 */
};

#define S(n, f, req) { n, T_STR, req, offsetof(struct proto_request, f), 0 }

/* The fields of each op, none for those missing here; their names are request.h's, whose
 * krsi_request_write() writes what this reads. */
static const struct opdef {
	struct pfield f[8];
} ops[PROTO_OP_COUNT] = {
	[PROTO_PROFILE_SHOW] = { { S(PROTO_KEY_NAME, name, true) } },
	[PROTO_REGISTER] = { { S(PROTO_KEY_CONTAINER, container, true),
			       S(PROTO_KEY_PROFILE, profile, false),
			       S(PROTO_KEY_CGROUP, cgroup, false),
			       { PROTO_KEY_CGROUP_ID, T_U64, false,
				 offsetof(struct proto_request, cgroup_id),
				 offsetof(struct proto_request, has_cgroup_id) },
			       { PROTO_KEY_PID, T_INT, false, offsetof(struct proto_request, pid),
				 offsetof(struct proto_request, has_pid) },
			       { PROTO_KEY_UNTIL_EXEC, T_BOOL, false,
				 offsetof(struct proto_request, until_exec) },
			       S(PROTO_KEY_BUNDLE, bundle, false) } },
	[PROTO_UNREGISTER] = { { S(PROTO_KEY_CONTAINER, container, true) } },
	[PROTO_ASSIGN] = { { S(PROTO_KEY_CONTAINER, container, true),
			     S(PROTO_KEY_PROFILE, profile, true) } },
	[PROTO_EVENTS] = { { { PROTO_KEY_FOLLOW, T_BOOL, false,
			       offsetof(struct proto_request, follow) },
			     S(PROTO_KEY_CONTAINER, container, false) } },
	[PROTO_LEARN] = { { S(PROTO_KEY_CONTAINER, container, true),
			    { PROTO_KEY_SECONDS, T_INT, false,
			      offsetof(struct proto_request, seconds) },
			    { PROTO_KEY_STOP, T_BOOL, false,
			      offsetof(struct proto_request, stop) } } },
};

static int parse_value(const struct pfield *f, json_object *v, struct proto_request *req,
		       struct krsi_err *err)
{
	char *base = (char *)req;

	switch (f->type) {
	case T_STR:
		if (!json_object_is_type(v, json_type_string))
			return err_set(err, -EINVAL, "field \"%s\": expected a string", f->name);
		if (json_string_has_nul(v))
			return err_set(err, -EINVAL,
				       "field \"%s\": \"%.64s\\u0000...\": a NUL character in the string",
				       f->name, json_object_get_string(v));
		*(const char **)(base + f->off) = json_object_get_string(v);
		break;
	case T_U64:
		if (!json_object_is_type(v, json_type_int) || json_object_get_int64(v) < 0)
			return err_set(err, -EINVAL, "field \"%s\": expected a non-negative integer",
				       f->name);
		/* json-c keeps integers above INT64_MAX as uint64 */
		*(uint64_t *)(base + f->off) = json_object_get_uint64(v);
		break;
	case T_INT:
		if (!json_object_is_type(v, json_type_int) || json_object_get_int64(v) <= 0 ||
		    json_object_get_int64(v) > INT32_MAX)
			return err_set(err, -EINVAL, "field \"%s\": expected a positive integer",
				       f->name);
		*(int64_t *)(base + f->off) = json_object_get_int64(v);
		break;
	case T_BOOL:
		if (!json_object_is_type(v, json_type_boolean))
			return err_set(err, -EINVAL, "field \"%s\": expected true or false", f->name);
		*(bool *)(base + f->off) = json_object_get_boolean(v);
		break;
	}
	if (f->has_off)
		*(bool *)(base + f->has_off) = true;
	return 0;
}

int proto_request_parse(const char *buf, size_t len, struct proto_request *ret,
			struct krsi_err *err)
{
	enum json_tokener_error jerr;
	struct json_tokener *tok;
	json_object *doc;
	int r;

	if (len > PROTO_REQUEST_MAX)
		return err_set(err, -EMSGSIZE, "request of %zu bytes, at most %d allowed", len,
			       PROTO_REQUEST_MAX);
	tok = json_tokener_new();
	if (!tok)
		return -ENOMEM;
	doc = json_tokener_parse_ex(tok, buf, len);
	jerr = json_tokener_get_error(tok);
	json_tokener_free(tok);
	if (!doc || jerr != json_tokener_success) {
		json_object_put(doc);
		return err_set(err, -EINVAL, "request is not valid JSON: %s",
			       jerr == json_tokener_continue ? "unexpected end of input"
							    : json_tokener_error_desc(jerr));
	}
	r = proto_request_from_doc(doc, ret, err);
	json_object_put(doc);
	return r;
}

int proto_request_from_doc(json_object *doc, struct proto_request *ret, struct krsi_err *err)
{
	struct proto_request req = { 0 };
	json_object *v;
	const struct opdef *def = NULL;
	const char *op;
	int r;

	req.doc = json_object_get(doc);
	if (!json_object_is_type(req.doc, json_type_object)) {
		r = err_set(err, -EINVAL, "request is not a JSON object");
		goto fail;
	}
	if (!json_object_object_get_ex(req.doc, PROTO_KEY_VERSION, &v)) {
		r = err_set(err, -EPROTO, "request has no \"version\"");
		goto fail;
	}
	if (!json_object_is_type(v, json_type_int) || json_object_get_int64(v) != PROTO_VERSION) {
		r = err_set(err, -EPROTO, "protocol version %s not supported (this agent speaks %d)",
			    json_object_to_json_string(v), PROTO_VERSION);
		goto fail;
	}
	if (!json_object_object_get_ex(req.doc, PROTO_KEY_OP, &v) ||
	    !json_object_is_type(v, json_type_string)) {
		r = err_set(err, -EINVAL, "request has no \"op\" string");
		goto fail;
	}
	op = json_object_get_string(v);
	for (int i = 0; i < PROTO_OP_COUNT; i++) {
		if (!strcmp(proto_op_name(i), op)) {
			def = &ops[i];
			req.op = i;
		}
	}
	if (!def) {
		r = err_set(err, -EOPNOTSUPP, "unknown op \"%s\"", op);
		goto fail;
	}
	json_object_object_foreach(req.doc, key, val)
	{
		const struct pfield *f = NULL;

		if (!strcmp(key, PROTO_KEY_VERSION) || !strcmp(key, PROTO_KEY_OP))
			continue;
		for (size_t i = 0; i < ARRAY_SIZE(def->f) && def->f[i].name; i++)
			if (!strcmp(def->f[i].name, key))
				f = &def->f[i];
		if (!f) {
			r = err_set(err, -EINVAL, "op %s: unknown field \"%s\"",
				    proto_op_name(req.op), key);
			goto fail;
		}
		r = parse_value(f, val, &req, err);
		if (r < 0)
			goto fail;
	}
	for (size_t i = 0; i < ARRAY_SIZE(def->f) && def->f[i].name; i++) {
		if (def->f[i].required && !json_object_object_get_ex(req.doc, def->f[i].name, NULL)) {
			r = err_set(err, -EINVAL, "op %s: field \"%s\" missing",
				    proto_op_name(req.op), def->f[i].name);
			goto fail;
		}
	}
	if (req.container && !proto_container_valid(req.container)) {
		r = err_set(err, -EINVAL,
			    "field \"container\": \"%.*s\": expected 1 to %d characters of [A-Za-z0-9_.-]",
			    KRSI_CONTAINER_MAX, req.container, KRSI_CONTAINER_MAX - 1);
		goto fail;
	}
	if (req.op == PROTO_REGISTER && !!req.cgroup + req.has_cgroup_id + req.has_pid != 1) {
		r = err_set(err, -EINVAL,
			    "op register: exactly one of \"cgroup\", \"cgroup_id\", \"pid\" expected");
		goto fail;
	}
	if (req.cgroup && (req.cgroup[0] != '/' || strlen(req.cgroup) >= KRSI_CGROUP_PATH_MAX ||
			   strstr(req.cgroup, "/..") || strstr(req.cgroup, "//"))) {
		r = err_set(err, -EINVAL, "field \"cgroup\": \"%s\": expected a cgroup path such as /a/b",
			    req.cgroup);
		goto fail;
	}
	if (req.op == PROTO_LEARN && req.stop == !!req.seconds) {
		r = err_set(err, -EINVAL, "op learn: exactly one of \"seconds\", \"stop\": true expected");
		goto fail;
	}
	if (req.op == PROTO_LEARN && req.seconds > PROTO_LEARN_MAX_S) {
		r = err_set(err, -EINVAL, "field \"seconds\": %lld: at most %d (a day)",
			    (long long)req.seconds, PROTO_LEARN_MAX_S);
		goto fail;
	}
	if (req.bundle && (req.bundle[0] != '/' || strlen(req.bundle) >= KRSI_ROOTFS_MAX)) {
		r = err_set(err, -EINVAL,
			    "field \"bundle\": \"%.64s\": expected an absolute path of at most %d bytes",
			    req.bundle, KRSI_ROOTFS_MAX - 1);
		goto fail;
	}
	*ret = req;
	return 0;
fail:
	json_object_put(req.doc);
	return r;
}

void proto_request_clear(struct proto_request *req)
{
	json_object_put(req->doc);
	req->doc = NULL;
}

void proto_request_fields(const struct proto_request *q, struct krsi_request *ret)
{
	*ret = (struct krsi_request){
		.op = q->op,
		.container = q->container,
		.name = q->name,
		.profile = q->profile,
		.cgroup = q->cgroup,
		.cgroup_id = q->cgroup_id,
		.pid = q->pid,
		.bundle = q->bundle,
		.has_cgroup_id = q->has_cgroup_id,
		.has_pid = q->has_pid,
		.until_exec = q->until_exec,
		.follow = q->follow,
		.seconds = q->seconds,
		.stop = q->stop,
	};
}

json_object *proto_reply_ok(void)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, PROTO_KEY_VERSION, json_object_new_int(PROTO_VERSION));
	json_object_object_add(o, "ok", json_object_new_boolean(1));
	return o;
}

json_object *proto_reply_error(const char *fmt, ...)
{
	json_object *o = json_object_new_object();
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	json_object_object_add(o, PROTO_KEY_VERSION, json_object_new_int(PROTO_VERSION));
	json_object_object_add(o, "ok", json_object_new_boolean(0));
	json_object_object_add(o, "error", json_object_new_string(msg));
	return o;
}

int proto_send(int fd, json_object *o)
{
	const char *s = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN);
	size_t len = strlen(s);
	_cleanup_free_ char *line = malloc(len + 1);

	if (!line)
		return -ENOMEM;
	memcpy(line, s, len);
	line[len++] = '\n';
	return proto_send_line(fd, line, len);
}

int proto_reader_init(struct proto_reader *r, size_t max)
{
	*r = (struct proto_reader){ .max = max };
	r->tok = json_tokener_new_ex(64);
	return r->tok ? 0 : -ENOMEM;
}

void proto_reader_free(struct proto_reader *r)
{
	if (r->tok)
		json_tokener_free(r->tok);
	r->tok = NULL;
}

int proto_reader_feed(struct proto_reader *r, const char *buf, size_t n, json_object **ret,
		      struct krsi_err *err)
{
	enum json_tokener_error jerr;
	size_t start = 0;
	json_object *o;

	if (n == 0)
		return err_set(err, -ECONNRESET, r->seen ? "message cut short: unexpected end of input"
							  : "no message: the peer closed the connection");
	r->total += n;
	if (r->total > r->max)
		return err_set(err, -EMSGSIZE, "message larger than %zu bytes", r->max);
	/* Leading whitespace (a previous line's newline) is not part of a message. */
	if (!r->seen)
		while (start < n && isspace((unsigned char)buf[start]))
			start++;
	if (n == start)
		return 0;
	r->seen = true;
	o = json_tokener_parse_ex(r->tok, buf + start, n - start);
	jerr = json_tokener_get_error(r->tok);
	if (!o && jerr != json_tokener_continue)
		return err_set(err, -EINVAL, "message is not valid JSON: %s",
			       json_tokener_error_desc(jerr));
	if (!o)
		return 0;
	/* Bytes after a complete object are not read: a request is the only message its
	 * direction carries, and event streams are read line by line. */
	*ret = o;
	return 1;
}

int proto_recv(int fd, size_t max, json_object **ret, struct krsi_err *err)
{
	struct proto_reader rd;
	json_object *o = NULL;
	char buf[4096];
	int r;

	if (proto_reader_init(&rd, max) < 0)
		return -ENOMEM;
	do {
		ssize_t n = recv(fd, buf, sizeof(buf), 0);

		if (n < 0 && errno == EINTR) {
			r = 0;
			continue;
		}
		if (n < 0) {
			r = err_set(err, -errno, errno == EAGAIN ? "timed out waiting for a message"
								 : "receive: %s",
				    strerror(errno));
			break;
		}
		r = proto_reader_feed(&rd, buf, n, &o, err);
	} while (r == 0);
	proto_reader_free(&rd);
	if (r < 0)
		return r;
	*ret = o;
	return 0;
}

int proto_call(const char *path, const char *line, size_t len, int timeout_ms,
	       json_object **ret_reply, struct krsi_err *err)
{
	_cleanup_close_ int fd = proto_connect(path, timeout_ms, err);
	int r;

	if (fd < 0)
		return fd;
	r = proto_send_line(fd, line, len);
	if (r < 0) {
		/* The agent may have answered and closed before reading (a refused peer): its
		 * reply is still queued for us. */
		struct krsi_err rerr;

		if ((r == -EPIPE || r == -ECONNRESET) &&
		    proto_recv(fd, PROTO_REPLY_MAX, ret_reply, &rerr) == 0)
			return 0;
		return err_set(err, r, "send to %s: %s", path, strerror(-r));
	}
	shutdown(fd, SHUT_WR);
	return proto_recv(fd, PROTO_REPLY_MAX, ret_reply, err);
}
