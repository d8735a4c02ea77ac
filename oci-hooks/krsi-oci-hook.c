// SPDX-License-Identifier: GPL-2.0
/*
 * krsi-oci-hook: registers a container with krsid before its first instruction runs, and
 * unregisters it when it stops if it is wired at poststop too. By default it is not (krsictl
 * oci-inject, oci-hooks/krsi.json): krsid unregisters a container when its cgroup is removed,
 * so a second run per container would only slow every start down (make bench). It speaks the
 * control protocol and nothing else: it never calls bpf() (it does not link libbpf). Built
 * static with musl and no JSON library (oci-hooks/hook.mk, jsonr.h, request.h): its whole life
 * is one container start.
 *
 *   krsi-oci-hook [--socket PATH] [--timeout MS] [--fail-open] [STAGE]
 *
 * STAGE is prestart or createRuntime (register), poststop (unregister), or auto (the default):
 * the stage from the state's "status", for a hooks.d file that lists several stages with the
 * same arguments. The state JSON comes on stdin (at most 64 KiB).
 *
 * Fail-closed: whatever goes wrong at prestart or createRuntime exits 1 with one line on stderr
 * that names the container and the reason, and the runtime does not start the container.
 * Fail-open is for availability only: with --fail-open in the hook entry (every container of
 * that entry) or the annotation org.krsi.fail-open=true (one container), a krsid that is not
 * running, not listening or too slow to answer lets the container start UNCONFINED, with a
 * warning on stderr. An agent's refusal (unknown profile, ...) and a bad state, pid or cgroup
 * still fail: fail-open must not let a container choose to run without its profile.
 *
 * Installing krsi never stops a node's containers: while krsi has not enforced since the node
 * booted (no krsi program is attached: /sys/fs/bpf/krsi does not exist, because krsid never
 * started or cannot run on this kernel), a krsid that does not answer lets the container start,
 * with a warning that says krsi is not enforcing. Once krsi has enforced on this boot, the
 * above holds. A rootless container (the hook runs in a user namespace other than the host's)
 * starts with one line saying that krsi does not confine it: its runtime cannot register it,
 * and krsid takes requests from the host's root alone.
 *
 * The whole run is bounded by --timeout (default 5000 ms): stdin, the agent's connect, its
 * request and its reply. The hook needs nothing from its environment (runc gives it none).
 *
 * Exit: 0 registered / unregistered (or fail-open), 1 failure, 2 usage.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>

#include "lib/cgroup.h"
#include "lib/jsonr.h"
#include "oci-hooks/oci_state.h"
#include "lib/request.h"

#define PROG "krsi-oci-hook"
/* krsid's pins (agent/daemon/bpfobj.h): there from its first start until unloaded or reboot. */
#define KRSI_PINS "/sys/fs/bpf/krsi"

static const char *socket_path = PROTO_SOCKET_PATH;
static int timeout_ms = 5000;

/* What the alarm handler writes and how it exits: set with SIGALRM blocked. */
static char alarm_msg[768];
static volatile sig_atomic_t alarm_exit = 1;

/* A fail-open start goes to the kernel log too: runc shows a hook's stderr only when it fails.
 * Async-signal-safe (the alarm handler uses it). */
static void kmsg_write(const char *line)
{
	int fd = open("/dev/kmsg", O_WRONLY | O_CLOEXEC);

	if (fd >= 0) {
		ssize_t n = write(fd, line, strlen(line));

		(void)n;
		close(fd);
	}
}

/* At prestart/createRuntime a failure refuses a container: crun and podman show a hook's
 * stderr nowhere unless configured (run.oci.hooks.stderr), so it goes to the kernel log too. */
static bool kmsg_failures;

/* The one line a failure prints. Returns 1, the exit status. */
__attribute__((format(printf, 1, 2))) static int fail(const char *fmt, ...)
{
	char line[1024];
	va_list ap;
	int n;

	n = snprintf(line, sizeof(line), PROG ": ");
	va_start(ap, fmt);
	vsnprintf(line + n, sizeof(line) - n - 1, fmt, ap);
	va_end(ap);
	strcat(line, "\n");
	fputs(line, stderr);
	if (kmsg_failures)
		kmsg_write(line);
	return 1;
}

