// SPDX-License-Identifier: GPL-2.0
/*
 * policy/kubearmor.c on the corpus in tests/kubearmor/, policies written from KubeArmor's
 * specification: each NAME.yaml imports to NAME.json (compared as JSON) with the notes of
 * NAME.notes (line for line; none when absent), or fails with the message of NAME.err. Every
 * profile made is one the agent's parser accepts. named.yaml is imported with the name "named".
 */
#include <dirent.h>
#include <string.h>

#include "policy/kubearmor.h"
#include "policy/profile.h"
#include "unit.h"

#ifndef KRSI_SRC
#define KRSI_SRC "."
#endif
#define CORPUS KRSI_SRC "/tests/kubearmor"

/* DIR/BASE.EXT as text in *RET (NULL when there is no such file). */
static char *slurp(const char *base, const char *ext)
{
	char path[512], *buf = NULL;
	size_t size = 0;
	FILE *f, *m;

	snprintf(path, sizeof(path), CORPUS "/%s.%s", base, ext);
	f = fopen(path, "r");
	if (!f)
		return NULL;
	m = open_memstream(&buf, &size);
	for (int c; (c = fgetc(f)) != EOF;)
		fputc(c, m);
	fclose(m);
	fclose(f);
	return buf;
}

/* The notes as the lines of one text. */
static char *notes_text(const struct kubearmor_import *im)
{
	char *buf = NULL;
	size_t size = 0;
	FILE *m = open_memstream(&buf, &size);

	for (size_t i = 0; i < im->n_notes; i++)
		fprintf(m, "%s\n", im->notes[i]);
	fclose(m);
	return buf;
}

static void one(const char *base)
{
	char *yaml = slurp(base, "yaml"), *want_json = slurp(base, "json"),
	     *want_notes = slurp(base, "notes"), *want_err = slurp(base, "err"), *notes;
	struct kubearmor_import im;
	struct krsi_err err = { "" };
	struct profile *p = NULL;
	const char *name = strcmp(base, "named") ? NULL : "named";
	int r = kubearmor_import(base, yaml, strlen(yaml), name, &im, &err);

	if (want_err) {
		want_err[strcspn(want_err, "\n")] = 0;
		CHECK(r == -EINVAL && strstr(err.msg, want_err),
		      "kubearmor %s: refused: %s", base, err.msg);
		goto out;
	}
	if (!want_json) {
		CHECK(0, "kubearmor %s: the corpus has %s.json or %s.err", base, base, base);
		goto out;
	}
	CHECK(r == 0, "kubearmor %s: imports (%s)", base, err.msg);
	if (r < 0)
		goto out;
	{
		json_object *want = json_tokener_parse(want_json);
		const char *got = json_object_to_json_string_ext(im.profile, JSON_C_TO_STRING_PLAIN);

		CHECK(want && json_object_equal(want, im.profile), "kubearmor %s: the profile is %s.json",
		      base, base);
		if (!(want && json_object_equal(want, im.profile)))
			printf("#   got: %s\n", got);
		json_object_put(want);
		CHECK(profile_parse(base, got, strlen(got), &p, &err) == 0,
		      "kubearmor %s: and the agent's parser accepts it (%s)", base, err.msg);
		profile_free(p);
	}
	notes = notes_text(&im);
	CHECK_STR(notes, want_notes ? want_notes : "", "kubearmor %s: the notes are %s.notes", base,
		  base);
	{
		size_t dropped = 0;

		for (const char *s = want_notes; s && (s = strstr(s, "dropped:")); s++)
			dropped++;
		CHECK(im.n_dropped == dropped,
		      "kubearmor %s: n_dropped counts the \"dropped:\" notes (%zu)", base,
		      im.n_dropped);
	}
	free(notes);
	kubearmor_import_clear(&im);
out:
	free(yaml);
	free(want_json);
	free(want_notes);
	free(want_err);
}

void test_kubearmor(void)
{
	struct dirent **list;
	int n = scandir(CORPUS, &list, NULL, alphasort), yamls = 0;
	struct kubearmor_import im;
	struct krsi_err err = { "" };

	for (int i = 0; i < n; i++) {
		char *dot = strrchr(list[i]->d_name, '.');

		if (dot && !strcmp(dot, ".yaml")) {
			*dot = 0;
			one(list[i]->d_name);
			yamls++;
		}
		free(list[i]);
	}
	free(n > 0 ? list : NULL);
	CHECK(yamls >= 10, "kubearmor: the corpus has its policies (%d)", yamls);

	CHECK(kubearmor_import("empty", "", 0, NULL, &im, &err) == -EINVAL &&
		      strstr(err.msg, "empty"),
	      "kubearmor: an empty file is refused (%s)", err.msg);
	CHECK(kubearmor_import("alias", "&a [*a]", 7, NULL, &im, &err) == -EINVAL,
	      "kubearmor: a self-referring alias is refused, not walked (%s)", err.msg);
	{
		static const char cyc[] = "apiVersion: security.kubearmor.com/v1\n"
					  "kind: KubeArmorPolicy\nmetadata: {name: cyc}\n"
					  "spec: &s {action: Block, process: *s, file: *s}\n";
		int r = kubearmor_import("cycle", cyc, sizeof(cyc) - 1, NULL, &im, &err);

		CHECK(r == 0 || r == -EINVAL, "kubearmor: a spec that contains itself ends (%d: %s)",
		      r, err.msg);
		if (r == 0)
			kubearmor_import_clear(&im);
	}
	CHECK(kubearmor_import("list", "- 1\n- 2\n", 8, NULL, &im, &err) == -EINVAL &&
		      strstr(err.msg, "a YAML mapping"),
	      "kubearmor: a list is not a policy (%s)", err.msg);
}
