// SPDX-License-Identifier: GPL-2.0
/* krsi-oci-hook's state parsing and krsictl oci-inject's config edit. */
#include <errno.h>
#include <stdlib.h>

#include "lib/oci_inject.h"
#include "lib/jsonr.h"
#include "oci-hooks/oci_state.h"
#include "unit.h"

/* The error message for TEXT, "" when it parses. */
static const char *state_err(const char *text)
{
	static struct krsi_err err;
	struct oci_state s;

	err.msg[0] = 0;
	if (oci_state_parse(text, strlen(text), &s, &err) == 0) {
		oci_state_clear(&s);
		return "";
	}
	return err.msg;
}

static void test_states(void)
{
	struct krsi_err err = { "" };
	struct oci_state s;
	int r;

	/* What runc 1.1 passes at prestart (status "creating"), with the config's annotations. */
#define RUNC_PRESTART                                                                              \
	"{\"ociVersion\":\"1.0.2-dev\",\"id\":\"web-1\",\"status\":\"creating\",\"pid\":1234,"        \
	"\"bundle\":\"/tmp/b\",\"annotations\":{\"org.krsi.profile\":\"strict\",\"other\":\"x\"}}"
	r = oci_state_parse(RUNC_PRESTART, strlen(RUNC_PRESTART), &s, &err);
	CHECK(r == 0, "runc prestart state parses (%s)", err.msg);
	if (!r) {
		CHECK_STR(s.id, "web-1", "id");
		CHECK(s.pid == 1234, "pid");
		CHECK_STR(s.bundle, "/tmp/b", "bundle");
		CHECK_STR(s.profile, "strict", "profile from annotation org.krsi.profile");
		CHECK(!s.fail_open, "fail-closed unless annotated");
		CHECK(oci_state_stage(&s) == OCI_STAGE_PRESTART, "status creating: prestart");
		oci_state_clear(&s);
	}

	/* crun at poststop: pid 0, no annotations. */
#define CRUN_POSTSTOP "{\"ociVersion\":\"1.0.0\",\"id\":\"c2\",\"pid\":0,\"status\":\"stopped\",\"bundle\":\"/b\"}"
	r = oci_state_parse(CRUN_POSTSTOP, strlen(CRUN_POSTSTOP), &s, &err);
	CHECK(r == 0 && s.pid == 0 && !s.profile, "crun poststop state: pid 0, default profile (%s)",
	      err.msg);
	if (!r) {
		CHECK(oci_state_stage(&s) == OCI_STAGE_POSTSTOP, "status stopped: poststop");
		oci_state_clear(&s);
	}
	/* runc at poststop: no pid at all. */
#define RUNC_POSTSTOP "{\"ociVersion\":\"1.0.2-dev\",\"id\":\"c3\",\"status\":\"stopped\",\"bundle\":\"/b\"}\n"
	r = oci_state_parse(RUNC_POSTSTOP, strlen(RUNC_POSTSTOP), &s, &err);
	CHECK(r == 0 && s.pid == 0 && oci_state_stage(&s) == OCI_STAGE_POSTSTOP,
	      "runc poststop state: no pid (%s)", err.msg);
	if (!r)
		oci_state_clear(&s);

	CHECK_STR(state_err(""), "empty input, expected the container's state JSON", "empty input");
	CHECK_STR(state_err(" \n\t"), "empty input, expected the container's state JSON",
		  "whitespace only");
	CHECK(!strncmp(state_err("hello"), "not JSON: ", 10), "not JSON: %s", state_err("hello"));
	CHECK_STR(state_err("{\"id\":"), "not JSON: unexpected end of input", "truncated JSON");
	CHECK_STR(state_err("{\"id\":\"a\"} {}"), "not JSON: data after the state object",
		  "two objects");
	CHECK_STR(state_err("[1,2]"), "not a JSON object", "an array");
	CHECK_STR(state_err("\"id\""), "not a JSON object", "a string");
	CHECK_STR(state_err("{\"pid\":1}"), "no \"id\" field", "no id");
	/* tests/fuzz/regress/oci_state/id-nul.json: the id was checked and used up to the NUL */
	CHECK_STR(state_err("{\"id\":\"web\\u0000x\"}"),
		  "field \"id\": \"web\\u0000...\": a NUL character in the string", "id with a NUL refused");
	CHECK_STR(state_err("{\"id\":\"a\",\"status\":\"stopped\\u0000\"}"),
		  "field \"status\": \"stopped\\u0000...\": a NUL character in the string",
		  "status with a NUL refused");
	CHECK_STR(state_err("{\"id\":7}"), "field \"id\": expected a string, got 7", "id not a string");
	CHECK(strstr(state_err("{\"id\":\"../etc\"}"), "expected 1 to 127 characters"),
	      "id with a slash refused");
	CHECK(strstr(state_err("{\"id\":\"\"}"), "expected 1 to 127 characters"), "empty id refused");
	CHECK_STR(state_err("{\"id\":\"a\",\"pid\":\"1234\"}"),
		  "container a: field \"pid\": expected a process id, got \"1234\"",
		  "pid not a number");
	CHECK_STR(state_err("{\"id\":\"a\",\"pid\":-5}"),
		  "container a: field \"pid\": expected a process id, got -5", "negative pid");
	CHECK_STR(state_err("{\"id\":\"a\",\"pid\":12.5}"),
		  "container a: field \"pid\": expected a process id, got 12.5", "fractional pid");
	CHECK_STR(state_err("{\"id\":\"a\",\"pid\":4294967297}"),
		  "container a: field \"pid\": expected a process id, got 4294967297",
		  "pid beyond 32 bits");
	CHECK_STR(state_err("{\"id\":\"a\",\"pid\":\"1\x01\n2\"}"),
		  "container a: field \"pid\": expected a process id, got \"1??2\"",
		  "raw control characters in an echoed value: one line still");
	CHECK_STR(state_err("{\"id\":\"a\",\"pid\":[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, "
			    "15, 16, 17, 18, 19, 20]}"),
		  "container a: field \"pid\": expected a process id, got [1, 2, 3, 4, 5, 6, 7, 8, 9, "
		  "10, 11, 12, 13, 14, 15, 16, 17, 18, ",
		  "an echoed value: its first 64 bytes");
	CHECK_STR(state_err("{\"id\":\"a\",\"pid\":true}"),
		  "container a: field \"pid\": expected a process id, got true", "pid a boolean");
	CHECK_STR(state_err("{\"id\":\"a\"}"), "", "no pid parses (the hook refuses it at prestart)");
	CHECK_STR(state_err("{\"id\":\"a\",\"status\":5}"),
		  "field \"status\": expected a string, got 5", "status not a string");
	{
		static const char nul[] = "{\"id\":\"a\",\0\"pid\":1}";

		CHECK(oci_state_parse(nul, sizeof(nul) - 1, &s, &err) < 0 &&
			      !strcmp(err.msg, "not JSON: a NUL byte in the input"),
		      "a NUL byte inside the input: %s", err.msg);
	}
}