static void on_alarm(int sig)
{
	ssize_t n = write(STDERR_FILENO, alarm_msg, strlen(alarm_msg));

	(void)n;
	if (alarm_exit == 0 || kmsg_failures)
		kmsg_write(alarm_msg);
	_exit(alarm_exit);
}

__attribute__((format(printf, 2, 3))) static void alarm_set(int code, const char *fmt, ...)
{
	sigset_t set, old;
	va_list ap;

	sigemptyset(&set);
	sigaddset(&set, SIGALRM);
	sigprocmask(SIG_BLOCK, &set, &old);
	va_start(ap, fmt);
	vsnprintf(alarm_msg, sizeof(alarm_msg), fmt, ap);
	va_end(ap);
	alarm_exit = code;
	sigprocmask(SIG_SETMASK, &old, NULL);
}

static void usage(FILE *f)
{
	fprintf(f, "usage: " PROG " [--socket PATH] [--timeout MS] [--fail-open] [--help] "
		   "[prestart|createRuntime|poststop|auto]\n"
		   "  the container's OCI state JSON on stdin; see the hooks.d file "
		   "/usr/share/containers/oci/hooks.d/krsi.json\n");
}

/* Is the container of S a podman pod's infra container (its bundle's config.json)? */
static bool podman_infra(const struct oci_state *s)
{
	_cleanup_free_ char *buf = NULL;
	_cleanup_close_ int fd = -1;
	struct krsi_err err;
	char path[4096];
	size_t len;

	if (!s->bundle || s->bundle[0] != '/' ||
	    snprintf(path, sizeof(path), "%s/config.json", s->bundle) >= (int)sizeof(path))
		return false;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || oci_state_read(fd, OCI_CONFIG_MAX, &buf, &len, &err) < 0)
		return false;
	return oci_config_is_podman_infra(buf, len);
}

/*
 * A failure of the agent itself (not a refusal): fail-open may let the container start. So
 * does a podman pod's infra container, which runs only podman's pause process and carries
 * none of the pod's annotations: without it, a pod annotated fail-open (the agent's own) could
 * never start while no krsid runs. The pod's other containers still follow their own
 * annotations.
 */
static int unavailable(const struct oci_state *s, bool fail_open, const char *fail_open_why,
		       const char *msg)
{
	char line[1024];
	struct stat st;

	if (!fail_open && podman_infra(s)) {
		fail_open = true;
		fail_open_why = "the rule for podman pod infra containers (they carry no annotations)";
	}
	/* Not enforcing since boot: nothing krsi promised is lost by starting. */
	if (!fail_open && stat(KRSI_PINS, &st) < 0 && errno == ENOENT) {
		snprintf(line, sizeof(line), PROG ": WARNING: krsi is not enforcing on this node "
			 "(nothing attached since boot: krsid has not started, or cannot run on this "
			 "kernel; see journalctl -u krsid): container %s starts unconfined: %s\n",
			 s->id, msg);
		fputs(line, stderr);
		kmsg_write(line);
		return 0;
	}
	if (!fail_open) {
		return fail("container %s: %s", s->id, msg);
	}

	snprintf(line, sizeof(line), PROG ": WARNING: container %s starts UNCONFINED, no krsi "
		 "profile: %s (fail-open by %s)\n", s->id, msg, fail_open_why);
	fputs(line, stderr);
	kmsg_write(line);
	return 0;
}

/* The agent's reply, one line: a register reply carries the container's entry. */
#define REPLY_MAX (256 * 1024)

/*
 * Send REQ (LEN bytes, one line) to the agent and read its one-line reply into *RET (LEN
 * bytes, NUL-terminated). 0, or a negative errno and ERR: -EAGAIN when the socket's timeout
 * ran out.
 */
static int exchange(const char *req, size_t len, char **ret, size_t *ret_len,
		    struct krsi_err *err)
{
	_cleanup_close_ int fd = proto_connect(socket_path, timeout_ms, err);
	_cleanup_free_ char *buf = NULL;
	size_t have = 0;
	int send_err;
	ssize_t n;

