/* SPDX-License-Identifier: GPL-2.0 */
/* A tiny TAP runner for the host unit tests: no root, no BPF, no VM. */
#ifndef KRSI_UNIT_H
#define KRSI_UNIT_H

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

extern int unit_n, unit_failed;

void unit_result(bool ok, const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* CHECK(cond, "description", ...): one TAP line. */
#define CHECK(cond, ...) unit_result(!!(cond), __FILE__, __LINE__, __VA_ARGS__)
/* CHECK_STR(got, want, "description"): compares strings, prints both on failure. */
#define CHECK_STR(got, want, ...)                                                                  \
	do {                                                                                       \
		const char *_g = (got), *_w = (want);                                              \
		bool _ok = _g && _w && !strcmp(_g, _w);                                            \
		unit_result(_ok, __FILE__, __LINE__, __VA_ARGS__);                                 \
		if (!_ok)                                                                          \
			printf("#   got:  %s\n#   want: %s\n", _g ? _g : "(null)", _w ? _w : "(null)"); \
	} while (0)

void test_profile(void);
void test_protocol(void);
void test_request(void);
void test_registry(void);
void test_hook(void);
void test_events(void);
void test_hookset(void);
void test_identity(void);
void test_metrics(void);
void test_learn(void);
void test_sockaddr(void);
void test_resolve_child(void);
void test_grace(void);
void test_util(void);
void test_runc(void);
void test_kubearmor(void);
void test_sdnotify(void);

#endif
