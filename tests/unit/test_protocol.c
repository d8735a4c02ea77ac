// SPDX-License-Identifier: GPL-2.0
#include <sys/socket.h>

#include "lib/protocol.h"
#include "unit.h"

#define PARSE(s, req, err) proto_request_parse(s, strlen(s), req, err)

static const char *req_err(const char *text)
{
	static struct krsi_err err;
	struct proto_request req;

	err.msg[0] = 0;
	if (proto_request_parse(text, strlen(text), &req, &err) == 0) {
		proto_request_clear(&req);
		return "";
	}
	return err.msg;
}

static void test_requests(void)
{
	struct krsi_err err = { "" };
	struct proto_request req;
	json_object *o;
	char *big;
	int r;

	r = PARSE("{\"version\":1,\"op\":\"register\",\"container\":\"c1\","
				"\"cgroup\":\"/c1\",\"profile\":\"default\"}", &req, &err);
	CHECK(r == 0 && req.op == PROTO_REGISTER, "register parses (%s)", err.msg);
	if (!r) {
		CHECK_STR(req.container, "c1", "register: container");
		CHECK_STR(req.cgroup, "/c1", "register: cgroup");
		CHECK_STR(req.profile, "default", "register: profile");
		CHECK(!req.has_pid && !req.has_cgroup_id, "register: no pid, no cgroup id");
		proto_request_clear(&req);
	}
	r = PARSE("{\"version\":1,\"op\":\"register\",\"container\":\"c1\",\"cgroup\":\"/c1\","
		  "\"bundle\":\"/run/c1\"}", &req, &err);
	CHECK(r == 0 && req.bundle && !strcmp(req.bundle, "/run/c1"), "register with a bundle (%s)",
	      err.msg);
	if (!r)
		proto_request_clear(&req);
	CHECK(strstr(req_err("{\"version\":1,\"op\":\"register\",\"container\":\"c1\","
			     "\"cgroup\":\"/c1\",\"bundle\":\"rel/dir\"}"),
		     "field \"bundle\": \"rel/dir\": expected an absolute path") != NULL,
	      "a relative bundle is refused, naming it");
	CHECK(strstr(req_err("{\"version\":1,\"op\":\"register\",\"container\":\"c1\","
			     "\"cgroup\":\"/c1\",\"bundle\":7}"),
		     "field \"bundle\": expected a string") != NULL,
	      "a bundle that is no string is refused");
	r = PARSE("{\"version\":1,\"op\":\"register\",\"container\":\"c1\",\"pid\":42}", &req, &err);
	CHECK(r == 0 && req.has_pid && req.pid == 42 && !req.profile && !req.until_exec,
	      "register by pid, default profile, armed at once (%s)", err.msg);
	if (!r)
		proto_request_clear(&req);
	r = PARSE("{\"version\":1,\"op\":\"register\",\"container\":\"c1\",\"pid\":42,"
		  "\"until_exec\":true}", &req, &err);
	CHECK(r == 0 && req.until_exec, "register until_exec (%s)", err.msg);
	if (!r)
		proto_request_clear(&req);
	r = PARSE("{\"version\":1,\"op\":\"events\",\"follow\":true}", &req, &err);
	CHECK(r == 0 && req.op == PROTO_EVENTS && req.follow, "events follow (%s)", err.msg);
	if (!r)
		proto_request_clear(&req);

	CHECK_STR(req_err("{\"op\":\"status\"}"), "request has no \"version\"", "version required");
	CHECK_STR(req_err("{\"version\":2,\"op\":\"status\"}"),
		  "protocol version 2 not supported (this agent speaks 1)", "other version refused");
	CHECK_STR(req_err("{\"version\":1,\"op\":\"fly\"}"), "unknown op \"fly\"", "unknown op");
	CHECK_STR(req_err("{\"version\":1}"), "request has no \"op\" string", "op required");
	CHECK_STR(req_err("{\"version\":1,\"op\":\"status\",\"x\":1}"),
		  "op status: unknown field \"x\"", "unknown field");
	CHECK_STR(req_err("{\"version\":1,\"op\":\"unregister\"}"),
		  "op unregister: field \"container\" missing", "missing field");
	CHECK_STR(req_err("{\"version\":1,\"op\":\"unregister\",\"container\":5}"),
		  "field \"container\": expected a string", "wrong type");
	CHECK_STR(req_err("{\"version\":1,\"op\":\"register\",\"container\":\"c\"}"),
		  "op register: exactly one of \"cgroup\", \"cgroup_id\", \"pid\" expected",
		  "register needs a cgroup");
	CHECK_STR(req_err("{\"version\":1,\"op\":\"register\",\"container\":\"c\",\"pid\":1,"
			  "\"cgroup\":\"/c\"}"),
		  "op register: exactly one of \"cgroup\", \"cgroup_id\", \"pid\" expected",
		  "register takes one cgroup designation");
	CHECK(strstr(req_err("{\"version\":1,\"op\":\"unregister\",\"container\":\"../x\"}"),
		     "expected 1 to 127 characters"),
	      "container id charset");
	CHECK(strstr(req_err("{\"version\":1,\"op\":\"register\",\"container\":\"c\","
			     "\"cgroup\":\"/a/../b\"}"),
		     "expected a cgroup path"),
	      "cgroup path with .. refused");
	CHECK(strstr(req_err("{\"version\":1,\"op\":\"register\",\"container\":\"c\",\"pid\":-1}"),
		     "positive integer"),
	      "negative pid refused");
	/* tests/fuzz/regress/protocol/container-nul.json: "wC\u0000" passed as "wC" */
	CHECK_STR(req_err("{\"version\":1,\"op\":\"unregister\",\"container\":\"wC\\u0000\"}"),
		  "field \"container\": \"wC\\u0000...\": a NUL character in the string",
		  "a string with a NUL refused, not cut short");
	CHECK(strstr(req_err("{\"version\":1,\"op\":\"register\",\"container\":\"c\","
			     "\"cgroup\":\"/c\\u0000/../x\"}"),
		     "a NUL character in the string"),
	      "a cgroup path with a NUL refused");
	CHECK(strstr(req_err("{\"version\":1,"), "not valid JSON"), "truncated request");
	CHECK_STR(req_err("[1]"), "request is not a JSON object", "not an object");

	big = malloc(PROTO_REQUEST_MAX + 2);
	memset(big, ' ', PROTO_REQUEST_MAX + 1);
	big[PROTO_REQUEST_MAX + 1] = 0;
	CHECK(proto_request_parse(big, PROTO_REQUEST_MAX + 1, &req, &err) == -EMSGSIZE,
	      "oversized request refused");
	free(big);

	/* An object already parsed (what krsid's reader hands on): checked the same way. */
	o = json_tokener_parse("{\"version\":1,\"op\":\"unregister\",\"container\":\"c1\"}");
	CHECK(proto_request_from_doc(o, &req, &err) == 0 && req.op == PROTO_UNREGISTER &&
		      req.container && !strcmp(req.container, "c1"),
	      "a parsed request: accepted, its fields read");
	proto_request_clear(&req);
	CHECK(json_object_is_type(o, json_type_object), "the caller's object outlives the request");
	json_object_put(o);
	o = json_tokener_parse("{\"version\":1,\"op\":\"register\",\"container\":\"c\"}");
	CHECK(proto_request_from_doc(o, &req, &err) < 0 && strstr(err.msg, "cgroup"),
	      "a parsed request without what its op needs: refused, saying what (%s)", err.msg);
	json_object_put(o);
	o = json_tokener_parse("[1]");
	CHECK(proto_request_from_doc(o, &req, &err) < 0 &&
		      !strcmp(err.msg, "request is not a JSON object"),
	      "a parsed array: refused");
	json_object_put(o);

	o = proto_reply_error("profile %s: unknown", "x");
	CHECK_STR(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN),
		  "{\"version\":1,\"ok\":false,\"error\":\"profile x: unknown\"}", "error reply shape");
	json_object_put(o);
}

