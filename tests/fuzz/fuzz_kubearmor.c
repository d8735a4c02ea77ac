// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: a KubeArmorPolicy, as `krsictl profile import kubearmor FILE` reads it
 * (policy/kubearmor.c, libyaml). Whatever the input, the import ends; a refusal says why; a
 * profile made of it is one the agent's parser accepts (the import checks paths, names and
 * kinds before it writes them), and every note says whether it dropped or ignored something.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "policy/kubearmor.h"
#include "policy/profile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kubearmor_import im;
	struct krsi_err err = { "" };
	struct profile *p = NULL;
	const char *doc;
	size_t dropped = 0;

	if (kubearmor_import("fuzz", (const char *)data, size, NULL, &im, &err) < 0) {
		if (!err.msg[0])
			abort();
		return 0;
	}
	for (size_t i = 0; i < im.n_notes; i++) {
		if (!strncmp(im.notes[i], "dropped: ", 9))
			dropped++;
		else if (strncmp(im.notes[i], "ignored: ", 9))
			abort();
	}
	if (dropped != im.n_dropped)
		abort();
	doc = json_object_to_json_string_ext(im.profile, JSON_C_TO_STRING_PLAIN);
	if (profile_parse("fuzz", doc, strlen(doc), &p, &err) < 0)
		abort();
	profile_free(p);
	kubearmor_import_clear(&im);
	return 0;
}
