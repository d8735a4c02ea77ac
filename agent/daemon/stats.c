// SPDX-License-Identifier: GPL-2.0
/*
 * krsictl status, and the Prometheus metrics served over HTTP.
 */
#include <poll.h>
#include <time.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include "daemon/krsid.h"

/* The stats map's per-CPU values, summed. */
struct krsi_stats stats_sum(struct krsid *d)
{
	int ncpu = map_possible_cpus();
	struct krsi_stats sum = { 0 }, *v;
	__u32 zero = 0;

	if (ncpu <= 0 || !(v = calloc(ncpu, sizeof(*v))))
		return sum;
	if (map_lookup(d->obj.maps.stats, &zero, v) == 0)
		for (int i = 0; i < ncpu; i++) {
			sum.events += v[i].events;
			sum.lost += v[i].lost;
			sum.throttled += v[i].throttled;
			sum.denied += v[i].denied;
			sum.audited += v[i].audited;
		}
	free(v);
	return sum;
}

json_object *op_status(struct krsid *d)
{
	json_object *rep = proto_reply_ok(), *a = json_object_new_object(),
		    *k = json_object_new_object(), *s = json_object_new_object();
	struct krsi_stats sum = stats_sum(d);
	struct krsi_config cfg = { 0 };
	__u32 zero = 0;

	map_lookup(d->obj.maps.config, &zero, &cfg);
	kernel_features_probe(&d->kf);
	json_object_object_add(a, "version", json_object_new_string(KRSID_VERSION));
	json_object_object_add(a, "pid", json_object_new_int(getpid()));
	json_object_object_add(a, "started", json_object_new_int64(d->started));
	json_object_object_add(a, "adopted", json_object_new_boolean(d->obj.adopted));
	json_object_object_add(a, "programs", json_object_new_int(d->obj.n_programs));
	json_object_object_add(a, "attached", json_object_new_int(hooks_attached(d)));
	json_object_object_add(a, "hooks", hooks_json(d));
	json_object_object_add(a, "profile_dir", json_object_new_string(d->profile_dir));
	json_object_object_add(a, "default_profile", json_object_new_string(d->default_profile));
	json_object_object_add(a, "level_mask", json_object_new_uint64(cfg.level_mask));
	json_object_object_add(a, "file_identities", json_object_new_uint64(d->ids.n_refs));
	json_object_object_add(a, "identity_views", json_object_new_uint64(d->ids.n_views));
	json_object_object_add(a, "refresh_interval_s", json_object_new_uint64(d->refresh_s));
	json_object_object_add(a, "refreshes", json_object_new_uint64(d->n.refreshes));
	json_object_object_add(a, "resolve_timeouts", json_object_new_uint64(d->n.resolve_timeouts));
	json_object_object_add(a, "resolve_pending",
			       json_object_new_uint64(resolve_pending(&d->children)));
	json_object_object_add(a, "retiring", json_object_new_uint64(d->grace.n_retired));
	json_object_object_add(rep, "agent", a);
	json_object_object_add(k, "lsm", json_object_new_string(d->kf.lsm));
	json_object_object_add(k, "bpf_lsm", json_object_new_boolean(d->kf.bpf_lsm));
	json_object_object_add(k, "audit_switch", json_object_new_boolean(d->kf.audit_switch));
	if (d->kf.audit_switch)
		json_object_object_add(k, "enforcing", json_object_new_boolean(d->kf.enforcing != 0));
	json_object_object_add(k, "btf", json_object_new_boolean(d->kf.btf));
	/* The hooks of the kernel series that this kernel lacks: a stock kernel lacks all six. */
	json_object_object_add(k, "missing_hooks", hooks_absent_json(d));
	json_object_object_add(rep, "kernel", k);
	json_object_object_add(s, "events", json_object_new_uint64(sum.events));
	json_object_object_add(s, "lost", json_object_new_uint64(sum.lost));
	json_object_object_add(s, "throttled", json_object_new_uint64(sum.throttled));
	json_object_object_add(s, "denied", json_object_new_uint64(sum.denied));
	json_object_object_add(s, "audited", json_object_new_uint64(sum.audited));
	json_object_object_add(rep, "stats", s);
	json_object_object_add(rep, "containers", json_object_new_int(d->reg.n));
	json_object_object_add(rep, "profiles", json_object_new_int(d->n_prof));
	return rep;
}

/* ---- metrics ---- */

static uint64_t percpu_sum(int map, const void *key)
{
	int ncpu = map_possible_cpus();
	uint64_t *v, sum = 0;

	if (ncpu <= 0 || !(v = calloc(ncpu, sizeof(*v))))
		return 0;
	if (map_lookup(map, key, v) == 0)
		for (int i = 0; i < ncpu; i++)
			sum += v[i];
	free(v);
	return sum;
}