static void test_annotations(void)
{
	struct krsi_err err = { "" };
	struct oci_state s;
	const char *t;
	int r;

	t = "{\"id\":\"a\",\"pid\":1,\"annotations\":{}}";
	r = oci_state_parse(t, strlen(t), &s, &err);
	CHECK(r == 0 && !s.profile && !s.fail_open, "empty annotations: default profile");
	if (!r)
		oci_state_clear(&s);
	t = "{\"id\":\"a\",\"pid\":1,\"annotations\":null}";
	r = oci_state_parse(t, strlen(t), &s, &err);
	CHECK(r == 0 && !s.profile, "null annotations: default profile");
	if (!r)
		oci_state_clear(&s);
	t = "{\"id\":\"a\",\"pid\":1,\"annotations\":{\"org.krsi.fail-open\":\"true\","
	    "\"org.krsi.profile\":\"audit\"}}";
	r = oci_state_parse(t, strlen(t), &s, &err);
	CHECK(r == 0 && s.fail_open && !strcmp(s.profile, "audit"), "fail-open annotation (%s)",
	      err.msg);
	if (!r)
		oci_state_clear(&s);
	t = "{\"id\":\"a\",\"pid\":1,\"annotations\":{\"org.krsi.fail-open\":\"false\"}}";
	r = oci_state_parse(t, strlen(t), &s, &err);
	CHECK(r == 0 && !s.fail_open, "fail-open=false");
	if (!r)
		oci_state_clear(&s);
	CHECK_STR(state_err("{\"id\":\"a\",\"annotations\":{\"org.krsi.fail-open\":\"yes\"}}"),
		  "container a: annotation org.krsi.fail-open: expected \"true\" or \"false\", got \"yes\"",
		  "fail-open=yes refused");
	CHECK_STR(state_err("{\"id\":\"a\",\"annotations\":{\"org.krsi.fail-open\":true}}"),
		  "container a: annotation org.krsi.fail-open: expected \"true\" or \"false\", got true",
		  "fail-open as a JSON boolean refused");
	CHECK_STR(state_err("{\"id\":\"a\",\"annotations\":{\"org.krsi.profile\":\"\"}}"),
		  "container a: annotation org.krsi.profile: expected a profile name, got \"\"",
		  "empty profile name refused");
	CHECK_STR(state_err("{\"id\":\"a\",\"annotations\":{\"org.krsi.profile\":[\"x\"]}}"),
		  "container a: annotation org.krsi.profile: expected a profile name, got [\"x\"]",
		  "profile not a string");
	/* tests/fuzz/regress/oci_state/annotation-profile-nul.json: it passed as "" */
	CHECK_STR(state_err("{\"id\":\"a\",\"annotations\":{\"org.krsi.profile\":\"\\u0000at\"}}"),
		  "container a: annotation org.krsi.profile: expected a profile name, got \"\\u0000at\"",
		  "profile name with a NUL refused");
	CHECK_STR(state_err("{\"id\":\"a\",\"annotations\":{\"org.krsi.fail-open\":\"true\\u0000x\"}}"),
		  "container a: annotation org.krsi.fail-open: expected \"true\" or \"false\", got \"true\\u0000x\"",
		  "fail-open=true with a NUL after it refused");
	CHECK_STR(state_err("{\"id\":\"a\",\"annotations\":[]}"),
		  "container a: field \"annotations\": expected an object", "annotations an array");
}

