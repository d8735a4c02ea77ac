// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: agent/lib/jsonr.c, krsi's one strict JSON reader (krsi-oci-hook reads the
 * OCI state and krsid's replies with it, krsid a bundle's root.path), against json-c's strict
 * mode, on any input. Whatever jsonr accepts, json-c accepts and reads as the same tree: the
 * same types, strings byte for byte ("\u0000" included), integers, doubles, array elements and
 * object members, a repeated key by its last value. jsonr refuses nothing else json-c takes but
 * its departures from RFC 8259 ("1.", "00", NaN, single-quoted strings, a raw NUL) and nesting
 * beyond JSONR_MAX_DEPTH. jsonr_parse_depth() refuses exactly what nests deeper than its
 * limit, and what it accepts, json-c accepts with a limit one higher (json-c counts values, so
 * a scalar in the innermost container takes a level): identity.c leaves deeper documents to
 * json-c, and must never accept what json-c would refuse. Where json-c 0.16 reads JSON
 * otherwise than the RFC (see departs()), jsonr follows the RFC, as the runtimes' parsers do.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lib/jsonc.h"
#include "lib/jsonr.h"
#include "lib/util.h"

/* json-c, strict, nesting at most DEPTH values deep, as the reference reader; *OK whether it
 * accepted the input (a top-level null is a NULL document). */
static json_object *reference(const char *buf, size_t len, int depth, bool *ok)
{
	struct json_tokener *tok = json_tokener_new_ex(depth);
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
	       (len - n >= 3 &&
		(!strncasecmp(buf + n, "nan", 3) || !strncasecmp(buf + n, "inf", 3)));
}

/*
 * The containers open at the end of TEXT, and (*RET_MAX, may be NULL) the most open at once,
 * counted on the text: so that a member a repeated key hides counts too, as jsonr and json-c
 * both check it. TEXT is what jsonr read as JSON: its strings are in double quotes.
 */
static unsigned int nesting(const char *p, size_t len, unsigned int *ret_max)
{
	const char *end = p + len;
	unsigned int d = 0, max = 0;

	for (; p < end; p++) {
		if (*p == '"') {
			for (p++; p < end && *p != '"'; p++)
				p += *p == '\\';
		} else if (*p == '[' || *p == '{') {
			max = ++d > max ? d : max;
		} else if (*p == ']' || *p == '}') {
			d--;
		}
	}
	if (ret_max)
		*ret_max = max;
	return d;
}

/* Whether jsonr's WHY ("nesting too deep at byte N") names the container that opens past
 * LIMIT ones. */
static bool too_deep(const char *buf, size_t len, const char *why, unsigned int limit)
{
	const char *at = strstr(why, "nesting too deep at byte ");
	size_t n;

	if (!at)
		return false;
	n = strtoul(at + 25, NULL, 10);
	return n < len && (buf[n] == '[' || buf[n] == '{') && nesting(buf, n, NULL) == limit;
}

/*
 * Whether json-c 0.16 reads TEXT otherwise than the RFC, and how: it cuts a key at "\u0000"
 * ("id\u0000" is its "id": *RET_NUL), and it takes a surrogate pair whose code point ends in
 * D800-DFFF for a surrogate again ("\ud836\udc00", U+1D800, is its U+FFFD; IS_HIGH_SURROGATE()
 * masks 0xfc00 only): *RET_PAIR. A cheap test that may say yes too often.
 */
static void departs(const char *p, size_t len, bool *ret_nul, bool *ret_pair)
{
	const char *end = p + len;

	*ret_nul = *ret_pair = false;
	for (; (p = memchr(p, '\\', end - p)) && end - p >= 6; p++) {
		char hex[2][5] = { { 0 } };
		long hi, lo;

		if (!memcmp(p, "\\u0000", 6))
			*ret_nul = true;
		if (end - p < 12 || p[1] != 'u' || p[6] != '\\' || p[7] != 'u')
			continue;
		memcpy(hex[0], p + 2, 4);
		memcpy(hex[1], p + 8, 4);
		hi = strtol(hex[0], NULL, 16);
		lo = strtol(hex[1], NULL, 16);
		if (hi >= 0xd800 && hi <= 0xdbff && lo >= 0xdc00 && lo <= 0xdfff &&
		    ((0x10000 + ((hi - 0xd800) << 10) + (lo - 0xdc00)) & 0xf800) == 0xd800)
			*ret_pair = true;
	}
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
	if (jsonr_string_is(v, s) != (strlen(s) == n))
		abort(); /* equal to the whole string, and only where it holds no NUL */
	free(s);
}

/* Number V as json-c reads it: a plain integer as an int (saturated out of range), anything
 * else as the double strtod() makes of it. */
static void same_number(const struct jsonr_value *v, json_object *j)
{
	char *text;
	int64_t i;
	uint64_t u;

	if (jsonr_int64(v, &i)) {
		if (!json_object_is_type(j, json_type_int) || json_object_get_int64(j) != i)
			abort();
	} else if (jsonr_uint64(v, &u)) {
		if (!json_object_is_type(j, json_type_int) || json_object_get_uint64(j) != u)
			abort();
	} else if (!memchr(v->text, '.', v->len) && !memchr(v->text, 'e', v->len) &&
		   !memchr(v->text, 'E', v->len)) {
		if (!json_object_is_type(j, json_type_int))
			abort();
	} else {
		text = strndup(v->text, v->len);
		if (!text)
			abort();
		if (!json_object_is_type(j, json_type_double) ||
		    json_object_get_double(j) != strtod(text, NULL))
			abort();
		free(text);
	}
}

