// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the HTTP request a metrics scraper sends (on a unix socket, and on
 * 127.0.0.1 with --metrics-port). krsid reads it in pieces and asks metrics_http_route() after
 * each: the bytes go in whole and as every prefix a read could end at. The answer is one of
 * the documented statuses, "not complete" only while no blank line ends the headers, and a
 * prefix never gets a different final answer than the request it starts (the route depends
 * only on the request line once the headers end). HEAD is reported for a HEAD request only:
 * its answer, whatever the status, has no body.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "policy/metrics.h"

static bool known(int st)
{
	return st == 0 || st == 200 || st == 400 || st == 404 || st == 405 || st == 431;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	bool head, head2;
	int st, st2, first = 0;
	char *buf;

	if (size > METRICS_REQUEST_MAX)
		size = METRICS_REQUEST_MAX;
	buf = malloc(size ? size : 1); /* no NUL after the bytes: ASan sees an overread */
	if (!buf)
		return 0;
	memcpy(buf, data, size);
	st = metrics_http_route(buf, size, &head);
	if (!known(st) || (head && (size < 5 || memcmp(buf, "HEAD ", 5))) ||
	    !metrics_http_reason(st ? st : 200)[0])
		abort();
	for (size_t n = 0; n <= size; n++) {
		st2 = metrics_http_route(buf, n, &head2);
		if (!known(st2))
			abort();
		if (st2 && !first)
			first = st2;
		/* once a prefix is complete, every longer one answers the same */
		if (first && st2 && st2 != first && st2 != 431)
			abort();
	}
	if (first && st && st != first)
		abort();
	free(buf);
	return 0;
}
