// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: a bundle's config.json, as `krsictl oci-inject BUNDLE` and krsi-runc edit
 * it, through oci_inject_text(). The first byte picks the options (stage, profile annotation,
 * --poststop, krsi-runc's profile-if-none, --fail-open), the rest is the document. Injecting into the result again with the same options must give the
 * same text: the function promises that injecting twice leaves one entry per stage, with or
 * without poststop.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/oci_inject.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct oci_inject_opts o = { 0 };
	struct krsi_err err = { "" };
	char *text, *out = NULL, *again = NULL;

	if (size < 1)
		return 0;
	o.stage = data[0] & 1 ? "createRuntime" : NULL;
	o.profile = data[0] & 2 ? "audit" : NULL;
	o.poststop = data[0] & 4;
	o.profile_default = data[0] & 8;
	o.fail_open = data[0] & 16;
	text = malloc(size);
	if (!text)
		abort();
	memcpy(text, data + 1, size - 1); /* the NUL that oci_inject_bundle() appends */
	text[size - 1] = 0;
	if (oci_inject_text(text, &o, &out, &err) < 0) {
		if (!err.msg[0])
			abort();
		free(text);
		return 0;
	}
	if (oci_inject_text(out, &o, &again, &err) < 0 || strcmp(out, again))
		abort();
	free(again);
	free(out);
	free(text);
	return 0;
}
