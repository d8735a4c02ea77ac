/* SPDX-License-Identifier: GPL-2.0 */
/*
 * krsid's log: one line per message, "TIME krsid[PID]: message", to stderr or --log FILE, with
 * syslog's levels. Debug lines are written only with -v. Under systemd, where stderr is the
 * journal's stream, a line is "<LEVEL>message" instead: journald stamps it and keeps the level.
 * The sink is the one piece of state kept outside struct krsid: libbpf's print callback
 * (bpfobj.c) has no argument to carry it.
 */
#ifndef KRSI_LOG_H
#define KRSI_LOG_H

#include <stdbool.h>
#include <stdio.h>
#include <syslog.h>

/* Write to F (stderr until called) lines of MAX_LEVEL and more urgent; JOURNAL: "<N>" lines. */
void log_setup(FILE *f, int max_level, bool journal);
FILE *log_file(void);
int log_max_level(void);

__attribute__((format(printf, 2, 3))) void log_at(int level, const char *fmt, ...);

/* Log at LEVEL and return R (a -errno), so that a failing path is one line. */
__attribute__((format(printf, 3, 4))) int log_ret(int level, int r, const char *fmt, ...);

#define log_error(...) log_at(LOG_ERR, __VA_ARGS__)
#define log_warn(...) log_at(LOG_WARNING, __VA_ARGS__)
#define log_info(...) log_at(LOG_INFO, __VA_ARGS__)
#define log_debug(...) log_at(LOG_DEBUG, __VA_ARGS__)

#endif /* KRSI_LOG_H */
