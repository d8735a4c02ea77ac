/* SPDX-License-Identifier: GPL-2.0 */
/*
 * jsonr: krsi's one small strict JSON reader (RFC 8259). For krsi-oci-hook, which a runtime
 * starts for every container and which therefore links no JSON library: a static hook with
 * json-c and glibc spent about 0.3 M instructions per start before main() read a byte (make
 * bench). And for krsid, which reads a bundle's root.path with it at every registration
 * (agent/policy/identity.c): json-c's tree of crun's 3 KB config.json cost 300,000.
 *
 * No tree is built. jsonr_parse() checks a whole document once and returns its top value as
 * a span of the text; jsonr_fields() finds an object's members by key in one pass, and the
 * typed getters decode one value. Keys and strings are compared and returned decoded, so
 * "\u0069d" is the key "id". A repeated key yields its last value, as json-c keeps it. It
 * accepts what json-c's strict mode accepts (raw control characters in strings too, bytes
 * above 0x7f unchecked) less what the RFC does not ("1.", "00", NaN, single quotes), and reads
 * it as json-c does, except where json-c 0.16 departs from the RFC and the runtimes' parsers:
 * it cuts a key at "\u0000", and reads a surrogate pair whose code point ends in D800-DFFF
 * ("\ud836\udc00", U+1D800) as U+FFFD. tests/fuzz/fuzz_jsonr.c checks that input by input,
 * against json-c's whole tree.
 */
#ifndef KRSI_JSONR_H
#define KRSI_JSONR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Containers nested deeper are refused ([[1]] nests 2). json-c's limit (32 by default) counts
 * values, the innermost scalar or empty container too: [[1]] is 3 of its levels, [[]] 2.
 */
#define JSONR_MAX_DEPTH 64

enum jsonr_type {
	JSONR_NONE, /* jsonr_fields(): no such member */
	JSONR_NULL,
	JSONR_FALSE,
	JSONR_TRUE,
	JSONR_NUMBER,
	JSONR_STRING,
	JSONR_ARRAY,
	JSONR_OBJECT,
};

/* A value's text: from its first byte (the quote of a string) to its last. */
struct jsonr_value {
	enum jsonr_type type;
	const char *text;
	size_t len;
};

/*
 * Check that TEXT (LEN bytes, no NUL needed) is one JSON value with only white space around
 * it. 0 and its span, or -EINVAL and *WHY: "unexpected end of input", "data after the
 * document at byte N", or what is wrong at byte N.
 */
int jsonr_parse(const char *text, size_t len, struct jsonr_value *ret, char *why, size_t why_size);
/* The same with at most MAX_DEPTH (up to JSONR_MAX_DEPTH) containers nested: for a reader that
 * leaves deeper documents to json-c, which then accepts them with a limit of MAX_DEPTH + 1. */
int jsonr_parse_depth(const char *text, size_t len, unsigned int max_depth, struct jsonr_value *ret,
		      char *why, size_t why_size);

/*
 * Check TEXT as jsonr_parse_depth() does and, in the same pass, find the value at the member
 * path KEYS[0..N_KEYS-1] ({"root":{"path":...}} for "root", "path"): into *RET, JSONR_NONE
 * when the path is absent or leads through a value that is not an object. What json-c would
 * read there: a repeated key's last value.
 */
int jsonr_parse_find(const char *text, size_t len, unsigned int max_depth,
		     const char *const *keys, unsigned int n_keys, struct jsonr_value *ret,
		     char *why, size_t why_size);

/* The members of object O named KEYS[0..N-1] into VALS (JSONR_NONE where absent). O must be
 * a value that jsonr_parse() checked. */
void jsonr_fields(const struct jsonr_value *o, const char *const *keys, struct jsonr_value *vals,
		  size_t n);

/* Element I of array A, false past its end. */
bool jsonr_index(const struct jsonr_value *a, size_t i, struct jsonr_value *ret);
size_t jsonr_length(const struct jsonr_value *a);

/* String V decoded into a new NUL-terminated buffer; *ret_len counts a "\u0000" it may hold.
 * -EINVAL for a value that is not a string, -ENOMEM. */
int jsonr_string(const struct jsonr_value *v, char **ret, size_t *ret_len);
/* Whether V is a string equal to S (decoded, whole: no NUL inside). */
bool jsonr_string_is(const struct jsonr_value *v, const char *s);
/* V as a plain integer (no fraction or exponent) within int64 / uint64, else false. */
bool jsonr_int64(const struct jsonr_value *v, int64_t *ret);
bool jsonr_uint64(const struct jsonr_value *v, uint64_t *ret);

#endif
