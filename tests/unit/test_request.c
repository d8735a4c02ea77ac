// SPDX-License-Identifier: GPL-2.0
/*
 * Requests written by krsi_request_write() (lib/request.h): krsid's parser takes each back with
 * the same fields, and the two agree on which fields each op takes and needs; strings survive
 * hostile content; a buffer too small leaves nothing that could be sent.
 */
#include <errno.h>
#include <stdlib.h>

#include "lib/jsonr.h"
#include "lib/protocol.h"
#include "unit.h"

/* One of each op, with every field it can carry at once (register: each way to name its
 * cgroup; learn: start and stop). */
static const struct krsi_request every_op[] = {
	{ .op = PROTO_STATUS },
	{ .op = PROTO_PS },
	{ .op = PROTO_PROFILE_LIST },
	{ .op = PROTO_PROFILE_SHOW, .name = "web" },
	{ .op = PROTO_RELOAD },
	{ .op = PROTO_REGISTER, .container = "c1", .profile = "web", .cgroup = "/kube/c1",
	  .bundle = "/run/bundles/c1", .until_exec = true },
	{ .op = PROTO_REGISTER, .container = "c2", .cgroup_id = UINT64_MAX, .has_cgroup_id = true },
	{ .op = PROTO_REGISTER, .container = "c3", .cgroup_id = 0, .has_cgroup_id = true },
	{ .op = PROTO_REGISTER, .container = "c4", .profile = "p", .pid = INT32_MAX,
	  .has_pid = true },
	{ .op = PROTO_UNREGISTER, .container = "c1" },
	{ .op = PROTO_ASSIGN, .container = "c1", .profile = "audit" },
	{ .op = PROTO_EVENTS },
	{ .op = PROTO_EVENTS, .container = "c1", .follow = true },
	{ .op = PROTO_METRICS },
	{ .op = PROTO_LEARN, .container = "c1", .seconds = PROTO_LEARN_MAX_S },
	{ .op = PROTO_LEARN, .container = "c1", .stop = true },
};