/* Read TEXT (LEN bytes) through a file as the hook reads its stdin. */
static int read_through_file(const char *text, size_t len, size_t max, size_t *ret_len,
			     struct krsi_err *err)
{
	char path[] = "/tmp/krsi-unit-hook.XXXXXX";
	_cleanup_free_ char *buf = NULL;
	int fd = mkstemp(path), r;

	if (fd < 0)
		return -errno;
	unlink(path);
	if (write(fd, text, len) != (ssize_t)len || lseek(fd, 0, SEEK_SET) < 0) {
		close(fd);
		return -EIO;
	}
	r = oci_state_read(fd, max, &buf, ret_len, err);
	close(fd);
	return r;
}

static void test_read(void)
{
	struct krsi_err err = { "" };
	size_t big = 1024 * 1024, len = 0;
	struct oci_state s;
	char *text = malloc(big + 1);
	int r;

	if (!text) {
		CHECK(0, "malloc");
		return;
	}
	/* 1 MiB: a valid state padded with spaces, so only the size is wrong. */
	memset(text, ' ', big);
	memcpy(text, "{\"id\":\"a\",\"pid\":1}", 18);
	text[big] = 0;
	r = read_through_file(text, big, OCI_STATE_MAX, &len, &err);
	CHECK(r == -EMSGSIZE, "1 MiB on stdin refused: %s", err.msg);
	CHECK_STR(err.msg, "more than 65536 bytes of input, refusing", "1 MiB: the message");
	CHECK(oci_state_parse(text, big, &s, &err) == -EMSGSIZE,
	      "1 MiB handed to the parser refused too");
	r = read_through_file(text, OCI_STATE_MAX, OCI_STATE_MAX, &len, &err);
	CHECK(r == 0 && len == OCI_STATE_MAX, "exactly 64 KiB is read (%s)", err.msg);
	r = oci_state_parse(text, OCI_STATE_MAX, &s, &err);
	CHECK(r == 0, "and parses (%s)", err.msg);
	if (!r)
		oci_state_clear(&s);
	r = read_through_file("", 0, OCI_STATE_MAX, &len, &err);
	CHECK(r == 0 && len == 0, "empty stdin reads as 0 bytes");
	free(text);
}

static void test_stages(void)
{
	enum oci_stage st;

	CHECK(oci_stage_parse("prestart", &st) == 0 && st == OCI_STAGE_PRESTART, "stage prestart");
	CHECK(oci_stage_parse("createRuntime", &st) == 0 && st == OCI_STAGE_CREATE_RUNTIME,
	      "stage createRuntime");
	CHECK(oci_stage_parse("poststop", &st) == 0 && st == OCI_STAGE_POSTSTOP, "stage poststop");
	CHECK(oci_stage_parse("auto", &st) == 0 && st == OCI_STAGE_AUTO, "stage auto");
	CHECK(oci_stage_parse("createContainer", &st) == -EINVAL,
	      "createContainer refused (it runs in the container's namespaces)");
	CHECK(oci_stage_parse("Prestart", &st) == -EINVAL, "stage names are case-sensitive");
}

