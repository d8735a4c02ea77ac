// SPDX-License-Identifier: GPL-2.0
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy/metrics.h"

static void put(struct metrics_buf *b, const char *s, size_t n)
{
	if (b->oom)
		return;
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 4096;
		char *v;

		while (b->len + n + 1 > cap)
			cap *= 2;
		v = realloc(b->s, cap);
		if (!v) {
			b->oom = true;
			return;
		}
		b->s = v;
		b->cap = cap;
	}
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = 0;
}

static void puts_(struct metrics_buf *b, const char *s)
{
	put(b, s, strlen(s));
}

/* Label values escape \, " and newline; HELP text escapes \ and newline. */
static void put_escaped(struct metrics_buf *b, const char *s, bool quote)
{
	for (; *s; s++) {
		if (*s == '\\')
			puts_(b, "\\\\");
		else if (*s == '\n')
			puts_(b, "\\n");
		else if (*s == '"' && quote)
			puts_(b, "\\\"");
		else
			put(b, s, 1);
	}
}

void metrics_family(struct metrics_buf *b, const char *name, const char *type, const char *help)
{
	puts_(b, "# HELP ");
	puts_(b, name);
	puts_(b, " ");
	put_escaped(b, help, false);
	puts_(b, "\n# TYPE ");
	puts_(b, name);
	puts_(b, " ");
	puts_(b, type);
	puts_(b, "\n");
}

void metrics_sample(struct metrics_buf *b, const char *name, const char *const *labels,
		    uint64_t value)
{
	char v[32];

	puts_(b, name);
	if (labels && labels[0]) {
		puts_(b, "{");
		for (size_t i = 0; labels[i] && labels[i + 1]; i += 2) {
			if (i)
				puts_(b, ",");
			puts_(b, labels[i]);
			puts_(b, "=\"");
			put_escaped(b, labels[i + 1], true);
			puts_(b, "\"");
		}
		puts_(b, "}");
	}
	snprintf(v, sizeof(v), " %llu\n", (unsigned long long)value);
	puts_(b, v);
}

void metrics_buf_free(struct metrics_buf *b)
{
	free(b->s);
	*b = (struct metrics_buf){ 0 };
}

/* Where the headers end (the blank line), or NULL. */
static const char *headers_end(const char *req, size_t len)
{
	for (size_t i = 0; i + 1 < len; i++) {
		if (req[i] == '\n' && req[i + 1] == '\n')
			return req + i + 2;
		if (i + 3 < len && !memcmp(req + i, "\r\n\r\n", 4))
			return req + i + 4;
	}
	return NULL;
}

int metrics_http_route(const char *req, size_t len, bool *head)
{
	const char *eol, *sp1, *sp2;
	size_t mlen, plen;

	*head = false;
	if (!headers_end(req, len))
		return len >= METRICS_REQUEST_MAX ? 431 : 0;
	eol = memchr(req, '\n', len);
	/* METHOD SP TARGET SP HTTP/1.x, nothing else on the line, no NUL in it */
	if (!eol || memchr(req, 0, eol - req))
		return 400;
	if (eol > req && eol[-1] == '\r')
		eol--;
	sp1 = memchr(req, ' ', eol - req);
	if (!sp1 || sp1 == req)
		return 400;
	sp2 = memchr(sp1 + 1, ' ', eol - sp1 - 1);
	if (!sp2 || sp2 == sp1 + 1 || eol - sp2 - 1 != 8 || memcmp(sp2 + 1, "HTTP/1.", 7) ||
	    (sp2[8] != '0' && sp2[8] != '1'))
		return 400;
	mlen = sp1 - req;
	plen = sp2 - sp1 - 1;
	if (mlen == 4 && !memcmp(req, "HEAD", 4))
		*head = true;
	else if (mlen != 3 || memcmp(req, "GET", 3))
		return 405;
	/* /metrics, with or without a query string (Prometheus sends none; curl users may) */
	if (plen >= 8 && !memcmp(sp1 + 1, "/metrics", 8) && (plen == 8 || sp1[9] == '?'))
		return 200;
	return 404;
}

const char *metrics_http_reason(int status)
{
	switch (status) {
	case 200: return "OK";
	case 400: return "Bad Request";
	case 404: return "Not Found";
	case 405: return "Method Not Allowed";
	case 408: return "Request Timeout";
	case 431: return "Request Header Fields Too Large";
	case 500: return "Internal Server Error";
	}
	return "Error";
}