static void metrics_verdicts(struct krsid *d, struct metrics_buf *b, uint32_t verdict,
			     const char *name)
{
	struct krsi_verdict_key k, prev;

	map_for_each_key(d->obj.maps.verdicts, k, prev) {
		struct installed *ip;
		char id[32];
		const char *hook;

		if (k.verdict != verdict)
			continue;
		ip = prof_find_id(d, k.profile_id);
		snprintf(id, sizeof(id), "id:%u", k.profile_id);
		hook = names_hook_str(k.hook);
		metrics_sample(b, name,
			       (const char *const[]){ "profile", ip ? ip->name : id, "hook",
						      hook ? hook : "unknown", NULL },
			       percpu_sum(d->obj.maps.verdicts, &k));
	}
}

/* Everything krsid counts, in the Prometheus text format; "krsi_" names, "_total" counters. */
void metrics_text(struct krsid *d, struct metrics_buf *b)
{
	struct krsi_stats st = stats_sum(d);
	char ver[32];

	metrics_family(b, "krsi_denials_total", "counter",
		       "Operations denied (enforce mode), by profile and hook.");
	metrics_verdicts(d, b, KRSI_VERDICT_DENY, "krsi_denials_total");
	metrics_family(b, "krsi_audits_total", "counter",
		       "Operations an audit-mode profile would have denied, by profile and hook.");
	metrics_verdicts(d, b, KRSI_VERDICT_AUDIT, "krsi_audits_total");
	metrics_family(b, "krsi_events_total", "counter", "Events sent by the programs to krsid.");
	metrics_sample(b, "krsi_events_total", NULL, st.events);
	metrics_family(b, "krsi_events_lost_total", "counter",
		       "Events lost because the ring buffer was full (the verdicts still held).");
	metrics_sample(b, "krsi_events_lost_total", NULL, st.lost);
	metrics_family(b, "krsi_events_throttled_total", "counter",
		       "Identical reports counted, not sent, within the throttle window.");
	metrics_sample(b, "krsi_events_throttled_total", NULL, st.throttled);
	metrics_family(b, "krsi_containers", "gauge", "Registered containers, by profile.");
	for (size_t i = 0; i < d->n_prof; i++)
		metrics_sample(b, "krsi_containers", (const char *const[]){ "profile", d->prof[i].name, NULL },
			       registry_count_profile(&d->reg, d->prof[i].name));
	metrics_family(b, "krsi_profile_info", "gauge",
		       "Installed profiles: mode, version, and whether the directory still has them.");
	for (size_t i = 0; i < d->n_prof; i++) {
		struct installed *ip = &d->prof[i];

		snprintf(ver, sizeof(ver), "%llu", (unsigned long long)ip->version);
		metrics_sample(b, "krsi_profile_info",
			       (const char *const[]){ "profile", ip->name, "mode",
						      ip->mode == KRSI_MODE_AUDIT ? "audit" : "enforce",
						      "version", ver, "state",
						      ip->removed ? "removed" : "installed", NULL },
			       1);
	}
	metrics_family(b, "krsi_profile_reloads_total", "counter",
		       "Reloads of the profile directory that were applied.");
	metrics_sample(b, "krsi_profile_reloads_total", NULL, d->n.reloads);
	metrics_family(b, "krsi_profile_reload_failures_total", "counter",
		       "Reloads refused (a bad file): the running policy stayed.");
	metrics_sample(b, "krsi_profile_reload_failures_total", NULL, d->n.reload_failures);
	metrics_family(b, "krsi_profiles_uninstalled_total", "counter",
		       "Profiles taken out once the directory and every container had let them go.");
	metrics_sample(b, "krsi_profiles_uninstalled_total", NULL, d->n.uninstalled);
	metrics_family(b, "krsi_registrations_total", "counter", "Registrations made.");
	metrics_sample(b, "krsi_registrations_total", NULL, d->n.registrations);
	metrics_family(b, "krsi_registration_failures_total", "counter", "Registrations refused.");
	metrics_sample(b, "krsi_registration_failures_total", NULL, d->n.refusals);
	metrics_family(b, "krsi_file_identity_timeouts_total", "counter",
		       "Containers' roots that did not answer within --resolve-timeout.");
	metrics_sample(b, "krsi_file_identity_timeouts_total", NULL, d->n.resolve_timeouts);
	metrics_family(b, "krsi_unregistrations_total", "counter",
		       "Registrations removed (on request, or their cgroup was gone).");
	metrics_sample(b, "krsi_unregistrations_total", NULL, d->n.unregistrations);
	metrics_family(b, "krsi_hook_attached", "gauge", "1 for each LSM hook attached, 0 if not.");
	for (int i = 0; i < d->obj.n_programs; i++)
		metrics_sample(b, "krsi_hook_attached",
			       (const char *const[]){ "hook", d->obj.progs[i].name, NULL },
			       d->obj.progs[i].attached);
	metrics_family(b, "krsi_file_identities", "gauge", "File identities of exact rules held.");
	metrics_sample(b, "krsi_file_identities", NULL, d->ids.n_refs);
	metrics_family(b, "krsi_file_identity_refreshes_total", "counter",
		       "Times every file identity was resolved again.");
	metrics_sample(b, "krsi_file_identity_refreshes_total", NULL, d->n.refreshes);
	metrics_family(b, "krsi_policies_retiring", "gauge",
		       "Replaced or removed policies in their grace period, not yet reusable.");
	metrics_sample(b, "krsi_policies_retiring", NULL, d->grace.n_retired);
	metrics_family(b, "krsi_control_clients_turned_away_total", "counter",
		       "Control clients answered with an error before any request was served.");
	metrics_sample(b, "krsi_control_clients_turned_away_total",
		       (const char *const[]){ "reason", "not_root", NULL }, d->n.clients_refused);
	metrics_sample(b, "krsi_control_clients_turned_away_total",
		       (const char *const[]){ "reason", "busy", NULL }, d->n.clients_busy);
	metrics_sample(b, "krsi_control_clients_turned_away_total",
		       (const char *const[]){ "reason", "deadline", NULL }, d->n.clients_timed_out);
	metrics_family(b, "krsi_control_clients_reading", "gauge",
		       "Control clients whose request is still arriving.");
	metrics_sample(b, "krsi_control_clients_reading", NULL, d->n_clients);
	metrics_family(b, "krsi_event_subscribers", "gauge", "Clients following the events.");
	metrics_sample(b, "krsi_event_subscribers", NULL, d->n_subs);
	metrics_family(b, "krsi_event_subscribers_dropped_total", "counter",
		       "Subscribers dropped because they could not keep up.");
	metrics_sample(b, "krsi_event_subscribers_dropped_total", NULL, d->n.subscribers_dropped);
	metrics_family(b, "krsi_agent_start_time_seconds", "gauge",
		       "When this krsid started, seconds since the epoch.");
	metrics_sample(b, "krsi_agent_start_time_seconds", NULL, d->started);
	metrics_family(b, "krsi_build_info", "gauge", "krsid's version, and whether it adopted pins.");
	metrics_sample(b, "krsi_build_info",
		       (const char *const[]){ "version", KRSID_VERSION, "adopted",
					      d->obj.adopted ? "true" : "false", NULL },
		       1);
}

