// SPDX-License-Identifier: GPL-2.0
#include <stdlib.h>
#include <unistd.h>

#include "policy/profile.h"
#include "unit.h"

#ifndef KRSI_SRC
#define KRSI_SRC "."
#endif

static const char *full =
	"{ \"name\": \"web\", \"version\": 3, \"mode\": \"enforce\", \"description\": \"d\",\n"
	"  \"exec\": [\"/usr/bin/nc\"], \"exec_dirs\": [\"/tmp\", \"/dev/shm/\"],\n"
	"  \"read\": [\"/etc/shadow\"], \"read_dirs\": [\"/root\"],\n"
	"  \"write\": [\"/etc/passwd\"], \"write_dirs\": [\"/\"],\n"
	"  \"socket\": [\"AF_PACKET\", \"AF_INET:SOCK_RAW\", \"inet6:raw\"],\n"
	"  \"connect\": [\"10.0.0.0/8\", \"192.168.1.1:22\", \"[2001:db8::/32]:443\"],\n"
	"  \"bind\": [\"0.0.0.0/0:80\"],\n"
	"  \"mount\": true, \"ptrace\": true, \"module\": true, \"bpf\": true, \"userns\": false,\n"
	"  \"wx\": true, \"capabilities\": [\"CAP_SYS_ADMIN\", \"net_raw\"] }";

/* Parse TEXT as "web.json" and return the error message, or "" on success. */
static const char *parse_err(const char *text)
{
	static struct krsi_err err;
	struct profile *p = NULL;

	err.msg[0] = 0;
	if (profile_parse("web.json", text, strlen(text), &p, &err) == 0) {
		profile_free(p);
		return "";
	}
	return err.msg;
}

static void test_parse_full(void)
{
	struct krsi_err err = { "" };
	struct profile *p = NULL;
	struct profile_compiled c;
	int r;

	r = profile_parse("web.json", full, strlen(full), &p, &err);
	CHECK(r == 0, "full profile parses (%s)", err.msg);
	if (r)
		return;
	CHECK_STR(p->name, "web", "name parsed");
	CHECK(p->version == 3 && p->mode == KRSI_MODE_ENFORCE, "version and mode parsed");
	CHECK_STR(p->paths[PROFILE_EXEC_DIRS][0], "/tmp/", "a directory gains a trailing /");
	CHECK_STR(p->paths[PROFILE_EXEC_DIRS][1], "/dev/shm/", "a directory keeps one trailing /");
	CHECK_STR(p->paths[PROFILE_WRITE_DIRS][0], "/", "the root directory stays /");
	CHECK(p->families == (1ULL << 17), "AF_PACKET denied for every type");
	CHECK(p->types[2] == (1u << 3) && p->types[10] == (1u << 3),
	      "raw sockets denied for AF_INET and AF_INET6 (short names too)");
	CHECK(p->caps == ((1ULL << 21) | (1ULL << 13)), "capabilities by full and short name");
	CHECK(p->mount && p->ptrace && p->module && p->bpf && !p->userns && p->wx, "booleans");
	CHECK(p->n_net[0] == 3 && p->n_net[1] == 1, "connect and bind lists");

	r = profile_compile(p, 7, 42, &c);
	CHECK(r == 0, "full profile compiles");
	CHECK(c.policy.slot == 42 && c.policy.profile_id == 7 && c.policy.version == 3,
	      "policy carries slot, id and version");
	CHECK(c.policy.deny == (KRSI_DENY(KRSI_HOOK_EXEC) | KRSI_DENY(KRSI_HOOK_OPEN_READ) |
				KRSI_DENY(KRSI_HOOK_OPEN_WRITE) | KRSI_DENY(KRSI_HOOK_SOCKET) |
				KRSI_DENY(KRSI_HOOK_CONNECT) | KRSI_DENY(KRSI_HOOK_BIND) |
				KRSI_DENY(KRSI_HOOK_MOUNT) | KRSI_DENY(KRSI_HOOK_PTRACE) |
				KRSI_DENY(KRSI_HOOK_MODULE) | KRSI_DENY(KRSI_HOOK_BPF) |
				KRSI_DENY(KRSI_HOOK_WX) | KRSI_DENY(KRSI_HOOK_CAPABLE) |
				KRSI_DENY(KRSI_HOOK_CGROUP)),
	      "deny bits: every kind but userns, and every profile's cgroup rule");
	CHECK(c.n_paths == 7 && c.n_net == 4, "7 path rules and 4 network rules");
	CHECK(c.paths[0].kind == KRSI_PATH_EXEC && c.paths[0].slot == 42 &&
		      c.paths[0].prefixlen == (8 + strlen("/usr/bin/nc") + 1) * 8,
	      "an exact path rule covers its NUL");
	CHECK(c.paths[1].prefixlen == (8 + strlen("/tmp/")) * 8 &&
		      !memcmp(c.paths[1].path, "/tmp/", 5),
	      "a directory rule is the directory and its /, no NUL");
	CHECK(c.net[0].op == KRSI_NET_CONNECT && c.net[0].family == 4 && c.net[0].port == 0 &&
		      c.net[0].addr[0] == 10 && c.net[0].prefixlen == KRSI_NET_KEY_FIXED_BITS + 8,
	      "10.0.0.0/8 compiles to an 8-bit prefix after the fixed part, any port");
	CHECK(c.net[3].op == KRSI_NET_BIND && c.net[3].port == 80 &&
		      c.net[3].prefixlen == KRSI_NET_KEY_FIXED_BITS,
	      "0.0.0.0/0:80 is a bind rule with no address bits");
	CHECK(c.policy.dirs == (1u << KRSI_PATH_EXEC | 1u << KRSI_PATH_READ | 1u << KRSI_PATH_WRITE),
	      "dirs: every kind has a directory rule");
	CHECK(c.n_names == 3 && !strcmp(c.names[0].name, "nc") && c.names[0].kind == KRSI_PATH_EXEC &&
		      c.names[0].slot == 42 && !strcmp(c.names[1].name, "shadow") &&
		      !strcmp(c.names[2].name, "passwd"),
	      "one name key per exact rule: its last component");
	profile_compiled_clear(&c);
	profile_free(p);
}

