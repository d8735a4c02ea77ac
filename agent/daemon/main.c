// SPDX-License-Identifier: GPL-2.0
/*
 * krsid: the krsi agent. Owns the pinned BPF objects, the profiles and the registry; serves
 * the control socket; writes events as JSON lines to a log file and to subscribers.
 *
 * State lives in the pinned maps, not in this process: the registry map holds every
 * registration, the profiles map every compiled profile. A kill -9 leaves enforcement as it
 * was, and a restart reads both maps back. This file: options, start-up in order, the loop.
 */
#include <dirent.h>
#include <getopt.h>
#include <signal.h>
#include <time.h>
#include <sys/epoll.h>
#include <sys/inotify.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>

#include "daemon/krsid.h"
#include "lib/sdnotify.h"

/* --OPT's argument (optarg) as a number from MIN to MAX; else a message naming WHAT. */
static bool opt_ulong(const char *opt, const char *what, unsigned long min, unsigned long max,
		      unsigned long *ret)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(optarg, &end, 10);
	if (errno || !*optarg || *end || v < min || v > max) {
		fprintf(stderr, "krsid: --%s %s: expected %s, %lu to %lu\n", opt, optarg, what, min,
			max);
		return false;
	}
	*ret = v;
	return true;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: krsid [-v|--verbose] [--profiles DIR] [--socket PATH] [--events FILE]\n"
		"             [--log FILE] [--default-profile NAME] [--no-watch]\n"
		"             [--refresh-interval SECONDS] [--resolve-timeout MS]\n"
		"             [--metrics-socket PATH] [--metrics-port PORT]\n"
		"             [--node-agent [--host-proc DIR]] [--reset] [--unload] [--help]\n"
		"  --refresh-interval  resolve the exact rules' file identities again every SECONDS\n"
		"             (default %d; 0 = only when profiles and registrations change)\n"
		"  --resolve-timeout  wait at most MS for a container's root to resolve its rules\n"
		"             (default %d): a root that does not answer fails its registration, and\n"
		"             keeps its identities, retried later, at a refresh\n"
		"  --no-watch  reload profiles only on request (krsictl profile reload, or SIGHUP),\n"
		"             not when a file of the directory (or a ConfigMap's ..data) changes\n"
		"  --metrics-socket  Prometheus metrics over HTTP on this unix socket\n"
		"             (default " METRICS_SOCKET_PATH "; \"\" = none)\n"
		"  --metrics-port  and on 127.0.0.1:PORT (default: none)\n"
		"  --node-agent  krsid runs in a pod: bundles and the host's files are resolved in\n"
		"             the root of the host's pid 1, cgroups in its cgroup namespace\n"
		"  --host-proc  the host's /proc, mounted in the pod (default /proc: hostPID)\n"
		"  --reset    unpin and reload the BPF programs (enforcement stops for a moment)\n"
		"  --unload   unpin everything and exit: no more enforcement\n",
		REFRESH_INTERVAL_S, RESOLVE_TIMEOUT_MS);
}

/* What the options ask for besides the context's settings. */
struct krsid_args {
	bool reset, unload;
};

