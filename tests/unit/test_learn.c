// SPDX-License-Identifier: GPL-2.0
#include <stdlib.h>

#include "policy/learn.h"
#include "unit.h"

static json_object *ev(const char *text)
{
	json_object *o = json_tokener_parse(text);

	if (!o)
		printf("# bad test JSON: %s\n", text);
	return o;
}

/* Feed TEXT to L as one event of container "c1"; returns learn_event()'s answer. */
static int feed(struct learn *l, const char *text)
{
	json_object *o = ev(text);
	int r = learn_event(l, o, "c1");

	json_object_put(o);
	return r;
}

static void test_events_taken(void)
{
	struct learn l = { 0 };

	CHECK(feed(&l, "{\"hook\":\"exec\",\"verdict\":\"learn\",\"container\":\"c1\","
		       "\"path\":\"/bin/busybox\",\"call\":\"execve\"}") == 1,
	      "learn: an exec learn event is taken");
	CHECK(feed(&l, "{\"hook\":\"exec\",\"verdict\":\"learn\",\"container\":\"c1\","
		       "\"path\":\"/bin/busybox\",\"call\":\"mmap\",\"suppressed\":4}") == 1,
	      "learn: the same path again is taken");
	CHECK(l.n[LEARN_EXEC] == 1 && l.repeats == 1 && l.throttled == 4,
	      "learn: ... and kept once, a repeat and 4 suppressed counted");
	CHECK(feed(&l, "{\"hook\":\"exec\",\"verdict\":\"deny\",\"container\":\"c1\","
		       "\"path\":\"/tmp/x\"}") == 0,
	      "learn: a denial is not learned");
	CHECK(feed(&l, "{\"hook\":\"exec\",\"verdict\":\"learn\",\"container\":\"c2\","
		       "\"path\":\"/tmp/y\"}") == 0,
	      "learn: another container's event is not taken");
	CHECK(feed(&l, "{\"hook\":\"write\",\"verdict\":\"learn\",\"container\":\"c1\","
		       "\"path\":\"/data/out\"}") == 1 && l.n[LEARN_WRITE] == 1,
	      "learn: a write is taken");
	CHECK(feed(&l, "{\"hook\":\"write\",\"verdict\":\"learn\",\"container\":\"c1\","
		       "\"path\":\"memfd:x\"}") == 1 && l.n[LEARN_WRITE] == 1 && l.pathless == 1,
	      "learn: a write without an absolute path is counted, not kept");
	CHECK(feed(&l, "{\"hook\":\"connect\",\"verdict\":\"learn\",\"container\":\"c1\","
		       "\"address\":\"127.0.0.1\",\"port\":8080}") == 1 &&
		      l.n[LEARN_CONNECT] == 1 && !strcmp(l.v[LEARN_CONNECT][0], "127.0.0.1:8080"),
	      "learn: an IPv4 connect becomes ADDR:PORT");
	CHECK(feed(&l, "{\"hook\":\"bind\",\"verdict\":\"learn\",\"container\":\"c1\","
		       "\"address\":\"::1\",\"port\":9000}") == 1 &&
		      l.n[LEARN_BIND] == 1 && !strcmp(l.v[LEARN_BIND][0], "[::1]:9000"),
	      "learn: an IPv6 bind becomes [ADDR]:PORT");
	CHECK(feed(&l, "{\"hook\":\"connect\",\"verdict\":\"learn\",\"container\":\"c1\","
		       "\"address\":\"nonsense\",\"port\":1}") == 1 && l.n[LEARN_CONNECT] == 1 &&
		      l.pathless == 2,
	      "learn: a connect with a bad address is counted, not kept");
	CHECK(feed(&l, "{\"hook\":\"mount\",\"verdict\":\"learn\",\"container\":\"c1\"}") == 0,
	      "learn: a kind that is not learned is not taken");
	CHECK(feed(&l, "[1,2]") == 0 && feed(&l, "{\"verdict\":7}") == 0,
	      "learn: malformed events are ignored");
	CHECK(l.events == 7, "learn: 7 events taken in all (got %llu)",
	      (unsigned long long)l.events);
	learn_clear(&l);
}

