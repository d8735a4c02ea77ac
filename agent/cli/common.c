// SPDX-License-Identifier: GPL-2.0
/* What krsictl's commands share: a request and its reply, printing, event streams (cli.h). */
#include <errno.h>
#include <poll.h>
#include <string.h>

#include "cli/cli.h"

int cli_request_line(const struct krsi_request *rq, char *line)
{
	int n = krsi_request_write(rq, line, PROTO_REQUEST_MAX);

	if (n == -ENOSPC)
		fprintf(stderr, "krsictl: %s: the request would exceed %d bytes\n",
			proto_op_name(rq->op), PROTO_REQUEST_MAX);
	else if (n < 0)
		fprintf(stderr, "krsictl: %s: %s\n", proto_op_name(rq->op), strerror(-n));
	return n < 0 ? -1 : n;
}

int cli_call(const struct cli *cli, const struct krsi_request *rq, json_object **ret)
{
	struct krsi_err err = { "" };
	char line[PROTO_REQUEST_MAX];
	json_object *ok;
	int r = cli_request_line(rq, line);

	if (r < 0)
		return EXIT_USAGE;
	r = proto_call(cli->socket_path, line, r, cli->timeout_ms, ret, &err);
	if (r < 0) {
		fprintf(stderr, "krsictl: %s\n", err.msg);
		return EXIT_UNREACHABLE;
	}
	if (!json_object_object_get_ex(*ret, "ok", &ok)) {
		fprintf(stderr, "krsictl: reply without \"ok\": %s\n",
			json_object_to_json_string(*ret));
		return EXIT_UNREACHABLE;
	}
	if (!json_object_get_boolean(ok)) {
		json_object *e;

		json_object_object_get_ex(*ret, "error", &e);
		fprintf(stderr, "krsictl: %s\n", e ? json_object_get_string(e) : "request refused");
		return EXIT_REFUSED;
	}
	return EXIT_OK;
}

const char *cli_str(json_object *o, const char *key)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v))
		return "-";
	return json_object_get_string(v);
}

void cli_print_json(json_object *o)
{
	printf("%s\n", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY |
							 JSON_C_TO_STRING_SPACED |
							 JSON_C_TO_STRING_NOSLASHESCAPE));
}

void cli_print_line(json_object *o)
{
	printf("%s\n", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
							 JSON_C_TO_STRING_NOSLASHESCAPE));
}

int cli_stream_connect(struct cli_stream *s, const struct cli *cli, int timeout_ms,
		       struct krsi_err *err)
{
	*s = (struct cli_stream){ .fd = proto_connect(cli->socket_path, timeout_ms, err) };
	return s->fd < 0 ? s->fd : 0;
}

/* Room for more: the buffer doubles, up to a line of PROTO_REPLY_MAX and its newline. */
static int stream_grow(struct cli_stream *s)
{
	size_t cap = s->cap ? 2 * s->cap : 64 * 1024;
	char *buf;

	if (s->cap > PROTO_REPLY_MAX)
		return -EMSGSIZE;
	if (cap > PROTO_REPLY_MAX + 1)
		cap = PROTO_REPLY_MAX + 1;
	buf = realloc(s->buf, cap);
	if (!buf)
		return -ENOMEM;
	s->buf = buf;
	s->cap = cap;
	return 0;
}

int cli_stream_line(struct cli_stream *s, int timeout_ms, char **line)
{
	if (s->consumed) {
		memmove(s->buf, s->buf + s->consumed, s->len - s->consumed);
		s->len -= s->consumed;
		s->consumed = 0;
	}
	for (;;) {
		char *nl = s->buf ? memchr(s->buf, '\n', s->len) : NULL;
		struct pollfd pfd = { .fd = s->fd, .events = POLLIN };
		ssize_t n;
		int r;

		if (nl) {
			*nl = 0;
			*line = s->buf;
			s->consumed = nl - s->buf + 1;
			return 1;
		}
		if (s->len == s->cap && (r = stream_grow(s)) < 0)
			return r;
		n = poll(&pfd, 1, timeout_ms);
		if (n == 0 || (n < 0 && errno == EINTR))
			return 0; /* the caller looks at its clock and its signals again */
		n = read(s->fd, s->buf + s->len, s->cap - s->len);
		if (n <= 0)
			return -EPIPE;
		s->len += n;
	}
}

void cli_stream_close(struct cli_stream *s)
{
	if (s->fd >= 0)
		close(s->fd);
	free(s->buf);
	*s = (struct cli_stream){ .fd = -1 };
}

static int json_option(void *opts, int val, const char *arg)
{
	if (val == 'j')
		*(bool *)opts = true;
	return CLI_CONTINUE;
}

int cli_listing(struct cli *cli, int argc, char **argv, enum proto_op op, json_object **ret)
{
	bool json = false;
	int r = cli_parse(cli, &argc, &argv, json_option, &json);

	if (r != CLI_CONTINUE)
		return r;
	r = cli_call(cli, &(struct krsi_request){ .op = op }, ret);
	if (r)
		return r;
	if (json) {
		cli_print_json(*ret);
		return EXIT_OK;
	}
	return CLI_CONTINUE;
}

/* Write TEXT to PATH through a temporary file and a rename: never half a profile. */
int cli_write_file(const char *path, const char *text)
{
	char tmp[4096];
	FILE *f;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp.%d", path, getpid()) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	f = fopen(tmp, "we");
	if (!f)
		return -errno;
	if (fputs(text, f) < 0 || fputc('\n', f) < 0 || fclose(f) != 0) {
		unlink(tmp);
		return -EIO;
	}
	if (rename(tmp, path) < 0) {
		int e = errno;

		unlink(tmp);
		return -e;
	}
	return 0;
}