	if (fd < 0)
		return fd;
	send_err = proto_send_line(fd, req, len);
	/* A refusing agent may have answered and closed before reading all of it: its reply is
	 * still queued. */
	if (send_err && send_err != -EPIPE && send_err != -ECONNRESET)
		return err_set(err, send_err, "send to %s: %s", socket_path, strerror(-send_err));
	shutdown(fd, SHUT_WR);
	buf = malloc(REPLY_MAX + 1);
	if (!buf)
		return err_set(err, -ENOMEM, "out of memory");
	while (!memchr(buf, '\n', have)) {
		if (have == REPLY_MAX)
			return err_set(err, -EMSGSIZE, "a reply of more than %d bytes", REPLY_MAX);
		n = read(fd, buf + have, REPLY_MAX - have);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return err_set(err, -EAGAIN, "no reply in time");
		if (n < 0)
			return err_set(err, -errno, "read from %s: %s", socket_path, strerror(errno));
		if (n == 0)
			break;
		have += n;
	}
	if (send_err && !have)
		return err_set(err, send_err, "send to %s: %s", socket_path, strerror(-send_err));
	if (!have)
		return err_set(err, -ECONNRESET, "%s closed the connection without a reply",
			       socket_path);
	buf[have] = 0;
	*ret_len = have;
	*ret = TAKE_PTR(buf);
	return 0;
}

/*
 * Send REQ; 0 with the reply's "container" member in *RET_CONTAINER (JSONR_NONE when it has
 * none; its text lives in *RET_BUF), or the exit status with the message printed.
 */
static int agent_call(const struct oci_state *s, const char *req, size_t len, bool unregister,
		      bool fail_open, const char *fail_open_why, char **ret_buf,
		      struct jsonr_value *ret_container)
{
	static const char *const keys[] = { "ok", "error", "container" };
	struct krsi_err err = { "" };
	struct jsonr_value doc, f[ARRAY_SIZE(keys)];
	_cleanup_free_ char *buf = NULL, *msg = NULL;
	char why[128];
	size_t n;
	int r;

	if (fail_open)
		alarm_set(0, PROG ": WARNING: container %s starts UNCONFINED, no krsi profile: "
			  "krsid at %s did not answer within %d ms (fail-open by %s)\n", s->id,
			  socket_path, timeout_ms, fail_open_why);
	else
		alarm_set(1, PROG ": container %s: krsid at %s did not answer within %d ms\n", s->id,
			  socket_path, timeout_ms);
	r = exchange(req, len, &buf, &n, &err);
	if (r < 0) {
		char text[sizeof(err.msg) + 64];

		/* A socket timeout and the deadline are the same event: one message for both. */
		if (r == -EAGAIN)
			snprintf(text, sizeof(text), "krsid at %s did not answer within %d ms",
				 socket_path, timeout_ms);
		else
			snprintf(text, sizeof(text), "krsid: %s", err.msg);
		return unavailable(s, fail_open, fail_open_why, text) ? 1 : -1;
	}
	r = jsonr_parse(buf, n, &doc, why, sizeof(why));
	if (r < 0 || doc.type != JSONR_OBJECT)
		return fail("container %s: krsid's reply is not a JSON object (%s): %.200s", s->id,
			    r < 0 ? why : "another type", buf);
	jsonr_fields(&doc, keys, f, ARRAY_SIZE(keys));
	if (f[0].type != JSONR_TRUE && f[0].type != JSONR_FALSE)
		return fail("container %s: krsid's reply has no \"ok\": %.200s", s->id, buf);
	if (f[0].type == JSONR_FALSE) {
		const char *k = " not registered";

		if (jsonr_string(&f[1], &msg, &n) < 0) {
			msg = strdup("(no reason given)");
			n = msg ? strlen(msg) : 0;
		}
		/* poststop: what it wants (no entry) is so already, e.g. collected by the agent
		 * after runc removed the cgroup, or never registered (fail-open). */
		if (unregister && n >= strlen(k) && !strcmp(msg + n - strlen(k), k))
			return 0;
		return fail("container %s: krsid refused: %s", s->id, msg ? msg : "out of memory");
	}
	*ret_container = f[2];
	*ret_buf = TAKE_PTR(buf);
	return 0;
}