static void test_names(void)
{
	const char *t = "{ \"name\": \"n\", \"version\": 1, \"mode\": \"enforce\", "
			"\"read\": [\"/etc/a-very-long-file-name-that-goes-on-and-on-past-48-bytes.conf\"], "
			"\"exec\": [\"/bin/x\"], \"pathless_exec\": true }";
	struct krsi_err err = { "" };
	struct profile *p = NULL;
	struct profile_compiled c;
	char buf[KRSI_BASENAME_MAX];

	profile_basename("/usr/bin/nc", buf, sizeof(buf));
	CHECK_STR(buf, "nc", "basename of /usr/bin/nc");
	profile_basename("/", buf, sizeof(buf));
	CHECK_STR(buf, "", "basename of / is empty");
	if (profile_parse("n.json", t, strlen(t), &p, &err) < 0) {
		CHECK(0, "names profile parses: %s", err.msg);
		return;
	}
	CHECK(p->pathless_exec, "pathless_exec parsed");
	CHECK(profile_compile(p, 1, 5, &c) == 0, "names profile compiles");
	CHECK(c.policy.dirs == 0, "no directory rule: dirs is 0, the name prefilter applies");
	CHECK(c.policy.deny & KRSI_DENY(KRSI_HOOK_PATHLESS), "pathless_exec sets its deny bit");
	CHECK(c.n_names == 2 && strlen(c.names[1].name) == KRSI_BASENAME_MAX - 1 &&
		      !strncmp(c.names[1].name, "a-very-long-file-name", 21) &&
		      c.names[1].name[KRSI_BASENAME_MAX - 1] == 0,
	      "a long last component is cut to %d bytes, as the BPF side reads it",
	      KRSI_BASENAME_MAX - 1);
	profile_compiled_clear(&c);
	profile_free(p);
	CHECK(strstr(parse_err("{ \"name\": \"n\", \"version\": 1, \"mode\": \"enforce\", "
			       "\"pathless_exec\": 1 }"), "pathless_exec") != NULL,
	      "pathless_exec must be a boolean: %s",
	      parse_err("{ \"name\": \"n\", \"version\": 1, \"mode\": \"enforce\", \"pathless_exec\": 1 }"));
}

