// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: what agent/policy/identity.c parses. A bundle's config.json (its root.path is
 * where krsid resolves file identities), and /proc text: fdinfo, and mountinfo, whose mount
 * points a container names. The first byte picks the parser.
 *
 * config.json has two readers: identity_bundle_root_scan(), which finds root.path with
 * agent/lib/jsonr.c (fuzzed against json-c on its own by fuzz_jsonr.c), and json-c's full
 * parse, its fallback. Whatever the first accepts, json-c must accept with the same root.path
 * (or refuse it as too long, where a relative one does not fit below the bundle): the keys it
 * picks (the last "root", its last "path", none cut at "\u0000"), the limits it leaves to
 * json-c and the path it copies are identity.c's own. A document read one way by krsid and
 * another by the runtime would resolve identities in another rootfs.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "policy/identity.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct krsi_err err = { "" };
	char *text, buf[KRSI_ROOTFS_MAX], point[KRSI_PATH_MAX], fast[KRSI_ROOTFS_MAX];
	uint64_t a = 0, b = 0;
	int r;

	if (size < 1)
		return 0;
	text = malloc(size);
	if (!text)
		abort();
	memcpy(text, data + 1, size - 1);
	text[size - 1] = 0;
	switch (data[0] % 3) {
	case 0:
		r = identity_bundle_rootfs_text("/run/b", "/run/b/config.json", text, size - 1, buf,
						sizeof(buf), &err);
		if (r < 0 && !err.msg[0])
			abort(); /* a refusal always says why */
		if (r == 0 && (!buf[0] || strlen(buf) >= sizeof(buf)))
			abort();
		if (identity_bundle_root_scan(text, size - 1, fast, sizeof(fast)) == 0) {
			/* A relative root.path that fits alone may not fit below the bundle. */
			bool fits = fast[0] == '/' || strlen("/run/b/") + strlen(fast) < sizeof(buf);

			r = identity_bundle_rootfs_json("/run/b", "/run/b/config.json", text, size - 1,
							buf, sizeof(buf), &err);
			if (!fits) {
				if (r != -ENAMETOOLONG)
					abort(); /* json-c must see the same root.path, too long */
				break;
			}
			if (r < 0)
				abort(); /* the scan accepted what json-c refuses */
			if (strcmp(buf, fast) && !(fast[0] != '/' && !strncmp(buf, "/run/b/", 7) &&
						   !strcmp(buf + 7, fast)))
				abort(); /* another root.path */
		}
		break;
	case 1:
		identity_parse_fdinfo(text, &a, &b);
		break;
	case 2:
		r = identity_mountinfo_dev(text, data[0] >> 2, &a, point, sizeof(point));
		if (r == 0 && (a >> 20 >= 1u << 12 || !point[0]))
			abort(); /* a device the kernel cannot encode, or an empty mount point */
		break;
	}
	free(text);
	return 0;
}
