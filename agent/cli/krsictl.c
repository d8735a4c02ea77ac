// SPDX-License-Identifier: GPL-2.0
/*
 * krsictl: the command line of krsi. Speaks the control protocol and nothing else (and checks
 * profile files locally with the same parser as the agent).
 *
 * Exit codes:
 *   0  done
 *   1  the agent refused the request (its error is printed)
 *   2  usage error
 *   3  the agent is unreachable, or its reply is not understood
 *   4  profile check: the file is invalid
 */
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <time.h>

#include "policy/learn.h"
#include "lib/oci_inject.h"
#include "policy/profile.h"
#include "lib/protocol.h"

enum { EXIT_OK = 0, EXIT_REFUSED = 1, EXIT_USAGE = 2, EXIT_UNREACHABLE = 3, EXIT_INVALID = 4 };

static const char *socket_path = PROTO_SOCKET_PATH;
static int timeout_ms = 10000;
static bool opt_json;

static void usage(FILE *f)
{
	fprintf(f,
		"usage: krsictl [--socket PATH] [--timeout MS] COMMAND\n"
		"  status [--json]                         agent, kernel and counters\n"
		"  ps [--json]                             registered containers\n"
		"  profile list [--json]                   installed profiles\n"
		"  profile show NAME                       one profile, as installed\n"
		"  profile check FILE...                   validate profile files, say what each does per kind\n"
		"  profile reload                          reload the profile directory, all or nothing\n"
		"  profile learn CONTAINER|PROFILE --duration D [--output FILE] [--name NAME] [--fold N]\n"
		"                                          watch what it runs, writes and connects to for D\n"
		"                                          (30s, 5m, 1h), write a profile that allows only that;\n"
		"                                          Ctrl-C or SIGTERM ends it early, and writes it\n"
		"  profile diff FILE --container ID        what FILE would have denied of ID's recent events\n"
		"  assign PROFILE CONTAINER                change a container's profile\n"
		"  register CONTAINER (--cgroup PATH | --cgroup-id ID | --pid PID) [--profile NAME]\n"
		"           [--until-exec]                 only exec rules until the first execve\n"
		"           [--bundle DIR]                 OCI bundle: rules' file identities in its rootfs\n"
		"  unregister CONTAINER\n"
		"  events [--follow] [--container ID]      recent events, then new ones with --follow\n"
		"  metrics                                 counters and gauges, Prometheus text format\n"
		"  oci-inject BUNDLE [prestart|createRuntime] [--profile NAME] [--poststop]\n"
		"                                          wire krsi-oci-hook into a bundle\n"
		"                                          (crun, runc); --poststop: also at\n"
		"                                          poststop, for a runtime that keeps\n"
		"                                          the cgroup of a stopped container\n"
		"exit codes: 0 done, 1 refused by the agent, 2 usage, 3 agent unreachable,\n"
		"            4 invalid profile\n");
}

static int call(json_object *req, json_object **ret)
{
	struct krsi_err err = { "" };
	json_object *ok;
	int r;

	r = proto_call(socket_path, req, timeout_ms, ret, &err);
	json_object_put(req);
	if (r < 0) {
		fprintf(stderr, "krsictl: %s\n", err.msg);
		return EXIT_UNREACHABLE;
	}
	if (!json_object_object_get_ex(*ret, "ok", &ok)) {
		fprintf(stderr, "krsictl: reply without \"ok\": %s\n",
			json_object_to_json_string(*ret));
		return EXIT_UNREACHABLE;
	}
	if (!json_object_get_boolean(ok)) {
		json_object *e;

		json_object_object_get_ex(*ret, "error", &e);
		fprintf(stderr, "krsictl: %s\n", e ? json_object_get_string(e) : "request refused");
		return EXIT_REFUSED;
	}
	return EXIT_OK;
}

static const char *str(json_object *o, const char *key)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v))
		return "-";
	return json_object_get_string(v);
}

static void print_json(json_object *o)
{
	printf("%s\n", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |
								 JSON_C_TO_STRING_NOSLASHESCAPE));
}