static void test_bounded(void)
{
	struct learn l = { 0 };
	char p[64];
	int bad = 0;

	for (int i = 0; i < LEARN_MAX_ITEMS + 10; i++) {
		snprintf(p, sizeof(p), "/d%05d/f", i);
		if (learn_add(&l, LEARN_WRITE, p) != (i < LEARN_MAX_ITEMS ? 1 : -ENOSPC))
			bad++;
	}
	CHECK(!bad && l.n[LEARN_WRITE] == LEARN_MAX_ITEMS && l.dropped == 10,
	      "learn: at most %d items of a kind are kept, the 10 more are counted as dropped",
	      LEARN_MAX_ITEMS);
	CHECK(learn_add(&l, LEARN_WRITE, "/d00000/f") == 0, "learn: a full kind still knows repeats");
	for (size_t i = 1; i < l.n[LEARN_WRITE]; i++)
		if (strcmp(l.v[LEARN_WRITE][i - 1], l.v[LEARN_WRITE][i]) >= 0)
			bad++;
	CHECK(!bad, "learn: the items are kept sorted");
	learn_clear(&l);
}

static void test_fold(void)
{
	char *paths[] = { "/bin/a", "/bin/b", "/data/out/1", "/data/out/2", "/data/out/3",
			  "/data/out/sub/4", "/dev/null", "/top" };
	char **f, **d;
	size_t nf, nd;

	CHECK(learn_fold(paths, ARRAY_SIZE(paths), 3, &f, &nf, &d, &nd) == 0,
	      "fold: folds");
	CHECK(nd == 1 && !strcmp(d[0], "/data/out"),
	      "fold: three files of one directory make a directory rule (got %zu, %s)", nd,
	      nd ? d[0] : "-");
	CHECK(nf == 4 && !strcmp(f[0], "/bin/a") && !strcmp(f[1], "/bin/b") &&
		      !strcmp(f[2], "/dev/null") && !strcmp(f[3], "/top"),
	      "fold: two files stay exact, and what the directory covers (sub/4) goes");
	learn_strv_free(f, nf);
	learn_strv_free(d, nd);
	CHECK(learn_fold(paths, ARRAY_SIZE(paths), 2, &f, &nf, &d, &nd) == 0 && nd == 2 &&
		      !strcmp(d[0], "/bin") && !strcmp(d[1], "/data/out") && nf == 2,
	      "fold 2: /bin folds too");
	learn_strv_free(f, nf);
	learn_strv_free(d, nd);
	CHECK(learn_fold(paths, ARRAY_SIZE(paths), 0, &f, &nf, &d, &nd) == 0 && nd == 0 &&
		      nf == ARRAY_SIZE(paths),
	      "fold 0: nothing folds");
	learn_strv_free(f, nf);
	learn_strv_free(d, nd);
	{
		char *root[] = { "/a", "/b", "/c" };

		CHECK(learn_fold(root, 3, 2, &f, &nf, &d, &nd) == 0 && nd == 0 && nf == 3,
		      "fold: files of / never fold into a rule for everything");
		learn_strv_free(f, nf);
		learn_strv_free(d, nd);
	}
	{
		char *nest[] = { "/x/1", "/x/2", "/x/y/1", "/x/y/2" };

		CHECK(learn_fold(nest, 4, 2, &f, &nf, &d, &nd) == 0 && nd == 1 &&
			      !strcmp(d[0], "/x") && nf == 0,
		      "fold: a directory below a folded one is covered by it");
		learn_strv_free(f, nf);
		learn_strv_free(d, nd);
	}
}

