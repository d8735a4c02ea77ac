// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: krsi-runc's command line (lib/runc_args.c), as an engine's shim writes it.
 * The input is the argument vector, words separated by NUL bytes. On success runc's vector must
 * be the input's words in order with krsi-runc's own options (and their values) taken out, end
 * with NULL, and name a bundle and id only from the input; on failure the error must say why.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/runc_args.h"

#define MAXW 64

static bool from_input(const char *p, char *buf, size_t size)
{
	return !p || (p >= buf && p < buf + size);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *argv[MAXW + 1], *out[MAXW + 2], *buf;
	struct krsi_err err = { "" };
	struct runc_args a;
	int argc = 0, j = 0;

	buf = malloc(size + 1);
	if (!buf)
		abort();
	memcpy(buf, data, size);
	buf[size] = 0;
	for (size_t i = 0; i <= size && argc < MAXW;) {
		argv[argc++] = buf + i;
		i += strlen(buf + i) + 1;
	}
	argv[argc] = NULL;
	if (runc_args_parse(argc, argv, out, &a, &err) < 0) {
		if (!err.msg[0])
			abort();
		free(buf);
		return 0;
	}
	if (a.argc > argc || out[a.argc] != NULL || a.argv != out)
		abort();
	/*
	 * out[1..] is a subsequence of argv[1..]. Before the command, a --krsi- word is left only
	 * as the value of the runc option before it (`--log --krsi-x` logs to ./--krsi-x, as runc
	 * reads it).
	 */
	for (int i = 1; i < a.argc; i++) {
		while (j < argc && argv[j] != out[i])
			j++;
		if (j == argc)
			abort();
		if (!strncmp(out[i], "--krsi-", 7) && (!a.command || out[i] < a.command) &&
		    (out[i - 1][0] != '-' || strchr(out[i - 1], '=')))
			abort();
	}
	if (!from_input(a.bundle, buf, size + 1) || !from_input(a.id, buf, size + 1) ||
	    !from_input(a.command, buf, size + 1) || (a.creates && !a.command))
		abort();
	free(buf);
	return 0;
}
