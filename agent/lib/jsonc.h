/* SPDX-License-Identifier: GPL-2.0 */
/*
 * json-c helpers for krsid, krsictl and the tools that link json-c (never the OCI hook, which
 * reads JSON with lib/jsonr.h): a cleanup attribute, strict parsing.
 */
#ifndef KRSI_JSONC_H
#define KRSI_JSONC_H

#include <json-c/json.h>

#include "lib/util.h"

static inline void json_putp(json_object **o)
{
	json_object_put(*o);
}
#define _cleanup_json_ __attribute__((cleanup(json_putp)))

/* True when the JSON string V holds a NUL: json-c keeps "\u0000", and a check of the C string
 * would see only what comes before it ("web\u0000x" would pass as "web"). */
static inline bool json_string_has_nul(json_object *v)
{
	return strlen(json_object_get_string(v)) != (size_t)json_object_get_string_len(v);
}

/*
 * TEXT (LEN bytes) as one JSON document, parsed strictly (RFC 8259 numbers, no trailing commas:
 * what the Go and yajl parsers of the runtimes accept) with nothing but white space after it.
 * On failure *RET is NULL and ERR says "WHAT: not valid JSON at byte N: why".
 */
static inline int json_parse_strict(const char *what, const char *text, size_t len,
				    json_object **ret, struct krsi_err *err)
{
	struct json_tokener *tok = json_tokener_new();
	enum json_tokener_error jerr;
	json_object *doc;
	size_t end;

	*ret = NULL;
	if (!tok)
		return err_set(err, -ENOMEM, "%s: out of memory", what);
	if (len > INT32_MAX) {
		json_tokener_free(tok);
		return err_set(err, -EFBIG, "%s: %zu bytes is too large", what, len);
	}
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
	doc = json_tokener_parse_ex(tok, text, (int)len);
	jerr = json_tokener_get_error(tok);
	end = json_tokener_get_parse_end(tok);
	json_tokener_free(tok);
	if (!doc || jerr != json_tokener_success) {
		json_object_put(doc);
		return err_set(err, -EINVAL, "%s: not valid JSON at byte %zu: %s", what, end,
			       jerr == json_tokener_continue || jerr == json_tokener_success
				       ? "unexpected end of input"
				       : json_tokener_error_desc(jerr));
	}
	for (; end < len; end++) {
		if (!strchr(" \t\r\n", text[end]) || !text[end]) {
			json_object_put(doc);
			return err_set(err, -EINVAL,
				       "%s: not valid JSON: data after the document at byte %zu", what,
				       end);
		}
	}
	*ret = doc;
	return 0;
}

#endif /* KRSI_JSONC_H */