/* The options into D and A: -1 to go on, else the exit code. */
static int parse_args(struct krsid *d, struct krsid_args *a, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "verbose", no_argument, NULL, 'v' },
		{ "profiles", required_argument, NULL, 'p' },
		{ "socket", required_argument, NULL, 's' },
		{ "events", required_argument, NULL, 'e' },
		{ "log", required_argument, NULL, 'l' },
		{ "default-profile", required_argument, NULL, 'd' },
		{ "refresh-interval", required_argument, NULL, 'r' },
		{ "resolve-timeout", required_argument, NULL, 'X' },
		{ "no-watch", no_argument, NULL, 'W' },
		{ "metrics-socket", required_argument, NULL, 'M' },
		{ "metrics-port", required_argument, NULL, 'T' },
		{ "node-agent", no_argument, NULL, 'N' },
		{ "host-proc", required_argument, NULL, 'P' },
		{ "reset", no_argument, NULL, 'R' },
		{ "unload", no_argument, NULL, 'U' },
		{ "help", no_argument, NULL, 'h' },
		{},
	};
	unsigned long v;
	int c;

	while ((c = getopt_long(argc, argv, "vp:s:e:l:d:h", opts, NULL)) != -1) {
		switch (c) {
		case 'v':
			d->verbose = true;
			break;
		case 'p':
			d->profile_dir = optarg;
			break;
		case 's':
			d->socket_path = optarg;
			break;
		case 'e':
			d->events_path = optarg;
			break;
		case 'l':
			d->log_path = optarg;
			break;
		case 'd':
			d->default_profile = optarg;
			break;
		case 'r':
			if (!opt_ulong("refresh-interval", "seconds", 0, 86400, &v))
				return 2;
			d->refresh_s = v;
			break;
		case 'X':
			if (!opt_ulong("resolve-timeout", "milliseconds", 10, 600000, &v))
				return 2;
			d->resolve_timeout_ms = (int)v;
			break;
		case 'W':
			d->watch = false;
			break;
		case 'M':
			d->metrics_path = optarg;
			break;
		case 'T':
			if (!opt_ulong("metrics-port", "a port", 1, 65535, &v))
				return 2;
			d->metrics_port = v;
			break;
		case 'N':
			d->node_agent = true;
			break;
		case 'P':
			if (host_proc_set(optarg) < 0) {
				fprintf(stderr, "krsid: --host-proc %s: expected an absolute path\n", optarg);
				return 2;
			}
			break;
		case 'R':
			a->reset = true;
			break;
		case 'U':
			a->unload = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (strcmp(host_proc(), "/proc") && !d->node_agent) {
		fprintf(stderr, "krsid: --host-proc needs --node-agent\n");
		return 2;
	}
	return -1;
}

/* The kernel must run BPF LSM programs and have BTF; the start-up report says what it has. */
static int kernel_check(struct krsid *d)
{
	struct kernel_features *kf = &d->kf;

	kernel_features_probe(kf);
	log_info("krsid %s starting: lsm=%s; BPF LSM %s; audit switch %s%s; kernel BTF %s",
		 KRSID_VERSION, kf->lsm[0] ? kf->lsm : "(unknown)",
		 kf->bpf_lsm ? "active" : "NOT active",
		 kf->audit_switch ? "present" : "absent (stock kernel: always enforcing)",
		 !kf->audit_switch ? ""
		 : kf->enforcing ? ", enforcing"
				 : ", PERMISSIVE (nothing is denied machine-wide)",
		 kf->btf ? "present" : "absent");
	if (!kf->bpf_lsm)
		return log_ret(LOG_ERR, -ENOTSUP, "refusing to start: \"bpf\" is not in "
			       "/sys/kernel/security/lsm, so LSM programs would load and never "
			       "run; boot with lsm=...,bpf");
	if (!kf->btf)
		return log_ret(LOG_ERR, -ENOTSUP, "refusing to start: no /sys/kernel/btf/vmlinux "
			       "(CONFIG_DEBUG_INFO_BTF)");
	return 0;
}

/*
 * The programs and maps loaded or adopted, the state they hold read back, the profiles
 * installed and the identities resolved: enforcement as the maps and the directory say.
 */
static int enforce(struct krsid *d, bool reset)
{
	struct krsi_err err = { "" };
	char file[4096];
	int r, fd;

	fd = proto_connect(d->socket_path, 1000, &err);
	if (fd >= 0) {
		close(fd);
		return log_ret(LOG_ERR, -EEXIST, "refusing to start: another krsid answers on %s",
			       d->socket_path);
	}
	err.msg[0] = 0;
	r = bpfobj_open(&d->obj, reset, d->verbose, &err);
	if (r < 0)
		return log_ret(LOG_ERR, r, "%s", err.msg);
	if (err.msg[0])
		log_info("%s", err.msg);
	log_info("%s %d programs (%d attached), pinned in %s",
		 d->obj.adopted ? "adopted" : "loaded", d->obj.n_programs, hooks_attached(d),
		 KRSI_PIN_DIR);
	hooks_log_absent(d);
	r = recover(d);
	if (r == 0)
		r = filter_rebuild(d);
	if (r == 0)
		r = ifl_rebuild(d);
	if (r < 0)
		return log_ret(LOG_ERR, r, "recovering the pinned state: %s", strerror(-r));
	if (d->obj.adopted)
		log_info("recovered %zu containers and %zu profiles from the pinned maps", d->reg.n,
			 d->n_prof);
	/* The hooks that the policies already in the maps need (and those always attached). */
	r = hooks_attach(d, prof_deny_all(d), &err);
	if (r < 0)
		return log_ret(LOG_ERR, r, "%s", err.msg);
	r = config_set_deny(d, prof_deny_all(d), prof_caps_all(d), true);
	if (r < 0)
		return log_ret(LOG_ERR, r, "config: writing the hooks' deny bits: %s", strerror(-r));
	r = prof_reload(d, NULL, NULL, NULL, file, sizeof(file), &err);
	if (r < 0)
		log_warn("loading profiles: %s; keeping the installed ones", err.msg);
	if (!prof_find(d, d->default_profile))
		log_warn("default profile %s is not installed: registrations without a profile "
			 "will fail", d->default_profile);
	reg_collect(d);
	r = config_update_mask(d);
	if (r < 0)
		return log_ret(LOG_ERR, r, "config: writing the level mask: %s", strerror(-r));
	/* The views of what is installed and registered, then the keys none of them holds. */
	ids_refresh(d);
	ids_sweep(d);
	return 0;
}

static void events_log_open(struct krsid *d)
{
	char dir[4096], *slash;

	if (!d->events_path)
		return;
	snprintf(dir, sizeof(dir), "%s", d->events_path);
	slash = strrchr(dir, '/');
	if (slash && slash != dir) {
		*slash = 0;
		mkdir(dir, 0750);
	}
	d->events = fopen(d->events_path, "ae");
	if (!d->events)
		log_warn("events log %s: %s, ignoring", d->events_path, strerror(errno));
}

static void epoll_add(struct krsid *d, int fd)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.fd = fd };

	epoll_ctl(d->epfd, EPOLL_CTL_ADD, fd, &ev);
}

