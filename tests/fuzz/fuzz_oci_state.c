// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the OCI state a runtime writes on krsi-oci-hook's stdin. The bytes go
 * through a pipe into oci_state_read() and oci_state_parse(), as the hook's main() does, then
 * straight into oci_state_parse(), which sees them without a NUL terminator. A refusal must say
 * why; an accepted state must name a valid container. The same bytes, read as a bundle's
 * config.json, go through oci_config_is_podman_infra(): a yes needs podman's own annotation.
 * The JSON reader under both, agent/lib/jsonr.c, is checked against json-c by fuzz_jsonr.c.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "oci-hooks/oci_state.h"
#include "lib/protocol.h"

static void parse(const char *buf, size_t len)
{
	struct krsi_err err = { "" };
	struct oci_state s;

	if (oci_state_parse(buf, len, &s, &err) < 0) {
		if (!err.msg[0])
			abort();
		return;
	}
	if (!s.id || !proto_container_valid(s.id) || s.pid < 0 || s.pid > INT32_MAX)
		abort();
	if (s.profile && !s.profile[0])
		abort();
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