static void test_io(void)
{
	struct krsi_err err = { "" };
	json_object *o = NULL, *got = NULL;
	int sv[2];

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0) {
		CHECK(0, "socketpair");
		return;
	}
	o = proto_reply_ok();
	CHECK(proto_send(sv[0], o) == 0, "send a reply");
	CHECK(proto_recv(sv[1], PROTO_REQUEST_MAX, &got, &err) == 0 &&
		      json_object_equal(o, got),
	      "receive it whole without the peer closing (%s)", err.msg);
	json_object_put(got);
	got = NULL;
	{
		char line[64];
		int n = krsi_request_write(&(struct krsi_request){ .op = PROTO_STATUS }, line,
					   sizeof(line));
		json_object *v;

		CHECK(n > 0 && proto_send_line(sv[0], line, n) == 0, "send a request line");
		CHECK(proto_recv(sv[1], PROTO_REQUEST_MAX, &got, &err) == 0 &&
			      json_object_object_get_ex(got, "op", &v) &&
			      !strcmp(json_object_get_string(v), "status"),
		      "receive it whole (%s)", err.msg);
		json_object_put(got);
		got = NULL;
	}
	CHECK(write(sv[0], "{\"version\":", 11) == 11, "send half a request");
	shutdown(sv[0], SHUT_WR);
	CHECK(proto_recv(sv[1], PROTO_REQUEST_MAX, &got, &err) == -ECONNRESET,
	      "half a request is an error: %s", err.msg);
	json_object_put(o);
	close(sv[0]);
	close(sv[1]);

	socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
	{
		char buf[8192];

		memset(buf, '[', sizeof(buf));
		CHECK(write(sv[0], buf, sizeof(buf)) == sizeof(buf), "send 8 KiB of nesting");
		CHECK(proto_recv(sv[1], 4096, &got, &err) < 0, "a message over the cap is refused: %s",
		      err.msg);
	}
	close(sv[0]);
	close(sv[1]);
}

