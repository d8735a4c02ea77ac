// SPDX-License-Identifier: GPL-2.0
/*
 * krsictl profile learn: watch a container, or every container of a profile, for a while and
 * write a profile that allows only what it did (policy/learn.h has the logic). The steps: find
 * the containers and their base profile, subscribe to events, start learning, take the learn
 * events until the duration ends or a signal, stop learning, write the profile, report.
 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <time.h>

#include "cli/cli.h"
#include "policy/learn.h"

struct learn_opts {
	uint64_t duration_s, fold;
	const char *output, *name;
};

/* One run: what it learns from, and what it learned. */
struct learning {
	const struct cli *cli;
	const char *target;
	struct learn_opts o;
	json_object *ps, *show;	   /* the replies the strings below point into */
	const char *base, *single; /* the base profile; the container when TARGET names one */
	json_object *base_doc;
	char **set; /* the containers learned */
	size_t n_set;
	struct cli_stream sub;
	struct learn l;
	uint64_t lost0, lost1; /* the ring buffer's lost events at the start and at the stop */
	int64_t begun;
	char label[256];
};

/* "30", "30s", "5m", "2h" into seconds: 1 s to a day. */
static int parse_duration(const char *s, uint64_t *ret)
{
	char num[32];
	size_t n = strlen(s);
	uint64_t v = 0, mul = 1;

	if (n == 0 || n >= sizeof(num))
		return -EINVAL;
	memcpy(num, s, n + 1);
	switch (num[n - 1]) {
	case 'h':
		mul *= 60;
		/* fallthrough */
	case 'm':
		mul *= 60;
		/* fallthrough */
	case 's':
		num[--n] = 0;
	}
	if (parse_u64(num, &v) < 0 || v == 0 || v > PROTO_LEARN_MAX_S / mul)
		return -EINVAL;
	*ret = v * mul;
	return 0;
}

static int learn_option(void *opts, int val, const char *arg)
{
	struct learn_opts *o = opts;

	switch (val) {
	case 'D':
		if (parse_duration(arg, &o->duration_s) < 0) {
			fprintf(stderr, "krsictl: --duration %s: expected 1s to 24h (30, 30s, 5m, "
				"1h)\n", arg);
			return EXIT_USAGE;
		}
		break;
	case 'o':
		o->output = arg;
		break;
	case 'n':
		o->name = arg;
		break;
	case 'F':
		if (parse_u64(arg, &o->fold) < 0 || o->fold > 1000) {
			fprintf(stderr, "krsictl: --fold %s: expected 0 (never) to 1000 files\n",
				arg);
			return EXIT_USAGE;
		}
		break;
	}
	return CLI_CONTINUE;
}

/* SIGINT or SIGTERM during profile learn: end learning now, and write what was learned. */
static volatile sig_atomic_t learn_interrupted;

static void learn_interrupt(int sig)
{
	(void)sig;
	learn_interrupted = 1;
}

static int64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Send learn start (SECONDS) or stop for container C; its reply's "lost" in *LOST. */
static int learn_call(const struct cli *cli, const char *c, uint64_t seconds, uint64_t *lost)
{
	struct krsi_request rq = { .op = PROTO_LEARN, .container = c, .seconds = seconds,
				   .stop = !seconds };
	_cleanup_json_ json_object *rep = NULL;
	json_object *v;
	int r = cli_call(cli, &rq, &rep);

	if (!r && json_object_object_get_ex(rep, "lost", &v))
		*lost = json_object_get_uint64(v);
	return r;
}

/* Stop learning the first N containers of the run. */
static void learn_stop(struct learning *run, size_t n)
{
	for (size_t i = 0; i < n; i++)
		learn_call(run->cli, run->set[i], 0, &run->lost1);
}

static bool in_set(char **set, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (s && !strcmp(set[i], s))
			return true;
	return false;
}

/* The learned profile's name: --name, else the output file's without ".json", else
 * "learned". */
static void learn_name(struct learning *run)
{
	const char *out = run->o.output, *b;
	size_t n;

	if (run->o.name)
		return;
	if (!out) {
		run->o.name = "learned";
		return;
	}
	b = strrchr(out, '/') ? strrchr(out, '/') + 1 : out;
	n = strlen(b);
	snprintf(run->label, sizeof(run->label), "%.*s",
		 (int)(n > 5 && !strcmp(b + n - 5, ".json") ? n - 5 : n), b);
	run->o.name = run->label;
}

