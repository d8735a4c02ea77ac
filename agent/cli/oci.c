// SPDX-License-Identifier: GPL-2.0
/* krsictl oci-inject: wire krsi-oci-hook into an OCI bundle (lib/oci_inject.c does it). */
#include "cli/cli.h"
#include "lib/oci_inject.h"

struct inject_opts {
	const char *profile;
	bool poststop;
};

static int inject_option(void *opts, int val, const char *arg)
{
	struct inject_opts *o = opts;

	if (val == 'p')
		o->profile = arg;
	else if (val == OPT_POSTSTOP)
		o->poststop = true;
	return CLI_CONTINUE;
}

static int inject_run(struct cli *cli, int argc, char **argv)
{
	struct inject_opts o = { 0 };
	int r = cli_parse(cli, &argc, &argv, inject_option, &o);

	if (r != CLI_CONTINUE)
		return r;
	return oci_inject_cmd(argv[0], argc == 2 ? argv[1] : NULL, o.profile, o.poststop);
}

static const struct option inject_options[] = { OPT_PROFILE, OPT_POSTSTOP_, {} };

const struct cli_command cli_oci_inject = {
	.name = "oci-inject",
	.min_args = 1,
	.max_args = 2,
	.options = inject_options,
	.run = inject_run,
	.usage = "oci-inject BUNDLE [prestart|createRuntime] [--profile NAME] [--poststop]",
	.help = "wire krsi-oci-hook into a bundle\n"
		"(crun, runc); --poststop: also at\n"
		"poststop, for a runtime that keeps\n"
		"the cgroup of a stopped container",
};
