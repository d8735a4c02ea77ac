// SPDX-License-Identifier: GPL-2.0
#include <stdarg.h>

#include "unit.h"

int unit_n, unit_failed;

void unit_result(bool ok, const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	unit_n++;
	printf("%sok %d - ", ok ? "" : "not ", unit_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	if (!ok) {
		unit_failed++;
		printf("#   at %s:%d\n", file, line);
	}
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	test_profile();
	test_protocol();
	test_request();
	test_registry();
	test_hook();
	test_events();
	test_hookset();
	test_identity();
	test_metrics();
	test_learn();
	test_sockaddr();
	test_resolve_child();
	test_grace();
	test_util();
	test_sdnotify();
	test_runc();
	test_kubearmor();
	printf("1..%d\n", unit_n);
	printf("%d passed, %d failed\n", unit_n - unit_failed, unit_failed);
	return unit_failed ? 1 : 0;
}
