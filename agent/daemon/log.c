// SPDX-License-Identifier: GPL-2.0
/* krsid's log (log.h). */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "daemon/log.h"

static struct {
	FILE *f;
	int max_level;
	bool journal;
} sink = { NULL, LOG_INFO, false };

void log_setup(FILE *f, int max_level, bool journal)
{
	sink.f = f;
	sink.max_level = max_level;
	sink.journal = journal;
}

FILE *log_file(void)
{
	return sink.f ? sink.f : stderr;
}

int log_max_level(void)
{
	return sink.max_level;
}

static void log_va(int level, const char *fmt, va_list ap)
{
	FILE *f = log_file();
	char ts[32];
	time_t now;
	struct tm tm;

	if (level > sink.max_level)
		return;
	if (sink.journal) {
		/* journald stamps the time and the pid; "<N>" is the line's priority */
		fprintf(f, "<%d>", level);
	} else {
		now = time(NULL);
		localtime_r(&now, &tm);
		strftime(ts, sizeof(ts), "%Y-%m-%dT%H:%M:%S", &tm);
		fprintf(f, "%s krsid[%d]: ", ts, getpid());
	}
	vfprintf(f, fmt, ap);
	fputc('\n', f);
	fflush(f);
}

void log_at(int level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_va(level, fmt, ap);
	va_end(ap);
}

int log_ret(int level, int r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_va(level, fmt, ap);
	va_end(ap);
	return r;
}