static void test_errors(void)
{
	static char big[256 * 1024]; /* KRSI_LIST_MAX + 1 entries */
	char want[128];
	size_t off;

	CHECK_STR(parse_err("{\"name\":\"web\",\"version\":1,\"mode\":\"enforce\",\"exec\":\"/bin/sh\"}"),
		  "profile web.json: field \"exec\": expected array of strings",
		  "wrong type: a string for a list");
	CHECK_STR(parse_err("{\"name\":\"web\",\"version\":1,\"mode\":\"enforce\",\"exec\":[1]}"),
		  "profile web.json: field \"exec\": expected array of strings",
		  "wrong type: a number in a list");
	CHECK_STR(parse_err("{\"name\":\"web\",\"version\":1,\"mode\":\"enforce\",\"exe\":[]}"),
		  "profile web.json: field \"exe\": unknown field", "unknown field");
	CHECK_STR(parse_err("{\"name\":\"web\",\"version\":1,\"mode\":\"enforce\","
			    "\"capabilities\":[\"CAP_FLY\"]}"),
		  "profile web.json: field \"capabilities\": \"CAP_FLY\": unknown capability",
		  "unknown capability");
	CHECK_STR(parse_err("{\"name\":\"web\",\"version\":1,\"mode\":\"enforce\","
			    "\"connect\":[\"10.0.0.1/8\"]}"),
		  "profile web.json: field \"connect\": \"10.0.0.1/8\": bad CIDR: address has bits "
		  "set past its prefix length",
		  "bad CIDR: host bits");
	CHECK_STR(parse_err("{\"name\":\"web\",\"version\":1,\"mode\":\"enforce\","
			    "\"bind\":[\"10.0.0.0/33\"]}"),
		  "profile web.json: field \"bind\": \"10.0.0.0/33\": bad CIDR: bad prefix length",
		  "bad CIDR: prefix too long");
	CHECK_STR(parse_err("{\"name\":\"web\",\"version\":1,\"mode\":\"enforce\","
			    "\"connect\":[\"300.1.1.1\"]}"),
		  "profile web.json: field \"connect\": \"300.1.1.1\": bad CIDR: not an IPv4 address",
		  "bad CIDR: not an address");
	/* tests/fuzz/regress/profile/bind-nul.json: it compiled to 4.0.0.0/32, any port */
	CHECK_STR(parse_err("{\"name\":\"web\",\"version\":1,\"mode\":\"enforce\","
			    "\"bind\":[\"4.0.0.0\\u0000/0:2\"]}"),
		  "profile web.json: field \"bind\": \"4.0.0.0\\u0000...\": a NUL character in the "
		  "string",
		  "a rule with a NUL refused, not cut short");
	CHECK_STR(parse_err("{\"name\":\"web\\u0000x\",\"version\":1,\"mode\":\"enforce\"}"),
		  "profile web.json: field \"name\": \"web\\u0000...\": a NUL character in the string",
		  "a name with a NUL refused");
	CHECK(strstr(parse_err("{\"name\":\"web\",\"version\":1,\"mode\":\"enforce\","
			       "\"connect\":[\"1.2.3.4:0\"]}"),
		     "bad port"),
	      "bad port 0");
	CHECK(strstr(parse_err("{\"name\":\"web\",\"version\":1,\"mode\":\"enforce\","
			       "\"connect\":[\"[::1]:99999\"]}"),
		     "bad port"),
	      "bad port 99999");
	off = snprintf(big, sizeof(big), "{\"name\":\"web\",\"version\":1,\"mode\":\"enforce\",\"read\":[");
	for (int i = 0; i < KRSI_LIST_MAX + 1; i++)
		off += snprintf(big + off, sizeof(big) - off, "%s\"/f%d\"", i ? "," : "", i);
	snprintf(big + off, sizeof(big) - off, "]}");
	snprintf(want, sizeof(want), "profile web.json: field \"read\": %d entries, at most %d allowed",
		 KRSI_LIST_MAX + 1, KRSI_LIST_MAX);
	CHECK_STR(parse_err(big), want, "oversized list");
	CHECK(strncmp(parse_err("{\"name\":\"web\",\"version\":1,"), "profile web.json: not valid JSON",
		      31) == 0,
	      "truncated JSON: %s", parse_err("{\"name\":\"web\",\"version\":1,"));
	CHECK(strstr(parse_err("{\"name\":\"web\",\"version\":1,\"mode\":\"enforce\"} x"),
		     "data after the document"),
	      "trailing garbage rejected");
	CHECK_STR(parse_err("[]"), "profile web.json: expected a JSON object", "not an object");
	CHECK_STR(parse_err("{\"name\":\"web\",\"version\":1}"),
		  "profile web.json: field \"mode\": missing", "missing mode");
	CHECK_STR(parse_err("{\"name\":\"web\",\"version\":1,\"mode\":\"permissive\"}"),
		  "profile web.json: field \"mode\": \"permissive\": expected \"enforce\" or \"audit\"",
		  "bad mode");
	CHECK_STR(parse_err("{\"name\":\"web\",\"version\":-1,\"mode\":\"audit\"}"),
		  "profile web.json: field \"version\": expected a non-negative integer",
		  "negative version");
	CHECK_STR(parse_err("{\"name\":\"Web!\",\"version\":1,\"mode\":\"audit\"}"),
		  "profile web.json: field \"name\": \"Web!\": expected 1 to 63 characters of "
		  "[a-z0-9._-]",
		  "bad name");
	CHECK_STR(parse_err("{\"name\":\"web\",\"version\":1,\"mode\":\"audit\",\"mount\":1}"),
		  "profile web.json: field \"mount\": expected true or false", "boolean as number");
	CHECK_STR(parse_err("{\"name\":\"web\",\"version\":1,\"mode\":\"audit\",\"exec\":[\"bin/sh\"]}"),
		  "profile web.json: field \"exec\": \"bin/sh\": not an absolute path", "relative path");
	CHECK(strstr(parse_err("{\"name\":\"web\",\"version\":1,\"mode\":\"audit\",\"exec\":[\"/bin/\"]}"),
		     "*_dirs"),
	      "a directory in an exact list points at the *_dirs list");
	CHECK(strstr(parse_err("{\"name\":\"web\",\"version\":1,\"mode\":\"audit\","
			       "\"read_dirs\":[\"/a/../etc\"]}"),
		     "\"..\" component"),
	      "a .. component rejected");
	CHECK(strstr(parse_err("{\"name\":\"web\",\"version\":1,\"mode\":\"audit\",\"read\":[\"/a//b\"]}"),
		     "\"//\""),
	      "a // rejected");
	CHECK_STR(parse_err("{\"name\":\"web\",\"version\":1,\"mode\":\"audit\",\"socket\":[\"AF_FOO\"]}"),
		  "profile web.json: field \"socket\": \"AF_FOO\": unknown socket family \"AF_FOO\"",
		  "unknown socket family");
	CHECK_STR(parse_err("{\"name\":\"web\",\"version\":1,\"mode\":\"audit\","
			    "\"socket\":[\"AF_INET:SOCK_FOO\"]}"),
		  "profile web.json: field \"socket\": \"AF_INET:SOCK_FOO\": unknown socket type "
		  "\"SOCK_FOO\"",
		  "unknown socket type");
}