static char req_buf[PROTO_REQUEST_MAX];

/* R as its line in req_buf (lib/request.h): 0 and its length, or the exit status with the
 * message printed. */
static int request(const struct oci_state *s, const struct krsi_request *r, size_t *ret_len)
{
	int n = krsi_request_write(r, req_buf, sizeof(req_buf));

	if (n == -ENOSPC)
		return fail("container %s: the request to krsid would exceed %d bytes", s->id,
			    PROTO_REQUEST_MAX);
	if (n < 0)
		return fail("container %s: the request to krsid: %s", s->id, strerror(-n));
	*ret_len = n;
	return 0;
}

/*
 * Whether the hook runs in the host's user namespace: its uid_map maps every id to itself. A
 * rootless runtime runs its hooks in its own user namespace, as root there: *RET_UID is then
 * the host's uid of that root, the user the container runs for.
 */
static bool host_userns(unsigned long *ret_uid)
{
	char map[128] = "";
	unsigned long inside = 0, outside = 0, count = 0;
	int fd = open("/proc/self/uid_map", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, map, sizeof(map) - 1);

	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return true; /* no /proc to tell: the registration itself will say what fails */
	sscanf(map, "%lu %lu %lu", &inside, &outside, &count);
	*ret_uid = outside;
	return inside == 0 && outside == 0 && count == 4294967295UL;
}

static int do_register(const struct oci_state *s, bool fail_open, const char *fail_open_why)
{
	_cleanup_free_ char *rep = NULL;
	static const char *const id_key[] = { "cgroup_id" };
	struct jsonr_value container, v;
	char cgroup[4096];
	uint64_t id = 0, got;
	size_t len;
	int r;

	unsigned long uid = 0;

	if (!host_userns(&uid)) {
		fprintf(stderr, PROG ": container %s is rootless (run by uid %lu in a user namespace): "
			"krsi does not confine rootless containers; it starts unconfined\n", s->id,
			uid);
		return 0;
	}

	if (s->pid <= 0) {
		return fail("container %s: the state has no pid: cannot find its cgroup",
			s->id);
	}
	/* A process that is gone has no /proc/<pid>/cgroup: told apart from a removed cgroup
	 * below, at no cost to the usual start. */
	r = cgroup_of_pid(s->pid, cgroup, sizeof(cgroup));
	if (r == -ENOENT && kill(s->pid, 0) < 0 && errno == ESRCH) {
		return fail("container %s: pid %lld: no such process", s->id,
			(long long)s->pid);
	}
	if (r == -ENOENT) {
		return fail("container %s: pid %lld: its cgroup has been removed", s->id,
			(long long)s->pid);
	}
	if (r == -ENODATA) {
		return fail("container %s: pid %lld: no cgroup v2 entry (0::) in "
			"/proc/%lld/cgroup", s->id, (long long)s->pid, (long long)s->pid);
	}
	if (r < 0) {
		return fail("container %s: pid %lld: reading /proc/%lld/cgroup: %s",
			s->id, (long long)s->pid, (long long)s->pid, strerror(-r));
	}
	if (!strcmp(cgroup, "/")) {
		return fail("container %s: pid %lld is in the root cgroup: the runtime "
			"gave the container no cgroup of its own", s->id, (long long)s->pid);
	}
	r = cgroup_id(cgroup, &id);
	if (r < 0) {
		return fail("container %s: pid %lld: cgroup %s: %s", s->id,
			(long long)s->pid, cgroup, strerror(-r));
	}

	/*
	 * The agent resolves the rules' file identities in the bundle's rootfs before the
	 * container runs. The runtime still mounts and sets up the container after this hook:
	 * only exec rules apply until the container's first execve ("until_exec"), which arms
	 * the rest.
	 */
	struct krsi_request req = {
		.op = PROTO_REGISTER,
		.container = s->id,
		.profile = s->profile,
		.cgroup = cgroup,
		.bundle = s->bundle && s->bundle[0] == '/' ? s->bundle : NULL,
		.until_exec = true,
	};
	r = request(s, &req, &len);
	if (r)
		return r;
	r = agent_call(s, req_buf, len, false, fail_open, fail_open_why, &rep, &container);
	if (r)
		return r < 0 ? 0 : r;
	/* The agent resolved the path itself: it must be the cgroup this pid is in. */
	jsonr_fields(&container, id_key, &v, 1);
	if (!jsonr_uint64(&v, &got) || got != id) {
		return fail("container %s: krsid registered cgroup %s under another id "
			"than %llu (was it replaced?)", s->id, cgroup, (unsigned long long)id);
	}
	return 0;
}