/* The containers: TARGET itself, or every container of profile TARGET; and their profile. */
static int learn_targets(struct learning *run)
{
	json_object *arr;
	int r = cli_call(run->cli, &(struct krsi_request){ .op = PROTO_PS }, &run->ps);

	if (r)
		return r;
	json_object_object_get_ex(run->ps, "containers", &arr);
	for (size_t i = 0; arr && i < json_object_array_length(arr); i++) {
		json_object *e = json_object_array_get_idx(arr, i);

		if (!strcmp(cli_str(e, "container"), run->target)) {
			run->single = run->target;
			run->base = cli_str(e, "profile");
		}
	}
	for (size_t i = 0; arr && i < json_object_array_length(arr); i++) {
		json_object *e = json_object_array_get_idx(arr, i);
		const char *c = cli_str(e, "container");
		char **set;

		if (strcmp(run->single ? c : cli_str(e, "profile"), run->target))
			continue;
		run->base = cli_str(e, "profile");
		set = realloc(run->set, (run->n_set + 1) * sizeof(*set));
		if (!set || !(set[run->n_set] = strdup(c))) {
			run->set = set ? set : run->set;
			return EXIT_UNREACHABLE;
		}
		run->set = set;
		run->n_set++;
	}
	if (!run->n_set) {
		fprintf(stderr, "krsictl: profile learn %s: no registered container by that name "
			"or with that profile\n", run->target);
		return EXIT_REFUSED;
	}
	return EXIT_OK;
}

/* The base profile's document: its deny lists go into the learned one. */
static int learn_base(struct learning *run)
{
	struct krsi_request rq = { .op = PROTO_PROFILE_SHOW, .name = run->base };
	int r = cli_call(run->cli, &rq, &run->show);

	if (r)
		return r;
	if (!json_object_object_get_ex(json_object_object_get(run->show, "profile"), "document",
				       &run->base_doc)) {
		fprintf(stderr, "krsictl: profile %s: krsid has no document for it (not in its "
			"directory); its deny lists cannot be kept\n", run->base);
		return EXIT_REFUSED;
	}
	return EXIT_OK;
}

/* Subscribe before learning starts: no event of the first instant is missed. */
static int learn_subscribe(struct learning *run)
{
	struct krsi_request rq = { .op = PROTO_EVENTS, .follow = true, .container = run->single };
	struct krsi_err err = { "" };
	char *line, req[PROTO_REQUEST_MAX];
	int n = cli_request_line(&rq, req), r;

	if (n < 0)
		return EXIT_USAGE;
	r = cli_stream_connect(&run->sub, run->cli, run->cli->timeout_ms, &err);
	if (r == 0)
		r = proto_send_line(run->sub.fd, req, n);
	if (r < 0) {
		fprintf(stderr, "krsictl: %s\n", run->sub.fd < 0 ? err.msg : strerror(-r));
		return EXIT_UNREACHABLE;
	}
	if (cli_stream_line(&run->sub, run->cli->timeout_ms, &line) <= 0 ||
	    !strstr(line, "\"ok\":true")) {
		fprintf(stderr, "krsictl: events: no subscription\n");
		return EXIT_UNREACHABLE;
	}
	return EXIT_OK;
}

/* Start learning every container; on a refusal, stop those already started. */
static int learn_start(struct learning *run)
{
	struct sigaction on_signal = { .sa_handler = learn_interrupt, .sa_flags = SA_RESTART };

	/*
	 * From here on, a signal ends learning early: learn_watch() sees the flag (poll()
	 * returns EINTR whatever SA_RESTART says; the requests' reads and writes restart).
	 */
	sigaction(SIGINT, &on_signal, NULL);
	sigaction(SIGTERM, &on_signal, NULL);
	/* krsid ends learning on its own 30 s after D if this command dies. */
	for (size_t i = 0; i < run->n_set; i++) {
		int r = learn_call(run->cli, run->set[i], run->o.duration_s + 30, &run->lost0);

		if (r) {
			learn_stop(run, i);
			return r;
		}
	}
	fprintf(stderr, "krsictl: learning %zu container%s of profile %s for %llu s\n",
		run->n_set, run->n_set == 1 ? "" : "s", run->base,
		(unsigned long long)run->o.duration_s);
	run->begun = mono_ms();
	return EXIT_OK;
}

/* Take the learn events until the duration ends or a signal; then stop learning, and take
 * what the stream still holds. */
static int learn_watch(struct learning *run)
{
	int64_t end = run->begun + (int64_t)run->o.duration_s * 1000;
	bool stopped = false;

	for (;;) {
		int64_t left = stopped ? 0 : end - mono_ms();
		json_object *ev, *c;
		char *line;
		int r;

		if (!stopped && (left <= 0 || learn_interrupted)) {
			if (learn_interrupted)
				fprintf(stderr, "krsictl: interrupted: learning ends now\n");
			/*
			 * krsid publishes every event reported before a stop before it answers
			 * it: once answered, what is left to read is already in the socket.
			 */
			learn_stop(run, run->n_set);
			stopped = true;
			continue;
		}
		r = cli_stream_line(&run->sub, left, &line);
		if (r == 0 && stopped)
			return EXIT_OK;
		if (r == 0)
			continue;
		if (r < 0) {
			fprintf(stderr, "krsictl: the event stream ended early: %s\n",
				strerror(-r));
			if (!stopped)
				learn_stop(run, run->n_set);
			return EXIT_UNREACHABLE;
		}
		ev = json_tokener_parse(line);
		if (!ev)
			continue;
		if (json_object_object_get_ex(ev, "container", &c) &&
		    in_set(run->set, run->n_set, json_object_get_string(c)))
			learn_event(&run->l, ev, NULL);
		json_object_put(ev);
	}
}

