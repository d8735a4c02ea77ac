// SPDX-License-Identifier: GPL-2.0
/* krsictl's entry: the command table, the global options, dispatch and usage (cli.h). */
#include <errno.h>
#include <string.h>

#include "cli/cli.h"

/* In the order of the usage. */
static const struct cli_command *const commands[] = {
	&cli_status,	     &cli_ps,		&cli_profile_list,  &cli_profile_show,
	&cli_profile_check,  &cli_profile_reload, &cli_profile_learn, &cli_profile_diff,
	&cli_profile_import, &cli_assign,	&cli_register,	    &cli_unregister,
	&cli_events,	     &cli_metrics,	&cli_oci_inject,
};

/* Taken by every command, before its name or after it. */
static const struct option global_options[] = { OPT_SOCKET, OPT_TIMEOUT, OPT_HELP, {} };

/*
 * The options in the order krsictl has always listed them to getopt_long(), which names the
 * candidates of an ambiguous abbreviation in this order; a command's option missing here is
 * added after them.
 */
static const struct option options_order[] = {
	OPT_SOCKET, OPT_TIMEOUT, OPT_JSON, OPT_FOLLOW, OPT_CONTAINER, OPT_CGROUP, OPT_CGROUP_ID,
	OPT_PID, OPT_PROFILE, OPT_UNTIL_EXEC_, OPT_POSTSTOP_, OPT_BUNDLE, OPT_DURATION, OPT_OUTPUT,
	OPT_NAME, OPT_FOLD, OPT_STRICT_, OPT_HELP, {},
};

/* Where a command's help starts, after the two spaces of indent. */
#define HELP_COLUMN 40

static void usage_help_lines(FILE *f, const char **help)
{
	while (**help) {
		size_t n = strcspn(*help, "\n");

		fprintf(f, "  %-*s%.*s\n", HELP_COLUMN, "", (int)n, *help);
		*help += n + ((*help)[n] == '\n');
	}
}

/* A command's lines: each usage line that leaves room takes the next help line beside it. */
static void usage_command(FILE *f, const struct cli_command *c)
{
	const char *u = c->usage, *h = c->help ? c->help : "";

	while (*u) {
		size_t n = strcspn(u, "\n"), hn = strcspn(h, "\n");

		if (*h && n < HELP_COLUMN) {
			fprintf(f, "  %-*.*s%.*s\n", HELP_COLUMN, (int)n, u, (int)hn, h);
			h += hn + (h[hn] == '\n');
		} else {
			fprintf(f, "  %.*s\n", (int)n, u);
		}
		u += n + (u[n] == '\n');
	}
	usage_help_lines(f, &h);
}

void cli_usage(FILE *f)
{
	fprintf(f, "usage: krsictl [--socket PATH] [--timeout MS] [--help] COMMAND\n");
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		usage_command(f, commands[i]);
	fprintf(f, "exit codes: 0 done, 1 refused by the agent, 2 usage, 3 agent unreachable,\n"
		   "            4 invalid profile\n");
}

static const struct option *option_of(const struct option *opts, int val)
{
	for (; opts && opts->name; opts++)
		if (opts->val == val)
			return opts;
	return NULL;
}

/* A global option, or getopt_long()'s '?' (it said what is wrong). */
static bool option_is_global(int val)
{
	return val == '?' || option_of(global_options, val);
}

static int option_global(struct cli *cli, int val, const char *arg)
{
	uint64_t t = 0;

	switch (val) {
	case 's':
		cli->socket_path = arg;
		break;
	case 't':
		if (parse_u64(arg, &t) < 0 || t > 3600000) {
			fprintf(stderr, "krsictl: --timeout %s: expected milliseconds\n", arg);
			return EXIT_USAGE;
		}
		cli->timeout_ms = t;
		break;
	case 'h':
		cli_usage(stdout);
		return EXIT_OK;
	default:
		cli_usage(stderr);
		return EXIT_USAGE;
	}
	return CLI_CONTINUE;
}

/* One option given to the command: global, or one it takes (to FN), or refused. */
static int option_one(struct cli *cli, int val, const char *arg, cli_option_fn *fn, void *opts)
{
	if (option_is_global(val))
		return option_global(cli, val, arg);
	if (!fn || !option_of(cli->cmd->options, val)) {
		fprintf(stderr, "krsictl: %s: option --%s is not an option of this command\n",
			cli->cmd->name, option_of(cli->options, val)->name);
		return EXIT_USAGE;
	}
	return fn(opts, val, arg);
}

int cli_parse(struct cli *cli, int *argc, char ***argv, cli_option_fn *fn, void *opts)
{
	const struct cli_command *cmd = cli->cmd;
	int c, r, n;

	for (size_t i = 0; i < cli->n_pending; i++) {
		r = option_one(cli, cli->pending[i].val, cli->pending[i].arg, fn, opts);
		if (r != CLI_CONTINUE)
			return r;
	}
	/* Options may follow the command and mix with its operands ("register c1 --pid 7"). */
	optind = 0;
	while ((c = getopt_long(*argc, *argv, cli->optstring + 1, cli->options, NULL)) != -1) {
		r = option_one(cli, c, optarg, fn, opts);
		if (r != CLI_CONTINUE)
			return r;
	}
	n = *argc - optind;
	if (n < cmd->min_args || (cmd->max_args >= 0 && n > cmd->max_args)) {
		fprintf(stderr, "krsictl: unknown command or wrong arguments: %s\n", cli->word);
		cli_usage(stderr);
		return EXIT_USAGE;
	}
	*argv += optind;
	*argc = n;
	return CLI_CONTINUE;
}

