// SPDX-License-Identifier: GPL-2.0
#include "policy/metrics.h"
#include "unit.h"

static int route(const char *req, bool *head)
{
	return metrics_http_route(req, strlen(req), head);
}

void test_metrics(void)
{
	struct metrics_buf b = { 0 };
	const char *lab[] = { "profile", "we\"ird\\na\nme", "hook", "exec", NULL };
	char big[METRICS_REQUEST_MAX + 16];
	bool head;

	metrics_family(&b, "krsi_denials_total", "counter", "Denials, by profile and hook.\nok\\");
	metrics_sample(&b, "krsi_denials_total", lab, 18446744073709551615ULL);
	metrics_sample(&b, "krsi_containers", NULL, 0);
	CHECK_STR(b.s,
		  "# HELP krsi_denials_total Denials, by profile and hook.\\nok\\\\\n"
		  "# TYPE krsi_denials_total counter\n"
		  "krsi_denials_total{profile=\"we\\\"ird\\\\na\\nme\",hook=\"exec\"} "
		  "18446744073709551615\n"
		  "krsi_containers 0\n",
		  "exposition: HELP/TYPE lines, escaped label values and help, a u64 in full");
	CHECK(!b.oom, "no allocation failed");
	metrics_buf_free(&b);
	CHECK(b.s == NULL && b.len == 0, "freed buffer is empty");

	CHECK(route("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n", &head) == 200 && !head,
	      "GET /metrics is served");
	CHECK(route("HEAD /metrics HTTP/1.0\n\n", &head) == 200 && head, "HEAD, bare newlines");
	CHECK(route("GET /metrics?x=1 HTTP/1.1\r\n\r\n", &head) == 200, "a query string is ignored");
	CHECK(route("GET /metrics HTTP/1.1\r\nHost: x\r\n", &head) == 0,
	      "headers not finished: wait for more");
	CHECK(route("GET / HTTP/1.1\r\n\r\n", &head) == 404, "another path: 404");
	CHECK(route("GET /metricsX HTTP/1.1\r\n\r\n", &head) == 404, "a longer path: 404");
	CHECK(route("POST /metrics HTTP/1.1\r\n\r\n", &head) == 405, "another method: 405");
	CHECK(route("GET /metrics\r\n\r\n", &head) == 400, "no version: 400");
	CHECK(route("GET  /metrics HTTP/1.1\r\n\r\n", &head) == 400, "two spaces: 400");
	CHECK(route("GET /metrics HTTP/2.0\r\n\r\n", &head) == 400, "HTTP/2 text: 400");
	CHECK(route("GET /metrics HTTP/1.1 x\r\n\r\n", &head) == 400, "trailing words: 400");
	CHECK(metrics_http_route("GET /m\0etrics HTTP/1.1\n\n", 24, &head) == 400,
	      "a NUL in the request line: 400");
	memset(big, 'a', sizeof(big));
	CHECK(metrics_http_route(big, METRICS_REQUEST_MAX, &head) == 431,
	      "no end of headers within the limit: 431");
	CHECK(metrics_http_route(big, 100, &head) == 0, "below the limit: wait");
	CHECK_STR(metrics_http_reason(405), "Method Not Allowed", "reason phrase");
}