static bool same_str(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

/* Whether A and B are the same request, field by field. */
static bool same_request(const struct krsi_request *a, const struct krsi_request *b)
{
	return a->op == b->op && same_str(a->container, b->container) &&
	       same_str(a->name, b->name) && same_str(a->profile, b->profile) &&
	       same_str(a->cgroup, b->cgroup) && same_str(a->bundle, b->bundle) &&
	       a->has_cgroup_id == b->has_cgroup_id &&
	       (!a->has_cgroup_id || a->cgroup_id == b->cgroup_id) && a->has_pid == b->has_pid &&
	       (!a->has_pid || a->pid == b->pid) && a->until_exec == b->until_exec &&
	       a->follow == b->follow && a->seconds == b->seconds && a->stop == b->stop;
}

/* Write R, parse it as krsid does: whether it comes back the same; the line in BUF. */
static bool round_trip(const struct krsi_request *r, char *buf, size_t size, char *why,
		       size_t why_size)
{
	struct krsi_err err = { "" };
	struct proto_request q;
	struct krsi_request back;
	int n = krsi_request_write(r, buf, size);
	bool same;

	if (n < 0) {
		snprintf(why, why_size, "written: %s", strerror(-n));
		return false;
	}
	if ((size_t)n != strlen(buf) || n < 2 || buf[n - 1] != '\n' || memchr(buf, '\n', n - 1)) {
		snprintf(why, why_size, "not one line of %d bytes: %.*s", n, n, buf);
		return false;
	}
	if (proto_request_parse(buf, n, &q, &err) < 0) {
		snprintf(why, why_size, "refused: %s: %.*s", err.msg, n - 1, buf);
		return false;
	}
	proto_request_fields(&q, &back);
	same = same_request(r, &back);
	proto_request_clear(&q);
	snprintf(why, why_size, "%s%.*s", same ? "" : "other fields: ", same ? 0 : n - 1, buf);
	return same;
}

static void test_names(void)
{
	bool distinct = true, all = true;

	for (int i = 0; i < PROTO_OP_COUNT; i++) {
		all = all && proto_op_name(i);
		for (int j = 0; all && j < i; j++)
			distinct = distinct && strcmp(proto_op_name(i), proto_op_name(j));
	}
	CHECK(all && distinct, "every op has a name of its own");
	CHECK(!proto_op_name(PROTO_OP_COUNT) && !proto_op_name((enum proto_op)-1),
	      "no name past the ops");
	CHECK_STR(proto_op_name(PROTO_PROFILE_SHOW), "profile_show", "names as on the wire");
}

static void test_round_trip(void)
{
	char buf[1024], why[1100];
	unsigned int seen = 0;

	for (size_t i = 0; i < ARRAY_SIZE(every_op); i++) {
		const struct krsi_request *r = &every_op[i];
		bool ok = round_trip(r, buf, sizeof(buf), why, sizeof(why));

		CHECK(ok, "%s (%zu) comes back from krsid's parser with the same fields%s%s",
		      proto_op_name(r->op), i, why[0] ? ": " : "", why);
		seen |= 1u << r->op;
	}
	CHECK(seen == (1u << PROTO_OP_COUNT) - 1, "every op is written and read back");

	krsi_request_write(&every_op[5], buf, sizeof(buf));
	CHECK_STR(buf,
		  "{\"version\":1,\"op\":\"register\",\"container\":\"c1\",\"profile\":\"web\","
		  "\"cgroup\":\"/kube/c1\",\"bundle\":\"/run/bundles/c1\",\"until_exec\":true}\n",
		  "a registration as krsi-oci-hook has always sent it, byte for byte");
	krsi_request_write(&every_op[6], buf, sizeof(buf));
	CHECK(strstr(buf, "\"cgroup_id\":18446744073709551615}"), "a cgroup id above INT64_MAX");
	krsi_request_write(&every_op[0], buf, sizeof(buf));
	CHECK_STR(buf, "{\"version\":1,\"op\":\"status\"}\n", "an op without fields");
}

/* The fields, each set to a value of its type, as the member that value is written as. */
enum { K_CONTAINER, K_NAME, K_PROFILE, K_CGROUP, K_CGROUP_ID, K_PID, K_BUNDLE, K_UNTIL_EXEC,
       K_FOLLOW, K_SECONDS, K_STOP, K_COUNT };

static const char *const members[K_COUNT] = {
	[K_CONTAINER] = ",\"" PROTO_KEY_CONTAINER "\":\"c9\"",
	[K_NAME] = ",\"" PROTO_KEY_NAME "\":\"n9\"",
	[K_PROFILE] = ",\"" PROTO_KEY_PROFILE "\":\"p9\"",
	[K_CGROUP] = ",\"" PROTO_KEY_CGROUP "\":\"/c9\"",
	[K_CGROUP_ID] = ",\"" PROTO_KEY_CGROUP_ID "\":9",
	[K_PID] = ",\"" PROTO_KEY_PID "\":9",
	[K_BUNDLE] = ",\"" PROTO_KEY_BUNDLE "\":\"/b9\"",
	[K_UNTIL_EXEC] = ",\"" PROTO_KEY_UNTIL_EXEC "\":true",
	[K_FOLLOW] = ",\"" PROTO_KEY_FOLLOW "\":true",
	[K_SECONDS] = ",\"" PROTO_KEY_SECONDS "\":9",
	[K_STOP] = ",\"" PROTO_KEY_STOP "\":true",
};

/* A request of OP with the fields of the bit set KS. */
static struct krsi_request request_of(enum proto_op op, unsigned int ks)
{
	struct krsi_request r = { .op = op };

	r.container = ks & 1u << K_CONTAINER ? "c9" : NULL;
	r.name = ks & 1u << K_NAME ? "n9" : NULL;
	r.profile = ks & 1u << K_PROFILE ? "p9" : NULL;
	r.cgroup = ks & 1u << K_CGROUP ? "/c9" : NULL;
	r.has_cgroup_id = ks & 1u << K_CGROUP_ID;
	r.cgroup_id = r.has_cgroup_id ? 9 : 0;
	r.has_pid = ks & 1u << K_PID;
	r.pid = r.has_pid ? 9 : 0;
	r.bundle = ks & 1u << K_BUNDLE ? "/b9" : NULL;
	r.until_exec = ks & 1u << K_UNTIL_EXEC;
	r.follow = ks & 1u << K_FOLLOW;
	r.seconds = ks & 1u << K_SECONDS ? 9 : 0;
	r.stop = ks & 1u << K_STOP;
	return r;
}

/* The fields of each op's smallest request that krsid accepts. */
static const unsigned int base_fields[PROTO_OP_COUNT] = {
	[PROTO_PROFILE_SHOW] = 1u << K_NAME,
	[PROTO_REGISTER] = 1u << K_CONTAINER | 1u << K_CGROUP,
	[PROTO_UNREGISTER] = 1u << K_CONTAINER,
	[PROTO_ASSIGN] = 1u << K_CONTAINER | 1u << K_PROFILE,
	[PROTO_LEARN] = 1u << K_CONTAINER | 1u << K_SECONDS,
};

/* krsid's parser's error for TEXT, "" when it accepts it. */
static const char *parse_err(const char *text)
{
	static struct krsi_err err;
	struct proto_request q;

	err.msg[0] = 0;
	if (proto_request_parse(text, strlen(text), &q, &err) == 0) {
		proto_request_clear(&q);
		return "";
	}
	return err.msg;
}

/*
 * Whether the writer and krsid's parser agree on field K of OP (whose smallest request is
 * LINE): one the writer refuses to add is one the parser calls unknown, one the writer
 * refuses to leave out is one the parser calls missing.
 */
static bool field_agrees(enum proto_op op, const char *line, int k)
{
	unsigned int ks = base_fields[op] ^ 1u << k;
	struct krsi_request r = request_of(op, ks);
	char buf[512], json[512];
	bool written = krsi_request_write(&r, buf, sizeof(buf)) >= 0;
	const char *at = strstr(line, members[k]);
	size_t n = strlen(line);

	if (base_fields[op] & 1u << k) {
		if (!at)
			return false;
		snprintf(json, sizeof(json), "%.*s%s", (int)(at - line), line,
			 at + strlen(members[k]));
		return written == !strstr(parse_err(json), "missing");
	}
	snprintf(json, sizeof(json), "%.*s%s}", (int)(n - 2), line, members[k]);
	return written == !strstr(parse_err(json), "unknown field");
}

static void test_fields(void)
{
	for (int op = 0; op < PROTO_OP_COUNT; op++) {
		struct krsi_request base = request_of(op, base_fields[op]);
		char line[512], bad[128] = "";
		int n = krsi_request_write(&base, line, sizeof(line));

		if (n < 0 || *parse_err(line)) {
			CHECK(0, "op %s: its smallest request is written and accepted (%s)",
			      proto_op_name(op), n < 0 ? strerror(-n) : parse_err(line));
			continue;
		}
		for (int k = 0; k < K_COUNT; k++)
			if (!field_agrees(op, line, k))
				snprintf(bad + strlen(bad), sizeof(bad) - strlen(bad), "%s",
					 members[k]);
		CHECK(!bad[0],
		      "op %s: the writer takes and needs the fields krsid's parser does%s%s",
		      proto_op_name(op), bad[0] ? "; they differ on " : "", bad);
	}
}

/* NAME written in a profile_show request, read back by krsid's parser and by jsonr. */
static bool string_survives(const char *name, char *line, size_t size)
{
	static const char *const key = PROTO_KEY_NAME;
	struct krsi_request r = { .op = PROTO_PROFILE_SHOW, .name = name };
	struct krsi_err err = { "" };
	struct jsonr_value doc, v;
	struct proto_request q;
	char why[128], *s = NULL;
	size_t len = 0;
	bool same;
	int n = krsi_request_write(&r, line, size);

	if (n < 0 || proto_request_parse(line, n, &q, &err) < 0)
		return false;
	same = q.op == PROTO_PROFILE_SHOW && same_str(q.name, name);
	proto_request_clear(&q);
	if (jsonr_parse(line, n, &doc, why, sizeof(why)) < 0)
		return false;
	jsonr_fields(&doc, &key, &v, 1);
	if (jsonr_string(&v, &s, &len) < 0)
		return false;
	same = same && len == strlen(name) && !strcmp(s, name);
	free(s);
	return same;
}

static void test_escaping(void)
{
	struct krsi_request r = { .op = PROTO_PROFILE_SHOW, .name = "a\"b\\c\n\x01/\x7f" };
	char all[256], line[2048];
	bool ok;

	krsi_request_write(&r, line, sizeof(line));
	CHECK_STR(line,
		  "{\"version\":1,\"op\":\"profile_show\","
		  "\"name\":\"a\\\"b\\\\c\\u000a\\u0001/\x7f\"}\n",
		  "quotes and backslashes escaped, control characters as \\u00XX");
	for (int i = 1; i < 256; i++)
		all[i - 1] = i;
	all[255] = 0;
	CHECK(string_survives(all, line, sizeof(line)),
	      "every byte but NUL, UTF-8 or not, is read back as written, by krsid and by jsonr");
	CHECK(string_survives("x\",\"op\":\"status", line, sizeof(line)),
	      "a string cannot end itself and add members");
	CHECK(string_survives("\\\"}\n{\"version\":1,\"op\":\"status\"}\n", line, sizeof(line)) &&
		      strchr(line, '\n') == line + strlen(line) - 1,
	      "a string with newlines stays on the request's one line");
	CHECK(string_survives("", line, sizeof(line)), "the empty string");
	r = (struct krsi_request){ .op = PROTO_REGISTER, .container = "c1", .profile = "p\t\"x\"",
				   .cgroup = "/a\\b/c d", .bundle = "/b\x1f\xc3\xa9" };
	ok = round_trip(&r, line, sizeof(line), all, sizeof(all));
	CHECK(ok, "register: every string field escaped%s%s", all[0] ? ": " : "", all);
}

static void test_sizes(void)
{
	struct krsi_request r = { .op = PROTO_REGISTER, .container = "c1", .profile = "\"\"\"\"",
				  .cgroup = "/c1", .until_exec = true };
	char full[256], buf[256];
	int n = krsi_request_write(&r, full, sizeof(full)), bad = -1;

	CHECK(n > 0 && krsi_request_write(&r, buf, n + 1) == n && !strcmp(buf, full),
	      "a buffer of the line and its NUL is enough (%d bytes)", n);
	for (int size = 0; size <= n && bad < 0; size++) {
		memset(buf, 'x', sizeof(buf));
		if (krsi_request_write(&r, buf, size) != -ENOSPC || (size && buf[0]) ||
		    buf[size] != 'x')
			bad = size;
	}
	CHECK(bad < 0, "every smaller buffer: -ENOSPC, \"\" in it and nothing past it (%d)", bad);

	memset(buf, 'x', sizeof(buf));
	r = (struct krsi_request){ .op = PROTO_OP_COUNT };
	CHECK(krsi_request_write(&r, buf, sizeof(buf)) == -EINVAL && !buf[0],
	      "no such op: -EINVAL");
	r = (struct krsi_request){ .op = (enum proto_op)-1 };
	CHECK(krsi_request_write(&r, buf, sizeof(buf)) == -EINVAL, "a negative op: -EINVAL");
	memset(buf, 'x', sizeof(buf));
	r = (struct krsi_request){ .op = PROTO_STATUS, .container = "c1" };
	CHECK(krsi_request_write(&r, buf, sizeof(buf)) == -EINVAL && !buf[0],
	      "a field the op does not take: -EINVAL, and \"\"");
	r = (struct krsi_request){ .op = PROTO_ASSIGN, .container = "c1" };
	CHECK(krsi_request_write(&r, buf, sizeof(buf)) == -EINVAL,
	      "a field the op needs left out: -EINVAL");
}

void test_request(void)
{
	test_names();
	test_round_trip();
	test_fields();
	test_escaping();
	test_sizes();
}