static const char *base_text =
	"{ \"name\": \"default\", \"version\": 7, \"mode\": \"audit\", \"description\": \"base\",\n"
	"  \"exec_dirs\": [\"/tmp\"], \"mount\": true,\n"
	"  \"schema\": 2, \"allow\": { \"read_dirs\": [\"/etc\"], \"exec\": [\"/old\"] } }";

static void test_profile_out(void)
{
	struct learn l = { 0 };
	struct krsi_err err = { "" };
	json_object *base = ev(base_text), *doc, *allow, *v;
	struct profile *p = NULL;
	const char *text;

	learn_add(&l, LEARN_EXEC, "/bin/busybox");
	learn_add(&l, LEARN_EXEC, "/lib/a.so");
	learn_add(&l, LEARN_EXEC, "/lib/b.so");
	learn_add(&l, LEARN_EXEC, "/lib/c.so");
	learn_add(&l, LEARN_WRITE, "/work/out");
	learn_add(&l, LEARN_CONNECT, "127.0.0.1:8080");
	doc = learn_profile(&l, base, "web-learned", "learned", 3, &err);
	CHECK(doc != NULL, "learned profile: made (%s)", err.msg);
	if (!doc) {
		json_object_put(base);
		learn_clear(&l);
		return;
	}
	text = json_object_to_json_string(doc);
	CHECK(profile_parse("web-learned.json", text, strlen(text), &p, &err) == 0,
	      "learned profile: it parses (%s)", err.msg);
	if (p) {
		CHECK_STR(p->name, "web-learned", "learned profile: named as asked");
		CHECK(p->schema == 2 && p->mode == KRSI_MODE_ENFORCE && p->version == 1,
		      "learned profile: schema 2, enforce, version 1");
		CHECK(p->n_paths[PROFILE_EXEC_DIRS] == 1 && p->mount,
		      "learned profile: the base's deny lists stay (exec_dirs /tmp, mount)");
		CHECK(p->n_paths[PROFILE_ALLOW_EXEC] == 1 && p->n_paths[PROFILE_ALLOW_EXEC_DIRS] == 1 &&
			      !strcmp(p->paths[PROFILE_ALLOW_EXEC][0], "/bin/busybox") &&
			      !strcmp(p->paths[PROFILE_ALLOW_EXEC_DIRS][0], "/lib/"),
		      "learned profile: exec allows busybox and the folded /lib, not the base's /old");
		CHECK(p->n_paths[PROFILE_ALLOW_READ_DIRS] == 1,
		      "learned profile: the base's read allow list stays (learning sees no reads)");
		CHECK(p->n_paths[PROFILE_ALLOW_WRITE] == 1 && p->n_net[PROFILE_ALLOW_CONNECT] == 1 &&
			      p->n_net[PROFILE_ALLOW_BIND] == 0,
		      "learned profile: write and connect as seen, bind empty (denies every bind)");
		CHECK(p->allow & KRSI_DENY(KRSI_HOOK_BIND),
		      "learned profile: an empty bind allow list restricts bind");
		profile_free(p);
	}
	allow = json_object_object_get(doc, "allow");
	CHECK(json_object_object_get_ex(doc, "description", &v) &&
		      !strcmp(json_object_get_string(v), "learned"),
	      "learned profile: the description is replaced");
	CHECK(allow && json_object_object_length(allow) == 7,
	      "learned profile: seven allow lists, six learned and the base's read_dirs (got %d)",
	      allow ? json_object_object_length(allow) : -1);
	json_object_put(doc);
	/* Bad input changes nothing and says why. */
	err.msg[0] = 0;
	CHECK(learn_profile(&l, base, "Bad Name", NULL, 3, &err) == NULL && strstr(err.msg, "name"),
	      "learned profile: a bad name is refused with the reason (%s)", err.msg);
	{
		json_object *arr = json_object_new_array();

		CHECK(learn_profile(&l, arr, "x", NULL, 3, &err) == NULL,
		      "learned profile: a base that is not an object is refused");
		json_object_put(arr);
	}
	learn_add(&l, LEARN_WRITE, "/a\"b");
	doc = learn_profile(&l, base, "x", NULL, 3, &err);
	CHECK(doc != NULL || err.msg[0],
	      "learned profile: an odd path is written escaped or refused, never unchecked");
	json_object_put(doc);
	json_object_put(base);
	learn_clear(&l);
}

