/* SPDX-License-Identifier: GPL-2.0 */
/*
 * krsid's context and what its files share. One struct krsid, made by main(), is passed to
 * every function that reads or changes the daemon's state; no file keeps state of its own
 * (the log sink in log.c is the one exception: libbpf's print callback has no argument).
 *
 * The files (agent/README.md "Architecture" has the map):
 *   main.c           options, start-up in order, the event loop
 *   slots.c          profile ids, rule slots and policies entries: taken, retired, reused
 *   hooks.c          which programs are attached, and the config map's deny bits
 *   identities.c     file identities of exact rules, mirrored in inode_rules and its filter
 *   policies.c       profiles read, staged, published and uninstalled; reloads
 *   watch.c          the profile directory, watched with inotify
 *   registrations.c  containers registered and unregistered; the cgroup filter
 *   learning.c       learn mode for a container
 *   stream.c         denial events from the ring buffer to the log file and subscribers
 *   stats.c          status and the Prometheus metrics over HTTP
 *   control.c        the control socket: clients, requests, the handler table
 *   recover.c        a restart reads the pinned maps back
 *   node.c           the node agent: the host's pid 1 root and cgroup namespace
 *   bpfobj.c         the only user of libbpf: loads, pins, adopts, attaches; map access
 *   resolve.c        a container's rules resolved in a child, within a deadline
 */
#ifndef KRSI_KRSID_H
#define KRSI_KRSID_H

#include <signal.h>
#include <stdint.h>
#include <time.h>

#include "bpf/krsi.h"
#include "daemon/bpfobj.h"
#include "daemon/log.h"
#include "daemon/resolve.h"
#include "lib/cgroup.h"
#include "lib/protocol.h"
#include "policy/bitfilter.h"
#include "policy/events.h"
#include "policy/grace.h"
#include "policy/hookset.h"
#include "policy/identity.h"
#include "policy/metrics.h"
#include "policy/names.h"
#include "policy/profile.h"
#include "policy/registry.h"

#define KRSID_VERSION "0.1"
#define GC_INTERVAL_S 2
#define SWEEP_INTERVAL_S 60
#define SLOT_GRACE_NS (2ULL * 1000000000ULL)
#define MAX_SUBSCRIBERS 64
#define REFRESH_INTERVAL_S 30
#define RESOLVE_TIMEOUT_MS 1000
#define WATCH_SETTLE_MS 200 /* a burst of directory changes is one reload */
#define METRICS_SOCKET_PATH "/run/krsi/metrics.sock"

/*
 * A profile known to the agent: profile_policy[ID] points at its policy, entry PIDX of the
 * policies array; its rules are under SLOT.
 */
struct installed {
	char name[KRSI_NAME_MAX];
	uint32_t id, slot, pidx, mode;
	uint64_t digest, version;
	uint64_t deny; /* its policy's deny bits: the hooks it needs attached */
	uint64_t caps; /* its policy's denied capabilities */
	struct profile *p; /* NULL when adopted from the maps and no longer in the directory */
	bool removed;	   /* gone from the directory: in force only for the containers it has */
};

struct subscriber {
	int fd;
	char container[KRSI_CONTAINER_MAX]; /* filter, "" = all */
};

/*
 * A control client whose request is still arriving. Many are read at once, each up to its
 * deadline, so a client that never finishes its request delays nobody; a whole request is
 * then served at once, in arrival order of completion.
 */
#define MAX_CLIENTS 1024
#define REQUEST_DEADLINE_MS 10000 /* from accept; above the hook's own 5 s */
struct client {
	int fd;
	uint64_t deadline_ns; /* CLOCK_MONOTONIC */
	struct proto_reader rd;
};

struct krsid {
	const char *profile_dir, *socket_path, *events_path, *log_path, *default_profile;
	bool verbose;
	FILE *events;
	struct bpfobj obj;
	struct kernel_features kf;
	int events_fd; /* the ring buffer's, for epoll */
	struct resolve_children children; /* resolve.c: not reaped yet */
	struct registry reg;
	struct installed *prof;
	size_t n_prof;
	uint64_t *profile_policy; /* the profile_policy map, mmap'd: written with atomic stores */
	struct grace grace; /* ids, slots and policies entries, and their grace periods */
	struct subscriber subs[MAX_SUBSCRIBERS];
	size_t n_subs;
	struct client clients[MAX_CLIENTS]; /* connected, their request not read whole yet */
	size_t n_clients;
	struct event_ring recent;
	struct identity_table ids; /* file identities of exact rules, mirrored in inode_rules */
	unsigned int refresh_s;	   /* resolve them again every REFRESH_S seconds (0 = never) */
	int resolve_timeout_ms;	   /* a container's root answers within this, or is not waited for */
	uint64_t refreshed_ns;
	uint64_t swept_ns, swept_lost; /* the last sweep for vanished cgroups, and stats.lost then */
	int epfd, listen_fd, timer_fd;
	int spare_fd; /* kept open to be closed when accept() runs out of fds */
	bool watch;		/* reload when the profile directory changes */
	bool node_agent;	/* in a pod: host paths and cgroups are pid 1's */
	int watch_fd, settle_fd; /* inotify on the directory; one-shot timer after a change */
	const char *metrics_path; /* Prometheus text over HTTP on this unix socket ("" = none) */
	int metrics_port;	  /* and on 127.0.0.1:PORT (0 = none) */
	int metrics_fd, metrics_tcp_fd;
	struct {
		uint64_t reloads, reload_failures, registrations, refusals, unregistrations,
			uninstalled, subscribers_dropped, scrapes, clients_busy, clients_timed_out,
			clients_refused, refreshes, resolve_timeouts;
	} n; /* this process's counters, for the metrics */
	/* The identity filter (policy/bitfilter.h): its map's words mmap'ed, and its counts. */
	uint64_t *ifl_words;
	struct bitfilter ifl;
	struct bitfilter cgroup_filter; /* the registered-cgroup filter's counts */
	bool watch_gone; /* the directory was missing or went away: reload when it is back */
	int signal_fd;	 /* SIGTERM and SIGINT: stop */
	bool stop;
	time_t started;
};

