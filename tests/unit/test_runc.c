// SPDX-License-Identifier: GPL-2.0
/*
 * lib/runc_args.c: krsi-runc's command line as Docker's and containerd's shims write it, and
 * lib/oci_inject.c's options for the wrapper (the bundle's profile first, --fail-open).
 */
#include <string.h>

#include "lib/oci_inject.h"
#include "lib/runc_args.h"
#include "unit.h"

#define MAXW 32

struct parsed {
	struct runc_args a;
	char *out[MAXW + 2];
	char joined[512];
	struct krsi_err err;
	int r;
};

/* Parse the words of LINE (split at spaces) as krsi-runc's argv; P->joined is runc's argv. */
static struct parsed *parse(struct parsed *p, const char *line)
{
	static char buf[512];
	char *argv[MAXW + 1];
	int argc = 0;

	memset(p, 0, sizeof(*p));
	snprintf(buf, sizeof(buf), "%s", line);
	for (char *t = strtok(buf, " "); t && argc < MAXW; t = strtok(NULL, " "))
		argv[argc++] = t;
	argv[argc] = NULL;
	p->r = runc_args_parse(argc, argv, p->out, &p->a, &p->err);
	for (int i = 0; p->r == 0 && i < p->a.argc; i++)
		snprintf(p->joined + strlen(p->joined), sizeof(p->joined) - strlen(p->joined), "%s%s",
			 i ? " " : "", p->a.argv[i]);
	return p;
}

static bool str_is(const char *got, const char *want)
{
	return got ? want && !strcmp(got, want) : !want;
}

static void test_runc_args(void)
{
	struct parsed p;

	/* Docker 20.10: the runtime's script puts runtimeArgs before the shim's arguments. */
	parse(&p, "krsi-runc --krsi-profile=web --root /var/run/docker/runtime-runc/moby --log "
		  "/run/c/log.json --log-format json --systemd-cgroup create --bundle /run/c/b "
		  "--pid-file /run/c/pid --console-socket /tmp/pty.sock 0123abcd");
	CHECK(p.r == 0 && str_is(p.a.profile, "web") && p.a.creates && str_is(p.a.command, "create"),
	      "runc args: Docker's create, with the runtime's profile (%s)", p.err.msg);
	CHECK(str_is(p.a.bundle, "/run/c/b") && str_is(p.a.id, "0123abcd"),
	      "runc args: the bundle and the container id of create");
	CHECK(str_is(p.a.log, "/run/c/log.json") && p.a.log_json,
	      "runc args: runc's --log and --log-format json are known");
	CHECK_STR(p.joined, "krsi-runc --root /var/run/docker/runtime-runc/moby --log "
			    "/run/c/log.json --log-format json --systemd-cgroup create --bundle "
			    "/run/c/b --pid-file /run/c/pid --console-socket /tmp/pty.sock 0123abcd",
		  "runc args: runc gets everything but krsi-runc's own options, in order");

	/* containerd's shim (BinaryName): no options of ours, --opt=value forms. */
	parse(&p, "runc --root=/run/containerd/runc/k8s.io --log=/x/log.json --log-format=text "
		  "create -b=/x/b --pid-file /x/pid c1");
	CHECK(p.r == 0 && !p.a.profile && str_is(p.a.bundle, "/x/b") && str_is(p.a.id, "c1") &&
		      !p.a.log_json && str_is(p.a.log, "/x/log.json"),
	      "runc args: --opt=value forms and -b=DIR (%s)", p.err.msg);
	parse(&p, "runc run -d -bundle /b2 --keep c2");
	CHECK(p.r == 0 && p.a.creates && str_is(p.a.bundle, "/b2") && str_is(p.a.id, "c2"),
	      "runc args: run, single-dash -bundle, flags around the id (%s)", p.err.msg);
	parse(&p, "runc run c3");
	CHECK(p.r == 0 && p.a.creates && !p.a.bundle && str_is(p.a.id, "c3"),
	      "runc args: no --bundle is the current directory (NULL)");
	parse(&p, "runc create --pid-file -b c4");
	CHECK(p.r == 0 && !p.a.bundle && str_is(p.a.id, "c4"),
	      "runc args: a value that looks like -b is the value of the option before it");
	parse(&p, "runc restore --image-path /ck --bundle /b5 c5");
	CHECK(p.r == 0 && p.a.creates && str_is(p.a.bundle, "/b5") && str_is(p.a.id, "c5"),
	      "runc args: restore starts a container from a bundle too");
	parse(&p, "runc create --bundle /b6 -- c6");
	CHECK(p.r == 0 && str_is(p.a.id, "c6"), "runc args: the id after --");

	/* Commands that start nothing pass through. */
	parse(&p, "runc --root /r exec --process /p.json c1");
	CHECK(p.r == 0 && !p.a.creates && str_is(p.a.command, "exec") && !p.a.bundle,
	      "runc args: exec wires nothing (the process joins the registered cgroup)");
	CHECK_STR(p.joined, "runc --root /r exec --process /p.json c1", "runc args: exec untouched");
	parse(&p, "runc --krsi-profile web delete --force c1");
	CHECK(p.r == 0 && !p.a.creates && str_is(p.a.command, "delete"),
	      "runc args: delete wires nothing");
	CHECK_STR(p.joined, "runc delete --force c1", "runc args: delete loses only --krsi-profile");
	parse(&p, "runc --version");
	CHECK(p.r == 0 && !p.a.command && !p.a.creates, "runc args: --version has no command");
	parse(&p, "runc --krsi-fail-open --krsi-poststop --krsi-stage createRuntime "
		  "--krsi-runtime /opt/runc state c1");
	CHECK(p.r == 0 && p.a.fail_open && p.a.poststop && str_is(p.a.stage, "createRuntime") &&
		      str_is(p.a.runtime, "/opt/runc"),
	      "runc args: every krsi option, in separate words (%s)", p.err.msg);
	CHECK_STR(p.joined, "runc state c1", "runc args: none of them reaches runc");

	parse(&p, "runc --log --krsi-help create c1");
	CHECK(p.r == 0 && !p.a.help && str_is(p.a.log, "--krsi-help") && p.a.creates,
	      "runc args: a --krsi- word as the value of --log is runc's (tests/fuzz/regress)");

	/* Refused, with the reason naming the word. */
	parse(&p, "runc --new-global x create --bundle /b c1");
	CHECK(p.r == -EINVAL && strstr(p.err.msg, "--new-global") &&
		      strstr(p.err.msg, "refusing"),
	      "runc args: an unknown global option is refused: it could hide the command (%s)",
	      p.err.msg);
	parse(&p, "runc --root");
	CHECK(p.r == -EINVAL && strstr(p.err.msg, "--root needs a value"),
	      "runc args: a global option without its value (%s)", p.err.msg);
	parse(&p, "runc --debug=true create c1");
	CHECK(p.r == 0 && p.a.creates && str_is(p.a.id, "c1"),
	      "runc args: a flag written --debug=true takes no next word (%s)", p.err.msg);
	parse(&p, "runc --krsi-profile");
	CHECK(p.r == -EINVAL && strstr(p.err.msg, "--krsi-profile needs a value"),
	      "runc args: --krsi-profile without a value (%s)", p.err.msg);
	parse(&p, "runc --krsi-profile= create c1");
	CHECK(p.r == -EINVAL && strstr(p.err.msg, "empty value"),
	      "runc args: --krsi-profile= is empty (%s)", p.err.msg);
	parse(&p, "runc --krsi-profile Web create c1");
	CHECK(p.r == -EINVAL && strstr(p.err.msg, "--krsi-profile Web: not a profile name"),
	      "runc args: a profile name krsid would refuse (%s)", p.err.msg);
	parse(&p, "runc --krsi-stage poststop create c1");
	CHECK(p.r == -EINVAL && strstr(p.err.msg, "--krsi-stage poststop"),
	      "runc args: a stage that does not register (%s)", p.err.msg);
	parse(&p, "runc --krsi-profil=x create c1");
	CHECK(p.r == -EINVAL && strstr(p.err.msg, "unknown option --krsi-profil"),
	      "runc args: a misspelt option of krsi-runc (%s)", p.err.msg);
}