static int cmd_simple(enum proto_op op, const char *key)
{
	_cleanup_json_ json_object *rep = NULL;
	json_object *v;
	int r = call(proto_request_new(op), &rep);

	if (r)
		return r;
	if (opt_json || !key) {
		print_json(rep);
		return 0;
	}
	json_object_object_get_ex(rep, key, &v);
	if (op == PROTO_PS) {
		printf("%-24s %-32s %-20s %-8s %8s %8s\n", "CONTAINER", "CGROUP", "PROFILE", "MODE",
		       "DENIED", "AUDITED");
		for (size_t i = 0; i < json_object_array_length(v); i++) {
			json_object *e = json_object_array_get_idx(v, i);

			printf("%-24s %-32s %-20s %-8s %8s %8s\n", str(e, "container"),
			       str(e, "cgroup"), str(e, "profile"), str(e, "mode"), str(e, "denied"),
			       str(e, "audited"));
		}
	} else if (op == PROTO_PROFILE_LIST) {
		printf("%-24s %8s %-8s %10s %-16s\n", "PROFILE", "VERSION", "MODE", "CONTAINERS",
		       "DIGEST");
		for (size_t i = 0; i < json_object_array_length(v); i++) {
			json_object *e = json_object_array_get_idx(v, i);

			printf("%-24s %8s %-8s %10s %-16s%s\n", str(e, "name"), str(e, "version"),
			       str(e, "mode"), str(e, "containers"), str(e, "digest"),
			       json_object_get_boolean(json_object_object_get(e, "removed"))
				       ? "  (removed from the directory: in force for its containers only)"
			       : json_object_get_boolean(json_object_object_get(e, "in_directory"))
				       ? ""
				       : "  (no longer in the directory)");
		}
	}
	return 0;
}

/* The attached hooks, one line: "hooks:      bprm_check_security file_open ...". */
static void print_hooks(json_object *a)
{
	json_object *hooks;

	if (!json_object_object_get_ex(a, "hooks", &hooks) ||
	    !json_object_is_type(hooks, json_type_array))
		return;
	printf("hooks:     ");
	for (size_t i = 0; i < json_object_array_length(hooks); i++)
		printf(" %s", json_object_get_string(json_object_array_get_idx(hooks, i)));
	printf("\n");
}

static int cmd_status(void)
{
	_cleanup_json_ json_object *rep = NULL;
	json_object *a, *k, *s;
	int r = call(proto_request_new(PROTO_STATUS), &rep);

	if (r)
		return r;
	if (opt_json) {
		print_json(rep);
		return 0;
	}
	json_object_object_get_ex(rep, "agent", &a);
	json_object_object_get_ex(rep, "kernel", &k);
	json_object_object_get_ex(rep, "stats", &s);
	printf("agent:      krsid %s, pid %s, %s programs (%s), %s attached\n", str(a, "version"),
	       str(a, "pid"), str(a, "programs"),
	       json_object_get_boolean(json_object_object_get(a, "adopted")) ? "adopted from pins"
									   : "loaded",
	       str(a, "attached"));
	print_hooks(a);
	printf("kernel:     lsm=%s, BPF LSM %s, audit switch %s, BTF %s\n", str(k, "lsm"),
	       json_object_get_boolean(json_object_object_get(k, "bpf_lsm")) ? "active" : "OFF",
	       !json_object_get_boolean(json_object_object_get(k, "audit_switch")) ? "absent"
	       : json_object_get_boolean(json_object_object_get(k, "enforcing")) ? "enforcing"
										     : "PERMISSIVE",
	       json_object_get_boolean(json_object_object_get(k, "btf")) ? "yes" : "no");
	printf("registry:   %s containers, %s profiles (default %s)\n", str(rep, "containers"),
	       str(rep, "profiles"), str(a, "default_profile"));
	printf("identities: %s files of exact rules in %s views, refreshed every %ss\n",
	       str(a, "file_identities"), str(a, "identity_views"), str(a, "refresh_interval_s"));
	printf("events:     %s sent, %s lost, %s throttled; %s denied, %s audited\n",
	       str(s, "events"), str(s, "lost"), str(s, "throttled"), str(s, "denied"),
	       str(s, "audited"));
	return 0;
}

static int cmd_check(int argc, char **argv)
{
	int bad = 0;

	if (argc < 1) {
		usage(stderr);
		return EXIT_USAGE;
	}
	for (int i = 0; i < argc; i++) {
		struct krsi_err err = { "" };
		struct profile *p = NULL;

		if (profile_load_file(argv[i], false, &p, &err) < 0) {
			fprintf(stderr, "krsictl: %s\n", err.msg);
			bad = 1;
			continue;
		}
		printf("%s: profile %s version %llu, schema %u, %s: valid\n", argv[i], p->name,
		       (unsigned long long)p->version, p->schema,
		       p->mode == KRSI_MODE_AUDIT ? "audit" : "enforce");
		profile_explain(p, stdout);
		profile_free(p);
	}
	return bad ? EXIT_INVALID : EXIT_OK;
}

