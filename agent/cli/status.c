// SPDX-License-Identifier: GPL-2.0
/* krsictl status and krsictl metrics: the agent's state and counters. */
#include "cli/cli.h"

struct status_opts {
	bool json;
};

static int status_option(void *opts, int val, const char *arg)
{
	struct status_opts *o = opts;

	if (val == 'j')
		o->json = true;
	return CLI_CONTINUE;
}

/* An array of names, one line: "hooks:      bprm_check_security file_open ...". */
static void print_names(const char *label, json_object *o, const char *key)
{
	json_object *names;

	if (!json_object_object_get_ex(o, key, &names) ||
	    !json_object_is_type(names, json_type_array))
		return;
	printf("%-11s", label);
	for (size_t i = 0; i < json_object_array_length(names); i++)
		printf(" %s", json_object_get_string(json_object_array_get_idx(names, i)));
	printf("\n");
}

static bool flag(json_object *o, const char *key)
{
	return json_object_get_boolean(json_object_object_get(o, key));
}

static int status_run(struct cli *cli, int argc, char **argv)
{
	_cleanup_json_ json_object *rep = NULL;
	struct status_opts o = { 0 };
	json_object *a, *k, *s;
	int r = cli_parse(cli, &argc, &argv, status_option, &o);

	if (r != CLI_CONTINUE)
		return r;
	r = cli_call(cli, &(struct krsi_request){ .op = PROTO_STATUS }, &rep);
	if (r)
		return r;
	if (o.json) {
		cli_print_json(rep);
		return 0;
	}
	json_object_object_get_ex(rep, "agent", &a);
	json_object_object_get_ex(rep, "kernel", &k);
	json_object_object_get_ex(rep, "stats", &s);
	printf("agent:      krsid %s, pid %s, %s programs (%s), %s attached\n",
	       cli_str(a, "version"), cli_str(a, "pid"), cli_str(a, "programs"),
	       flag(a, "adopted") ? "adopted from pins" : "loaded", cli_str(a, "attached"));
	print_names("hooks:", a, "hooks");
	printf("kernel:     lsm=%s, BPF LSM %s, audit switch %s, BTF %s\n", cli_str(k, "lsm"),
	       flag(k, "bpf_lsm") ? "active" : "OFF",
	       !flag(k, "audit_switch") ? "absent"
	       : flag(k, "enforcing")	 ? "enforcing"
					 : "PERMISSIVE",
	       flag(k, "btf") ? "yes" : "no");
	{
		json_object *m;

		/* A stock kernel: the series' hooks are missing, and what they see is not enforced. */
		if (json_object_object_get_ex(k, "missing_hooks", &m) &&
		    json_object_array_length(m) > 0)
			print_names("missing:", k, "missing_hooks");
	}
	printf("registry:   %s containers, %s profiles (default %s)\n", cli_str(rep, "containers"),
	       cli_str(rep, "profiles"), cli_str(a, "default_profile"));
	printf("identities: %s files of exact rules in %s views, refreshed every %ss\n",
	       cli_str(a, "file_identities"), cli_str(a, "identity_views"),
	       cli_str(a, "refresh_interval_s"));
	printf("events:     %s sent, %s lost, %s throttled; %s denied, %s audited\n",
	       cli_str(s, "events"), cli_str(s, "lost"), cli_str(s, "throttled"),
	       cli_str(s, "denied"), cli_str(s, "audited"));
	return 0;
}

static const struct option status_options[] = { OPT_JSON, {} };

const struct cli_command cli_status = {
	.name = "status",
	.options = status_options,
	.run = status_run,
	.usage = "status [--json]",
	.help = "agent, kernel and counters",
};

static int metrics_run(struct cli *cli, int argc, char **argv)
{
	_cleanup_json_ json_object *rep = NULL;
	json_object *text;
	int r = cli_parse(cli, &argc, &argv, NULL, NULL);

	if (r != CLI_CONTINUE)
		return r;
	r = cli_call(cli, &(struct krsi_request){ .op = PROTO_METRICS }, &rep);
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

const struct cli_command cli_metrics = {
	.name = "metrics",
	.run = metrics_run,
	.usage = "metrics",
	.help = "counters and gauges, Prometheus text format",
};