/* MAX_CLIENTS readers, subscribers and the maps need more than the usual 1,024 fds. */
static void nofile_raise(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max &&
	    rl.rlim_cur < 4 * MAX_CLIENTS) {
		rl.rlim_cur = rl.rlim_max < 4 * MAX_CLIENTS ? rl.rlim_max : 4 * MAX_CLIENTS;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

/* Everything the loop waits on: the sockets, the timers, the ring buffer, the signals. */
static int listen_all(struct krsid *d)
{
	struct itimerspec its = { .it_interval.tv_sec = GC_INTERVAL_S,
				  .it_value.tv_sec = GC_INTERVAL_S };
	sigset_t mask;

	d->events_fd = bpfobj_events_open(&d->obj, on_event, d);
	if (d->events_fd < 0)
		return log_ret(LOG_ERR, d->events_fd, "ring buffer: %s", strerror(-d->events_fd));
	/* Anyone may connect; SO_PEERCRED turns away all but root with a clear reply. */
	nofile_raise();
	d->spare_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	d->listen_fd = unix_listen(d->socket_path, SOCK_NONBLOCK, MAX_CLIENTS, 0666);
	if (d->listen_fd < 0)
		return log_ret(LOG_ERR, d->listen_fd, "control socket %s: %s", d->socket_path,
			       strerror(-d->listen_fd));
	d->timer_fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
	timerfd_settime(d->timer_fd, 0, &its, NULL);
	d->settle_fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGHUP); /* reload the profiles: systemctl reload */
	sigprocmask(SIG_BLOCK, &mask, NULL);
	d->signal_fd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	d->epfd = epoll_create1(EPOLL_CLOEXEC);
	epoll_add(d, d->listen_fd);
	epoll_add(d, d->timer_fd);
	epoll_add(d, d->events_fd);
	epoll_add(d, d->settle_fd);
	epoll_add(d, d->signal_fd);
	watch_start(d);
	if (d->metrics_path[0]) {
		/* root and its group: what a node's scraper runs as */
		d->metrics_fd = unix_listen(d->metrics_path, SOCK_NONBLOCK, 16, 0660);
		if (d->metrics_fd < 0)
			return log_ret(LOG_ERR, d->metrics_fd, "metrics socket %s: %s",
				       d->metrics_path, strerror(-d->metrics_fd));
		epoll_add(d, d->metrics_fd);
	}
	if (d->metrics_port) {
		d->metrics_tcp_fd = metrics_listen_tcp(d->metrics_port);
		if (d->metrics_tcp_fd < 0)
			return log_ret(LOG_ERR, d->metrics_tcp_fd, "metrics port 127.0.0.1:%d: %s",
				       d->metrics_port, strerror(-d->metrics_tcp_fd));
		epoll_add(d, d->metrics_tcp_fd);
	}
	signal(SIGPIPE, SIG_IGN);
	return 0;
}

/* Every GC_INTERVAL_S: what is due. */
static void on_tick(struct krsid *d)
{
	uint64_t x;

	if (read(d->timer_fd, &x, sizeof(x)) < 0)
		return;
	reg_sweep_due(d);
	prof_collect(d);
	slots_collect(d, false);
	resolve_reap(&d->children);
	learn_expire(d);
	if (d->watch && d->watch_fd < 0)
		watch_start(d);
	if (d->refresh_s && now_ns(CLOCK_MONOTONIC) - d->refreshed_ns >= d->refresh_s * 1000000000ULL)
		ids_refresh(d);
}

/*
 * SIGHUP (systemctl reload): reload the profile directory, as `krsictl profile reload` does,
 * told to the service manager as RELOADING=1 and READY=1 around it.
 */
