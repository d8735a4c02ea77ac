// SPDX-License-Identifier: GPL-2.0
/* krsictl events: the agent's recent events, then with --follow new ones as they come. */
#include <errno.h>
#include <string.h>

#include "cli/cli.h"

struct events_opts {
	bool follow;
	const char *container;
};

static int events_option(void *opts, int val, const char *arg)
{
	struct events_opts *o = opts;

	if (val == 'f')
		o->follow = true;
	else if (val == 'c')
		o->container = arg;
	return CLI_CONTINUE;
}

/* The reply's recent events, one line each: EXIT_OK, or the exit code with the agent's error
 * printed. */
static int events_reply(json_object *o)
{
	json_object *ok, *arr;

	if (!json_object_object_get_ex(o, "ok", &ok) || !json_object_get_boolean(ok)) {
		fprintf(stderr, "krsictl: %s\n", cli_str(o, "error"));
		return EXIT_REFUSED;
	}
	json_object_object_get_ex(o, "events", &arr);
	for (size_t i = 0; arr && i < json_object_array_length(arr); i++)
		cli_print_line(json_object_array_get_idx(arr, i));
	return EXIT_OK;
}

static int events_run(struct cli *cli, int argc, char **argv)
{
	struct events_opts o = { 0 };
	struct krsi_err err = { "" };
	struct krsi_request rq;
	struct cli_stream s;
	char *line, req[PROTO_REQUEST_MAX];
	int n, r = cli_parse(cli, &argc, &argv, events_option, &o);

	if (r != CLI_CONTINUE)
		return r;
	rq = (struct krsi_request){ .op = PROTO_EVENTS, .follow = o.follow,
				    .container = o.container };
	n = cli_request_line(&rq, req);
	if (n < 0)
		return EXIT_USAGE;
	if (cli_stream_connect(&s, cli, o.follow ? 0 : cli->timeout_ms, &err) < 0) {
		fprintf(stderr, "krsictl: %s\n", err.msg);
		return EXIT_UNREACHABLE;
	}
	r = proto_send_line(s.fd, req, n);
	if (r < 0) {
		fprintf(stderr, "krsictl: send: %s\n", strerror(-r));
		cli_stream_close(&s);
		return EXIT_UNREACHABLE;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	/* Without --follow a reply that does not come within the timeout ends it, as the end of
	 * the stream does. */
	for (bool first = true; cli_stream_line(&s, o.follow ? -1 : cli->timeout_ms, &line) > 0;
	     first = false) {
		json_object *ev = json_tokener_parse(line);

		if (!ev) {
			fprintf(stderr, "krsictl: not JSON from the agent: %s\n", line);
			r = EXIT_UNREACHABLE;
			break;
		}
		if (first)
			r = events_reply(ev);
		else
			cli_print_line(ev);
		json_object_put(ev);
		if (r || (first && !o.follow))
			break;
	}
	cli_stream_close(&s);
	return r;
}

static const struct option events_options[] = { OPT_FOLLOW, OPT_CONTAINER, {} };

const struct cli_command cli_events = {
	.name = "events",
	.options = events_options,
	.run = events_run,
	.usage = "events [--follow] [--container ID]",
	.help = "recent events, then new ones with --follow",
};
