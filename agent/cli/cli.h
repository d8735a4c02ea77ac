/* SPDX-License-Identifier: GPL-2.0 */
/*
 * krsictl: the command line of krsi. Speaks the control protocol and nothing else (and checks
 * profile files locally with the same parser as the agent).
 *
 * Each file of agent/cli/ holds one command or a group of related ones, as a struct
 * cli_command: its name, the options it takes, its operands, its lines in the usage. main.c
 * lists them in one table, reads the global options (--socket, --timeout, --help), finds the
 * command and runs it; the command reads its own options with cli_parse(), which refuses one
 * that is not among them.
 *
 * Exit codes:
 *   0  done
 *   1  the agent refused the request (its error is printed)
 *   2  usage error
 *   3  the agent is unreachable, or its reply is not understood
 *   4  profile check: the file is invalid
 */
#ifndef KRSI_CLI_H
#define KRSI_CLI_H

#include <getopt.h>

#include "lib/protocol.h"

enum { EXIT_OK = 0, EXIT_REFUSED = 1, EXIT_USAGE = 2, EXIT_UNREACHABLE = 3, EXIT_INVALID = 4 };

/* An option callback's and cli_parse()'s "go on"; anything else is the exit code to stop with. */
#define CLI_CONTINUE (-1)

/*
 * Every option of krsictl, each defined once: a command's table lists those it takes. Those
 * without a one-letter form have values above 255.
 */
enum { OPT_UNTIL_EXEC = 256, OPT_POSTSTOP, OPT_STRICT };

#define OPT_SOCKET { "socket", required_argument, NULL, 's' }
#define OPT_TIMEOUT { "timeout", required_argument, NULL, 't' }
#define OPT_HELP { "help", no_argument, NULL, 'h' }
#define OPT_JSON { "json", no_argument, NULL, 'j' }
#define OPT_FOLLOW { "follow", no_argument, NULL, 'f' }
#define OPT_CONTAINER { "container", required_argument, NULL, 'c' }
#define OPT_CGROUP { "cgroup", required_argument, NULL, 'g' }
#define OPT_CGROUP_ID { "cgroup-id", required_argument, NULL, 'i' }
#define OPT_PID { "pid", required_argument, NULL, 'P' }
#define OPT_PROFILE { "profile", required_argument, NULL, 'p' }
#define OPT_UNTIL_EXEC_ { "until-exec", no_argument, NULL, OPT_UNTIL_EXEC }
#define OPT_POSTSTOP_ { "poststop", no_argument, NULL, OPT_POSTSTOP }
#define OPT_BUNDLE { "bundle", required_argument, NULL, 'B' }
#define OPT_DURATION { "duration", required_argument, NULL, 'D' }
#define OPT_OUTPUT { "output", required_argument, NULL, 'o' }
#define OPT_NAME { "name", required_argument, NULL, 'n' }
#define OPT_FOLD { "fold", required_argument, NULL, 'F' }
#define OPT_STRICT_ { "strict", no_argument, NULL, OPT_STRICT }

struct cli;

struct cli_command {
	const char *name;		/* "status"; a group's command: "profile learn" */
	int min_args, max_args;		/* operands after the name; max -1: no limit */
	const struct option *options;	/* those it takes besides the global ones; {} ends */
	int (*run)(struct cli *cli, int argc, char **argv);
	/*
	 * Its lines in the usage: USAGE (newlines between lines, without the leading two
	 * spaces), and HELP, whose lines go beside those of USAGE that leave room, the rest on
	 * lines of their own.
	 */
	const char *usage;
	const char *help;
};

/* What every command shares: the global options, the command being run. */
struct cli {
	const char *socket_path;
	int timeout_ms;
	const struct cli_command *cmd;
	const char *word;		/* the command as given: "profile" for "profile learn" */
	const struct option *options;	/* every option of every command, for getopt_long() */
	const char *optstring;		/* their letters, after a "+" */
	/* The command's own options given before its name ("krsictl --json ps"). */
	struct cli_pending {
		int val;
		char *arg;
	} *pending;
	size_t n_pending;
};

/* One option of the command: its value VAL and argument ARG into OPTS. */
typedef int cli_option_fn(void *opts, int val, const char *arg);

/*
 * Read the command's options (its ARGC, ARGV, from the command's name on) with FN, and the
 * global ones; leave the operands in *ARGC, *ARGV. CLI_CONTINUE, or the exit code with the
 * message printed: an option the command does not take, a bad value, the wrong number of
 * operands; --help.
 */
int cli_parse(struct cli *cli, int *argc, char ***argv, cli_option_fn *fn, void *opts);
void cli_usage(FILE *f);

/* RQ as its line in LINE (PROTO_REQUEST_MAX bytes): its length, or -1 with why it cannot be
 * written printed (a request longer than krsid reads). */
int cli_request_line(const struct krsi_request *rq, char *line);
/* Send RQ to krsid, its reply in *RET: EXIT_OK, or the exit code with the agent's error (or
 * why it is unreachable) printed. */
int cli_call(const struct cli *cli, const struct krsi_request *rq, json_object **ret);
/*
 * A listing command, whose one option is --json: OP's reply in *RET. CLI_CONTINUE when the
 * caller prints its table, else the exit code (with --json, the reply printed: EXIT_OK).
 */
int cli_listing(struct cli *cli, int argc, char **argv, enum proto_op op, json_object **ret);
/* O's member KEY as a string, "-" when absent. */
const char *cli_str(json_object *o, const char *key);
void cli_print_json(json_object *o);
/* O as one line: an event. */
void cli_print_line(json_object *o);
/* Write TEXT and a newline to PATH through a temporary file and a rename: 0 or -errno. */
int cli_write_file(const char *path, const char *text);

/* An events subscription: the reply, then events, one line each as they come. */
struct cli_stream {
	int fd;
	char *buf;
	size_t len, cap, consumed;
};

/* Connect with a timeout of TIMEOUT_MS on every read and write (0: none): 0, or a negative
 * errno and ERR. The subscription goes with proto_send_line(). */
int cli_stream_connect(struct cli_stream *s, const struct cli *cli, int timeout_ms,
		       struct krsi_err *err);
/* The next line within TIMEOUT_MS (-1: no limit): 1 with it in *LINE, valid until the next
 * call, without its newline; 0 on timeout or a signal; -EPIPE at the end of the stream,
 * -EMSGSIZE for a line longer than PROTO_REPLY_MAX. */
int cli_stream_line(struct cli_stream *s, int timeout_ms, char **line);
void cli_stream_close(struct cli_stream *s);

extern const struct cli_command cli_status, cli_metrics;
extern const struct cli_command cli_ps, cli_register, cli_unregister, cli_assign;
extern const struct cli_command cli_profile_list, cli_profile_show, cli_profile_check,
	cli_profile_reload, cli_profile_diff, cli_profile_learn, cli_profile_import;
extern const struct cli_command cli_events, cli_oci_inject;

#endif
