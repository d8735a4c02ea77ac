// SPDX-License-Identifier: GPL-2.0
/*
 * krsictl profile list, show, check, reload and diff: installed profiles, and profile files
 * checked with the agent's parser. profile learn is in learn.c.
 */
#include "cli/cli.h"
#include "policy/hookset.h"
#include "policy/learn.h"
#include "policy/profile.h"

static const char *list_note(json_object *e)
{
	if (json_object_get_boolean(json_object_object_get(e, "removed")))
		return "  (removed from the directory: in force for its containers only)";
	if (json_object_get_boolean(json_object_object_get(e, "in_directory")))
		return "";
	return "  (no longer in the directory)";
}

static int list_run(struct cli *cli, int argc, char **argv)
{
	_cleanup_json_ json_object *rep = NULL;
	json_object *v;
	int r = cli_listing(cli, argc, argv, PROTO_PROFILE_LIST, &rep);

	if (r != CLI_CONTINUE)
		return r;
	json_object_object_get_ex(rep, "profiles", &v);
	printf("%-24s %8s %-8s %10s %-16s\n", "PROFILE", "VERSION", "MODE", "CONTAINERS", "DIGEST");
	for (size_t i = 0; i < json_object_array_length(v); i++) {
		json_object *e = json_object_array_get_idx(v, i);

		printf("%-24s %8s %-8s %10s %-16s%s\n", cli_str(e, "name"), cli_str(e, "version"),
		       cli_str(e, "mode"), cli_str(e, "containers"), cli_str(e, "digest"),
		       list_note(e));
	}
	return 0;
}

static const struct option list_options[] = { OPT_JSON, {} };

const struct cli_command cli_profile_list = {
	.name = "profile list",
	.options = list_options,
	.run = list_run,
	.usage = "profile list [--json]",
	.help = "installed profiles",
};

static int show_run(struct cli *cli, int argc, char **argv)
{
	_cleanup_json_ json_object *rep = NULL;
	struct krsi_request rq = { .op = PROTO_PROFILE_SHOW };
	int r = cli_parse(cli, &argc, &argv, NULL, NULL);

	if (r != CLI_CONTINUE)
		return r;
	rq.name = argv[0];
	r = cli_call(cli, &rq, &rep);
	if (!r)
		cli_print_json(json_object_object_get(rep, "profile"));
	return r;
}

const struct cli_command cli_profile_show = {
	.name = "profile show",
	.min_args = 1,
	.max_args = 1,
	.run = show_run,
	.usage = "profile show NAME",
	.help = "one profile, as installed",
};

/*
 * The hooks the running kernel lacks, as krsid reports them (status), or NULL when krsid does
 * not answer: a profile file is then checked without them.
 */
static json_object *missing_hooks(const struct cli *cli, json_object **ret_rep)
{
	struct krsi_err err = { "" };
	char line[PROTO_REQUEST_MAX];
	json_object *k, *m;
	int n = krsi_request_write(&(struct krsi_request){ .op = PROTO_STATUS }, line, sizeof(line));

	*ret_rep = NULL;
	if (n < 0 || proto_call(cli->socket_path, line, n, cli->timeout_ms, ret_rep, &err) < 0)
		return NULL;
	if (json_object_object_get_ex(*ret_rep, "kernel", &k) &&
	    json_object_object_get_ex(k, "missing_hooks", &m) &&
	    json_object_is_type(m, json_type_array))
		return m;
	return NULL;
}

/* What P's rules need that this kernel has no hook for: one line per route. */
static void print_gaps(const char *file, const struct profile *p, json_object *missing)
{
	struct profile_compiled c;

	if (!missing || profile_compile(p, 0, 1, &c) < 0)
		return;
	for (size_t i = 0; i < json_object_array_length(missing); i++) {
		const char *hook = json_object_get_string(json_object_array_get_idx(missing, i));
		const char *route = hookset_route(hook);

		if (!(hookset_deny_bits(hook) & c.policy.deny))
			continue;
		printf("%s: not enforced on this kernel: %s (it has no %s hook; kernel/patches adds "
		       "it)\n", file, route ? route : hook, hook);
	}
	profile_compiled_clear(&c);
}

static int check_run(struct cli *cli, int argc, char **argv)
{
	_cleanup_json_ json_object *status = NULL;
	json_object *missing;
	int bad = 0, r = cli_parse(cli, &argc, &argv, NULL, NULL);

	if (r != CLI_CONTINUE)
		return r;
	if (argc < 1) {
		cli_usage(stderr);
		return EXIT_USAGE;
	}
	missing = missing_hooks(cli, &status);
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
		print_gaps(argv[i], p, missing);
		profile_free(p);
	}
	return bad ? EXIT_INVALID : EXIT_OK;
}