static void test_net(void)
{
	struct profile_net_rule r;
	const char *why;

	CHECK(profile_parse_net("192.168.1.1:22", &r, &why) == 0 && r.family == 4 &&
		      r.prefix == 32 && r.port == 22 && r.addr[0] == 192 && r.addr[3] == 1,
	      "IPv4 host and port");
	CHECK(profile_parse_net("::1", &r, &why) == 0 && r.family == 6 && r.prefix == 128 &&
		      r.port == 0 && r.addr[15] == 1,
	      "bare IPv6 host");
	CHECK(profile_parse_net("[2001:db8::/32]:443", &r, &why) == 0 && r.family == 6 &&
		      r.prefix == 32 && r.port == 443 && r.addr[0] == 0x20 && r.addr[1] == 0x01,
	      "bracketed IPv6 prefix and port");
	CHECK(profile_parse_net("2001:db8::/32", &r, &why) == 0 && r.prefix == 32 && r.port == 0,
	      "bare IPv6 prefix");
	CHECK(profile_parse_net("[::1", &r, &why) < 0, "unclosed bracket rejected");
	CHECK(profile_parse_net("[::1]x", &r, &why) < 0, "junk after bracket rejected");
	CHECK(profile_parse_net("10.0.0.0/x", &r, &why) < 0, "non-numeric prefix rejected");
	CHECK(profile_parse_net("2001:db8::1/64", &r, &why) < 0, "IPv6 host bits rejected");
}

