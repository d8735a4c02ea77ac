/* SPDX-License-Identifier: GPL-2.0 */
/* Small helpers shared by krsid, krsictl and the unit tests: cleanup attributes, errors. */
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
/* KRSI_NO_JSONC: for krsi-oci-hook, built without json-c (oci-hooks/hook.mk). */
#ifndef KRSI_NO_JSONC
#include <json-c/json.h>
#endif

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

#ifndef KRSI_NO_JSONC
static inline void json_putp(json_object **o)
{
	json_object_put(*o);
}
#define _cleanup_json_ __attribute__((cleanup(json_putp)))
#endif

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

#ifndef KRSI_NO_JSONC
/* True when the JSON string V holds a NUL: json-c keeps "\u0000", and a check of the C string
 * would see only what comes before it ("web\u0000x" would pass as "web"). */
static inline bool json_string_has_nul(json_object *v)
{
	return strlen(json_object_get_string(v)) != (size_t)json_object_get_string_len(v);
}

/*
 * TEXT (LEN bytes) as one JSON document, parsed strictly (RFC 8259 numbers, no trailing commas:
 * what the Go and yajl parsers of the runtimes accept) with nothing but white space after it.
 * On failure *RET is NULL and ERR says "WHAT: not valid JSON at byte N: why".
 */
static inline int json_parse_strict(const char *what, const char *text, size_t len,
				    json_object **ret, struct krsi_err *err)
{
	struct json_tokener *tok = json_tokener_new();
	enum json_tokener_error jerr;
	json_object *doc;
	size_t end;

	*ret = NULL;
	if (!tok)
		return err_set(err, -ENOMEM, "%s: out of memory", what);
	if (len > INT32_MAX) {
		json_tokener_free(tok);
		return err_set(err, -EFBIG, "%s: %zu bytes is too large", what, len);
	}
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
	doc = json_tokener_parse_ex(tok, text, (int)len);
	jerr = json_tokener_get_error(tok);
	end = json_tokener_get_parse_end(tok);
	json_tokener_free(tok);
	if (!doc || jerr != json_tokener_success) {
		json_object_put(doc);
		return err_set(err, -EINVAL, "%s: not valid JSON at byte %zu: %s", what, end,
			       jerr == json_tokener_continue || jerr == json_tokener_success
				       ? "unexpected end of input"
				       : json_tokener_error_desc(jerr));
	}
	for (; end < len; end++) {
		if (!strchr(" \t\r\n", text[end]) || !text[end]) {
			json_object_put(doc);
			return err_set(err, -EINVAL,
				       "%s: not valid JSON: data after the document at byte %zu", what,
				       end);
		}
	}
	*ret = doc;
	return 0;
}
#endif /* KRSI_NO_JSONC */

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