/* The defaults, before the options. */
#define KRSID_INIT                                                                                 \
	{                                                                                          \
		.watch = true, .watch_fd = -1, .settle_fd = -1, .signal_fd = -1,                 \
		.metrics_path = METRICS_SOCKET_PATH, .metrics_fd = -1, .metrics_tcp_fd = -1,     \
		.spare_fd = -1, .events_fd = -1, .profile_dir = "/etc/krsi/profiles",            \
		.socket_path = PROTO_SOCKET_PATH, .events_path = "/var/log/krsi/events.log",       \
		.default_profile = "default", .refresh_s = REFRESH_INTERVAL_S,                     \
		.resolve_timeout_ms = RESOLVE_TIMEOUT_MS, .grace.grace_ns = SLOT_GRACE_NS,         \
	}

static inline uint64_t now_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* slots.c */
struct installed *prof_find(struct krsid *d, const char *name);
struct installed *prof_find_id(struct krsid *d, uint32_t id);
void profile_point(struct krsid *d, uint32_t id, uint32_t pidx);
void retire(struct krsid *d, uint32_t slot, uint32_t pidx, uint32_t id, bool free_id);
void slot_retire(struct krsid *d, uint32_t slot);
bool slot_in_use(struct krsid *d, uint32_t slot);
bool slot_due(struct krsid *d, uint32_t slot, bool force, uint64_t now);
void slots_collect(struct krsid *d, bool force);

/* hooks.c */
int config_set_deny(struct krsid *d, uint64_t deny, uint64_t caps, bool widen);
void config_narrow(struct krsid *d);
uint64_t prof_caps_all(struct krsid *d);
uint64_t prof_deny_all(struct krsid *d);
int hooks_attach(struct krsid *d, uint64_t deny, struct krsi_err *err);
void hooks_detach_unused(struct krsid *d);
json_object *hooks_json(struct krsid *d);
json_object *hooks_absent_json(struct krsid *d);
void hooks_log_absent(struct krsid *d);
int hooks_attached(struct krsid *d);
int config_update_mask(struct krsid *d);

/* identities.c */
void ifl_del(struct krsid *d, const struct krsi_inode_key *k);
int ifl_rebuild(struct krsid *d);
int ids_write(void *ctx, const struct krsi_inode_key *k, bool add);
int64_t cgroup_some_pid(const char *cg, int depth);
int ids_container(struct krsid *d, const struct registry_entry *e, const struct profile *p,
		  uint32_t slot, bool strict, bool live_only, struct krsi_err *err);
void ids_container_result(struct krsid *d, struct registry_entry *e, int r);
void ids_container_drop(struct krsid *d, const char *c, int64_t keep);
int ids_profile(struct krsid *d, const struct profile *p, uint32_t slot, struct krsi_err *err);
void ids_refresh(struct krsid *d);
void ids_sweep(struct krsid *d);

/* policies.c */
bool prof_collect(struct krsid *d);
int prof_reload(struct krsid *d, json_object *changed, json_object *unchanged, json_object *removed,
		char *ret_file, size_t file_size, struct krsi_err *err);
json_object *prof_json(struct krsid *d, const struct installed *ip, bool full);
json_object *op_profile_list(struct krsid *d);
json_object *reload_run(struct krsid *d, const char *trigger);

/* watch.c */
void watch_start(struct krsid *d);
void watch_read(struct krsid *d);

/* registrations.c */
int filter_rebuild(struct krsid *d);
int reg_delete(struct krsid *d, const char *container, const char *why);
void reg_collect(struct krsid *d);
void reg_sweep_due(struct krsid *d);
json_object *entry_json(struct krsid *d, const struct registry_entry *e);
json_object *op_register(struct krsid *d, struct proto_request *q, bool assign);
json_object *op_ps(struct krsid *d);

/* learning.c */
void learn_expire(struct krsid *d);
json_object *op_learn(struct krsid *d, struct proto_request *q);

/* stream.c */
void sub_remove(struct krsid *d, size_t i);
void publish_agent(struct krsid *d, const char *type, json_object *o);
int on_event(void *ctx, void *data, size_t size);
json_object *op_events(struct krsid *d, struct proto_request *q, int fd, bool *ret_keep);

/* stats.c */
struct krsi_stats stats_sum(struct krsid *d);
json_object *op_status(struct krsid *d);
void metrics_text(struct krsid *d, struct metrics_buf *b);
int metrics_listen_tcp(int port);
void serve_metrics(struct krsid *d, int fd);

/* control.c */
void clients_accept(struct krsid *d);
bool client_read(struct krsid *d, int fd);
int clients_expire(struct krsid *d);
int unix_listen(const char *path, int flags, int backlog, mode_t mode);

/* recover.c */
int recover(struct krsid *d);

/* node.c */
int node_agent_enter(struct krsid *d, struct krsi_err *err);

#endif /* KRSI_KRSID_H */
