// SPDX-License-Identifier: GPL-2.0
/* krsi-runc's command line (runc_args.h). */
#include <string.h>

#include "lib/request.h"
#include "lib/runc_args.h"

/* runc 1.1's global options (`runc --help`): those that take a value, and those that do not. */
static const char *const global_value[] = { "log", "log-format", "root", "criu", "rootless" };
static const char *const global_flag[] = { "debug", "systemd-cgroup", "help", "h", "version", "v" };
/* The options of create, run and restore that take a value (runc 1.1). */
static const char *const create_value[] = {
	"bundle", "b", "console-socket", "pid-file", "preserve-fds", "image-path", "work-path",
	"parent-path", "manage-cgroups-mode", "empty-ns", "lsm-profile", "lsm-mount-context",
	"page-server", "status-fd", "ext-unix-sk", "inherit-fd"
};

/* NAME of "-NAME", "--NAME" or "--NAME=VALUE" (LEN bytes, *VALUE after '=' or NULL). */
static const char *opt_name(const char *arg, size_t *len, const char **value)
{
	const char *n = arg + 1 + (arg[1] == '-'), *eq = strchr(n, '=');

	*len = eq ? (size_t)(eq - n) : strlen(n);
	*value = eq ? eq + 1 : NULL;
	return n;
}

static bool in(const char *const *set, size_t count, const char *name, size_t len)
{
	for (size_t i = 0; i < count; i++)
		if (strlen(set[i]) == len && !strncmp(set[i], name, len))
			return true;
	return false;
}

/* One of krsi-runc's own options at ARGV[*i]; advances *i past its value. */
static int own_option(int argc, char **argv, int *i, struct runc_args *a, struct krsi_err *err)
{
	static const char *const names[] = { "profile", "runtime", "stage" };
	const char **dest[] = { &a->profile, &a->runtime, &a->stage };
	const char *arg = argv[*i], *name = arg + 7, *value, *eq = strchr(arg, '=');
	size_t len = eq ? (size_t)(eq - name) : strlen(name);

	value = eq ? eq + 1 : NULL;
	if (!strcmp(arg, "--krsi-fail-open"))
		return a->fail_open = true, 0;
	if (!strcmp(arg, "--krsi-poststop"))
		return a->poststop = true, 0;
	if (!strcmp(arg, "--krsi-help"))
		return a->help = true, 0;
	for (size_t k = 0; k < ARRAY_SIZE(names); k++) {
		if (strlen(names[k]) != len || strncmp(names[k], name, len))
			continue;
		if (!value) {
			if (*i + 1 >= argc)
				return err_set(err, -EINVAL, "option --krsi-%s needs a value", names[k]);
			value = argv[++*i];
		}
		if (!*value)
			return err_set(err, -EINVAL, "option --krsi-%s: empty value", names[k]);
		*dest[k] = value;
		return 0;
	}
	return err_set(err, -EINVAL, "unknown option %.*s (krsi-runc takes --krsi-profile, "
		       "--krsi-runtime, --krsi-stage, --krsi-fail-open, --krsi-poststop, --krsi-help)",
		       (int)(eq ? eq - arg : (long)strlen(arg)), arg);
}

/* The options and operands of runc's COMMAND from ARGV[i]: the bundle and the container id. */
static void command_args(int argc, char **argv, int i, struct runc_args *a)
{
	for (; i < argc; i++) {
		const char *arg = argv[i], *n, *v;
		size_t len;

		if (!strcmp(arg, "--")) {
			if (i + 1 < argc && !a->id)
				a->id = argv[i + 1];
			return;
		}
		if (arg[0] != '-' || !arg[1]) {
			if (!a->id)
				a->id = arg;
			continue;
		}
		n = opt_name(arg, &len, &v);
		if (!in(create_value, ARRAY_SIZE(create_value), n, len))
			continue;
		if (!v && i + 1 < argc)
			v = argv[++i];
		if (v && ((len == 6 && !strncmp(n, "bundle", 6)) || (len == 1 && n[0] == 'b')))
			a->bundle = v;
	}
}

int runc_args_parse(int argc, char **argv, char **out_argv, struct runc_args *a,
		    struct krsi_err *err)
{
	int i, r;

	memset(a, 0, sizeof(*a));
	a->argv = out_argv;
	out_argv[a->argc++] = argc > 0 ? argv[0] : "runc";
	for (i = 1; i < argc; i++) {
		const char *arg = argv[i], *n, *v;
		size_t len;

		if (!strncmp(arg, "--krsi-", 7)) {
			r = own_option(argc, argv, &i, a, err);
			if (r < 0)
				return r;
			continue;
		}
		if (arg[0] != '-' || !arg[1] || !strcmp(arg, "--"))
			break;
		n = opt_name(arg, &len, &v);
		out_argv[a->argc++] = argv[i];
		if (in(global_flag, ARRAY_SIZE(global_flag), n, len))
			continue; /* --debug, or --debug=true: never a value in the next word */
		if (!in(global_value, ARRAY_SIZE(global_value), n, len))
			return err_set(err, -EINVAL, "runc option %s: not an option krsi-runc knows runc "
				       "to take, refusing (it could hide the command)", arg);
		if (!v) {
			if (i + 1 >= argc)
				return err_set(err, -EINVAL, "runc option %s needs a value", arg);
			v = argv[++i];
			out_argv[a->argc++] = argv[i];
		}
		if (len == 3 && !strncmp(n, "log", 3))
			a->log = v;
		else if (len == 10 && !strncmp(n, "log-format", 10))
			a->log_json = !strcmp(v, "json");
	}
	if (i < argc && !strcmp(argv[i], "--"))
		out_argv[a->argc++] = argv[i++];
	if (i < argc) {
		a->command = argv[i];
		a->creates = !strcmp(a->command, "create") || !strcmp(a->command, "run") ||
			     !strcmp(a->command, "restore");
		if (a->creates)
			command_args(argc, argv, i + 1, a);
		for (; i < argc; i++)
			out_argv[a->argc++] = argv[i];
	}
	out_argv[a->argc] = NULL;
	if (a->stage && strcmp(a->stage, "prestart") && strcmp(a->stage, "createRuntime"))
		return err_set(err, -EINVAL, "option --krsi-stage %s: expected prestart or "
			       "createRuntime", a->stage);
	if (a->profile && !profile_name_valid(a->profile))
		return err_set(err, -EINVAL, "option --krsi-profile %s: not a profile name (1 to %d "
			       "of a-z, 0-9, '.', '_', '-', not starting with '.' or '-')",
			       a->profile, KRSI_NAME_MAX - 1);
	return 0;
}
