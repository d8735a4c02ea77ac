// SPDX-License-Identifier: GPL-2.0
/*
 * krsictl profile import kubearmor FILE: a KubeArmorPolicy as a krsi profile
 * (policy/kubearmor.c), checked with the agent's parser before it is written.
 */
#include <errno.h>
#include <string.h>

#include "cli/cli.h"
#include "policy/kubearmor.h"
#include "policy/profile.h"

struct import_opts {
	const char *output, *name;
	bool strict;
};

static int import_option(void *opts, int val, const char *arg)
{
	struct import_opts *o = opts;

	switch (val) {
	case 'o':
		o->output = arg;
		break;
	case 'n':
		o->name = arg;
		break;
	case OPT_STRICT:
		o->strict = true;
		break;
	}
	return CLI_CONTINUE;
}

/* FILE's text (NUL-terminated) in *RET, at most MAX bytes: 0 or -errno with ERR. */
static int read_text(const char *file, size_t max, char **ret, size_t *len, struct krsi_err *err)
{
	FILE *f = fopen(file, "re");
	char *buf = malloc(max + 2);
	size_t n;

	if (!f || !buf) {
		int e = f ? ENOMEM : errno;

		free(buf);
		if (f)
			fclose(f);
		return err_set(err, -e, "%s: %s", file, strerror(e));
	}
	n = fread(buf, 1, max + 1, f);
	if (ferror(f) || n > max) {
		int e = ferror(f) ? EIO : EFBIG;

		fclose(f);
		free(buf);
		return e == EFBIG ? err_set(err, -e, "%s: larger than %zu bytes", file, max) :
				    err_set(err, -e, "%s: %s", file, strerror(e));
	}
	fclose(f);
	buf[n] = 0;
	*ret = buf;
	*len = n;
	return 0;
}

static int import_run(struct cli *cli, int argc, char **argv)
{
	struct import_opts o = {};
	struct kubearmor_import im;
	struct krsi_err err = { "" };
	struct profile *p = NULL;
	_cleanup_free_ char *text = NULL;
	const char *doc;
	size_t len = 0;
	int r = cli_parse(cli, &argc, &argv, import_option, &o);

	if (r != CLI_CONTINUE)
		return r;
	if (strcmp(argv[0], "kubearmor")) {
		fprintf(stderr, "krsictl: profile import: format %s: expected kubearmor\n", argv[0]);
		return EXIT_USAGE;
	}
	if (o.name && !profile_name_valid(o.name)) {
		fprintf(stderr, "krsictl: profile import: --name %s: not a profile name (1 to %d of "
			"a-z, 0-9, '.', '_', '-', not starting with '.' or '-')\n", o.name,
			KRSI_NAME_MAX - 1);
		return EXIT_USAGE;
	}
	if (read_text(argv[1], KUBEARMOR_FILE_MAX, &text, &len, &err) < 0 ||
	    kubearmor_import(argv[1], text, len, o.name, &im, &err) < 0) {
		fprintf(stderr, "krsictl: profile import: %s\n", err.msg);
		return EXIT_INVALID;
	}
	for (size_t i = 0; i < im.n_notes; i++)
		fprintf(stderr, "krsictl: profile import: %s: %s\n", argv[1], im.notes[i]);
	if (o.strict && im.n_dropped) {
		fprintf(stderr, "krsictl: profile import: %s: --strict: %zu field%s without a krsi "
			"equivalent (above); nothing written\n", argv[1], im.n_dropped,
			im.n_dropped == 1 ? "" : "s");
		kubearmor_import_clear(&im);
		return EXIT_INVALID;
	}
	doc = json_object_to_json_string_ext(im.profile, JSON_C_TO_STRING_PRETTY |
								 JSON_C_TO_STRING_SPACED |
								 JSON_C_TO_STRING_NOSLASHESCAPE);
	/* What krsid will read: the same parser says whether it is a profile. */
	r = profile_parse(argv[1], doc, strlen(doc), &p, &err);
	if (r < 0) {
		fprintf(stderr, "krsictl: profile import: the profile made of it is not valid: %s\n",
			err.msg);
		kubearmor_import_clear(&im);
		return EXIT_INVALID;
	}
	profile_free(p);
	if (!o.output) {
		printf("%s\n", doc);
	} else if ((r = cli_write_file(o.output, doc)) < 0) {
		fprintf(stderr, "krsictl: profile import: %s: %s\n", o.output, strerror(-r));
		kubearmor_import_clear(&im);
		return EXIT_REFUSED;
	}
	kubearmor_import_clear(&im);
	return EXIT_OK;
}

static const struct option import_options[] = { OPT_OUTPUT, OPT_NAME, OPT_STRICT_, {} };

const struct cli_command cli_profile_import = {
	.name = "profile import",
	.min_args = 2,
	.max_args = 2,
	.options = import_options,
	.run = import_run,
	.usage = "profile import kubearmor FILE [--name NAME] [--output FILE] [--strict]",
	.help = "a KubeArmorPolicy (YAML) as a krsi profile:\nwhat has no krsi equivalent is named "
		"on\nstderr; with --strict nothing is written",
};
