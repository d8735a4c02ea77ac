// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the OCI state a runtime writes on krsi-oci-hook's stdin. The bytes go
 * through a pipe into oci_state_read() and oci_state_parse(), as the hook's main() does, then
 * straight into oci_state_parse(), which sees them without a NUL terminator. A refusal must say
 * why; an accepted state must name a valid container. Differential: agent/lib/jsonr.c accepts
 * exactly what json-c's strict parser accepts, and decodes the members the hook reads as json-c
 * does (the strings byte for byte, "\u0000" included, and the pid). The same bytes, read as a bundle's
 * config.json, go through oci_config_is_podman_infra(): a yes needs podman's own annotation.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lib/jsonr.h"
#include "oci-hooks/oci_state.h"
#include "lib/protocol.h"

/* json-c, strict, as the reference reader (the hook itself links no JSON library); *OK
 * whether it accepted the input (a top-level null is a NULL document). */
static json_object *reference(const char *buf, size_t len, bool *ok)
{
	struct json_tokener *tok = json_tokener_new_ex(JSONR_MAX_DEPTH);
	json_object *doc;
	size_t end;

	if (!tok)
		abort();
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
	doc = json_tokener_parse_ex(tok, buf, len);
	end = json_tokener_get_parse_end(tok);
	/* A number at the very end: json-c waits for the byte that ends it. */
	if (!doc && json_tokener_get_error(tok) == json_tokener_continue)
		doc = json_tokener_parse_ex(tok, " ", 1);
	*ok = json_tokener_get_error(tok) == json_tokener_success;
	json_tokener_free(tok);
	for (; *ok && end < len; end++)
		if (!strchr(" \t\r\n", buf[end]) || !buf[end])
			*ok = false;
	if (!*ok) {
		json_object_put(doc);
		doc = NULL;
	}
	return doc;
}

/* Whether jsonr stopped (WHY: "... at byte N") at a digit after a leading zero, at a NaN or an
 * Infinity, or at a single-quoted string (json-c takes them all, strict or not). */
static bool json_c_quirk(const char *buf, size_t len, const char *why)
{
	const char *at = strstr(why, " at byte ");
	size_t n;

	if (!at)
		return false;
	n = strtoul(at + 9, NULL, 10);
	if (n >= len)
		return false;
	if (buf[n] == '\'')
		return true;
	if (buf[n] == '-')
		n++;
	return (n > 0 && n < len && buf[n - 1] == '0' && buf[n] >= '0' && buf[n] <= '9') ||
	       (len - n >= 3 && (!strncasecmp(buf + n, "nan", 3) || !strncasecmp(buf + n, "inf", 3)));
}

/* What jsonr decoded of string V equals json-c's J. */
static void same_string(const struct jsonr_value *v, json_object *j)
{
	char *s;
	size_t n;

	if (!json_object_is_type(j, json_type_string))
		abort();
	if (jsonr_string(v, &s, &n) < 0)
		abort();
	if (n != (size_t)json_object_get_string_len(j) || memcmp(s, json_object_get_string(j), n))
		abort();
	free(s);
}

/* jsonr and json-c agree on the document and on the members the hook reads. */
static void differential(const char *buf, size_t len)
{
	static const char *const keys[] = { "id", "status", "bundle", "pid", "annotations" };
	static const char *const akeys[] = { OCI_ANNOTATION_PROFILE, OCI_ANNOTATION_FAIL_OPEN };
	struct jsonr_value doc, f[5], af[2];
	json_object *ref, *j, *ja;
	bool ok;
	char why[128];
	int64_t i64;
	int r;

	ref = reference(buf, len, &ok);
	r = jsonr_parse(buf, len, &doc, why, sizeof(why));
	if (r == 0 && !ok)
		abort();
	/* json-c's strict mode still takes numbers that RFC 8259 does not ("1.", "00", "-00",
	 * NaN) and single-quoted strings: jsonr refuses them, and nothing else that json-c takes. */
	if (r < 0 && ok && !strstr(why, "expected a digit") && !json_c_quirk(buf, len, why) &&
	    !json_object_is_type(ref, json_type_double) && !json_object_is_type(ref, json_type_int))
		abort();
	/* json-c cuts a key at "\u0000" ("id\u0000" is its "id"); jsonr keeps the whole key, as
	 * the runtimes' parsers do. Members are compared where no escaped NUL can cut one. */
	if (r < 0 || doc.type != JSONR_OBJECT || memmem(buf, len, "\\u0000", 6)) {
		json_object_put(ref);
		return;
	}
	if (!json_object_is_type(ref, json_type_object))
		abort();
	jsonr_fields(&doc, keys, f, 5);
	for (size_t i = 0; i < 5; i++) {
		if ((f[i].type != JSONR_NONE) != json_object_object_get_ex(ref, keys[i], &j))
			abort();
		if (f[i].type == JSONR_STRING)
			same_string(&f[i], j);
	}
	if (jsonr_int64(&f[3], &i64) &&
	    (!json_object_is_type(j = json_object_object_get(ref, "pid"), json_type_int) ||
	     (i64 >= 0 && i64 <= INT32_MAX && json_object_get_int64(j) != i64)))
		abort();
	ja = json_object_object_get(ref, "annotations");
	if (f[4].type == JSONR_OBJECT) {
		jsonr_fields(&f[4], akeys, af, 2);
		for (size_t i = 0; i < 2; i++) {
			if ((af[i].type != JSONR_NONE) != json_object_object_get_ex(ja, akeys[i], &j))
				abort();
			if (af[i].type == JSONR_STRING)
				same_string(&af[i], j);
		}
	}
	json_object_put(ref);
}

static void parse(const char *buf, size_t len)
{
	struct krsi_err err = { "" };
	struct oci_state s;

	if (!memchr(buf, 0, len))
		differential(buf, len);
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