static int count_path(json_object *config, const char *stage)
{
	json_object *hooks, *a;
	int n = 0;

	if (!json_object_object_get_ex(config, "hooks", &hooks) ||
	    !json_object_object_get_ex(hooks, stage, &a))
		return 0;
	for (size_t i = 0; i < json_object_array_length(a); i++) {
		json_object *p, *h = json_object_array_get_idx(a, i);

		if (json_object_object_get_ex(h, "path", &p) &&
		    !strcmp(json_object_get_string(p), OCI_HOOK_PATH))
			n++;
	}
	return n;
}

/* The args of CONFIG.hooks.STAGE[I], as plain JSON, or NULL. */
static const char *hook_args(json_object *config, const char *stage, size_t i)
{
	json_object *hooks, *a, *h, *args;

	if (!json_object_object_get_ex(config, "hooks", &hooks) ||
	    !json_object_object_get_ex(hooks, stage, &a) ||
	    !json_object_is_type(a, json_type_array) || !(h = json_object_array_get_idx(a, i)) ||
	    !json_object_object_get_ex(h, "args", &args))
		return NULL;
	return json_object_to_json_string_ext(args, JSON_C_TO_STRING_PLAIN);
}

/* Inject O into C again: true when that changed nothing (*err set otherwise). */
static bool inject_again_same(json_object *c, const struct oci_inject_opts *o,
			      struct krsi_err *err)
{
	char *before = strdup(json_object_to_json_string_ext(c, JSON_C_TO_STRING_PLAIN));
	bool same = before && oci_inject_config(c, o, err) == 0 &&
		    !strcmp(before, json_object_to_json_string_ext(c, JSON_C_TO_STRING_PLAIN));

	free(before);
	return same;
}