static void test_files(void)
{
	char dir[] = "/tmp/krsi-unit-XXXXXX", path[128];
	struct krsi_err err = { "" };
	struct profile *p = NULL, *d = NULL, *a = NULL;
	struct profile_compiled cd, ca;
	FILE *f;

	if (!mkdtemp(dir)) {
		CHECK(0, "mkdtemp");
		return;
	}
	snprintf(path, sizeof(path), "%s/other.json", dir);
	f = fopen(path, "w");
	fputs("{\"name\":\"web\",\"version\":1,\"mode\":\"audit\"}", f);
	fclose(f);
	CHECK(profile_load_file(path, true, &p, &err) == -EINVAL, "a name that is not the file's is rejected");
	CHECK_STR(err.msg, "profile other.json: field \"name\": \"web\" does not match the file name",
		  "its message names file, field and reason");
	CHECK(profile_load_file(path, false, &p, &err) == 0, "the same file checks without a name match");
	profile_free(p);
	unlink(path);
	rmdir(dir);

	CHECK(profile_load_file(KRSI_SRC "/agent/profiles/default.json", true, &d, &err) == 0,
	      "shipped default profile is valid (%s)", err.msg);
	CHECK(profile_load_file(KRSI_SRC "/agent/profiles/audit.json", true, &a, &err) == 0,
	      "shipped audit profile is valid (%s)", err.msg);
	if (!d || !a)
		return;
	CHECK(d->mode == KRSI_MODE_ENFORCE && a->mode == KRSI_MODE_AUDIT, "default enforces, audit audits");
	profile_compile(d, 1, 1, &cd);
	profile_compile(a, 1, 1, &ca);
	CHECK(cd.policy.deny == ca.policy.deny && cd.policy.caps == ca.policy.caps &&
		      cd.policy.families == ca.policy.families && cd.n_paths == ca.n_paths &&
		      cd.n_net == ca.n_net &&
		      !memcmp(cd.paths, ca.paths, cd.n_paths * sizeof(*cd.paths)) &&
		      !memcmp(cd.net, ca.net, cd.n_net * sizeof(*cd.net)) &&
		      !memcmp(cd.policy.types, ca.policy.types, sizeof(cd.policy.types)),
	      "audit reports exactly what default denies");
	profile_compiled_clear(&cd);
	profile_compiled_clear(&ca);
	profile_free(d);
	profile_free(a);
}

static const char *allow_doc =
	"{ \"name\": \"web\", \"version\": 1, \"schema\": 2, \"mode\": \"enforce\",\n"
	"  \"exec\": [\"/usr/bin/nc\"], \"connect\": [\"127.0.0.1:22\"],\n"
	"  \"allow\": { \"exec\": [\"/bin/busybox\", \"/app/run\"], \"exec_dirs\": [\"/usr/lib\"],\n"
	"    \"write_dirs\": [\"/data\"], \"connect\": [\"127.0.0.1:8080\"], \"bind\": [] } }";

/*
 * Deny and allow rules share the LPM trie, and a lookup finds the longest prefix: an allow
 * rule that a deny rule covers must be stored as a deny, or the allow would hide the deny.
 */
static const char *overlap_doc =
	"{ \"name\": \"n\", \"version\": 1, \"schema\": 2, \"mode\": \"enforce\",\n"
	"  \"connect\": [\"10.0.0.0/8\", \"192.168.0.0/16:443\", \"172.16.0.5:22\", \"10.9.9.9\",\n"
	"    \"100.64.0.0/10\"],\n"
	"  \"allow\": { \"connect\": [\"10.1.0.0/16\", \"192.168.1.1:443\", \"192.168.1.1:80\",\n"
	"    \"172.16.0.0/12\", \"10.9.9.9\", \"172.16.0.0/12\", \"100.96.0.0/11\",\n"
	"    \"100.128.0.0/10\"] } }";