/* A request in pieces, as a non-blocking socket delivers it to krsid. */
static void test_reader(void)
{
	static const char req[] = "\n  {\"version\":1,\"op\":\"status\"}\n{\"after\":1}";
	struct krsi_err err = { "" };
	struct proto_reader rd;
	json_object *got = NULL, *v;
	size_t i;
	int r = 0;

	CHECK(proto_reader_init(&rd, PROTO_REQUEST_MAX) == 0, "a reader");
	for (i = 0; i < sizeof(req) - 1 && r == 0; i++)
		r = proto_reader_feed(&rd, req + i, 1, &got, &err);
	CHECK(r == 1 && got && json_object_object_get_ex(got, "op", &v) &&
		      !strcmp(json_object_get_string(v), "status"),
	      "fed one byte at a time, after leading whitespace: whole at its last byte (%s)",
	      err.msg);
	CHECK(i == 30, "and not a byte later (%zu bytes fed)", i);
	json_object_put(got);
	proto_reader_free(&rd);

	proto_reader_init(&rd, PROTO_REQUEST_MAX);
	CHECK(proto_reader_feed(&rd, "  \n", 3, &got, &err) == 0, "whitespace alone: more needed");
	CHECK(proto_reader_feed(&rd, "", 0, &got, &err) == -ECONNRESET &&
		      strstr(err.msg, "no message: the peer closed the connection"),
	      "the end before a message: %s", err.msg);
	proto_reader_free(&rd);

	proto_reader_init(&rd, PROTO_REQUEST_MAX);
	proto_reader_feed(&rd, "{\"version\":", 11, &got, &err);
	CHECK(proto_reader_feed(&rd, "", 0, &got, &err) == -ECONNRESET &&
		      strstr(err.msg, "message cut short"),
	      "the end inside a message: %s", err.msg);
	proto_reader_free(&rd);

	proto_reader_init(&rd, PROTO_REQUEST_MAX);
	CHECK(proto_reader_feed(&rd, "{\"version\":1,]", 15, &got, &err) == -EINVAL &&
		      strstr(err.msg, "message is not valid JSON"),
	      "malformed: %s", err.msg);
	proto_reader_free(&rd);

	proto_reader_init(&rd, 16);
	r = proto_reader_feed(&rd, "{\"version\":1,", 13, &got, &err);
	CHECK(r == 0 && proto_reader_feed(&rd, "\"op\":1}", 7, &got, &err) == -EMSGSIZE &&
		      strstr(err.msg, "message larger than 16 bytes"),
	      "over the cap across two pieces: %s", err.msg);
	proto_reader_free(&rd);
}

void test_protocol(void)
{
	test_requests();
	test_io();
	test_reader();
}