static void test_inject(void)
{
	struct oci_inject_opts o = { 0 };
	struct krsi_err err = { "" };
	json_object *c, *v;
	int r;

	/* The default: the registering stage alone (krsid unregisters when the cgroup goes). */
	c = json_tokener_parse("{\"ociVersion\":\"1.0.0\",\"hooks\":{\"prestart\":"
			       "[{\"path\":\"/bin/other\"}]}}");
	r = oci_inject_config(c, &o, &err);
	CHECK(r == 0 && count_path(c, "prestart") == 1, "inject adds prestart (%s)", err.msg);
	CHECK(!json_object_object_get_ex(json_object_object_get(c, "hooks"), "poststop", NULL),
	      "by default, no poststop stage at all");
	v = json_object_array_get_idx(json_object_object_get(json_object_object_get(c, "hooks"),
							     "prestart"), 0);
	CHECK_STR(json_object_get_string(json_object_object_get(v, "path")), "/bin/other",
		  "other hooks are kept, in front");
	CHECK_STR(hook_args(c, "prestart", 1), "[\"krsi-oci-hook\",\"prestart\"]",
		  "the prestart entry names its stage");
	CHECK(inject_again_same(c, &o, &err) && count_path(c, "prestart") == 1,
	      "injecting twice changes nothing (%s)", err.msg);

	/* --poststop: the poststop entry too, for a runtime that keeps the cgroup. */
	o.poststop = true;
	r = oci_inject_config(c, &o, &err);
	CHECK(r == 0 && count_path(c, "prestart") == 1 && count_path(c, "poststop") == 1,
	      "--poststop adds prestart and poststop (%s)", err.msg);
	CHECK_STR(hook_args(c, "poststop", 0), "[\"krsi-oci-hook\",\"poststop\"]",
		  "the poststop entry names its stage");
	CHECK(inject_again_same(c, &o, &err) && count_path(c, "prestart") == 1 &&
		      count_path(c, "poststop") == 1,
	      "--poststop twice changes nothing: one entry per stage (%s)", err.msg);

	/* Without --poststop again: the last injection decides, another hook stays. */
	v = json_object_object_get(json_object_object_get(c, "hooks"), "poststop");
	json_object_array_add(v, json_tokener_parse("{\"path\":\"/bin/cleanup\"}"));
	o.poststop = false;
	r = oci_inject_config(c, &o, &err);
	CHECK(r == 0 && count_path(c, "prestart") == 1 && count_path(c, "poststop") == 0,
	      "injecting without --poststop takes back an older injection's poststop entry");
	v = json_object_array_get_idx(json_object_object_get(json_object_object_get(c, "hooks"),
							     "poststop"), 0);
	CHECK(json_object_array_length(json_object_object_get(json_object_object_get(c, "hooks"),
							      "poststop")) == 1,
	      "and keeps the other poststop hook");
	CHECK_STR(json_object_get_string(json_object_object_get(v, "path")), "/bin/cleanup",
		  "which is /bin/cleanup");
	CHECK(inject_again_same(c, &o, &err), "and injecting again changes nothing (%s)", err.msg);

	o.stage = "createRuntime";
	o.profile = "audit";
	r = oci_inject_config(c, &o, &err);
	CHECK(r == 0 && count_path(c, "prestart") == 0 && count_path(c, "createRuntime") == 1 &&
		      count_path(c, "poststop") == 0,
	      "createRuntime replaces prestart, no poststop");
	CHECK_STR(hook_args(c, "createRuntime", 0), "[\"krsi-oci-hook\",\"createRuntime\"]",
		  "the createRuntime entry names its stage");
	CHECK_STR(json_object_get_string(json_object_object_get(
			  json_object_object_get(c, "annotations"), "org.krsi.profile")),
		  "audit", "--profile sets the annotation");
	CHECK_STR(json_object_get_string(json_object_object_get(
			  json_object_object_get(c, "annotations"), "run.oci.hooks.stderr")),
		  "/dev/stderr", "crun is told to show the hook's stderr");
	o.poststop = true;
	r = oci_inject_config(c, &o, &err);
	CHECK(r == 0 && count_path(c, "prestart") == 0 && count_path(c, "createRuntime") == 1 &&
		      count_path(c, "poststop") == 1,
	      "createRuntime with --poststop: one entry each");
	CHECK(inject_again_same(c, &o, &err), "and again changes nothing (%s)", err.msg);
	o.stage = "poststart";
	CHECK(oci_inject_config(c, &o, &err) == -EINVAL, "stage poststart refused: %s", err.msg);
	o.stage = "poststop";
	CHECK(oci_inject_config(c, &o, &err) == -EINVAL, "stage poststop refused: %s", err.msg);
	json_object_put(c);
	o.stage = NULL;
	o.poststop = false;
	c = json_tokener_parse("{\"hooks\":[]}");
	CHECK(oci_inject_config(c, &o, &err) == -EINVAL, "hooks not an object: %s", err.msg);
	json_object_put(c);
	o.poststop = true;
	c = json_tokener_parse("{\"hooks\":{\"poststop\":{}}}");
	CHECK(oci_inject_config(c, &o, &err) == -EINVAL && strstr(err.msg, "hooks.poststop"),
	      "--poststop, hooks.poststop not an array: %s", err.msg);
	json_object_put(c);
	o.poststop = false;
	err.msg[0] = 0;
	c = json_tokener_parse("{\"hooks\":{\"poststop\":{}}}");
	CHECK(oci_inject_config(c, &o, &err) == 0 && count_path(c, "prestart") == 1,
	      "without it, a hooks.poststop that is not ours to edit is left alone (%s)", err.msg);
	json_object_put(c);
}

/* What a runtime would not read is refused, not rewritten into something it would. */
static void test_inject_text(void)
{
	static const struct {
		const char *text, *why, *what;
	} bad[] = {
		/* json-c alone reads "-0e" as -0 and prints "-0", which reads back as 0: found by
		 * fuzz_oci_inject (tests/fuzz/regress/oci_inject/lenient-number.bin). */
		{ "{\"hstop\":-0e}", "number expected", "a number with an empty exponent" },
		{ "{\"a\":01}", "number expected", "a number with a leading zero" },
		{ "{\"a\":[1,]}", "unexpected character", "a trailing comma" },
		{ "{\"a\":1} x", "at byte 8", "data after the document" },
		{ "{\"a\":1", "unexpected end of input", "a truncated document" },
	};
	struct oci_inject_opts o = { 0 };
	struct krsi_err err;
	char *out = NULL, *again = NULL;

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		err.msg[0] = 0;
		out = NULL;
		CHECK(oci_inject_text(bad[i].text, &o, &out, &err) == -EINVAL && !out &&
			      !strncmp(err.msg, "config: not valid JSON", 22) &&
			      strstr(err.msg, bad[i].why),
		      "oci-inject refuses %s (%s)", bad[i].what, err.msg);
	}
	CHECK(oci_inject_text("{\"a\":-0,\"b\":1.5e3}\n", &o, &out, &err) == 0 &&
		      oci_inject_text(out, &o, &again, &err) == 0 && !strcmp(out, again),
	      "valid numbers: injecting into the result again gives the same text");
	free(out);
	free(again);
}

