/* SPDX-License-Identifier: GPL-2.0 */
/*
 * krsi-runc's command line: its own --krsi-* options, then runc's global options and command.
 * Pure (no I/O, no allocation): the caller gives an argument vector for what goes on to runc.
 * Unit-tested by tests/unit/test_runc.c, fuzzed by tests/fuzz/fuzz_runc_args.c.
 */
#ifndef KRSI_RUNC_ARGS_H
#define KRSI_RUNC_ARGS_H

#include <stdbool.h>

#include "lib/util.h"

struct runc_args {
	/* krsi-runc's own options, taken out of what runc gets */
	const char *profile; /* --krsi-profile NAME: the profile when the bundle names none */
	const char *runtime; /* --krsi-runtime PATH: the runtime to execute (NULL: runc) */
	const char *stage;   /* --krsi-stage prestart|createRuntime (NULL: prestart) */
	bool fail_open;	     /* --krsi-fail-open: the hook entry gets --fail-open */
	bool poststop;	     /* --krsi-poststop: the hook also runs at poststop */
	bool help;	     /* --krsi-help */
	/* runc's: what it will see */
	int argc;	     /* argv[0] .. argv[argc - 1], argv[argc] == NULL */
	char **argv;	     /* the caller's array of at least the input's argc + 1 */
	const char *command; /* runc's command; NULL when there is none (--version, --help) */
	bool creates;	     /* the command starts a container from a bundle: create, run, restore */
	const char *bundle;  /* its --bundle; NULL: the current directory */
	const char *id;	     /* its container id, NULL when not given */
	const char *log;     /* runc's --log FILE, NULL when not given */
	bool log_json;	     /* --log-format json */
};

/*
 * Split ARGV (ARGC words, ARGV[0] the program's name) into krsi-runc's options and runc's
 * command line (OUT_ARGV, ARGC + 1 entries, holds pointers into ARGV). Fails closed: a global
 * option that runc is not known to take, or an option of krsi-runc's that is unknown or lacks
 * its value, is an error naming it, since a misread command line could start a container
 * without the hook. Returns 0 or -EINVAL with ERR set.
 */
int runc_args_parse(int argc, char **argv, char **out_argv, struct runc_args *a,
		    struct krsi_err *err);

#endif
