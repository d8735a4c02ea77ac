/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Prometheus text exposition (format 0.0.4) for krsid's metrics, and the one HTTP request a
 * scraper sends. Pure: krsid gathers the values, this writes them; tested on the host.
 */
#ifndef KRSI_METRICS_H
#define KRSI_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct metrics_buf {
	char *s;
	size_t len, cap;
	bool oom; /* an append failed: the text is cut short, send an error instead */
};

/* "# HELP NAME HELP" and "# TYPE NAME TYPE" (counter, gauge): once per metric family. */
void metrics_family(struct metrics_buf *b, const char *name, const char *type, const char *help);
/*
 * One sample: NAME{K1="V1",...} VALUE. LABELS is NULL or a NULL-terminated list of key, value
 * pairs; values are escaped (backslash, double quote, newline).
 */
void metrics_sample(struct metrics_buf *b, const char *name, const char *const *labels,
		    uint64_t value);
void metrics_buf_free(struct metrics_buf *b);

/* The longest request (line and headers) a scrape may send. */
#define METRICS_REQUEST_MAX 8192

/*
 * What to answer the request REQ (LEN bytes read so far): 0 when the headers are not complete
 * yet, else an HTTP status: 200 for GET or HEAD of /metrics (*HEAD set for HEAD), 404 for
 * another path, 405 for another method, 400 for a malformed request, 431 when the headers do
 * not end within METRICS_REQUEST_MAX bytes.
 */
int metrics_http_route(const char *req, size_t len, bool *head);
const char *metrics_http_reason(int status);

#endif