static void test_podman_infra(void)
{
	static const struct {
		const char *config, *what;
		bool infra;
	} cases[] = {
		{ "{\"annotations\":{\"io.container.manager\":\"libpod\"},"
		  "\"process\":{\"args\":[\"/catatonit\",\"-P\"]}}",
		  "podman's infra: libpod, no container type, /catatonit -P", true },
		{ "{\"annotations\":{\"io.container.manager\":\"libpod\","
		  "\"io.kubernetes.cri-o.ContainerType\":\"container\"},"
		  "\"process\":{\"args\":[\"/catatonit\",\"-P\"]}}",
		  "a pod's other container running the same: not infra", false },
		{ "{\"annotations\":{\"io.container.manager\":\"libpod\","
		  "\"io.kubernetes.cri.container-type\":\"sandbox\"},"
		  "\"process\":{\"args\":[\"/catatonit\",\"-P\"]}}",
		  "containerd's container type: not podman's infra", false },
		{ "{\"annotations\":{},\"process\":{\"args\":[\"/catatonit\",\"-P\"]}}",
		  "not made by podman (no io.container.manager)", false },
		{ "{\"annotations\":{\"io.container.manager\":\"libpod\"},"
		  "\"process\":{\"args\":[\"/catatonit\",\"-P\",\"sh\"]}}",
		  "more arguments than the pause process", false },
		{ "{\"annotations\":{\"io.container.manager\":\"libpod\"},"
		  "\"process\":{\"args\":[\"/bin/sh\",\"-P\"]}}",
		  "another program", false },
		{ "{\"annotations\":{\"io.container.manager\":\"libpod\"},"
		  "\"process\":{\"args\":[\"/catatonit\\u0000x\",\"-P\"]}}",
		  "a NUL inside the program name", false },
		{ "{\"annotations\":{\"io.container.manager\":\"libpod\"},"
		  "\"process\":{\"args\":[\"/catatonit\",\"-P\"]}} x",
		  "data after the object", false },
		{ "{\"annotations\":{\"io.container.manager\":\"libpod\"},\"process\":",
		  "cut short", false },
		{ "[]", "not an object", false },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		CHECK(oci_config_is_podman_infra(cases[i].config, strlen(cases[i].config)) ==
			      cases[i].infra,
		      "podman infra? %s: %s", cases[i].infra ? "yes" : "no", cases[i].what);
}

/* jsonr's verdict on TEXT: "" when it parses, else its reason. */
static const char *jsonr_err(const char *text)
{
	static char why[128];
	struct jsonr_value v;

	if (jsonr_parse(text, strlen(text), &v, why, sizeof(why)) == 0)
		return "";
	return why;
}

/* Member KEY of the object TEXT, decoded; "(none)" or "(not a string)". */
static const char *jsonr_member(const char *text, const char *key)
{
	static char out[256], why[128];
	struct jsonr_value doc, v;
	char *s;
	size_t n;

	if (jsonr_parse(text, strlen(text), &doc, why, sizeof(why)) < 0)
		return why;
	jsonr_fields(&doc, &key, &v, 1);
	if (v.type == JSONR_NONE)
		return "(none)";
	if (jsonr_string(&v, &s, &n) < 0)
		return "(not a string)";
	snprintf(out, sizeof(out), "%s", s);
	free(s);
	return out;
}

static void test_jsonr(void)
{
	struct jsonr_value doc, v;
	char why[128], deep[2 * JSONR_MAX_DEPTH + 3];
	int64_t i64;
	uint64_t u64;

	CHECK_STR(jsonr_err(" {\"a\": [1, -2.5e+3, true, false, null, \"x\", {}]} \n"), "",
		  "every kind of value");
	CHECK_STR(jsonr_err("{\"a\":1,}"), "expected a member's name at byte 7", "trailing comma");
	CHECK_STR(jsonr_err("[1 2]"), "expected ',' or ']' at byte 3", "missing comma");
	CHECK_STR(jsonr_err("{\"a\" 1}"), "expected ':' at byte 5", "missing colon");
	CHECK_STR(jsonr_err("[01]"), "expected ',' or ']' at byte 2", "a leading zero");
	CHECK_STR(jsonr_err("[1.]"), "expected a digit at byte 3", "a fraction without digits");
	CHECK_STR(jsonr_err("[-]"), "expected a digit at byte 2", "a lone minus");
	CHECK_STR(jsonr_err("[NaN]"), "an unexpected character at byte 1", "NaN");
	CHECK_STR(jsonr_err("[tru]"), "an unexpected character at byte 1", "a broken word");
	CHECK_STR(jsonr_err("\"\\x\""), "an unknown escape in a string at byte 1", "\\x");
	CHECK_STR(jsonr_err("\"\\u12g4\""), "a \\u escape without four hex digits at byte 1",
		  "a short \\u");
	CHECK_STR(jsonr_err("[tr"), "unexpected end of input", "end inside a word");
	CHECK_STR(jsonr_err("\"abc"), "unexpected end of input", "end inside a string");
	CHECK_STR(jsonr_err("{} x"), "data after the document at byte 3", "trailing data");
	CHECK(jsonr_parse("{} x", 4, &doc, why, sizeof(why)) == -EBADMSG,
	      "trailing data: -EBADMSG, told apart from a syntax error");
	memset(deep, '[', JSONR_MAX_DEPTH);
	memset(deep + JSONR_MAX_DEPTH, ']', JSONR_MAX_DEPTH);
	deep[2 * JSONR_MAX_DEPTH] = 0;
	CHECK_STR(jsonr_err(deep), "", "nesting %d deep", JSONR_MAX_DEPTH);
	memmove(deep + 1, deep, 2 * JSONR_MAX_DEPTH + 1);
	deep[0] = '[';
	strcat(deep, "]");
	CHECK(strstr(jsonr_err(deep), "nesting too deep"), "nesting %d deep refused: %s",
	      JSONR_MAX_DEPTH + 1, jsonr_err(deep));
	CHECK(jsonr_parse_depth(deep, strlen(deep), JSONR_MAX_DEPTH + 1, &v, why, sizeof(why)) < 0,
	      "a limit above JSONR_MAX_DEPTH is JSONR_MAX_DEPTH");
	CHECK(jsonr_parse_depth("[{\"a\":[]},1]", 12, 3, &v, why, sizeof(why)) == 0 &&
		      v.type == JSONR_ARRAY && v.len == 12,
	      "a limit of 3: three containers nested");
	CHECK(jsonr_parse_depth("[{\"a\":[]},1]", 12, 2, &v, why, sizeof(why)) == -EINVAL &&
		      !strcmp(why, "nesting too deep at byte 6"),
	      "a limit of 2: the third refused (%s)", why);
	CHECK(jsonr_parse_depth(" 7 ", 3, 0, &v, why, sizeof(why)) == 0 && v.type == JSONR_NUMBER &&
		      jsonr_parse_depth("[]", 2, 0, &v, why, sizeof(why)) == -EINVAL,
	      "a limit of 0: a scalar only");

	CHECK_STR(jsonr_member("{\"\\u0069d\":\"a\\/b\\n\\\"\"}", "id"), "a/b\n\"",
		  "an escaped key matches; escapes decode");
	CHECK_STR(jsonr_member("{\"id\":\"x\",\"id\":\"y\"}", "id"), "y",
		  "a repeated key: the last value, as json-c keeps it");
	CHECK_STR(jsonr_member("{\"id\\u0000\":\"x\"}", "id"), "(none)",
		  "\"id\\u0000\" is not the key \"id\"");
	CHECK_STR(jsonr_member("{\"a\":{\"id\":\"x\"}}", "id"), "(none)",
		  "a nested member is not the object's own");
	CHECK_STR(jsonr_member("{\"s\":\"\\u00e9\\u20ac\\ud83d\\ude00\"}", "s"),
		  "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80", "\\u escapes to UTF-8, a surrogate pair to one");
	CHECK_STR(jsonr_member("{\"s\":\"\\ud83dx\\ude00\"}", "s"), "\xef\xbf\xbdx\xef\xbf\xbd",
		  "lone surrogates decode to U+FFFD, as json-c does");
	CHECK_STR(jsonr_member("{\"s\":7}", "s"), "(not a string)", "a number is not a string");

	static const char nums[] = "[9223372036854775807,-9223372036854775808,9223372036854775808,"
				   "1e3,2.0,18446744073709551615,18446744073709551616,-0]";

	CHECK(jsonr_parse(nums, strlen(nums), &doc, why, sizeof(why)) == 0, "numbers: %s", why);
	CHECK(jsonr_length(&doc) == 8, "array length %zu", jsonr_length(&doc));
	CHECK(jsonr_index(&doc, 0, &v) && jsonr_int64(&v, &i64) && i64 == INT64_MAX, "INT64_MAX");
	CHECK(jsonr_index(&doc, 1, &v) && jsonr_int64(&v, &i64) && i64 == INT64_MIN, "INT64_MIN");
	CHECK(jsonr_index(&doc, 2, &v) && !jsonr_int64(&v, &i64), "INT64_MAX + 1 is no int64");
	CHECK(jsonr_index(&doc, 3, &v) && !jsonr_int64(&v, &i64), "1e3 is no plain integer");
	CHECK(jsonr_index(&doc, 4, &v) && !jsonr_int64(&v, &i64), "2.0 is no plain integer");
	CHECK(jsonr_index(&doc, 5, &v) && jsonr_uint64(&v, &u64) && u64 == UINT64_MAX,
	      "UINT64_MAX");
	CHECK(jsonr_index(&doc, 6, &v) && !jsonr_uint64(&v, &u64), "UINT64_MAX + 1 is no uint64");
	CHECK(jsonr_index(&doc, 7, &v) && jsonr_uint64(&v, &u64) && u64 == 0, "-0 is 0");
	CHECK(!jsonr_index(&doc, 8, &v), "no element past the end");
	CHECK(jsonr_parse("[ ]", 3, &doc, why, sizeof(why)) == 0 && jsonr_length(&doc) == 0 &&
		      !jsonr_index(&doc, 0, &v),
	      "an empty array: no elements");
	CHECK(jsonr_parse("[[1,2],{\"a\":[3]},\"x\"]", 21, &doc, why, sizeof(why)) == 0 &&
		      jsonr_length(&doc) == 3 && jsonr_index(&doc, 1, &v) &&
		      v.type == JSONR_OBJECT && v.len == 9,
	      "elements of an array counted at its own level (%zu)", jsonr_length(&doc));

	CHECK_STR(jsonr_member("{\"k\":\"a\\\"b\\\\c\\u000a\\u0001\"}", "k"), "a\"b\\c\n\x01",
		  "the escapes krsi_request_write() writes decode");
}

/* jsonr_parse_find(): the value at a member path, as json-c would read it, in one pass. */
static const char *find_str(const char *doc)
{
	static const char *const keys[] = { "root", "path" };
	static char out[64];
	struct jsonr_value v;
	char why[96], *s = NULL;

	if (jsonr_parse_find(doc, strlen(doc), JSONR_MAX_DEPTH, keys, 2, &v, why, sizeof(why)) < 0)
		return "(invalid)";
	if (v.type == JSONR_NONE)
		return "(none)";
	if (jsonr_string(&v, &s, NULL) < 0)
		return "(not a string)";
	snprintf(out, sizeof(out), "%s", s);
	free(s);
	return out;
}

static void test_jsonr_find(void)
{
	CHECK_STR(find_str("{\"root\":{\"path\":\"rootfs\"}}"), "rootfs", "jsonr find: root.path");
	CHECK_STR(find_str("{\"a\":[1,{\"root\":2}],\"root\":{\"x\":{\"path\":1},\"path\":\"r\"}}"),
		  "r", "jsonr find: members deeper or in arrays are not on the path");
	CHECK_STR(find_str("{\"root\":{\"path\":\"a\",\"path\":\"b\"}}"), "b",
		  "jsonr find: a repeated key's last value, as json-c reads it");
	CHECK_STR(find_str("{\"root\":{\"path\":\"a\"},\"root\":{\"x\":1}}"), "(none)",
		  "jsonr find: a repeated parent replaces what the first held");
	CHECK_STR(find_str("{\"root\":{\"path\":\"a\"},\"root\":\"s\"}"), "(none)",
		  "jsonr find: a parent that is not an object holds no member");
	CHECK_STR(find_str("{\"root\":[{\"path\":\"a\"}]}"), "(none)",
		  "jsonr find: an array on the path holds no member");
	CHECK_STR(find_str("{\"ro\\u006ft\":{\"path\":\"e\"}}"), "e",
		  "jsonr find: keys compared decoded");
	CHECK_STR(find_str("{\"root\":{\"path\":\"a\"},}"), "(invalid)",
		  "jsonr find: the whole document is checked");
	CHECK_STR(find_str("{\"root\":{\"path\":5}}"), "(not a string)",
		  "jsonr find: the value's type is the caller's to check");
}

void test_hook(void)
{
	test_jsonr();
	test_jsonr_find();
	test_states();
	test_annotations();
	test_podman_infra();
	test_read();
	test_stages();
	test_inject();
	test_inject_text();
}