/* The learned profile, to --output or stdout. */
static int learn_write(struct learning *run)
{
	_cleanup_json_ json_object *doc = NULL;
	struct krsi_err err = { "" };
	const char *text;
	char desc[512];
	int r;

	snprintf(desc, sizeof(desc), "learned from %s%s over %llu s by krsictl profile learn",
		 run->single ? "container " : "the containers of profile ",
		 run->single ? run->single : run->base,
		 (unsigned long long)((mono_ms() - run->begun + 500) / 1000));
	doc = learn_profile(&run->l, run->base_doc, run->o.name, desc, run->o.fold, &err);
	if (!doc) {
		fprintf(stderr, "krsictl: the learned profile: %s\n", err.msg);
		return EXIT_REFUSED;
	}
	text = json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PRETTY |
							   JSON_C_TO_STRING_SPACED |
							   JSON_C_TO_STRING_NOSLASHESCAPE);
	if (!run->o.output) {
		printf("%s\n", text);
		return EXIT_OK;
	}
	r = cli_write_file(run->o.output, text);
	if (r < 0) {
		fprintf(stderr, "krsictl: %s: %s\n", run->o.output, strerror(-r));
		return EXIT_REFUSED;
	}
	return EXIT_OK;
}

/* What was learned, and what may be missing from it: EXIT_REFUSED when something is. */
static int learn_report(const struct learning *run)
{
	const struct learn *l = &run->l;
	int r;

	fprintf(stderr, "krsictl: learned %llu events: %zu exec, %zu write, %zu connect, %zu bind "
		"(distinct; %llu repeats)\n", (unsigned long long)l->events, l->n[LEARN_EXEC],
		l->n[LEARN_WRITE], l->n[LEARN_CONNECT], l->n[LEARN_BIND],
		(unsigned long long)(l->repeats + l->throttled));
	if (l->dropped)
		fprintf(stderr, "krsictl: warning: %llu distinct items dropped (more than %d of "
			"a kind): the profile will deny them\n", (unsigned long long)l->dropped,
			LEARN_MAX_ITEMS);
	if (l->pathless)
		fprintf(stderr, "krsictl: warning: %llu events had no path or address a rule can "
			"name\n", (unsigned long long)l->pathless);
	if (run->lost1 > run->lost0)
		fprintf(stderr, "krsictl: warning: %llu events were lost (ring buffer full) while "
			"learning: the profile may deny what the workload did; learn again\n",
			(unsigned long long)(run->lost1 - run->lost0));
	/* A path both executed and written: the exec allow list will not let it be written. */
	for (size_t i = 0; i < l->n[LEARN_WRITE]; i++) {
		bool found = false;

		for (size_t j = 0; j < l->n[LEARN_EXEC] && !found; j++)
			found = !strcmp(l->v[LEARN_EXEC][j], l->v[LEARN_WRITE][i]);
		if (found)
			fprintf(stderr, "krsictl: warning: %s was both executed and written: an "
				"exec allow list keeps what it admits unchanged, so writing it "
				"will be denied\n", l->v[LEARN_WRITE][i]);
	}
	r = run->lost1 > run->lost0 || l->dropped ? EXIT_REFUSED : EXIT_OK;
	if (r)
		fprintf(stderr, "krsictl: the profile is written, and incomplete\n");
	return r;
}

static int learn_main(struct cli *cli, int argc, char **argv)
{
	struct learning run = {
		.cli = cli,
		.o.fold = LEARN_FOLD_DEFAULT,
		.sub.fd = -1,
	};
	int r = cli_parse(cli, &argc, &argv, learn_option, &run.o);

	if (r != CLI_CONTINUE)
		return r;
	run.target = argv[0];
	if (!run.o.duration_s) {
		fprintf(stderr, "krsictl: profile learn: --duration D is required (30s, 5m, 1h)\n");
		return EXIT_USAGE;
	}
	learn_name(&run);
	r = learn_targets(&run);
	if (!r)
		r = learn_base(&run);
	if (!r)
		r = learn_subscribe(&run);
	if (!r)
		r = learn_start(&run);
	if (!r)
		r = learn_watch(&run);
	if (!r)
		r = learn_write(&run);
	if (!r)
		r = learn_report(&run);
	cli_stream_close(&run.sub);
	for (size_t i = 0; i < run.n_set; i++)
		free(run.set[i]);
	free(run.set);
	learn_clear(&run.l);
	json_object_put(run.show);
	json_object_put(run.ps);
	return r;
}

static const struct option learn_options[] = { OPT_DURATION, OPT_OUTPUT, OPT_NAME, OPT_FOLD, {} };

const struct cli_command cli_profile_learn = {
	.name = "profile learn",
	.min_args = 1,
	.max_args = 1,
	.options = learn_options,
	.run = learn_main,
	.usage = "profile learn CONTAINER|PROFILE --duration D [--output FILE] [--name NAME] "
		 "[--fold N]",
	.help = "watch what it runs, writes and connects to for D\n"
		"(30s, 5m, 1h), write a profile that allows only that;\n"
		"Ctrl-C or SIGTERM ends it early, and writes it",
};