static int judge(const struct profile *p, const char *text, char *why)
{
	json_object *o = ev(text);
	int r = learn_would_deny(p, o, why, 160);

	json_object_put(o);
	return r;
}

static void test_diff(void)
{
	static const char *cand =
		"{ \"name\": \"c\", \"version\": 1, \"schema\": 2, \"mode\": \"enforce\",\n"
		"  \"exec\": [\"/bin/bad\"], \"mount\": true, \"capabilities\": [\"sys_admin\"],\n"
		"  \"socket\": [\"AF_PACKET\"],\n"
		"  \"allow\": { \"exec_dirs\": [\"/bin\"], \"connect\": [\"10.0.0.0/8:443\"] } }";
	struct krsi_err err = { "" };
	struct profile *p = NULL;
	char why[160];

	CHECK(profile_parse("c.json", cand, strlen(cand), &p, &err) == 0, "diff: candidate parses (%s)",
	      err.msg);
	if (!p)
		return;
	CHECK(judge(p, "{\"hook\":\"exec\",\"path\":\"/bin/ls\"}", why) == 0,
	      "diff: exec in an allowed directory is allowed");
	CHECK(judge(p, "{\"hook\":\"exec\",\"path\":\"/bin/bad\"}", why) == 1 &&
		      strstr(why, "deny rule"),
	      "diff: a deny rule inside it denies (%s)", why);
	CHECK(judge(p, "{\"hook\":\"exec\",\"path\":\"/usr/bin/x\"}", why) == 1 &&
		      strstr(why, "allow.exec"),
	      "diff: exec elsewhere is not allowed (%s)", why);
	CHECK(judge(p, "{\"hook\":\"write\",\"path\":\"/any\"}", why) == 0,
	      "diff: write has no list: allowed");
	CHECK(judge(p, "{\"hook\":\"connect\",\"address\":\"10.1.2.3\",\"port\":443}", why) == 0,
	      "diff: connect inside the allowed prefix and port");
	CHECK(judge(p, "{\"hook\":\"connect\",\"address\":\"10.1.2.3\",\"port\":80}", why) == 1,
	      "diff: another port is not allowed");
	CHECK(judge(p, "{\"hook\":\"connect\",\"address\":\"11.0.0.1\",\"port\":443}", why) == 1,
	      "diff: another network is not allowed");
	CHECK(judge(p, "{\"hook\":\"bind\",\"address\":\"::\",\"port\":80}", why) == 0,
	      "diff: bind has no list: allowed");
	CHECK(judge(p, "{\"hook\":\"mount\",\"fstype\":\"tmpfs\"}", why) == 1,
	      "diff: mount: true denies a mount");
	CHECK(judge(p, "{\"hook\":\"ptrace\"}", why) == 0, "diff: ptrace not denied");
	CHECK(judge(p, "{\"hook\":\"capable\",\"capability\":\"CAP_SYS_ADMIN\"}", why) == 1,
	      "diff: a denied capability");
	CHECK(judge(p, "{\"hook\":\"socket\",\"family\":\"AF_PACKET\",\"type\":\"SOCK_RAW\"}",
		    why) == 1,
	      "diff: a denied socket family");
	CHECK(judge(p, "{\"hook\":\"exec\",\"path\":\"memfd:x\"}", why) == -1,
	      "diff: an exec without a path cannot be judged");
	CHECK(judge(p, "{\"hook\":\"nonsense\"}", why) == -1 && judge(p, "{}", why) == -1,
	      "diff: an unknown or missing hook cannot be judged");
	profile_free(p);
}

void test_learn(void)
{
	test_events_taken();
	test_bounded();
	test_fold();
	test_profile_out();
	test_diff();
}