static void test_net_overlap(void)
{
	static const struct {
		const char *rule;
		uint8_t want;
		const char *why;
	} cases[] = {
		{ "10.1.0.0/16", KRSI_NET_RULE_DENY, "inside a deny rule for any port" },
		{ "192.168.1.1:443", KRSI_NET_RULE_DENY, "inside a deny rule for its port" },
		{ "192.168.1.1:80", KRSI_NET_RULE_ALLOW, "inside a deny rule for another port" },
		{ "172.16.0.0/12", KRSI_NET_RULE_ALLOW, "around a narrower deny rule (found first)" },
		{ "100.96.0.0/11", KRSI_NET_RULE_DENY, "inside a /10 deny rule (a prefix within a byte)" },
		{ "100.128.0.0/10", KRSI_NET_RULE_ALLOW, "beside it, differing in that byte's first bits" },
	};
	struct krsi_err err = { "" };
	struct profile *p = NULL;
	struct profile_compiled c;
	size_t deny9 = 0, n;

	CHECK(profile_parse("n.json", overlap_doc, strlen(overlap_doc), &p, &err) == 0,
	      "a profile whose deny and allow networks overlap parses (%s)", err.msg);
	if (!p)
		return;
	CHECK(profile_compile(p, 1, 1, &c) == 0, "it compiles");
	n = 5; /* the deny rules, stored first */
	for (size_t i = 0; i < c.n_net; i++)
		deny9 += c.net[i].addr[0] == 10 && c.net[i].addr[1] == 9;
	CHECK(deny9 == 1 && c.net_val[3] == KRSI_NET_RULE_DENY,
	      "an allow rule with a deny rule's key is not stored: the deny stays");
	CHECK(c.n_net == n + 6, "a repeated allow rule is stored once (%zu entries)", c.n_net);
	for (size_t i = 0; i < c.n_net && i < n; i++)
		CHECK(c.net_val[i] == KRSI_NET_RULE_DENY, "deny rule %zu has the deny value", i);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]) && n + i < c.n_net; i++) {
		struct profile_net_rule r;
		const char *reason;

		profile_parse_net(cases[i].rule, &r, &reason);
		CHECK(c.net[n + i].port == r.port && !memcmp(c.net[n + i].addr, r.addr, 16) &&
			      c.net_val[n + i] == cases[i].want,
		      "allow %s, %s: stored as %s", cases[i].rule, cases[i].why,
		      cases[i].want == KRSI_NET_RULE_DENY ? "a deny" : "an allow");
	}
	profile_compiled_clear(&c);
	profile_free(p);
}