static int cmd_events(bool follow, const char *container)
{
	json_object *req = proto_request_new(PROTO_EVENTS), *ok, *arr;
	struct krsi_err err = { "" };
	_cleanup_close_ int fd = -1;
	FILE *f;
	char *line = NULL;
	size_t cap = 0;
	int r = EXIT_OK;

	if (follow)
		json_object_object_add(req, "follow", json_object_new_boolean(1));
	if (container)
		json_object_object_add(req, "container", json_object_new_string(container));
	fd = proto_connect(socket_path, follow ? 0 : timeout_ms, &err);
	if (fd < 0) {
		json_object_put(req);
		fprintf(stderr, "krsictl: %s\n", err.msg);
		return EXIT_UNREACHABLE;
	}
	if (proto_send(fd, req) < 0) {
		json_object_put(req);
		fprintf(stderr, "krsictl: send: %s\n", strerror(errno));
		return EXIT_UNREACHABLE;
	}
	json_object_put(req);
	f = fdopen(dup(fd), "r");
	if (!f)
		return EXIT_UNREACHABLE;
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (bool first = true; getline(&line, &cap, f) > 0; first = false) {
		json_object *o = json_tokener_parse(line);

		if (!o) {
			fprintf(stderr, "krsictl: not JSON from the agent: %s", line);
			r = EXIT_UNREACHABLE;
			break;
		}
		if (first) {
			if (!json_object_object_get_ex(o, "ok", &ok) || !json_object_get_boolean(ok)) {
				fprintf(stderr, "krsictl: %s\n", str(o, "error"));
				json_object_put(o);
				r = EXIT_REFUSED;
				break;
			}
			json_object_object_get_ex(o, "events", &arr);
			for (size_t i = 0; arr && i < json_object_array_length(arr); i++)
				printf("%s\n", json_object_to_json_string_ext(
						       json_object_array_get_idx(arr, i),
						       JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
			json_object_put(o);
			if (!follow)
				break;
			continue;
		}
		printf("%s\n", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
									 JSON_C_TO_STRING_NOSLASHESCAPE));
		json_object_put(o);
	}
	free(line);
	fclose(f);
	return r;
}

static const char *container, *cgroup, *profile, *bundle, *output, *name;
static uint64_t cgroup_id, pid, duration_s, fold = LEARN_FOLD_DEFAULT;
static bool follow, has_id, has_pid, until_exec, poststop;

/* ---- profile learn ---- */

/* "30", "30s", "5m", "2h" into seconds: 1 s to a day. */
static int parse_duration(const char *s, uint64_t *ret)
{
	char num[32];
	size_t n = strlen(s);
	uint64_t v = 0, mul = 1;

	if (n == 0 || n >= sizeof(num))
		return -EINVAL;
	memcpy(num, s, n + 1);
	switch (num[n - 1]) {
	case 'h':
		mul *= 60;
		/* fallthrough */
	case 'm':
		mul *= 60;
		/* fallthrough */
	case 's':
		num[--n] = 0;
	}
	if (parse_u64(num, &v) < 0 || v == 0 || v > PROTO_LEARN_MAX_S / mul)
		return -EINVAL;
	*ret = v * mul;
	return 0;
}

/* An events subscription: lines read as they come, split at newlines. */
struct sub {
	int fd;
	char buf[64 * 1024];
	size_t len;
};

/* The next complete line within TIMEOUT_MS: 1 (in *LINE, valid until the next call), 0 on
 * timeout, <0 when the agent closed the stream or sent a line too long. */
static int sub_line(struct sub *s, int timeout_ms, char **line)
{
	static size_t consumed;

	if (consumed) {
		memmove(s->buf, s->buf + consumed, s->len - consumed);
		s->len -= consumed;
		consumed = 0;
	}
	for (;;) {
		char *nl = memchr(s->buf, '\n', s->len);
		struct pollfd pfd = { .fd = s->fd, .events = POLLIN };
		ssize_t n;

		if (nl) {
			*nl = 0;
			*line = s->buf;
			consumed = nl - s->buf + 1;
			return 1;
		}
		if (s->len == sizeof(s->buf))
			return -EMSGSIZE;
		n = poll(&pfd, 1, timeout_ms);
		if (n == 0 || (n < 0 && errno == EINTR))
			return 0; /* the caller looks at its clock and its signals again */
		n = read(s->fd, s->buf + s->len, sizeof(s->buf) - s->len);
		if (n <= 0)
			return -EPIPE;
		s->len += n;
	}
}

/* SIGINT or SIGTERM during profile learn: end learning now, and write what was learned. */
static volatile sig_atomic_t learn_interrupted;

static void learn_interrupt(int sig)
{
	(void)sig;
	learn_interrupted = 1;
}

static int64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Send learn start (SECONDS) or stop for container C; its reply's "lost" in *LOST. */
static int learn_call(const char *c, uint64_t seconds, uint64_t *lost)
{
	json_object *req = proto_request_new(PROTO_LEARN), *v;
	_cleanup_json_ json_object *rep = NULL;
	int r;

	json_object_object_add(req, "container", json_object_new_string(c));
	if (seconds)
		json_object_object_add(req, "seconds", json_object_new_int64(seconds));
	else
		json_object_object_add(req, "stop", json_object_new_boolean(1));
	r = call(req, &rep);
	if (!r && json_object_object_get_ex(rep, "lost", &v))
		*lost = json_object_get_uint64(v);
	return r;
}

static bool in_set(char **set, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (s && !strcmp(set[i], s))
			return true;
	return false;
}

/* Write TEXT to PATH through a temporary file and a rename: never half a profile. */
static int write_file(const char *path, const char *text)
{
	char tmp[4096];
	FILE *f;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp.%d", path, getpid()) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	f = fopen(tmp, "we");
	if (!f)
		return -errno;
	if (fputs(text, f) < 0 || fputc('\n', f) < 0 || fclose(f) != 0) {
		unlink(tmp);
		return -EIO;
	}
	if (rename(tmp, path) < 0) {
		int e = errno;

		unlink(tmp);
		return -e;
	}
	return 0;
}

static int cmd_learn(const char *target)
{
	_cleanup_json_ json_object *ps = NULL, *show = NULL, *doc = NULL;
	json_object *arr, *req, *base_doc;
	struct krsi_err err = { "" };
	struct learn l = { 0 };
	struct sub sub = { .fd = -1 };
	char **set = NULL, label[256], desc[512], *line;
	const char *base = NULL, *single = NULL;
	size_t n_set = 0;
	uint64_t lost0 = 0, lost1 = 0;
	struct sigaction on_signal = { .sa_handler = learn_interrupt, .sa_flags = SA_RESTART };
	int64_t begun, end;
	int r;

	if (!duration_s) {
		fprintf(stderr, "krsictl: profile learn: --duration D is required (30s, 5m, 1h)\n");
		return EXIT_USAGE;
	}
	if (!name && output) {
		const char *b = strrchr(output, '/') ? strrchr(output, '/') + 1 : output;
		size_t n = strlen(b);

		snprintf(label, sizeof(label), "%.*s", (int)(n > 5 && !strcmp(b + n - 5, ".json") ? n - 5 : n), b);
		name = label;
	}
	if (!name)
		name = "learned";
	/* The containers: TARGET itself, or every container of profile TARGET. */
	r = call(proto_request_new(PROTO_PS), &ps);
	if (r)
		return r;
	json_object_object_get_ex(ps, "containers", &arr);
	for (size_t i = 0; arr && i < json_object_array_length(arr); i++) {
		json_object *e = json_object_array_get_idx(arr, i);

		if (!strcmp(str(e, "container"), target)) {
			single = target;
			base = str(e, "profile");
		}
	}
	for (size_t i = 0; arr && i < json_object_array_length(arr); i++) {
		json_object *e = json_object_array_get_idx(arr, i);
		const char *c = str(e, "container");

		if (single ? strcmp(c, target) : strcmp(str(e, "profile"), target))
			continue;
		base = str(e, "profile");
		set = realloc(set, (n_set + 1) * sizeof(*set));
		if (!set)
			return EXIT_UNREACHABLE;
		set[n_set++] = strdup(c);
	}
	if (!n_set) {
		fprintf(stderr, "krsictl: profile learn %s: no registered container by that name "
			"or with that profile\n", target);
		return EXIT_REFUSED;
	}
	/* The base profile's document: its deny lists go into the learned one. */
	req = proto_request_new(PROTO_PROFILE_SHOW);
	json_object_object_add(req, "name", json_object_new_string(base));
	r = call(req, &show);
	if (r)
		goto out;
	if (!json_object_object_get_ex(json_object_object_get(show, "profile"), "document",
				       &base_doc)) {
		fprintf(stderr, "krsictl: profile %s: krsid has no document for it (not in its "
			"directory); its deny lists cannot be kept\n", base);
		r = EXIT_REFUSED;
		goto out;
	}
	/* Subscribe before learning starts: no event of the first instant is missed. */
	req = proto_request_new(PROTO_EVENTS);
	json_object_object_add(req, "follow", json_object_new_boolean(1));
	if (single)
		json_object_object_add(req, "container", json_object_new_string(single));
	sub.fd = proto_connect(socket_path, timeout_ms, &err);
	if (sub.fd < 0 || proto_send(sub.fd, req) < 0) {
		json_object_put(req);
		fprintf(stderr, "krsictl: %s\n", sub.fd < 0 ? err.msg : strerror(errno));
		r = EXIT_UNREACHABLE;
		goto out;
	}
	json_object_put(req);
	if (sub_line(&sub, timeout_ms, &line) <= 0 || !strstr(line, "\"ok\":true")) {
		fprintf(stderr, "krsictl: events: no subscription\n");
		r = EXIT_UNREACHABLE;
		goto out;
	}
	/*
	 * From here on, a signal ends learning early: the loop below sees the flag (poll()
	 * returns EINTR whatever SA_RESTART says; the requests' reads and writes restart).
	 */
	sigaction(SIGINT, &on_signal, NULL);
	sigaction(SIGTERM, &on_signal, NULL);
	/* krsid ends learning on its own 30 s after D if this command dies. */
	for (size_t i = 0; i < n_set; i++) {
		r = learn_call(set[i], duration_s + 30, &lost0);
		if (r) {
			for (size_t j = 0; j < i; j++)
				learn_call(set[j], 0, &lost1);
			goto out;
		}
	}
	fprintf(stderr, "krsictl: learning %zu container%s of profile %s for %llu s\n", n_set,
		n_set == 1 ? "" : "s", base, (unsigned long long)duration_s);
	begun = mono_ms();
	end = begun + (int64_t)duration_s * 1000;
	for (int stopped = 0;;) {
		int64_t left = stopped ? 0 : end - mono_ms();
		json_object *ev, *c;

		if (!stopped && (left <= 0 || learn_interrupted)) {
			if (learn_interrupted)
				fprintf(stderr, "krsictl: interrupted: learning ends now\n");
			/*
			 * krsid publishes every event reported before a stop before it answers
			 * it: once answered, what is left to read is already in the socket.
			 */
			for (size_t i = 0; i < n_set; i++)
				learn_call(set[i], 0, &lost1);
			stopped = 1;
			continue;
		}
		r = sub_line(&sub, left, &line);
		if (r == 0 && stopped)
			break;
		if (r == 0)
			continue;
		if (r < 0) {
			fprintf(stderr, "krsictl: the event stream ended early: %s\n", strerror(-r));
			for (size_t i = 0; !stopped && i < n_set; i++)
				learn_call(set[i], 0, &lost1);
			r = EXIT_UNREACHABLE;
			goto out;
		}
		ev = json_tokener_parse(line);
		if (!ev)
			continue;
		if (json_object_object_get_ex(ev, "container", &c) &&
		    in_set(set, n_set, json_object_get_string(c)))
			learn_event(&l, ev, NULL);
		json_object_put(ev);
	}
	snprintf(desc, sizeof(desc), "learned from %s%s over %llu s by krsictl profile learn",
		 single ? "container " : "the containers of profile ", single ? single : base,
		 (unsigned long long)((mono_ms() - begun + 500) / 1000));
	doc = learn_profile(&l, base_doc, name, desc, fold, &err);
	if (!doc) {
		fprintf(stderr, "krsictl: the learned profile: %s\n", err.msg);
		r = EXIT_REFUSED;
		goto out;
	}
	{
		const char *text = json_object_to_json_string_ext(
			doc, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |
				     JSON_C_TO_STRING_NOSLASHESCAPE);

		if (output) {
			r = write_file(output, text);
			if (r < 0) {
				fprintf(stderr, "krsictl: %s: %s\n", output, strerror(-r));
				r = EXIT_REFUSED;
				goto out;
			}
		} else {
			printf("%s\n", text);
		}
	}
	fprintf(stderr, "krsictl: learned %llu events: %zu exec, %zu write, %zu connect, %zu bind "
		"(distinct; %llu repeats)\n", (unsigned long long)l.events, l.n[LEARN_EXEC],
		l.n[LEARN_WRITE], l.n[LEARN_CONNECT], l.n[LEARN_BIND],
		(unsigned long long)(l.repeats + l.throttled));
	if (l.dropped)
		fprintf(stderr, "krsictl: warning: %llu distinct items dropped (more than %d of "
			"a kind): the profile will deny them\n", (unsigned long long)l.dropped,
			LEARN_MAX_ITEMS);
	if (l.pathless)
		fprintf(stderr, "krsictl: warning: %llu events had no path or address a rule can "
			"name\n", (unsigned long long)l.pathless);
	if (lost1 > lost0)
		fprintf(stderr, "krsictl: warning: %llu events were lost (ring buffer full) while "
			"learning: the profile may deny what the workload did; learn again\n",
			(unsigned long long)(lost1 - lost0));
	/* A path both executed and written: the exec allow list will not let it be written. */
	for (size_t i = 0; i < l.n[LEARN_WRITE]; i++) {
		bool found = false;

		for (size_t j = 0; j < l.n[LEARN_EXEC] && !found; j++)
			found = !strcmp(l.v[LEARN_EXEC][j], l.v[LEARN_WRITE][i]);
		if (found)
			fprintf(stderr, "krsictl: warning: %s was both executed and written: an exec "
				"allow list keeps what it admits unchanged, so writing it will be "
				"denied\n", l.v[LEARN_WRITE][i]);
	}
	r = lost1 > lost0 || l.dropped ? EXIT_REFUSED : EXIT_OK;
	if (r)
		fprintf(stderr, "krsictl: the profile is written, and incomplete\n");
out:
	if (sub.fd >= 0)
		close(sub.fd);
	for (size_t i = 0; i < n_set; i++)
		free(set[i]);
	free(set);
	learn_clear(&l);
	return r;
}

/* ---- profile diff ---- */

static void event_object(json_object *ev, char *buf, size_t size)
{
	json_object *v;

	if (json_object_object_get_ex(ev, "path", &v))
		snprintf(buf, size, "%s", json_object_get_string(v));
	else if (json_object_object_get_ex(ev, "address", &v))
		snprintf(buf, size, "%s port %s", json_object_get_string(v), str(ev, "port"));
	else if (json_object_object_get_ex(ev, "capability", &v))
		snprintf(buf, size, "%s", json_object_get_string(v));
	else if (json_object_object_get_ex(ev, "family", &v))
		snprintf(buf, size, "%s %s", json_object_get_string(v), str(ev, "type"));
	else
		snprintf(buf, size, "-");
}

static int cmd_diff(const char *file)
{
	_cleanup_json_ json_object *rep = NULL;
	json_object *req, *arr;
	struct krsi_err err = { "" };
	struct profile *p = NULL;
	struct learn seen = { 0 }; /* each verdict line once */
	size_t n = 0, denied = 0, unjudged = 0;
	int r;

	if (!container) {
		fprintf(stderr, "krsictl: profile diff: --container ID is required\n");
		return EXIT_USAGE;
	}
	if (profile_load_file(file, false, &p, &err) < 0) {
		fprintf(stderr, "krsictl: %s\n", err.msg);
		return EXIT_INVALID;
	}
	req = proto_request_new(PROTO_EVENTS);
	json_object_object_add(req, "container", json_object_new_string(container));
	r = call(req, &rep);
	if (r) {
		profile_free(p);
		return r;
	}
	json_object_object_get_ex(rep, "events", &arr);
	for (size_t i = 0; arr && i < json_object_array_length(arr); i++) {
		json_object *ev = json_object_array_get_idx(arr, i);
		char why[160], what[300], line[600];
		int v = learn_would_deny(p, ev, why, sizeof(why));

		n++;
		if (v < 0) {
			unjudged++;
			continue;
		}
		if (v == 0)
			continue;
		denied++;
		event_object(ev, what, sizeof(what));
		snprintf(line, sizeof(line), "would deny: %s %s (%s; was %s)", str(ev, "hook"), what,
			 why, str(ev, "verdict"));
		if (learn_add(&seen, LEARN_EXEC, line) == 1)
			printf("%s\n", line);
	}
	printf("%s: %zu of %zu recent events of container %s would be denied", file, denied, n,
	       container);
	if (unjudged)
		printf(", %zu could not be judged from the event", unjudged);
	printf("\n");
	learn_clear(&seen);
	profile_free(p);
	return EXIT_OK;
}

/* One option; returns an exit code to stop with, or -1 to go on. */
static int parse_opt(int c)
{
	uint64_t t = 0;

	switch (c) {
	case 's':
		socket_path = optarg;
		break;
	case 't':
		if (parse_u64(optarg, &t) < 0 || t > 3600000) {
			fprintf(stderr, "krsictl: --timeout %s: expected milliseconds\n", optarg);
			return EXIT_USAGE;
		}
		timeout_ms = t;
		break;
	case 'j':
		opt_json = true;
		break;
	case 'f':
		follow = true;
		break;
	case 'c':
		container = optarg;
		break;
	case 'g':
		cgroup = optarg;
		break;
	case 'i':
		if (parse_u64(optarg, &cgroup_id) < 0) {
			fprintf(stderr, "krsictl: --cgroup-id %s: expected a number\n", optarg);
			return EXIT_USAGE;
		}
		has_id = true;
		break;
	case 'P':
		if (parse_u64(optarg, &pid) < 0 || pid == 0 || pid > INT32_MAX) {
			fprintf(stderr, "krsictl: --pid %s: expected a process id\n", optarg);
			return EXIT_USAGE;
		}
		has_pid = true;
		break;
	case 'p':
		profile = optarg;
		break;
	case 'X':
		until_exec = true;
		break;
	case 'S':
		poststop = true;
		break;
	case 'B':
		bundle = optarg;
		break;
	case 'D':
		if (parse_duration(optarg, &duration_s) < 0) {
			fprintf(stderr, "krsictl: --duration %s: expected 1s to 24h (30, 30s, 5m, 1h)\n",
				optarg);
			return EXIT_USAGE;
		}
		break;
	case 'o':
		output = optarg;
		break;
	case 'n':
		name = optarg;
		break;
	case 'F':
		if (parse_u64(optarg, &fold) < 0 || fold > 1000) {
			fprintf(stderr, "krsictl: --fold %s: expected 0 (never) to 1000 files\n",
				optarg);
			return EXIT_USAGE;
		}
		break;
	case 'h':
		usage(stdout);
		return EXIT_OK;
	default:
		usage(stderr);
		return EXIT_USAGE;
	}
	return -1;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "socket", required_argument, NULL, 's' },
		{ "timeout", required_argument, NULL, 't' },
		{ "json", no_argument, NULL, 'j' },
		{ "follow", no_argument, NULL, 'f' },
		{ "container", required_argument, NULL, 'c' },
		{ "cgroup", required_argument, NULL, 'g' },
		{ "cgroup-id", required_argument, NULL, 'i' },
		{ "pid", required_argument, NULL, 'P' },
		{ "profile", required_argument, NULL, 'p' },
		{ "until-exec", no_argument, NULL, 'X' },
		{ "poststop", no_argument, NULL, 'S' },
		{ "bundle", required_argument, NULL, 'B' },
		{ "duration", required_argument, NULL, 'D' },
		{ "output", required_argument, NULL, 'o' },
		{ "name", required_argument, NULL, 'n' },
		{ "fold", required_argument, NULL, 'F' },
		{ "help", no_argument, NULL, 'h' },
		{},
	};
	const char *cmd;
	int c, r;

	while ((c = getopt_long(argc, argv, "+s:t:jfc:g:i:P:p:B:D:o:n:F:h", opts, NULL)) != -1) {
		r = parse_opt(c);
		if (r >= 0)
			return r;
	}
	if (optind >= argc) {
		usage(stderr);
		return EXIT_USAGE;
	}
	cmd = argv[optind];
	/* Options may also follow the command ("ps --json", "events --follow"): parse the rest
	 * again, with the command in the place of argv[0]. */
	argc -= optind;
	argv += optind;
	optind = 0;
	while ((c = getopt_long(argc, argv, "s:t:jfc:g:i:P:p:B:D:o:n:F:h", opts, NULL)) != -1) {
		r = parse_opt(c);
		if (r >= 0)
			return r;
	}
	argc -= optind;
	argv += optind;

	if (!strcmp(cmd, "status") && argc == 0)
		return cmd_status();
	if (!strcmp(cmd, "ps") && argc == 0)
		return cmd_simple(PROTO_PS, "containers");
	if (!strcmp(cmd, "profile") && argc >= 1) {
		if (!strcmp(argv[0], "list") && argc == 1)
			return cmd_simple(PROTO_PROFILE_LIST, "profiles");
		if (!strcmp(argv[0], "check"))
			return cmd_check(argc - 1, argv + 1);
		if (!strcmp(argv[0], "reload") && argc == 1)
			return cmd_simple(PROTO_RELOAD, NULL);
		if (!strcmp(argv[0], "learn") && argc == 2)
			return cmd_learn(argv[1]);
		if (!strcmp(argv[0], "diff") && argc == 2)
			return cmd_diff(argv[1]);
		if (!strcmp(argv[0], "show") && argc == 2) {
			json_object *req = proto_request_new(PROTO_PROFILE_SHOW);
			_cleanup_json_ json_object *rep = NULL;
			int r;

			json_object_object_add(req, "name", json_object_new_string(argv[1]));
			r = call(req, &rep);
			if (!r)
				print_json(json_object_object_get(rep, "profile"));
			return r;
		}
	}
	if (!strcmp(cmd, "assign") && argc == 2) {
		json_object *req = proto_request_new(PROTO_ASSIGN);
		_cleanup_json_ json_object *rep = NULL;

		json_object_object_add(req, "profile", json_object_new_string(argv[0]));
		json_object_object_add(req, "container", json_object_new_string(argv[1]));
		return call(req, &rep);
	}
	if (!strcmp(cmd, "register") && argc == 1) {
		json_object *req = proto_request_new(PROTO_REGISTER);
		_cleanup_json_ json_object *rep = NULL;
		int r;

		if (!!cgroup + has_id + has_pid != 1) {
			fprintf(stderr, "krsictl: register: one of --cgroup, --cgroup-id, --pid\n");
			json_object_put(req);
			return EXIT_USAGE;
		}
		json_object_object_add(req, "container", json_object_new_string(argv[0]));
		if (profile)
			json_object_object_add(req, "profile", json_object_new_string(profile));
		if (cgroup)
			json_object_object_add(req, "cgroup", json_object_new_string(cgroup));
		if (has_id)
			json_object_object_add(req, "cgroup_id", json_object_new_uint64(cgroup_id));
		if (has_pid)
			json_object_object_add(req, "pid", json_object_new_int64(pid));
		if (until_exec)
			json_object_object_add(req, "until_exec", json_object_new_boolean(1));
		if (bundle)
			json_object_object_add(req, "bundle", json_object_new_string(bundle));
		r = call(req, &rep);
		if (!r && opt_json)
			print_json(rep);
		return r;
	}
	if (!strcmp(cmd, "unregister") && argc == 1) {
		json_object *req = proto_request_new(PROTO_UNREGISTER);
		_cleanup_json_ json_object *rep = NULL;

		json_object_object_add(req, "container", json_object_new_string(argv[0]));
		return call(req, &rep);
	}
	if (!strcmp(cmd, "events") && argc == 0)
		return cmd_events(follow, container);
	if (!strcmp(cmd, "metrics") && argc == 0) {
		_cleanup_json_ json_object *rep = NULL;
		json_object *text;
		int r = call(proto_request_new(PROTO_METRICS), &rep);

		if (r)
			return r;
		if (!json_object_object_get_ex(rep, "text", &text) ||
		    !json_object_is_type(text, json_type_string)) {
			fprintf(stderr, "krsictl: metrics: the reply has no \"text\"\n");
			return EXIT_UNREACHABLE;
		}
		fputs(json_object_get_string(text), stdout);
		return 0;
	}
	if (!strcmp(cmd, "oci-inject") && (argc == 1 || argc == 2))
		return oci_inject_cmd(argv[0], argc == 2 ? argv[1] : NULL, profile, poststop);
	fprintf(stderr, "krsictl: unknown command or wrong arguments: %s\n", cmd);
	usage(stderr);
	return EXIT_USAGE;
}