static int do_unregister(const struct oci_state *s)
{
	_cleanup_free_ char *rep = NULL;
	struct krsi_request req = { .op = PROTO_UNREGISTER, .container = s->id };
	struct jsonr_value container;
	size_t len;
	int r;

	r = request(s, &req, &len);
	if (r)
		return r;
	/* Never fail-open here: a poststop failure is only a warning, and krsid collects the
	 * entries of cgroups that are gone by itself. */
	r = agent_call(s, req_buf, len, true, false, NULL, &rep, &container);
	return r < 0 ? 0 : r;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "socket", required_argument, NULL, 's' },
		{ "timeout", required_argument, NULL, 't' },
		{ "fail-open", no_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{},
	};
	struct sigaction sa = { .sa_handler = on_alarm };
	enum oci_stage stage = OCI_STAGE_AUTO;
	struct oci_state s = { 0 };
	struct krsi_err err = { "" };
	_cleanup_free_ char *buf = NULL;
	struct itimerval it = { 0 };
	bool fail_open = false;
	const char *why = NULL;
	uint64_t t = 0;
	size_t len;
	int c, r;

	while ((c = getopt_long(argc, argv, "s:t:oh", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			socket_path = optarg;
			break;
		case 't':
			if (parse_u64(optarg, &t) < 0 || t == 0 || t > 600000) {
				fprintf(stderr, PROG ": --timeout %s: expected 1 to 600000 ms\n", optarg);
				return 2;
			}
			timeout_ms = t;
			break;
		case 'o':
			fail_open = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc && oci_stage_parse(argv[optind++], &stage) < 0) {
		fprintf(stderr, PROG ": stage %s: expected prestart, createRuntime, poststop or auto\n",
			argv[optind - 1]);
		return 2;
	}
	if (optind < argc) {
		fprintf(stderr, PROG ": unexpected argument %s\n", argv[optind]);
		usage(stderr);
		return 2;
	}

	/* Under "auto" a bad state is more likely a prestart than a poststop. */
	kmsg_failures = stage != OCI_STAGE_POSTSTOP;
	/* One deadline for the whole run: a hook must never hang its runtime. */
	sigaction(SIGALRM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	alarm_set(1, PROG ": %s: no state on stdin within %d ms\n", oci_stage_name(stage),
		  timeout_ms);
	it.it_value.tv_sec = timeout_ms / 1000;
	it.it_value.tv_usec = (timeout_ms % 1000) * 1000;
	setitimer(ITIMER_REAL, &it, NULL);

	r = oci_state_read(STDIN_FILENO, OCI_STATE_MAX, &buf, &len, &err);
	if (r == 0)
		r = oci_state_parse(buf, len, &s, &err);
	if (r < 0) {
		return fail("%s: state on stdin: %s", oci_stage_name(stage), err.msg);
	}
	if (stage == OCI_STAGE_AUTO)
		stage = oci_state_stage(&s);
	kmsg_failures = stage != OCI_STAGE_POSTSTOP;
	if (fail_open)
		why = "--fail-open in the hook entry";
	else if (s.fail_open)
		why = "annotation " OCI_ANNOTATION_FAIL_OPEN "=true";
	fail_open = fail_open || s.fail_open;

	r = stage == OCI_STAGE_POSTSTOP ? do_unregister(&s) : do_register(&s, fail_open, why);
	oci_state_clear(&s);
	return r;
}