/* Where json-c departs from the RFC (departs()): what is not compared. */
struct skip {
	bool keys; /* json-c cut a key at "\u0000": members are not looked up */
	bool strings; /* json-c read a surrogate pair as U+FFFD: neither strings nor keys */
};

/* jsonr's V and json-c's J are the same value. */
static void same(const struct jsonr_value *v, json_object *j, const struct skip *skip)
{
	struct jsonr_value e;
	size_t n;

	switch (v->type) {
	case JSONR_NULL:
		if (j)
			abort();
		break;
	case JSONR_TRUE:
	case JSONR_FALSE:
		if (!json_object_is_type(j, json_type_boolean) ||
		    json_object_get_boolean(j) != (v->type == JSONR_TRUE))
			abort();
		break;
	case JSONR_NUMBER:
		same_number(v, j);
		break;
	case JSONR_STRING:
		if (!json_object_is_type(j, json_type_string))
			abort();
		if (!skip->strings)
			same_string(v, j);
		break;
	case JSONR_ARRAY:
		n = jsonr_length(v);
		if (!json_object_is_type(j, json_type_array) || n != json_object_array_length(j) ||
		    jsonr_index(v, n, &e))
			abort();
		for (size_t i = 0; i < n; i++) {
			if (!jsonr_index(v, i, &e))
				abort();
			same(&e, json_object_array_get_idx(j, i), skip);
		}
		break;
	case JSONR_OBJECT:
		if (!json_object_is_type(j, json_type_object))
			abort();
		if (skip->keys || skip->strings)
			break;
		json_object_object_foreach(j, key, val) {
			const char *const keys[] = { key };

			jsonr_fields(v, keys, &e, 1);
			if (e.type == JSONR_NONE)
				abort();
			same(&e, val, skip);
		}
		break;
	default:
		abort();
	}
}

static bool value_eq(const struct jsonr_value *a, const struct jsonr_value *b)
{
	return a->type == b->type && (a->type == JSONR_NONE || (a->text == b->text && a->len == b->len));
}

/* jsonr_parse_find() finds in one pass what jsonr_fields() finds member by member, one and
 * two keys deep, for every key of REF (json-c's tree of the document, the keys decoded). */
static void finds(const char *buf, size_t size, const struct jsonr_value *doc, json_object *ref)
{
	struct jsonr_value v1, v2, f;
	char why[128];

	if (!json_object_is_type(ref, json_type_object))
		return;
	json_object_object_foreach(ref, k1, val1) {
		const char *const p1[] = { k1 };

		jsonr_fields(doc, p1, &v1, 1);
		if (jsonr_parse_find(buf, size, JSONR_MAX_DEPTH, p1, 1, &f, why, sizeof(why)) < 0 ||
		    !value_eq(&f, &v1))
			abort();
		if (!json_object_is_type(val1, json_type_object))
			continue;
		json_object_object_foreach(val1, k2, val2) {
			const char *const p2[] = { k1, k2 };

			(void)val2;
			jsonr_fields(&v1, p2 + 1, &v2, 1);
			if (jsonr_parse_find(buf, size, JSONR_MAX_DEPTH, p2, 2, &f, why,
					     sizeof(why)) < 0 || !value_eq(&f, &v2))
				abort();
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *buf = (const char *)data;
	struct jsonr_value doc, d;
	struct skip skip;
	json_object *ref;
	unsigned int c;
	char why[128];
	bool ok;
	int r;

	ref = reference(buf, size, JSONR_MAX_DEPTH + 1, &ok);
	r = jsonr_parse(buf, size, &doc, why, sizeof(why));
	if (r == 0 && !ok)
		abort(); /* jsonr accepted what json-c refuses */
	if (r == 0 && memchr(buf, 0, size))
		abort(); /* a NUL byte is never JSON */
	if (r < 0 && strstr(why, "nesting too deep") && !too_deep(buf, size, why, JSONR_MAX_DEPTH))
		abort(); /* refused at another depth */
	/* json-c's strict mode still takes numbers that RFC 8259 does not ("1.", "00", "-00",
	 * NaN), single-quoted strings and a raw NUL in a string: jsonr refuses them, and nesting
	 * deeper than its limit, and nothing else that json-c takes. */
	if (r < 0 && ok && !strstr(why, "expected a digit") && !strstr(why, "nesting too deep") &&
	    !json_c_quirk(buf, size, why) && !memchr(buf, 0, size) &&
	    !json_object_is_type(ref, json_type_double) && !json_object_is_type(ref, json_type_int))
		abort();
	if (r < 0) {
		json_object_put(ref);
		return 0;
	}
	departs(buf, size, &skip.keys, &skip.strings);
	same(&doc, ref, &skip);
	if (!skip.keys && !skip.strings)
		finds(buf, size, &doc, ref);
	json_object_put(ref);
	/* C containers deep: accepted with a limit of C, refused with C - 1, where the deepest
	 * one opens. */
	nesting(buf, size, &c);
	if (jsonr_parse_depth(buf, size, c, &d, why, sizeof(why)) < 0 || d.text != doc.text ||
	    d.len != doc.len || d.type != doc.type)
		abort();
	if (c > 0 && (jsonr_parse_depth(buf, size, c - 1, &d, why, sizeof(why)) != -EINVAL ||
		      !too_deep(buf, size, why, c - 1)))
		abort();
	/* What a limit of C accepts, json-c accepts with C + 1. */
	ref = reference(buf, size, c + 1, &ok);
	if (!ok)
		abort();
	json_object_put(ref);
	return 0;
}