static void test_allow(void)
{
	struct krsi_err err = { "" };
	struct profile *p = NULL;
	struct profile_compiled c;
	size_t allow_exec = 0, allow_dirs = 0, deny_exec = 0, net_allow = 0, names = 0;
	char *text = NULL;
	size_t len = 0;
	FILE *f;
	int r;

	r = profile_parse("web.json", allow_doc, strlen(allow_doc), &p, &err);
	CHECK(r == 0, "a schema 2 profile with allow lists parses (%s)", err.msg);
	if (r)
		return;
	CHECK(p->schema == 2, "its schema is 2");
	CHECK(p->allow == (KRSI_DENY(KRSI_HOOK_EXEC) | KRSI_DENY(KRSI_HOOK_OPEN_WRITE) |
			   KRSI_DENY(KRSI_HOOK_CONNECT) | KRSI_DENY(KRSI_HOOK_BIND)),
	      "exec, write, connect and bind have allow lists; read has none");
	CHECK(p->n_paths[PROFILE_ALLOW_EXEC] == 2 && p->n_paths[PROFILE_ALLOW_EXEC_DIRS] == 1 &&
		      p->n_paths[PROFILE_ALLOW_WRITE_DIRS] == 1 && p->n_paths[PROFILE_EXEC] == 1,
	      "allow and deny lists are kept apart");
	CHECK_STR(p->paths[PROFILE_ALLOW_WRITE_DIRS][0], "/data/", "an allowed directory gains its /");
	CHECK(p->n_net[PROFILE_ALLOW_CONNECT] == 1 && p->n_net[PROFILE_ALLOW_BIND] == 0 &&
		      p->n_net[PROFILE_CONNECT] == 1,
	      "an empty allow list is a list: bind allows nothing");
	CHECK(profile_compile(p, 7, 9, &c) == 0, "it compiles");
	CHECK(c.policy.allow == p->allow, "the policy carries the allow kinds");
	CHECK((c.policy.deny & p->allow) == p->allow, "each allow kind is checked (its deny bit)");
	CHECK(!(c.policy.deny & KRSI_DENY(KRSI_HOOK_OPEN_READ)), "read is not checked at all");
	for (size_t i = 0; i < c.n_paths; i++) {
		allow_exec += c.paths[i].kind == KRSI_PATH_ALLOW_EXEC;
		allow_dirs += c.paths[i].kind == KRSI_PATH_ALLOW_EXEC &&
			      !strcmp(c.paths[i].path, "/usr/lib/") &&
			      c.paths[i].prefixlen == (8 + strlen("/usr/lib/")) * 8;
		deny_exec += c.paths[i].kind == KRSI_PATH_EXEC;
	}
	for (size_t i = 0; i < c.n_net; i++)
		net_allow += c.net[i].op == KRSI_NET_CONNECT && c.net[i].port == 8080 &&
			     c.net_val[i] == KRSI_NET_RULE_ALLOW;
	for (size_t i = 0; i < c.n_names; i++)
		names += c.names[i].kind == KRSI_PATH_ALLOW_EXEC;
	CHECK(allow_exec == 3 && allow_dirs == 1 && deny_exec == 1,
	      "allow rules have the allow kinds, directories without NUL");
	CHECK(net_allow == 1, "the connect allow rule is stored with the allow value");
	CHECK(names == 2, "exact allow rules give their names to the name prefilter");
	CHECK(c.policy.dirs == (1u << KRSI_PATH_ALLOW_EXEC | 1u << KRSI_PATH_ALLOW_WRITE),
	      "the directory bits of the allow kinds");
	profile_compiled_clear(&c);

	f = open_memstream(&text, &len);
	profile_explain(p, f);
	fclose(f);
	CHECK_STR(text,
		  "exec: deny 1 path; then allow only 2 paths, 1 directory, deny the rest\n"
		  "write: allow only 1 directory, deny the rest\n"
		  "connect: deny 1 network; then allow only 1 network, deny the rest\n"
		  "bind: allow only nothing, deny the rest\n"
		  "not restricted: read, socket, capabilities, mount, ptrace, module, bpf, userns, "
		  "wx, pathless_exec, kernel_knobs, block_write\n",
		  "profile check explains a mixed profile, one line per kind");
	free(text);
	profile_free(p);

	{
		static const char src[] =
			"{\"name\":\"w\",\"version\":1,\"schema\":2,\"mode\":\"enforce\","
			"\"allow\":{\"write_dirs\":[\"/data/out\"],\"write\":[\"/var/log/app.log\"]}}";
		struct krsi_err e = { "" };
		struct profile_compiled pc = { 0 };
		struct profile *q = NULL;
		char got[256] = "";

		if (profile_parse("w.json", src, strlen(src), &q, &e) == 0 &&
		    profile_compile(q, 1, 1, &pc) == 0) {
			for (size_t i = 0; i < pc.n_names; i++)
				if (pc.names[i].kind == (KRSI_PATH_ALLOW_WRITE | KRSI_KIND_ABOVE))
					snprintf(got + strlen(got), sizeof(got) - strlen(got), "%s%s",
						 *got ? " " : "", pc.names[i].name);
		}
		CHECK_STR(got, "var log data out",
			  "write allow rules give the directories on their way to mkdir's prefilter");
		profile_compiled_clear(&pc);
		profile_free(q);
	}
	{
		static const char *const src[] = {
			"{\"name\":\"c\",\"version\":1,\"mode\":\"enforce\",\"capabilities\":"
			"[\"CAP_SYSLOG\",\"CAP_CHECKPOINT_RESTORE\"]}",
			"{\"name\":\"c\",\"version\":1,\"mode\":\"enforce\",\"capabilities\":"
			"[\"CAP_SYSLOG\",\"CAP_CHECKPOINT_RESTORE\",\"CAP_SYS_ADMIN\"]}",
		};

		for (int i = 0; i < 2; i++) {
			struct krsi_err e = { "" };
			struct profile *q = NULL;

			text = NULL;
			if (profile_parse("c.json", src[i], strlen(src[i]), &q, &e) < 0) {
				CHECK(false, "capability profile parses: %s", e.msg);
				continue;
			}
			f = open_memstream(&text, &len);
			profile_explain(q, f);
			fclose(f);
			if (!i)
				CHECK(strstr(text, "CAP_SYSLOG also denies syslog(2)") &&
					      strstr(text, "warning: CAP_CHECKPOINT_RESTORE is void while "
							   "CAP_SYS_ADMIN is allowed"),
				      "profile check: a CAP_SYS_ADMIN fallback is covered or void");
			else
				CHECK(!strstr(text, "also denies") && !strstr(text, "warning"),
				      "profile check: no fallback note while CAP_SYS_ADMIN is denied");
			free(text);
			profile_free(q);
		}
	}

	CHECK_STR(parse_err("{\"name\":\"web\",\"version\":1,\"mode\":\"enforce\","
			    "\"allow\":{\"exec\":[]}}"),
		  "profile web.json: field \"allow\": allow lists need \"schema\": 2",
		  "allow lists in a schema 1 profile are refused");
	CHECK_STR(parse_err("{\"name\":\"web\",\"version\":1,\"schema\":3,\"mode\":\"enforce\"}"),
		  "profile web.json: field \"schema\": expected 1 or 2 (this krsi knows schemas 1 "
		  "and 2)",
		  "an unknown schema is refused");
	CHECK_STR(parse_err("{\"name\":\"web\",\"version\":1,\"schema\":\"2\",\"mode\":\"enforce\"}"),
		  "profile web.json: field \"schema\": expected 1 or 2 (this krsi knows schemas 1 "
		  "and 2)",
		  "a schema that is not a number is refused");
	CHECK_STR(parse_err("{\"name\":\"web\",\"version\":1,\"schema\":2,\"mode\":\"enforce\","
			    "\"allow\":[\"/bin/sh\"]}"),
		  "profile web.json: field \"allow\": expected an object of allow lists (exec, "
		  "exec_dirs, read, read_dirs, write, write_dirs, connect, bind)",
		  "allow must be an object");
	CHECK_STR(parse_err("{\"name\":\"web\",\"version\":1,\"schema\":2,\"mode\":\"enforce\","
			    "\"allow\":{\"socket\":[]}}"),
		  "profile web.json: field \"allow.socket\": unknown allow list (expected exec, "
		  "exec_dirs, read, read_dirs, write, write_dirs, connect or bind)",
		  "an allow list of a kind that has none is refused, with its field");
	CHECK_STR(parse_err("{\"name\":\"web\",\"version\":1,\"schema\":2,\"mode\":\"enforce\","
			    "\"allow\":{\"exec_dirs\":[\"tmp\"]}}"),
		  "profile web.json: field \"allow.exec_dirs\": \"tmp\": not an absolute path",
		  "a bad path in an allow list names allow.FIELD");
	CHECK_STR(parse_err("{\"name\":\"web\",\"version\":1,\"schema\":2,\"mode\":\"enforce\","
			    "\"allow\":{\"connect\":[\"1.2.3.4:99999\"]}}"),
		  "profile web.json: field \"allow.connect\": \"1.2.3.4:99999\": bad CIDR: bad port (expected "
		  "1..65535)",
		  "a bad network in an allow list names allow.FIELD");
	CHECK_STR(parse_err("{\"name\":\"web\",\"version\":1,\"schema\":1,\"mode\":\"audit\"}"), "",
		  "schema 1 may be given");
}

void test_profile(void)
{
	test_net_overlap();
	test_allow();
	test_parse_full();
	test_names();
	test_errors();
	test_net();
	test_files();
}