const struct cli_command cli_profile_check = {
	.name = "profile check",
	.max_args = -1,
	.run = check_run,
	.usage = "profile check FILE...",
	.help = "validate profile files, say what each does per kind",
};

static int reload_run(struct cli *cli, int argc, char **argv)
{
	_cleanup_json_ json_object *rep = NULL;
	int r = cli_parse(cli, &argc, &argv, NULL, NULL);

	if (r != CLI_CONTINUE)
		return r;
	r = cli_call(cli, &(struct krsi_request){ .op = PROTO_RELOAD }, &rep);
	if (!r)
		cli_print_json(rep);
	return r;
}

const struct cli_command cli_profile_reload = {
	.name = "profile reload",
	.run = reload_run,
	.usage = "profile reload",
	.help = "reload the profile directory, all or nothing",
};

/* What an event is about: its path, address, capability or socket family. */
static void event_object(json_object *ev, char *buf, size_t size)
{
	json_object *v;

	if (json_object_object_get_ex(ev, "path", &v))
		snprintf(buf, size, "%s", json_object_get_string(v));
	else if (json_object_object_get_ex(ev, "address", &v))
		snprintf(buf, size, "%s port %s", json_object_get_string(v), cli_str(ev, "port"));
	else if (json_object_object_get_ex(ev, "capability", &v))
		snprintf(buf, size, "%s", json_object_get_string(v));
	else if (json_object_object_get_ex(ev, "family", &v))
		snprintf(buf, size, "%s %s", json_object_get_string(v), cli_str(ev, "type"));
	else
		snprintf(buf, size, "-");
}

static int diff_option(void *opts, int val, const char *arg)
{
	if (val == 'c')
		*(const char **)opts = arg;
	return CLI_CONTINUE;
}

/* Each event of ARR that P would deny, once per line; counts in *N, *DENIED, *UNJUDGED. */
static void diff_events(const struct profile *p, json_object *arr, size_t *n, size_t *denied,
			size_t *unjudged)
{
	struct learn seen = { 0 }; /* each verdict line once */

	for (size_t i = 0; arr && i < json_object_array_length(arr); i++) {
		json_object *ev = json_object_array_get_idx(arr, i);
		char why[160], what[300], line[600];
		int v = learn_would_deny(p, ev, why, sizeof(why));

		(*n)++;
		if (v < 0) {
			(*unjudged)++;
			continue;
		}
		if (v == 0)
			continue;
		(*denied)++;
		event_object(ev, what, sizeof(what));
		snprintf(line, sizeof(line), "would deny: %s %s (%s; was %s)", cli_str(ev, "hook"),
			 what, why, cli_str(ev, "verdict"));
		if (learn_add(&seen, LEARN_EXEC, line) == 1)
			printf("%s\n", line);
	}
	learn_clear(&seen);
}

static int diff_run(struct cli *cli, int argc, char **argv)
{
	_cleanup_json_ json_object *rep = NULL;
	json_object *arr;
	struct krsi_request rq;
	struct krsi_err err = { "" };
	struct profile *p = NULL;
	const char *container = NULL, *file;
	size_t n = 0, denied = 0, unjudged = 0;
	int r = cli_parse(cli, &argc, &argv, diff_option, &container);

	if (r != CLI_CONTINUE)
		return r;
	file = argv[0];
	if (!container) {
		fprintf(stderr, "krsictl: profile diff: --container ID is required\n");
		return EXIT_USAGE;
	}
	if (profile_load_file(file, false, &p, &err) < 0) {
		fprintf(stderr, "krsictl: %s\n", err.msg);
		return EXIT_INVALID;
	}
	rq = (struct krsi_request){ .op = PROTO_EVENTS, .container = container };
	r = cli_call(cli, &rq, &rep);
	if (r) {
		profile_free(p);
		return r;
	}
	json_object_object_get_ex(rep, "events", &arr);
	diff_events(p, arr, &n, &denied, &unjudged);
	printf("%s: %zu of %zu recent events of container %s would be denied", file, denied, n,
	       container);
	if (unjudged)
		printf(", %zu could not be judged from the event", unjudged);
	printf("\n");
	profile_free(p);
	return EXIT_OK;
}

static const struct option diff_options[] = { OPT_CONTAINER, {} };

const struct cli_command cli_profile_diff = {
	.name = "profile diff",
	.min_args = 1,
	.max_args = 1,
	.options = diff_options,
	.run = diff_run,
	.usage = "profile diff FILE --container ID",
	.help = "what FILE would have denied of ID's recent events",
};