static const char *profile_of(json_object *c)
{
	json_object *ann, *v;

	if (!json_object_object_get_ex(c, "annotations", &ann) ||
	    !json_object_object_get_ex(ann, "org.krsi.profile", &v))
		return NULL;
	return json_object_get_string(v);
}

static void test_runc_inject(void)
{
	struct oci_inject_opts o = { .profile = "web", .profile_default = true, .fail_open = true };
	struct krsi_err err = { "" };
	json_object *c, *a;

	c = json_tokener_parse("{\"annotations\":{\"org.krsi.profile\":\"db\"}}");
	CHECK(oci_inject_config(c, &o, &err) == 0 && str_is(profile_of(c), "db"),
	      "runc inject: the bundle's own profile annotation wins over the runtime's (%s)",
	      err.msg);
	a = json_object_object_get(json_object_object_get(c, "hooks"), "prestart");
	CHECK_STR(json_object_to_json_string_ext(json_object_object_get(
						   json_object_array_get_idx(a, 0), "args"),
						   JSON_C_TO_STRING_PLAIN),
		  "[\"krsi-oci-hook\",\"--fail-open\",\"prestart\"]",
		  "runc inject: --fail-open reaches the hook entry's arguments");
	json_object_put(c);
	c = json_tokener_parse("{}");
	CHECK(oci_inject_config(c, &o, &err) == 0 && str_is(profile_of(c), "web"),
	      "runc inject: a bundle without a profile gets the runtime's");
	json_object_put(c);
	o.profile_default = false;
	c = json_tokener_parse("{\"annotations\":{\"org.krsi.profile\":\"db\"}}");
	CHECK(oci_inject_config(c, &o, &err) == 0 && str_is(profile_of(c), "web"),
	      "runc inject: krsictl oci-inject --profile still replaces the annotation");
	json_object_put(c);
}

void test_runc(void)
{
	test_runc_args();
	test_runc_inject();
}