/*
 * The options before a command's word, from ARGV[1] on: global ones applied, the others kept
 * for the command (which refuses them if they are not its own). *RET_POS: the word's index,
 * ARGC when there is none.
 */
static int options_before(struct cli *cli, int argc, char **argv, int *ret_pos)
{
	int c, r;

	optind = 0;
	while ((c = getopt_long(argc, argv, cli->optstring, cli->options, NULL)) != -1) {
		if (option_is_global(c)) {
			r = option_global(cli, c, optarg);
			if (r != CLI_CONTINUE)
				return r;
			continue;
		}
		cli->pending[cli->n_pending++] = (struct cli_pending){ c, optarg };
	}
	*ret_pos = optind;
	return CLI_CONTINUE;
}

static void options_add(struct option *all, size_t *n, char *optstring, size_t *len,
			const struct option *opts)
{
	for (; opts && opts->name; opts++) {
		size_t i = 0;

		while (i < *n && strcmp(all[i].name, opts->name))
			i++;
		if (i < *n)
			continue;
		all[(*n)++] = *opts;
		if (opts->val >= 256)
			continue;
		optstring[(*len)++] = opts->val;
		if (opts->has_arg == required_argument)
			optstring[(*len)++] = ':';
	}
}

/*
 * Every option of every command, once, and their letters ("+" first: stop at the command's
 * word). getopt_long() knows them all, so that an option a command does not take is named as
 * such, not as unknown, and abbreviations resolve as they always did.
 */
static int options_all(struct option **ret_opts, char **ret_optstring)
{
	size_t max = ARRAY_SIZE(global_options) + ARRAY_SIZE(options_order), n = 0, len = 0;
	_cleanup_free_ struct option *all = NULL;
	_cleanup_free_ char *optstring = NULL;

	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		for (const struct option *o = commands[i]->options; o && o->name; o++)
			max++;
	all = calloc(max + 1, sizeof(*all));
	optstring = calloc(2 + 2 * max, 1);
	if (!all || !optstring)
		return -ENOMEM;
	optstring[len++] = '+';
	options_add(all, &n, optstring, &len, options_order);
	options_add(all, &n, optstring, &len, global_options);
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		options_add(all, &n, optstring, &len, commands[i]->options);
	*ret_opts = TAKE_PTR(all);
	*ret_optstring = TAKE_PTR(optstring);
	return 0;
}

/* The command named WORD, or WORD SUB for a command of a group. */
static const struct cli_command *command_find(const char *word, const char *sub)
{
	size_t n = strlen(word);

	for (size_t i = 0; i < ARRAY_SIZE(commands); i++) {
		const char *name = commands[i]->name;

		if (strncmp(name, word, n))
			continue;
		if (!sub ? name[n] == 0 : name[n] == ' ' && !strcmp(name + n + 1, sub))
			return commands[i];
	}
	return NULL;
}

static bool command_group(const char *word)
{
	size_t n = strlen(word);

	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		if (!strncmp(commands[i]->name, word, n) && commands[i]->name[n] == ' ')
			return true;
	return false;
}

int main(int argc, char **argv)
{
	struct cli cli = { .socket_path = PROTO_SOCKET_PATH, .timeout_ms = 10000 };
	_cleanup_free_ struct option *options = NULL;
	_cleanup_free_ struct cli_pending *pending = NULL;
	_cleanup_free_ char *optstring = NULL;
	_cleanup_free_ char **args = NULL;
	int pos, last, sub, n = 1, r;

	pending = calloc(argc, sizeof(*pending));
	if (!pending || options_all(&options, &optstring) < 0) {
		fprintf(stderr, "krsictl: out of memory\n");
		return EXIT_UNREACHABLE;
	}
	cli.options = options;
	cli.optstring = optstring;
	cli.pending = pending;
	r = options_before(&cli, argc, argv, &pos);
	if (r != CLI_CONTINUE)
		return r;
	if (pos >= argc) {
		cli_usage(stderr);
		return EXIT_USAGE;
	}
	cli.word = argv[pos];
	last = pos;
	cli.cmd = command_find(cli.word, NULL);
	if (!cli.cmd && command_group(cli.word)) {
		/* "profile [OPTIONS] learn": the options before the second word are kept too */
		r = options_before(&cli, argc - pos, argv + pos, &sub);
		if (r != CLI_CONTINUE)
			return r;
		last = pos + sub;
		if (last < argc)
			cli.cmd = command_find(cli.word, argv[last]);
	}
	if (!cli.cmd) {
		fprintf(stderr, "krsictl: unknown command or wrong arguments: %s\n", cli.word);
		cli_usage(stderr);
		return EXIT_USAGE;
	}
	/* The command's arguments after its words, with its first word as getopt's argv[0]. */
	args = calloc(argc - last + 1, sizeof(*args));
	if (!args) {
		fprintf(stderr, "krsictl: out of memory\n");
		return EXIT_UNREACHABLE;
	}
	args[0] = argv[pos];
	for (int i = last + 1; i < argc; i++)
		args[n++] = argv[i];
	return cli.cmd->run(&cli, n, args);
}
