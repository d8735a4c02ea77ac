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
#include <string.h>
#include <time.h>

#include "oci_inject.h"
#include "profile.h"
#include "protocol.h"

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
		"  assign PROFILE CONTAINER                change a container's profile\n"
		"  register CONTAINER (--cgroup PATH | --cgroup-id ID | --pid PID) [--profile NAME]\n"
		"           [--until-exec]                 only exec rules until the first execve\n"
		"           [--bundle DIR]                 OCI bundle: rules' file identities in its rootfs\n"
		"  unregister CONTAINER\n"
		"  events [--follow] [--container ID]      recent events, then new ones with --follow\n"
		"  metrics                                 counters and gauges, Prometheus text format\n"
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

static const char *container, *cgroup, *profile, *bundle;
static uint64_t cgroup_id, pid;
static bool follow, has_id, has_pid, until_exec;

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
	case 'B':
		bundle = optarg;
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
		{ "bundle", required_argument, NULL, 'B' },
		{ "help", no_argument, NULL, 'h' },
		{},
	};
	const char *cmd;
	int c, r;

	while ((c = getopt_long(argc, argv, "+s:t:jfc:g:i:P:p:B:h", opts, NULL)) != -1) {
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
	while ((c = getopt_long(argc, argv, "s:t:jfc:g:i:P:p:B:h", opts, NULL)) != -1) {
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
		return oci_inject_cmd(argv[0], argc == 2 ? argv[1] : NULL, profile);
	fprintf(stderr, "krsictl: unknown command or wrong arguments: %s\n", cmd);
	usage(stderr);
	return EXIT_USAGE;
}
