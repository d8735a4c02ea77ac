// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/jsonr.h"

/*
 * Where a check stopped: WHY NULL = the input ended too soon. WANT: the member path that
 * jsonr_parse_find() looks for on the way, MATCHED of its keys matched by the members being
 * checked, FOUND the value at the path so far.
 */
struct scan {
	const char *end;
	const char *why, *at;
	unsigned int max_depth;
	const char *const *want;
	unsigned int n_want, matched;
	struct jsonr_value found;
};

static const char *ws(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t'))
		p++;
	return p;
}

static const char *fail(struct scan *s, const char *at, const char *why)
{
	s->why = why;
	s->at = at;
	return NULL;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* The four hex digits at P as a number, or -1. */
static long hex4(const char *p)
{
	long v = 0;

	for (int i = 0; i < 4; i++) {
		int h = hexval(p[i]);

		if (h < 0)
			return -1;
		v = v << 4 | h;
	}
	return v;
}

/* P at a string's opening quote: the byte after its closing one. */
static const char *skip_string(struct scan *s, const char *p)
{
	const char *end = s->end;

	for (p++; p < end; p++) {
		unsigned char c = *p;

		if (c == '"')
			return p + 1;
		/* Other control characters pass raw, as json-c's strict mode lets them. */
		if (!c)
			return fail(s, p, "a NUL byte in a string");
		if (c != '\\')
			continue;
		if (++p >= end)
			break;
		if (*p == 'u') {
			if (end - p < 5)
				break;
			if (hex4(p + 1) < 0)
				return fail(s, p - 1, "a \\u escape without four hex digits");
			p += 4;
		} else if (!*p || !strchr("\"\\/bfnrt", *p)) {
			return fail(s, p - 1, "an unknown escape in a string");
		}
	}
	return fail(s, end, NULL);
}

static const char *skip_digits(struct scan *s, const char *p)
{
	if (p >= s->end)
		return fail(s, p, NULL);
	if (*p < '0' || *p > '9')
		return fail(s, p, "expected a digit");
	while (p < s->end && *p >= '0' && *p <= '9')
		p++;
	return p;
}

static const char *skip_number(struct scan *s, const char *p)
{
	if (*p == '-')
		p++;
	if (p < s->end && *p == '0')
		p++;
	else if (!(p = skip_digits(s, p)))
		return NULL;
	if (p < s->end && *p == '.' && !(p = skip_digits(s, p + 1)))
		return NULL;
	if (p < s->end && (*p == 'e' || *p == 'E')) {
		p++;
		if (p < s->end && (*p == '+' || *p == '-'))
			p++;
		p = skip_digits(s, p);
	}
	return p;
}

static const char *skip_word(struct scan *s, const char *p, const char *w)
{
	size_t n = strlen(w), have = s->end - p;

	if (memcmp(p, w, have < n ? have : n))
		return fail(s, p, "an unexpected character");
	return have < n ? fail(s, s->end, NULL) : p + n;
}

static bool string_eq(const char *p, const char *s);
static enum jsonr_type type_at(char c);

/*
 * The member whose key K (checked) is at DEPTH of an object on the wanted path: whether it is
 * the next member of the path. A repeated key replaces what an earlier one held, as json-c
 * keeps the last.
 */
static bool want_member(struct scan *s, const char *k, unsigned int depth)
{
	if (depth != s->matched || depth >= s->n_want || !string_eq(k, s->want[depth]))
		return false;
	s->found = (struct jsonr_value){ JSONR_NONE, NULL, 0 };
	return true;
}

static const char *skip_value(struct scan *s, const char *p, unsigned int depth)
{
	const char *end = s->end;
	char close;

	p = ws(p, end);
	if (p >= end)
		return fail(s, p, NULL);
	switch (*p) {
	case '"':
		return skip_string(s, p);
	case 't':
		return skip_word(s, p, "true");
	case 'f':
		return skip_word(s, p, "false");
	case 'n':
		return skip_word(s, p, "null");
	case '{':
	case '[':
		break;
	default:
		if (*p == '-' || (*p >= '0' && *p <= '9'))
			return skip_number(s, p);
		return fail(s, p, "an unexpected character");
	}
	if (depth >= s->max_depth)
		return fail(s, p, "nesting too deep");
	close = *p == '{' ? '}' : ']';
	p = ws(p + 1, end);
	if (p < end && *p == close)
		return p + 1;
	for (;;) {
		const char *k = NULL, *v;

		if (close == '}') {
			if (p >= end)
				return fail(s, p, NULL);
			if (*p != '"')
				return fail(s, p, "expected a member's name");
			k = p;
			if (!(p = skip_string(s, p)))
				return NULL;
			p = ws(p, end);
			if (p >= end)
				return fail(s, p, NULL);
			if (*p != ':')
				return fail(s, p, "expected ':'");
			p++;
		}
		if (k && s->want && want_member(s, k, depth)) {
			s->matched = depth + 1;
			v = ws(p, end);
			p = skip_value(s, v, depth + 1);
			s->matched = depth;
			if (p && depth + 1 == s->n_want)
				s->found = (struct jsonr_value){ type_at(*v), v, p - v };
		} else {
			p = skip_value(s, p, depth + 1);
		}
		if (!p)
			return NULL;
		p = ws(p, end);
		if (p >= end)
			return fail(s, p, NULL);
		if (*p == close)
			return p + 1;
		if (*p != ',')
			return fail(s, p, close == '}' ? "expected ',' or '}'" : "expected ',' or ']'");
		p = ws(p + 1, end);
	}
}

static enum jsonr_type type_at(char c)
{
	switch (c) {
	case '"':
		return JSONR_STRING;
	case '{':
		return JSONR_OBJECT;
	case '[':
		return JSONR_ARRAY;
	case 't':
		return JSONR_TRUE;
	case 'f':
		return JSONR_FALSE;
	case 'n':
		return JSONR_NULL;
	default:
		return JSONR_NUMBER;
	}
}

/*
 * Check the whole document of S (from TEXT to S->end) as one value with only white space
 * around it: 0, or -EINVAL or -EBADMSG with *WHY. *DOC gets the value's span once it is
 * whole, even when data follows it.
 */
static int scan_document(struct scan *s, const char *text, struct jsonr_value *doc, char *why,
			 size_t why_size)
{
	const char *p = ws(text, s->end), *e = skip_value(s, p, 0);

	if (!e) {
		if (!s->why)
			snprintf(why, why_size, "unexpected end of input");
		else
			snprintf(why, why_size, "%s at byte %zu", s->why, (size_t)(s->at - text));
		return -EINVAL;
	}
	*doc = (struct jsonr_value){ type_at(*p), p, e - p };
	e = ws(e, s->end);
	if (e < s->end) {
		snprintf(why, why_size, "data after the document at byte %zu", (size_t)(e - text));
		return -EBADMSG;
	}
	return 0;
}

/* At most JSONR_MAX_DEPTH: jsonr_fields() and jsonr_index() walk what was checked. */
static unsigned int depth_limit(unsigned int max_depth)
{
	return max_depth < JSONR_MAX_DEPTH ? max_depth : JSONR_MAX_DEPTH;
}

int jsonr_parse_depth(const char *text, size_t len, unsigned int max_depth, struct jsonr_value *ret,
		      char *why, size_t why_size)
{
	struct scan s = { .end = text + len, .max_depth = depth_limit(max_depth) };

	return scan_document(&s, text, ret, why, why_size);
}

int jsonr_parse(const char *text, size_t len, struct jsonr_value *ret, char *why, size_t why_size)
{
	return jsonr_parse_depth(text, len, JSONR_MAX_DEPTH, ret, why, why_size);
}

int jsonr_parse_find(const char *text, size_t len, unsigned int max_depth,
		     const char *const *keys, unsigned int n_keys, struct jsonr_value *ret,
		     char *why, size_t why_size)
{
	struct scan s = { .end = text + len, .max_depth = depth_limit(max_depth), .want = keys,
			  .n_want = n_keys };
	struct jsonr_value doc;
	int r = scan_document(&s, text, &doc, why, why_size);

	*ret = r == 0 ? s.found : (struct jsonr_value){ JSONR_NONE, NULL, 0 };
	return r;
}

/*
 * The next character of the string whose content continues at *P, as UTF-8 in OUT: its
 * length, 0 at the closing quote. A lone surrogate escape decodes to U+FFFD, as json-c does.
 */
static size_t decode_next(const char **pp, unsigned char out[4])
{
	const char *p = *pp;
	unsigned long c;

	if (*p == '"')
		return 0;
	if (*p != '\\') {
		out[0] = *p;
		*pp = p + 1;
		return 1;
	}
	p++;
	*pp = p + 1;
	switch (*p) {
	case 'b':
		out[0] = '\b';
		return 1;
	case 'f':
		out[0] = '\f';
		return 1;
	case 'n':
		out[0] = '\n';
		return 1;
	case 'r':
		out[0] = '\r';
		return 1;
	case 't':
		out[0] = '\t';
		return 1;
	case 'u':
		break;
	default: /* '"', '\\', '/' */
		out[0] = *p;
		return 1;
	}
	c = hex4(p + 1);
	*pp = p + 5;
	if (c >= 0xd800 && c <= 0xdbff && p[5] == '\\' && p[6] == 'u') {
		long lo = hex4(p + 7);

		if (lo >= 0xdc00 && lo <= 0xdfff) {
			c = 0x10000 + ((c - 0xd800) << 10) + (lo - 0xdc00);
			*pp = p + 11;
		}
	}
	if (c >= 0xd800 && c <= 0xdfff)
		c = 0xfffd;
	if (c < 0x80) {
		out[0] = c;
		return 1;
	}
	if (c < 0x800) {
		out[0] = 0xc0 | c >> 6;
		out[1] = 0x80 | (c & 0x3f);
		return 2;
	}
	if (c < 0x10000) {
		out[0] = 0xe0 | c >> 12;
		out[1] = 0x80 | (c >> 6 & 0x3f);
		out[2] = 0x80 | (c & 0x3f);
		return 3;
	}
	out[0] = 0xf0 | c >> 18;
	out[1] = 0x80 | (c >> 12 & 0x3f);
	out[2] = 0x80 | (c >> 6 & 0x3f);
	out[3] = 0x80 | (c & 0x3f);
	return 4;
}

/* Whether the checked string at P (its opening quote) decodes to S exactly. */
static bool string_eq(const char *p, const char *s)
{
	unsigned char b[4];
	size_t n;

	p++;
	while ((n = decode_next(&p, b))) {
		if (strncmp((const char *)b, s, n) || memchr(b, 0, n))
			return false;
		s += n;
	}
	return !*s;
}

bool jsonr_string_is(const struct jsonr_value *v, const char *s)
{
	return v->type == JSONR_STRING && string_eq(v->text, s);
}

void jsonr_fields(const struct jsonr_value *o, const char *const *keys, struct jsonr_value *vals,
		  size_t n)
{
	struct scan s;
	const char *p, *k, *v;

	for (size_t i = 0; i < n; i++)
		vals[i] = (struct jsonr_value){ JSONR_NONE, NULL, 0 };
	if (o->type != JSONR_OBJECT)
		return;
	s = (struct scan){ .end = o->text + o->len, .max_depth = JSONR_MAX_DEPTH };
	p = ws(o->text + 1, s.end);
	if (*p == '}')
		return;
	for (;;) {
		k = p;
		p = ws(skip_string(&s, k), s.end) + 1; /* past ':' */
		v = ws(p, s.end);
		p = skip_value(&s, v, 1);
		for (size_t i = 0; i < n; i++)
			if (string_eq(k, keys[i]))
				vals[i] = (struct jsonr_value){ type_at(*v), v, p - v };
		p = ws(p, s.end);
		if (*p == '}')
			return;
		p = ws(p + 1, s.end);
	}
}

/* One pass over array A up to element I (into *RET): the number of elements passed, I + 1 when
 * A has an element I. */
static size_t array_walk(const struct jsonr_value *a, size_t i, struct jsonr_value *ret)
{
	struct scan s;
	const char *p, *v;
	size_t n = 0;

	if (a->type != JSONR_ARRAY)
		return 0;
	s = (struct scan){ .end = a->text + a->len, .max_depth = JSONR_MAX_DEPTH };
	p = ws(a->text + 1, s.end);
	if (*p == ']')
		return 0;
	for (;;) {
		v = p;
		p = skip_value(&s, v, 1);
		if (n++ == i) {
			*ret = (struct jsonr_value){ type_at(*v), v, p - v };
			return n;
		}
		p = ws(p, s.end);
		if (*p == ']')
			return n;
		p = ws(p + 1, s.end);
	}
}

bool jsonr_index(const struct jsonr_value *a, size_t i, struct jsonr_value *ret)
{
	return array_walk(a, i, ret) > i;
}

size_t jsonr_length(const struct jsonr_value *a)
{
	return array_walk(a, SIZE_MAX, NULL);
}

int jsonr_string(const struct jsonr_value *v, char **ret, size_t *ret_len)
{
	const char *p;
	unsigned char b[4];
	size_t n, len = 0;
	char *out;

	if (v->type != JSONR_STRING)
		return -EINVAL;
	/* Decoded, a string is never longer than its text. */
	out = malloc(v->len);
	if (!out)
		return -ENOMEM;
	p = v->text + 1;
	while ((n = decode_next(&p, b))) {
		memcpy(out + len, b, n);
		len += n;
	}
	out[len] = 0;
	*ret = out;
	if (ret_len)
		*ret_len = len;
	return 0;
}

/* The magnitude of plain integer V (no fraction, no exponent) and its sign. */
static bool plain_int(const struct jsonr_value *v, uint64_t *ret, bool *neg)
{
	const char *p, *end;
	uint64_t x = 0;

	if (v->type != JSONR_NUMBER)
		return false;
	p = v->text;
	end = p + v->len;
	*neg = *p == '-';
	if (*neg)
		p++;
	for (; p < end; p++) {
		if (*p < '0' || *p > '9' || x > (UINT64_MAX - (*p - '0')) / 10)
			return false;
		x = x * 10 + (*p - '0');
	}
	*ret = x;
	return true;
}

bool jsonr_int64(const struct jsonr_value *v, int64_t *ret)
{
	uint64_t x;
	bool neg;

	if (!plain_int(v, &x, &neg) || x > (uint64_t)INT64_MAX + neg)
		return false;
	*ret = neg ? (int64_t)(0 - x) : (int64_t)x;
	return true;
}

bool jsonr_uint64(const struct jsonr_value *v, uint64_t *ret)
{
	bool neg;

	return plain_int(v, ret, &neg) && (!neg || !*ret);
}