int metrics_listen_tcp(int port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(port),
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0), one = 1;

	if (fd < 0)
		return -errno;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(fd, 16) < 0) {
		int r = -errno;

		close(fd);
		return r;
	}
	return fd;
}

/*
 * One scrape: read the request for at most 1 s, answer, close. Enforcement never waits on a
 * scraper (the programs run in the kernel); the control socket waits at most this long.
 */
void serve_metrics(struct krsid *d, int fd)
{
	char req[METRICS_REQUEST_MAX], hdr[256];
	struct metrics_buf b = { 0 };
	uint64_t deadline = now_ns(CLOCK_MONOTONIC) + 1000000000ULL;
	size_t len = 0;
	bool head = false;
	int status = 0;

	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	while (!status) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		uint64_t now = now_ns(CLOCK_MONOTONIC);
		ssize_t n;

		if (now >= deadline || poll(&pfd, 1, (deadline - now) / 1000000 + 1) <= 0) {
			status = 408;
			break;
		}
		n = read(fd, req + len, sizeof(req) - len);
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			continue;
		if (n <= 0) {
			close(fd); /* gone before a request: nothing to answer */
			return;
		}
		len += n;
		status = metrics_http_route(req, len, &head);
	}
	if (status == 200) {
		d->n.scrapes++;
		metrics_text(d, &b);
		if (b.oom)
			status = 500;
	}
	snprintf(hdr, sizeof(hdr),
		 "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\nConnection: close\r\n\r\n",
		 status, metrics_http_reason(status),
		 status == 200 ? "text/plain; version=0.0.4; charset=utf-8" : "text/plain",
		 status == 200 ? b.len : strlen(metrics_http_reason(status)) + 1);
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	{
		struct timeval tv = { .tv_sec = 1 };
		struct iovec iov[2] = { { hdr, strlen(hdr) } };
		char body[64];

		setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
		if (status == 200) {
			iov[1] = (struct iovec){ b.s, head ? 0 : b.len };
		} else {
			snprintf(body, sizeof(body), "%s\n", metrics_http_reason(status));
			iov[1] = (struct iovec){ body, head ? 0 : strlen(body) };
		}
		if (writev(fd, iov, 2) < 0)
			log_debug("metrics: writing the reply: %s", strerror(errno));
	}
	metrics_buf_free(&b);
	close(fd);
}
