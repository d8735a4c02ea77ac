// SPDX-License-Identifier: GPL-2.0
/*
 * krsi-runc: a runc for engines that read no hooks.d (Docker, containerd). For every command
 * that starts a container from a bundle (create, run, restore) it adds krsi-oci-hook to the
 * bundle's config.json, with the code of `krsictl oci-inject`, then executes runc with the same
 * arguments less its own; every other command goes to runc untouched.
 *
 *   krsi-runc [--krsi-profile NAME] [--krsi-fail-open] [--krsi-poststop]
 *             [--krsi-stage prestart|createRuntime] [--krsi-runtime PATH] RUNC-ARGS...
 *
 * --krsi-profile names the profile of a container whose bundle names none (the annotation
 * org.krsi.profile, which containerd's --annotation and CRI's pod annotations reach); without
 * either, krsid's default profile applies. Docker 20.10 sets no annotation: a profile is chosen
 * by the runtime a `docker run --runtime` names, each a krsi-runc with its --krsi-profile
 * (agent/k8s/runtimes.md). Never from the environment, which the image can set.
 *
 * krsi-runc runs on the host, as the engine's child, before the container's cgroup exists: it
 * is never in the container it wires, nor confined by its profile. It needs no krsid: the hook
 * it wires does, and fails closed when krsid is down (or opens, with --krsi-fail-open: the
 * hook's --fail-open, or one container's annotation org.krsi.fail-open=true).
 *
 * Exit: runc's; 1 when the bundle cannot be wired (nothing started), 2 for a bad command line.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "lib/oci_inject.h"
#include "lib/runc_args.h"

#define PROG "krsi-runc"

static const char *const runtimes[] = { "/usr/sbin/runc", "/usr/bin/runc" };

static void usage(FILE *f)
{
	fprintf(f, "usage: " PROG " [--krsi-profile NAME] [--krsi-fail-open] [--krsi-poststop]\n"
		   "                 [--krsi-stage prestart|createRuntime] [--krsi-runtime PATH]\n"
		   "                 [--krsi-help] RUNC-ARGS...\n"
		   "Wires krsi-oci-hook into the bundle of runc's create, run and restore, then runs"
		   " runc.\n");
}

/*
 * A failure: one line on stderr, and in runc's --log in its format when one is named, since
 * containerd's shim reports the last error line of that log ("OCI runtime create failed: ...").
 */
static int fail(const struct runc_args *a, int status, const char *fmt, ...)
{
	char msg[768], when[32];
	va_list ap;
	FILE *f;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fprintf(stderr, PROG ": %s\n", msg);
	if (!a->log || !(f = fopen(a->log, "ae")))
		return status;
	if (a->log_json) {
		time_t t = time(NULL);
		struct tm tm;

		strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&t, &tm));
		fputs("{\"level\":\"error\",\"msg\":\"" PROG ": ", f);
		for (const char *p = msg; *p; p++) {
			if (*p == '"' || *p == '\\')
				fputc('\\', f);
			if ((unsigned char)*p >= 0x20)
				fputc(*p, f);
		}
		fprintf(f, "\",\"time\":\"%s\"}\n", when);
	} else {
		fprintf(f, PROG ": %s\n", msg);
	}
	fclose(f);
	return status;
}

/* The runtime to execute: --krsi-runtime, else Debian's runc; never this program itself. */
static const char *runtime_path(const struct runc_args *a, struct krsi_err *err)
{
	struct stat self, st;
	const char *path = a->runtime;

	for (size_t i = 0; !path && i < ARRAY_SIZE(runtimes); i++)
		if (access(runtimes[i], X_OK) == 0)
			path = runtimes[i];
	if (!path) {
		err_set(err, -ENOENT, "no runc in /usr/sbin or /usr/bin (name one with "
			"--krsi-runtime PATH)");
		return NULL;
	}
	if (stat(path, &st) < 0) {
		err_set(err, -errno, "runtime %s: %s", path, strerror(errno));
		return NULL;
	}
	if (stat("/proc/self/exe", &self) == 0 && self.st_dev == st.st_dev &&
	    self.st_ino == st.st_ino) {
		err_set(err, -ELOOP, "runtime %s is krsi-runc itself", path);
		return NULL;
	}
	return path;
}

int main(int argc, char **argv)
{
	char **out = calloc(argc + 2, sizeof(*out));
	struct krsi_err err = { "" };
	struct runc_args a;
	const char *runtime;

	if (!out)
		return 1;
	if (runc_args_parse(argc, argv, out, &a, &err) < 0) {
		fail(&a, 2, "%s", err.msg);
		usage(stderr);
		return 2;
	}
	if (a.help) {
		usage(stdout);
		return 0;
	}
	runtime = runtime_path(&a, &err);
	if (!runtime)
		return fail(&a, 1, "%s", err.msg);
	if (a.creates) {
		struct oci_inject_opts o = {
			.stage = a.stage,
			.profile = a.profile,
			.profile_default = true,
			.poststop = a.poststop,
			.fail_open = a.fail_open,
		};

		if (oci_inject_bundle(a.bundle ? a.bundle : ".", &o, &err) < 0)
			return fail(&a, 1, "container %s: %s (not started)", a.id ? a.id : "?",
				    err.msg);
	}
	out[0] = "runc";
	execv(runtime, out);
	return fail(&a, 1, "container %s: cannot execute %s: %s", a.id ? a.id : "?", runtime,
		    strerror(errno));
}
