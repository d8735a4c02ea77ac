// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the OCI state a runtime writes on krsi-oci-hook's stdin. The bytes go
 * through a pipe into oci_state_read() and oci_state_parse(), as the hook's main() does, then
 * straight into oci_state_parse(), which sees them without a NUL terminator. A refusal must say
 * why; an accepted state must name a valid container. The same bytes, read as a bundle's
 * config.json, go through oci_config_is_podman_infra(): a yes needs podman's own annotation.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../oci-hooks/oci_state.h"
#include "../../agent/protocol.h"

/* The strings the hook acts on are whole JSON strings: none holds a NUL ("\u0000") that would
 * cut what was checked short. */
static void check_string(json_object *o, const char *key, const char *s)
{
	json_object *v;

	if (s && (!json_object_object_get_ex(o, key, &v) ||
		  strlen(s) != (size_t)json_object_get_string_len(v)))
		abort();
}

static void parse(const char *buf, size_t len)
{
	struct krsi_err err = { "" };
	struct oci_state s;
	json_object *a;

	if (oci_state_parse(buf, len, &s, &err) < 0) {
		if (!err.msg[0])
			abort();
		return;
	}
	if (!s.id || !proto_container_valid(s.id) || s.pid < 0 || s.pid > INT32_MAX)
		abort();
	if (s.profile && !s.profile[0])
		abort();
	check_string(s.doc, "id", s.id);
	check_string(s.doc, "status", s.status);
	check_string(s.doc, "bundle", s.bundle);
	a = json_object_object_get(s.doc, "annotations");
	check_string(a, OCI_ANNOTATION_PROFILE, s.profile);
	if (s.fail_open &&
	    json_object_get_string_len(json_object_object_get(a, OCI_ANNOTATION_FAIL_OPEN)) != 4)
		abort(); /* anything but "true" */
	oci_state_stage(&s);
	oci_state_clear(&s);
}

static void via_pipe(const uint8_t *data, size_t size)
{
	struct krsi_err err = { "" };
	char *buf = NULL;
	size_t len = 0;
	int p[2];

	if (pipe2(p, O_CLOEXEC) < 0)
		abort();
	/* -max_len keeps inputs below the pipe's 64 KiB: one write, never blocking. */
	if (size && write(p[1], data, size) != (ssize_t)size)
		abort();
	close(p[1]);
	if (oci_state_read(p[0], OCI_STATE_MAX, &buf, &len, &err) < 0 || len != size ||
	    memcmp(buf, data, size) || buf[len])
		abort();
	close(p[0]);
	parse(buf, len);
	free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	via_pipe(data, size);
	parse((const char *)data, size);
	if (oci_config_is_podman_infra((const char *)data, size) &&
	    !memmem(data, size, "libpod", 6))
		abort();
	return 0;
}