static void on_hangup(struct krsid *d)
{
	sd_notify_state("RELOADING=1");
	log_info("SIGHUP: reloading %s", d->profile_dir);
	/* a refused reload is logged there, and the running policy stays */
	json_object_put(reload_run(d, "signal"));
	sd_notify_state("READY=1");
}

static void on_ready(struct krsid *d, int fd)
{
	uint64_t x;

	if (fd == d->listen_fd) {
		clients_accept(d);
	} else if (fd == d->timer_fd) {
		on_tick(d);
	} else if (fd == d->events_fd) {
		bpfobj_events_consume(&d->obj);
	} else if (fd == d->watch_fd) {
		watch_read(d);
	} else if (fd == d->settle_fd) {
		if (read(d->settle_fd, &x, sizeof(x)) > 0)
			json_object_put(reload_run(d, "directory"));
	} else if (fd == d->signal_fd) {
		struct signalfd_siginfo si;

		if (read(d->signal_fd, &si, sizeof(si)) != sizeof(si))
			return;
		if (si.ssi_signo == SIGHUP)
			on_hangup(d);
		else
			d->stop = true;
	} else if (fd == d->metrics_fd || fd == d->metrics_tcp_fd) {
		int cfd = accept4(fd, NULL, NULL, SOCK_CLOEXEC);

		if (cfd >= 0)
			serve_metrics(d, cfd);
	} else if (!client_read(d, fd)) {
		for (size_t k = 0; k < d->n_subs; k++)
			if (d->subs[k].fd == fd) {
				sub_remove(d, k);
				break;
			}
	}
}

static void loop(struct krsid *d)
{
	while (!d->stop) {
		struct epoll_event evs[64];
		int n = epoll_wait(d->epfd, evs, ARRAY_SIZE(evs), clients_expire(d));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			log_error("epoll: %s", strerror(errno));
			break;
		}
		for (int i = 0; i < n; i++)
			on_ready(d, evs[i].data.fd);
	}
}

int main(int argc, char **argv)
{
	struct krsid ctx = KRSID_INIT, *d = &ctx;
	struct krsid_args a = { 0 };
	struct krsi_err err = { "" };
	char port[16] = "";
	FILE *log;
	int r;

	r = parse_args(d, &a, argc, argv);
	if (r >= 0)
		return r;
	if (d->log_path) {
		log = fopen(d->log_path, "ae");
		if (!log) {
			fprintf(stderr, "krsid: log %s: %s\n", d->log_path, strerror(errno));
			return 1;
		}
		log_setup(log, d->verbose ? LOG_DEBUG : LOG_INFO, false);
	} else {
		log_setup(stderr, d->verbose ? LOG_DEBUG : LOG_INFO,
			  journal_stream_is(STDERR_FILENO, getenv("JOURNAL_STREAM")));
	}
	bpfobj_log_init();
	d->ids.write = ids_write;
	d->ids.ctx = d;
	if (d->node_agent && node_agent_enter(d, &err) < 0)
		return log_ret(LOG_ERR, 1, "refusing to start: %s", err.msg);
	if (a.unload) {
		r = bpfobj_unpin_all(&err);
		if (r < 0)
			return log_ret(LOG_ERR, 1, "%s", err.msg);
		log_info("unpinned %s: krsi no longer enforces anything", KRSI_PIN_DIR);
		return 0;
	}
	if (kernel_check(d) < 0 || enforce(d, a.reset) < 0)
		return 1;
	events_log_open(d);
	if (listen_all(d) < 0)
		return 1;
	d->started = time(NULL);
	if (d->metrics_port)
		snprintf(port, sizeof(port), "%d", d->metrics_port);
	log_info("ready: %zu profiles, %zu containers, socket %s; profile directory %s %s; "
		 "metrics on %s%s%s", d->n_prof, d->reg.n, d->socket_path, d->profile_dir,
		 d->watch_fd >= 0 ? "watched" : d->watch ? "not watched yet" : "reloaded on request",
		 d->metrics_path[0] ? d->metrics_path : "no socket",
		 d->metrics_port ? " and 127.0.0.1:" : "", port);
	r = sd_notify_state("READY=1\nSTATUS=enforcing");
	if (r < 0)
		log_warn("NOTIFY_SOCKET %s: %s", getenv("NOTIFY_SOCKET"), strerror(-r));
	loop(d);
	sd_notify_state("STOPPING=1");
	/* The programs stay attached: exiting is not disabling (krsid --unload is). */
	bpfobj_events_consume(&d->obj);
	log_info("stopping; LSM programs and policies stay in force");
	unlink(d->socket_path);
	if (d->metrics_fd >= 0)
		unlink(d->metrics_path);
	return 0;
}
