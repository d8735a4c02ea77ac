/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Small helpers shared by krsid, krsictl, the OCI hook and the unit tests: cleanup attributes,
 * errors. No library but libc: the hook links this (lib/jsonc.h has the json-c helpers).
 */
#ifndef KRSI_UTIL_H
#define KRSI_UTIL_H

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* An error message for the caller to log or send: modules fill it, main paths print it. */
struct krsi_err {
	char msg[512];
};

__attribute__((format(printf, 3, 4))) static inline int err_set(struct krsi_err *err, int ret,
								 const char *fmt, ...)
{
	va_list ap;

	if (err) {
		va_start(ap, fmt);
		vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
		va_end(ap);
	}
	return ret;
}

/*
 * Add context in front of ERR's message, the way crun's crun_error_wrap() does: "WHAT: the
 * message". Returns RET, so that a failing path stays one line:
 *   return err_wrap(err, r, "profile %s", name);
 */
__attribute__((format(printf, 3, 4))) static inline int err_wrap(struct krsi_err *err, int ret,
								  const char *fmt, ...)
{
	char ctx[256];
	size_t n, size = sizeof(err->msg);
	va_list ap;

	if (!err)
		return ret;
	va_start(ap, fmt);
	vsnprintf(ctx, sizeof(ctx), fmt, ap);
	va_end(ap);
	n = strlen(ctx) + 2; /* "CTX: " before the message, which keeps what fits after it */
	memmove(err->msg + n, err->msg, size - n - 1);
	err->msg[size - 1] = 0;
	memcpy(err->msg, ctx, n - 2);
	memcpy(err->msg + n - 2, ": ", 2);
	return ret;
}

static inline void freep(void *p)
{
	free(*(void **)p);
}

static inline void closep(int *fd)
{
	if (*fd >= 0)
		close(*fd);
}

static inline void fclosep(FILE **f)
{
	if (*f)
		fclose(*f);
}

#define _cleanup_free_ __attribute__((cleanup(freep)))
#define _cleanup_close_ __attribute__((cleanup(closep)))
#define _cleanup_fclose_ __attribute__((cleanup(fclosep)))

/* Move a pointer or fd out of a cleanup variable. */
#define TAKE_PTR(p)                                                                                \
	({                                                                                         \
		__typeof__(p) _p = (p);                                                            \
		(p) = NULL;                                                                        \
		_p;                                                                                \
	})
#define TAKE_FD(fd)                                                                                \
	({                                                                                         \
		int _fd = (fd);                                                                    \
		(fd) = -1;                                                                         \
		_fd;                                                                               \
	})

/* The start of the small file PATH (a /proc, /sys or cgroup file), NUL-terminated, into BUF
 * (SIZE bytes): one read. 0 or -errno. */
static inline int read_small(const char *path, char *buf, size_t size)
{
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, size - 1);
	if (n < 0)
		return -errno;
	buf[n] = 0;
	return 0;
}

/* FNV-1a, 64 bits: the profile digest and object hashes. */
static inline uint64_t fnv1a64(const void *data, size_t len, uint64_t h)
{
	const unsigned char *p = data;

	for (size_t i = 0; i < len; i++) {
		h ^= p[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}
#define FNV1A64_INIT 0xcbf29ce484222325ULL

/* strtoull with the checks: decimal, whole string, no overflow. */
static inline int parse_u64(const char *s, uint64_t *ret)
{
	char *end;
	unsigned long long v;

	if (!s || !*s || *s == '-' || *s == '+')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return -errno;
	if (*end)
		return -EINVAL;
	*ret = v;
	return 0;
}

#endif /* KRSI_UTIL_H */
