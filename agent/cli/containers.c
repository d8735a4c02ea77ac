// SPDX-License-Identifier: GPL-2.0
/* krsictl ps, register, unregister and assign: the registered containers. */
#include "cli/cli.h"

static int ps_run(struct cli *cli, int argc, char **argv)
{
	_cleanup_json_ json_object *rep = NULL;
	json_object *v;
	int r = cli_listing(cli, argc, argv, PROTO_PS, &rep);

	if (r != CLI_CONTINUE)
		return r;
	json_object_object_get_ex(rep, "containers", &v);
	printf("%-24s %-32s %-20s %-8s %8s %8s\n", "CONTAINER", "CGROUP", "PROFILE", "MODE",
	       "DENIED", "AUDITED");
	for (size_t i = 0; i < json_object_array_length(v); i++) {
		json_object *e = json_object_array_get_idx(v, i);

		printf("%-24s %-32s %-20s %-8s %8s %8s\n", cli_str(e, "container"),
		       cli_str(e, "cgroup"), cli_str(e, "profile"), cli_str(e, "mode"),
		       cli_str(e, "denied"), cli_str(e, "audited"));
	}
	return 0;
}

static const struct option ps_options[] = { OPT_JSON, {} };

const struct cli_command cli_ps = {
	.name = "ps",
	.options = ps_options,
	.run = ps_run,
	.usage = "ps [--json]",
	.help = "registered containers",
};

struct register_opts {
	const char *cgroup, *profile, *bundle;
	uint64_t cgroup_id, pid;
	bool has_id, has_pid, until_exec, json;
};

static int register_option(void *opts, int val, const char *arg)
{
	struct register_opts *o = opts;

	switch (val) {
	case 'g':
		o->cgroup = arg;
		break;
	case 'i':
		if (parse_u64(arg, &o->cgroup_id) < 0) {
			fprintf(stderr, "krsictl: --cgroup-id %s: expected a number\n", arg);
			return EXIT_USAGE;
		}
		o->has_id = true;
		break;
	case 'P':
		if (parse_u64(arg, &o->pid) < 0 || o->pid == 0 || o->pid > INT32_MAX) {
			fprintf(stderr, "krsictl: --pid %s: expected a process id\n", arg);
			return EXIT_USAGE;
		}
		o->has_pid = true;
		break;
	case 'p':
		o->profile = arg;
		break;
	case OPT_UNTIL_EXEC:
		o->until_exec = true;
		break;
	case 'B':
		o->bundle = arg;
		break;
	case 'j':
		o->json = true;
		break;
	}
	return CLI_CONTINUE;
}

static int register_run(struct cli *cli, int argc, char **argv)
{
	_cleanup_json_ json_object *rep = NULL;
	struct register_opts o = { 0 };
	struct krsi_request rq;
	int r = cli_parse(cli, &argc, &argv, register_option, &o);

	if (r != CLI_CONTINUE)
		return r;
	if (!!o.cgroup + o.has_id + o.has_pid != 1) {
		fprintf(stderr, "krsictl: register: one of --cgroup, --cgroup-id, --pid\n");
		return EXIT_USAGE;
	}
	rq = (struct krsi_request){
		.op = PROTO_REGISTER,
		.container = argv[0],
		.profile = o.profile,
		.cgroup = o.cgroup,
		.cgroup_id = o.cgroup_id,
		.has_cgroup_id = o.has_id,
		.pid = o.pid,
		.has_pid = o.has_pid,
		.bundle = o.bundle,
		.until_exec = o.until_exec,
	};
	r = cli_call(cli, &rq, &rep);
	if (!r && o.json)
		cli_print_json(rep);
	return r;
}

static const struct option register_options[] = {
	OPT_CGROUP, OPT_CGROUP_ID, OPT_PID, OPT_PROFILE, OPT_UNTIL_EXEC_, OPT_BUNDLE, OPT_JSON, {},
};

const struct cli_command cli_register = {
	.name = "register",
	.min_args = 1,
	.max_args = 1,
	.options = register_options,
	.run = register_run,
	.usage = "register CONTAINER (--cgroup PATH | --cgroup-id ID | --pid PID) "
		 "[--profile NAME]\n"
		 "         [--until-exec]\n"
		 "         [--bundle DIR]",
	.help = "only exec rules until the first execve\n"
		"OCI bundle: rules' file identities in its rootfs",
};

static int unregister_run(struct cli *cli, int argc, char **argv)
{
	_cleanup_json_ json_object *rep = NULL;
	struct krsi_request rq = { .op = PROTO_UNREGISTER };
	int r = cli_parse(cli, &argc, &argv, NULL, NULL);

	if (r != CLI_CONTINUE)
		return r;
	rq.container = argv[0];
	return cli_call(cli, &rq, &rep);
}

const struct cli_command cli_unregister = {
	.name = "unregister",
	.min_args = 1,
	.max_args = 1,
	.run = unregister_run,
	.usage = "unregister CONTAINER",
};

static int assign_run(struct cli *cli, int argc, char **argv)
{
	_cleanup_json_ json_object *rep = NULL;
	struct krsi_request rq = { .op = PROTO_ASSIGN };
	int r = cli_parse(cli, &argc, &argv, NULL, NULL);

	if (r != CLI_CONTINUE)
		return r;
	rq.profile = argv[0];
	rq.container = argv[1];
	return cli_call(cli, &rq, &rep);
}

const struct cli_command cli_assign = {
	.name = "assign",
	.min_args = 2,
	.max_args = 2,
	.run = assign_run,
	.usage = "assign PROFILE CONTAINER",
	.help = "change a container's profile",
};
