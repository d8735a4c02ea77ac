// SPDX-License-Identifier: GPL-2.0
/*
 * krsid: the krsi agent. Owns the pinned BPF objects, the profiles and the registry; serves
 * the control socket; writes events as JSON lines to a log file and to subscribers.
 *
 * State lives in the pinned maps, not in this process: the registry map holds every
 * registration, the profiles map every compiled profile. A kill -9 leaves enforcement as it
 * was, and a restart reads both maps back.
 */
#include <dirent.h>
#include <errno.h>
#include <malloc.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/inotify.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/timerfd.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <time.h>
#include <linux/magic.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bpf/krsi.h"
#include "daemon/bpfobj.h"
#include "lib/cgroup.h"
#include "policy/events.h"
#include "policy/hookset.h"
#include "policy/names.h"
#include "policy/identity.h"
#include "policy/metrics.h"
#include "policy/profile.h"
#include "lib/protocol.h"
#include "policy/registry.h"
#include "daemon/resolve.h"

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

/*
 * What a replaced or removed policy leaves for its grace period: its rules' SLOT, its entry
 * PIDX of the policies array, and, when the profile is gone, its ID (FREE_ID). Each is reused
 * only once the grace period is over.
 */
struct retired {
	uint32_t slot, pidx, id;
	bool free_id;
	uint64_t at_ns;
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

static struct {
	const char *profile_dir, *socket_path, *events_path, *log_path, *default_profile;
	bool verbose;
	FILE *log;
	FILE *events;
	struct bpfobj obj;
	struct kernel_features kf;
	struct ring_buffer *rb;
	struct registry reg;
	struct installed *prof;
	size_t n_prof;
	uint32_t next_slot;
	uint64_t *profile_policy; /* the profile_policy map, mmap'd: written with atomic stores */
	uint64_t id_used[KRSI_MAX_PROFILES / 64];     /* installed, staged or retiring */
	uint64_t pidx_used[KRSI_POLICY_SLOTS / 64];   /* the same, for entries of policies */
	struct retired *retired;
	size_t n_retired;
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
	volatile sig_atomic_t stop;
	time_t started;
} d = {
	.watch = true,
	.watch_fd = -1,
	.settle_fd = -1,
	.metrics_path = METRICS_SOCKET_PATH,
	.metrics_fd = -1,
	.metrics_tcp_fd = -1,
	.spare_fd = -1,
	.profile_dir = "/etc/krsi/profiles",
	.socket_path = PROTO_SOCKET_PATH,
	.events_path = "/var/log/krsi/events.log",
	.default_profile = "default",
	.refresh_s = REFRESH_INTERVAL_S,
	.resolve_timeout_ms = RESOLVE_TIMEOUT_MS,
};

__attribute__((format(printf, 1, 2))) static void logf_(const char *fmt, ...)
{
	char ts[32];
	time_t now = time(NULL);
	struct tm tm;
	va_list ap;

	localtime_r(&now, &tm);
	strftime(ts, sizeof(ts), "%Y-%m-%dT%H:%M:%S", &tm);
	fprintf(d.log, "%s krsid[%d]: ", ts, getpid());
	va_start(ap, fmt);
	vfprintf(d.log, fmt, ap);
	va_end(ap);
	fputc('\n', d.log);
	fflush(d.log);
}
#define log_info(...) logf_(__VA_ARGS__)

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	char *buf = NULL, *line, *save;

	if (level == LIBBPF_DEBUG && !d.verbose)
		return 0;
	/* Verifier logs come as one message of many lines: log each line. */
	if (vasprintf(&buf, fmt, ap) < 0)
		return 0;
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		logf_("libbpf: %s", line);
	free(buf);
	return 0;
}

static uint64_t now_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* ---- profiles ---- */

static struct installed *prof_find(const char *name)
{
	for (size_t i = 0; i < d.n_prof; i++)
		if (!strcmp(d.prof[i].name, name))
			return &d.prof[i];
	return NULL;
}

static struct installed *prof_find_id(uint32_t id)
{
	for (size_t i = 0; i < d.n_prof; i++)
		if (d.prof[i].id == id)
			return &d.prof[i];
	return NULL;
}

/* The lowest clear bit of the N in W from FIRST on, now set; -1 when every one is set. */
static int64_t bit_take(uint64_t *w, uint32_t n, uint32_t first)
{
	for (uint32_t i = first; i < n; i++)
		if (!(w[i / 64] & (1ULL << (i % 64)))) {
			w[i / 64] |= 1ULL << (i % 64);
			return i;
		}
	return -1;
}

static void bit_put(uint64_t *w, uint32_t i, bool on)
{
	if (on)
		w[i / 64] |= 1ULL << (i % 64);
	else
		w[i / 64] &= ~(1ULL << (i % 64));
}

/* Point profile ID at entry PIDX of policies (0: none): the one store a program sees. */
static void profile_point(uint32_t id, uint32_t pidx)
{
	__atomic_store_n(&d.profile_policy[id], pidx, __ATOMIC_RELEASE);
}

/*
 * Start the grace period of SLOT's rules and of entry PIDX (0: none) of the policies array;
 * FREE_ID: of profile ID too. Nothing is reused before it ends.
 */
static void retire(uint32_t slot, uint32_t pidx, uint32_t id, bool free_id)
{
	struct retired *v = realloc(d.retired, (d.n_retired + 1) * sizeof(*v));

	if (!v)
		return; /* the rules stay, and the entry and id stay taken: harmless */
	d.retired = v;
	d.retired[d.n_retired++] = (struct retired){ slot, pidx, id, free_id,
						     now_ns(CLOCK_MONOTONIC) };
}

static void slot_retire(uint32_t slot)
{
	retire(slot, 0, 0, false);
}

/* R's grace period is over: its policies entry and id may be taken again. */
static void retired_release(const struct retired *r)
{
	if (r->pidx) {
		struct krsi_policy zero = { 0 };

		/* Zeroed, so that a restarted agent knows the entry is free. */
		if (bpf_map_update_elem(d.obj.maps.policies, &r->pidx, &zero, BPF_ANY) == 0)
			bit_put(d.pidx_used, r->pidx, false);
	}
	if (r->free_id)
		bit_put(d.id_used, r->id, false);
}

static bool slot_in_use(uint32_t slot)
{
	for (size_t i = 0; i < d.n_prof; i++)
		if (d.prof[i].slot == slot)
			return true;
	return false;
}

static bool slot_due(uint32_t slot, bool force, uint64_t now)
{
	for (size_t i = 0; i < d.n_retired; i++)
		if (d.retired[i].slot == slot && (force || now - d.retired[i].at_ns >= SLOT_GRACE_NS))
			return true;
	return false;
}

/*
 * Delete the rules of MAP whose slot is due. One walk collects the keys, then they are
 * deleted: deleting while walking would restart the walk at every deletion, which made a
 * reload of a large profile cost time cubic in its rules.
 */
static void ifl_del(const struct krsi_inode_key *k);

static void rules_collect(int map, size_t key_size, size_t slot_off, bool force, uint64_t now)
{
	_cleanup_free_ uint8_t *keys = NULL;
	union {
		struct krsi_path_key p;
		struct krsi_net_key n;
		struct krsi_inode_key i;
		struct krsi_name_key m;
	} key, next;
	size_t n = 0, cap = 0;
	void *prev = NULL;
	uint32_t slot;

	while (bpf_map_get_next_key(map, prev, &next) == 0) {
		memcpy(&slot, (uint8_t *)&next + slot_off, sizeof(slot));
		if (slot_due(slot, force, now)) {
			if (n == cap) {
				size_t c = cap ? 2 * cap : 256;
				uint8_t *v = realloc(keys, c * key_size);

				if (!v)
					break; /* the rest waits for the next collection */
				keys = v;
				cap = c;
			}
			memcpy(keys + n++ * key_size, &next, key_size);
		}
		memcpy(&key, &next, key_size);
		prev = &key;
	}
	for (size_t i = 0; i < n; i++)
		if (bpf_map_delete_elem(map, keys + i * key_size) == 0 && map == d.obj.maps.inode_rules)
			ifl_del((const struct krsi_inode_key *)(keys + i * key_size));
}

/* Delete rules of retired slots whose grace period is over (or all retired slots: FORCE). */
static void slots_collect(bool force)
{
	uint64_t now = now_ns(CLOCK_MONOTONIC);
	size_t kept = 0;
	bool any = false;

	for (size_t i = 0; i < d.n_retired; i++)
		if (force || now - d.retired[i].at_ns >= SLOT_GRACE_NS)
			any = true;
	if (!any)
		return;
	rules_collect(d.obj.maps.path_rules, sizeof(struct krsi_path_key),
		      offsetof(struct krsi_path_key, slot), force, now);
	rules_collect(d.obj.maps.net_rules, sizeof(struct krsi_net_key),
		      offsetof(struct krsi_net_key, slot), force, now);
	rules_collect(d.obj.maps.name_rules, sizeof(struct krsi_name_key),
		      offsetof(struct krsi_name_key, slot), force, now);
	/* The identity views of a due slot, then whatever no view holds (left by a restart). */
	for (size_t i = 0; i < d.n_retired; i++)
		if (force || now - d.retired[i].at_ns >= SLOT_GRACE_NS)
			identity_drop_slot(&d.ids, d.retired[i].slot);
	rules_collect(d.obj.maps.inode_rules, sizeof(struct krsi_inode_key),
		      offsetof(struct krsi_inode_key, slot), force, now);
	for (size_t i = 0; i < d.n_retired; i++)
		if (!(force || now - d.retired[i].at_ns >= SLOT_GRACE_NS))
			d.retired[kept++] = d.retired[i];
		else
			retired_release(&d.retired[i]);
	d.n_retired = kept;
}

/* ---- hooks: attached only while some installed profile can use them ---- */

/*
 * config.deny_any and config.caps_any: OR (WIDEN) or replace with the installed policies'
 * deny bits and denied capabilities.
 */
static int config_set_deny(uint64_t deny, uint64_t caps, bool widen)
{
	struct krsi_config cfg;
	__u32 zero = 0;

	if (bpf_map_lookup_elem(d.obj.maps.config, &zero, &cfg) < 0)
		return -errno;
	cfg.deny_any = widen ? cfg.deny_any | deny : deny;
	cfg.caps_any = widen ? cfg.caps_any | caps : caps;
	return bpf_map_update_elem(d.obj.maps.config, &zero, &cfg, BPF_ANY) < 0 ? -errno : 0;
}

static uint64_t prof_caps_all(void);
static uint64_t prof_deny_all(void);

/*
 * Narrow deny_any and caps_any to what the installed policies need. A failed write keeps the
 * wider bits, which only lets a hook look further than it needs to: never a verdict.
 */
static void config_narrow(void)
{
	int r = config_set_deny(prof_deny_all(), prof_caps_all(), false);

	if (r < 0)
		log_info("config: narrowing the hooks' deny bits: %s (the wider bits stay: a cost, "
			 "not a verdict)", strerror(-r));
}

static uint64_t prof_caps_all(void)
{
	uint64_t caps = 0;

	for (size_t i = 0; i < d.n_prof; i++)
		caps |= d.prof[i].caps;
	return caps;
}

static uint64_t prof_deny_all(void)
{
	uint64_t deny = 0;

	for (size_t i = 0; i < d.n_prof; i++)
		deny |= d.prof[i].deny;
	/* A learned container needs the hooks of what it learns. */
	for (size_t i = 0; i < d.reg.n; i++)
		if (d.reg.v[i]->learn_until_ns)
			deny |= KRSI_LEARN_DENY;
	return deny;
}

/*
 * Attach every program that deny bits DENY need: called before a policy with those bits is
 * published, so that no policy ever names a hook that does not run.
 */
static int hooks_attach(uint64_t deny, struct krsi_err *err)
{
	for (int i = 0; i < d.obj.n_programs; i++) {
		struct bpfobj_prog *p = &d.obj.progs[i];
		int r;

		if (p->attached || !hookset_needed(p->name, deny))
			continue;
		r = bpfobj_attach(&d.obj, i, err);
		if (r < 0)
			return r;
		log_info("hook %s attached", p->name);
	}
	return 0;
}

/* Detach the programs that no installed policy needs: called once the policies are published. */
static void hooks_detach_unused(void)
{
	uint64_t deny = prof_deny_all();
	struct krsi_err err = { "" };

	for (int i = 0; i < d.obj.n_programs; i++) {
		struct bpfobj_prog *p = &d.obj.progs[i];

		if (!p->attached || hookset_needed(p->name, deny))
			continue;
		if (bpfobj_detach(&d.obj, i, &err) < 0)
			log_info("%s, ignoring", err.msg);
		else
			log_info("hook %s detached: no installed profile uses it", p->name);
	}
}

static json_object *hooks_json(void)
{
	json_object *arr = json_object_new_array();

	for (int i = 0; i < d.obj.n_programs; i++)
		if (d.obj.progs[i].attached)
			json_object_array_add(arr, json_object_new_string(d.obj.progs[i].name));
	return arr;
}

static int hooks_attached(void)
{
	int n = 0;

	for (int i = 0; i < d.obj.n_programs; i++)
		n += d.obj.progs[i].attached;
	return n;
}

/* ---- file identities of exact rules (agent/identity.h) ---- */

/*
 * The identity filter (krsi.h): the map's words mmap'ed, and the keys of each bit counted
 * here, saturating at 255 (such a bit stays set). A bit is set before its key is written and
 * cleared after its last key is deleted, so a key in inode_rules never has a clear bit.
 */
static struct {
	uint64_t *words;
	uint8_t *counts;
} ifl;

static uint32_t ifl_bit(const struct krsi_inode_key *k)
{
	return krsi_inode_bit(k->slot, k->kind, k->dev, k->ino);
}

static void ifl_add(const struct krsi_inode_key *k)
{
	uint32_t b = ifl_bit(k);

	if (!ifl.counts)
		return; /* before ifl_rebuild(), which counts what the map holds */
	if (ifl.counts[b] < UINT8_MAX)
		ifl.counts[b]++;
	__atomic_fetch_or(&ifl.words[b >> 6], 1ULL << (b & 63), __ATOMIC_SEQ_CST);
}

/* K was deleted from inode_rules. */
static void ifl_del(const struct krsi_inode_key *k)
{
	uint32_t b = ifl_bit(k);

	if (!ifl.counts || ifl.counts[b] == 0 || ifl.counts[b] == UINT8_MAX)
		return;
	if (--ifl.counts[b] == 0)
		__atomic_fetch_and(&ifl.words[b >> 6], ~(1ULL << (b & 63)), __ATOMIC_SEQ_CST);
}

/* Map the filter and count what inode_rules holds now (a restart adopts its keys). */
static int ifl_rebuild(void)
{
	size_t size = (size_t)KRSI_INODE_FILTER_WORDS * sizeof(uint64_t);
	struct krsi_inode_key key, next;
	void *prev = NULL, *m;

	if (!ifl.words) {
		m = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, d.obj.maps.inode_filter, 0);
		if (m == MAP_FAILED)
			return -errno;
		ifl.words = m;
	}
	free(ifl.counts);
	ifl.counts = calloc((size_t)1 << KRSI_INODE_FILTER_LOG2, 1);
	if (!ifl.counts)
		return -ENOMEM;
	while (bpf_map_get_next_key(d.obj.maps.inode_rules, prev, &next) == 0) {
		uint32_t b = ifl_bit(&next);

		if (ifl.counts[b] < UINT8_MAX)
			ifl.counts[b]++;
		key = next;
		prev = &key;
	}
	/* Each word as counted: what a key in the map needs is set, the rest cleared. */
	for (uint32_t w = 0; w < KRSI_INODE_FILTER_WORDS; w++) {
		uint64_t v = 0;

		for (int i = 0; i < 64; i++)
			v |= (uint64_t)(ifl.counts[w * 64 + i] != 0) << i;
		__atomic_store_n(&ifl.words[w], v, __ATOMIC_SEQ_CST);
	}
	return 0;
}

static int ids_write(void *ctx, const struct krsi_inode_key *k, bool add)
{
	static const __u8 one = 1;
	int r;

	if (add) {
		ifl_add(k);
		if (bpf_map_update_elem(d.obj.maps.inode_rules, k, &one, BPF_ANY) == 0)
			return 0;
		r = -errno;
		ifl_del(k);
		return r;
	}
	if (bpf_map_delete_elem(d.obj.maps.inode_rules, k) < 0)
		return -errno;
	ifl_del(k);
	return 0;
}

/* Host views are owned by "profile:NAME"; a container id has no ":". */
static void ids_host_owner(const char *profile, char *buf, size_t size)
{
	snprintf(buf, size, "profile:%s", profile);
}

/*
 * The views of OWNER from SRC under SLOT, resolved in ROOT (WHERE names it in messages).
 * ISOLATE: the root may hold mounts its container made (ids_container()): resolved by a child
 * process, waited for at most --resolve-timeout (agent/resolve.c). Else in krsid itself.
 */
static int ids_view(const struct profile *p, uint32_t slot, const char *owner,
		    enum identity_source src, struct identity_root *root, const char *where,
		    bool isolate, struct krsi_err *err)
{
	const struct identity_view *old = identity_view_find(&d.ids, owner, src, slot);
	struct krsi_inode_key *keys;
	struct identity_hold *holds;
	size_t n;
	int r;

	/* A new slot (a reload) takes over what the owner's view under the old one held. */
	for (size_t i = 0; !old && i < d.ids.n_views; i++)
		if (d.ids.views[i].source == src && !strcmp(d.ids.views[i].owner, owner))
			old = &d.ids.views[i];
	if (!isolate)
		r = identity_view_keys(p, slot, root, old, &keys, &holds, &n);
	else
		r = resolve_view_keys(p, slot, root, old, d.resolve_timeout_ms, &keys, &holds, &n);
	if (r == -ETIMEDOUT) {
		d.n.resolve_timeouts++;
		err_set(err, r, "resolving its rules in %s: no answer within %d ms (a file system "
				"there that does not answer?)", where, d.resolve_timeout_ms);
		/* Under a new slot (a profile changed), what the old view held carries over. */
		if (old && old->slot != slot && old->n) {
			struct krsi_err serr = { "" };

			keys = calloc(old->n, sizeof(*keys));
			holds = calloc(old->n, sizeof(*holds));
			if (keys && holds) {
				for (size_t i = 0; i < old->n; i++) {
					keys[i] = old->keys[i];
					keys[i].slot = slot;
					if (old->holds)
						holds[i] = old->holds[i];
					holds[i].key = keys[i];
				}
				identity_view_set(&d.ids, owner, src, slot, keys, holds, old->n,
						  &serr);
			} else {
				free(keys);
				free(holds);
			}
		}
		return r;
	}
	if (r < 0)
		return err_set(err, r, "file identities in %s: %s", where, strerror(-r));
	return identity_view_set(&d.ids, owner, src, slot, keys, holds, n, err);
}

/* P's exact rules as the host sees them, under SLOT. */
static int ids_host(const struct profile *p, uint32_t slot, struct krsi_err *err)
{
	struct identity_root root;
	char owner[KRSI_CONTAINER_MAX];
	int r;

	r = identity_root_open_path("/", &root, err);
	if (r < 0)
		return r;
	ids_host_owner(p->name, owner, sizeof(owner));
	r = ids_view(p, slot, owner, IDENTITY_HOST, &root, "the host's root", false, err);
	identity_root_close(&root);
	return r;
}

/* The lowest pid in cgroup CG or below it (a runtime may use sub-cgroups); 0 if none. */
static int64_t cgroup_some_pid(const char *cg, int depth)
{
	const char *mnt;
	char path[4096];
	_cleanup_fclose_ FILE *f = NULL;
	long long pid, best = 0;
	size_t hidden = 0;
	DIR *dir;
	struct dirent *de;

	if (cgroup_mount(&mnt) < 0)
		return 0;
	/*
	 * No process in it or below it: one read of cgroup.events, where cgroup.procs and a walk
	 * of its sub-cgroups cost the 30-second refresh most of krsid's idle CPU at 16,384
	 * registered cgroups without processes.
	 */
	if (cgroup_populated(cg) == 0)
		return 0;
	snprintf(path, sizeof(path), "%s%s/cgroup.procs", mnt, cg);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (fscanf(f, "%lld", &pid) == 1) {
		if (pid > 0 && (!best || pid < best))
			best = pid;
		hidden += pid == 0;
	}
	/* In a pod's own PID namespace cgroup.procs shows the host's processes as pid 0. */
	if (!best && hidden)
		return cgroup_scan_pid(cg);
	if (best || depth <= 0)
		return best;
	snprintf(path, sizeof(path), "%s%s", mnt, cg);
	dir = opendir(path);
	if (!dir)
		return 0;
	while (!best && (de = readdir(dir))) {
		char sub[KRSI_CGROUP_PATH_MAX * 2];

		if (de->d_type != DT_DIR || de->d_name[0] == '.')
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", strcmp(cg, "/") ? cg : "", de->d_name);
		best = cgroup_some_pid(sub, depth - 1);
	}
	closedir(dir);
	return best;
}

/*
 * Container E's views under SLOT: its rootfs as its bundle names it, and the root of process
 * E->pid once it runs. STRICT (a registration): a rootfs that cannot be read is an error;
 * otherwise (a refresh) the old view stays. LIVE_ONLY: the live view alone (the container has
 * just armed; its bundle view was resolved when it registered, moments before).
 */
static int ids_container(const struct registry_entry *e, const struct profile *p, uint32_t slot,
			 bool strict, bool live_only, struct krsi_err *err)
{
	struct identity_root root;
	struct krsi_err lerr;
	char where[KRSI_ROOTFS_MAX + 32];
	/*
	 * Only mounts make a root block a resolution (an automount, FUSE, a network file system;
	 * a FIFO, a symlink chain or a big directory do not, with O_PATH and the kernel's limits).
	 * A container registered before its first instruction whose profile denies mount has
	 * only the runtime's; any other may have made its own: resolved by a child.
	 */
	bool isolate = !e->from_start || !p->mount;
	int r;

	if (e->rootfs[0] && !live_only) {
		r = identity_root_open_path(e->rootfs, &root, strict ? err : &lerr);
		if (r < 0 && strict)
			return err_set(err, r, "container %s: rootfs %s: %s", e->container, e->rootfs,
				       strerror(-r));
		if (r == 0) {
			snprintf(where, sizeof(where), "rootfs %s", e->rootfs);
			r = ids_view(p, slot, e->container, IDENTITY_BUNDLE, &root, where, isolate,
				     err);
			identity_root_close(&root);
			if (r < 0)
				return r;
		}
	}
	if (e->pid > 0 && identity_root_open_pid(e->pid, &root, &lerr) == 0) {
		snprintf(where, sizeof(where), "the root of pid %lld", (long long)e->pid);
		r = ids_view(p, slot, e->container, IDENTITY_LIVE, &root, where, isolate, err);
		identity_root_close(&root);
		if (r < 0)
			return r;
	}
	return 0;
}

/*
 * After ids_container() of E returned R: a root that did not answer is not asked again for a
 * while (4 refresh intervals, at least 4 s, doubling up to 30 minutes), so that it costs the
 * main loop one deadline now and then, not one every refresh; one that answered is asked again
 * at every refresh.
 */
static void ids_container_result(struct registry_entry *e, int r)
{
	if (r != -ETIMEDOUT) {
		e->resolve_backoff_s = 0;
		e->resolve_retry_ns = 0;
		return;
	}
	if (!e->resolve_backoff_s)
		e->resolve_backoff_s = d.refresh_s * 4 > 4 ? d.refresh_s * 4 : 4;
	else if (e->resolve_backoff_s < 1800)
		e->resolve_backoff_s = e->resolve_backoff_s * 2 < 1800 ? e->resolve_backoff_s * 2 : 1800;
	e->resolve_retry_ns = now_ns(CLOCK_MONOTONIC) + e->resolve_backoff_s * 1000000000ULL;
}

/* Drop container C's views under every slot but KEEP (-1: all). */
static void ids_container_drop(const char *c, int64_t keep)
{
	identity_view_drop(&d.ids, c, IDENTITY_BUNDLE, keep);
	identity_view_drop(&d.ids, c, IDENTITY_LIVE, keep);
}

/*
 * The views of profile P under SLOT, before a policy naming SLOT is published: the host's and
 * those of every container registered under P.
 */
static int ids_profile(const struct profile *p, uint32_t slot, struct krsi_err *err)
{
	int r = ids_host(p, slot, err);

	for (size_t i = 0; r == 0 && i < d.reg.n; i++) {
		struct krsi_err cerr = { "" };
		int cr;

		if (strcmp(d.reg.v[i]->profile, p->name))
			continue;
		/* A container's root that does not answer delays no profile change. */
		cr = ids_container(d.reg.v[i], p, slot, false, false, &cerr);
		ids_container_result(d.reg.v[i], cr);
		if (cr == -ETIMEDOUT)
			log_info("container %s: %s; what its views held carries over",
				 d.reg.v[i]->container, cerr.msg);
		else if (cr < 0)
			r = err_set(err, cr, "%s", cerr.msg);
	}
	return r;
}

static bool cgroup_armed(uint64_t cgroup_id)
{
	struct krsi_cgroup cg = { 0 };

	return bpf_map_lookup_elem(d.obj.maps.cgroups, &cgroup_id, &cg) == 0 &&
	       cg.flags & KRSI_CG_ARMED;
}

/*
 * Resolve every view again: files replaced at a rule's path, inode numbers freed and reused,
 * a live root's pid that exited (another process of the cgroup takes over).
 */
static void ids_refresh(void)
{
	struct krsi_err err = { "" };
	size_t keys = d.ids.n_refs;

	for (size_t i = 0; i < d.n_prof; i++)
		if (d.prof[i].p && ids_host(d.prof[i].p, d.prof[i].slot, &err) < 0)
			log_info("profile %s: %s", d.prof[i].name, err.msg);
	for (size_t i = 0; i < d.reg.n; i++) {
		struct registry_entry *e = d.reg.v[i];
		struct installed *ip = prof_find(e->profile);
		char live[320];

		int r;

		if (!ip || !ip->p)
			continue;
		if (e->resolve_retry_ns && now_ns(CLOCK_MONOTONIC) < e->resolve_retry_ns)
			continue; /* its root did not answer last time: its views stay as they are */
		snprintf(live, sizeof(live), "%s/%lld/root", host_proc(), (long long)e->pid);
		if (cgroup_armed(e->cgroup_id) && (e->pid <= 0 || access(live, F_OK) < 0))
			e->pid = cgroup_some_pid(e->cgroup, 3);
		r = ids_container(e, ip->p, ip->slot, false, false, &err);
		ids_container_result(e, r);
		if (r == -ETIMEDOUT)
			log_info("container %s: %s; its file identities stay as they were, next try "
				 "in %u s", e->container, err.msg, e->resolve_backoff_s);
		else if (r < 0)
			log_info("container %s: %s", e->container, err.msg);
	}
	d.refreshed_ns = now_ns(CLOCK_MONOTONIC);
	d.n.refreshes++;
	if (d.verbose)
		log_info("file identities refreshed: %zu keys (%zu before)", d.ids.n_refs, keys);
}

/*
 * After a restart: the views are resolved again, then the keys in the map that no view holds
 * are adopted under their slot when a profile uses it (a file renamed away from its rule's
 * path before the restart stays denied until that profile changes), and deleted otherwise.
 */
static void ids_sweep(void)
{
	_cleanup_free_ struct krsi_inode_key *extra = NULL;
	struct krsi_inode_key key, next;
	size_t n = 0, cap = 0, adopted = 0, deleted = 0;
	void *prev = NULL;

	while (bpf_map_get_next_key(d.obj.maps.inode_rules, prev, &next) == 0) {
		if (!identity_has(&d.ids, &next)) {
			if (n == cap) {
				size_t c = cap ? 2 * cap : 256;
				struct krsi_inode_key *v = realloc(extra, c * sizeof(*v));

				if (!v)
					break;
				extra = v;
				cap = c;
			}
			extra[n++] = next;
		}
		key = next;
		prev = &key;
	}
	for (size_t i = 0; i < d.n_prof; i++) {
		struct krsi_inode_key *keys = calloc(n + 1, sizeof(*keys));
		struct krsi_err err = { "" };
		size_t k = 0;

		if (!keys)
			return;
		for (size_t j = 0; j < n; j++)
			if (extra[j].slot == d.prof[i].slot)
				keys[k++] = extra[j];
		if (!k) {
			free(keys);
			continue;
		}
		if (identity_view_set(&d.ids, "restart:adopted", IDENTITY_HOST, d.prof[i].slot, keys, NULL,
				      k, &err) < 0)
			log_info("profile %s: %s", d.prof[i].name, err.msg);
		else
			adopted += k;
	}
	for (size_t j = 0; j < n; j++)
		if (!identity_has(&d.ids, &extra[j]) &&
		    bpf_map_delete_elem(d.obj.maps.inode_rules, &extra[j]) == 0) {
			ifl_del(&extra[j]);
			deleted++;
		}
	if (adopted || deleted)
		log_info("file identities from before the restart: %zu kept, %zu deleted", adopted,
			 deleted);
}

/*
 * A reload installs in two steps, so that running out of map space changes nothing: every
 * changed profile's rules are written under a fresh slot first (staged), and only when all
 * of them fit are the policies flipped (published), one map update each.
 */
struct staged {
	struct profile *p;
	struct profile_compiled c;
	uint32_t id, slot, pidx;
	bool fresh_id; /* a new profile: ID was taken for it */
	bool same;     /* the installed version already: nothing written */
};

/* A map write failed with errno E: say which limit when the map is full. */
static int rule_write_error(struct krsi_err *err, const char *profile, const char *what,
			    size_t i, int e, int max, const char *limit)
{
	if (e == ENOSPC || e == E2BIG || e == ENOMEM)
		return err_set(err, -ENOSPC, "profile %s: %s map full at rule %zu: it holds %d "
			       "entries (%s) for all profiles together, a replaced version's "
			       "included until it is retired", profile, what, i, max, limit);
	return err_set(err, -e, "profile %s: writing %s rule %zu: %s", profile, what, i,
		       strerror(e));
}

/* Give back the policies entry and the id that staging took for ST. */
static void prof_untake(struct staged *st)
{
	bit_put(d.pidx_used, st->pidx, false);
	if (st->fresh_id)
		bit_put(d.id_used, st->id, false);
}

/* Take back what staging wrote under ST's slot: nothing points at it yet. */
static void prof_unstage(struct staged *st)
{
	if (st->same)
		return;
	prof_untake(st);
	for (size_t i = 0; i < st->c.n_paths; i++)
		bpf_map_delete_elem(d.obj.maps.path_rules, &st->c.paths[i]);
	for (size_t j = 0; j < st->c.n_net; j++)
		bpf_map_delete_elem(d.obj.maps.net_rules, &st->c.net[j]);
	for (size_t m = 0; m < st->c.n_names; m++)
		bpf_map_delete_elem(d.obj.maps.name_rules, &st->c.names[m]);
	identity_drop_slot(&d.ids, st->slot);
	profile_compiled_clear(&st->c);
}

/* Write P's rules and identities under a fresh slot; no program sees them yet. */
static int prof_stage(struct profile *p, struct staged *st, struct krsi_err *err)
{
	struct installed *old = prof_find(p->name);
	struct krsi_err herr = { "" };
	__u8 one = 1;
	int r = 0;
	size_t i = 0, j = 0, m = 0;

	memset(st, 0, sizeof(*st));
	st->p = p;
	if (old && old->digest == p->digest) {
		st->same = true;
		return 0;
	}
	{
		int64_t id = old ? old->id : bit_take(d.id_used, KRSI_MAX_PROFILES, 0);
		int64_t pidx = bit_take(d.pidx_used, KRSI_POLICY_SLOTS, 1);

		if (id < 0 || pidx < 0) {
			if (pidx >= 0)
				bit_put(d.pidx_used, pidx, false);
			if (id >= 0 && !old)
				bit_put(d.id_used, id, false);
			return err_set(err, -EBUSY, "profile %s: no free %s: the ones of profiles "
				       "replaced or removed in the last %llu s are still retiring; "
				       "try again", p->name, id < 0 ? "profile id" : "policy entry",
				       SLOT_GRACE_NS / 1000000000ULL);
		}
		st->id = id;
		st->pidx = pidx;
		st->fresh_id = !old;
	}
	if (!d.next_slot)
		d.next_slot = 1; /* slot 0 marks a free policies entry */
	st->slot = d.next_slot++;
	r = profile_compile(p, st->id, st->slot, &st->c);
	if (r < 0) {
		prof_untake(st);
		return err_set(err, r, "profile %s: %s", p->name, strerror(-r));
	}
	/* The hooks first: once the policy is published, every hook it names must run. */
	r = hooks_attach(st->c.policy.deny, &herr);
	if (r == 0)
		r = config_set_deny(st->c.policy.deny, st->c.policy.caps, true);
	if (r < 0) {
		prof_untake(st);
		profile_compiled_clear(&st->c);
		return err_set(err, r, "profile %s: %s", p->name,
			       herr.msg[0] ? herr.msg : "writing the config");
	}
	for (i = 0; i < st->c.n_paths; i++)
		if (bpf_map_update_elem(d.obj.maps.path_rules, &st->c.paths[i], &one, BPF_ANY) < 0) {
			r = rule_write_error(err, p->name, "path", i, errno, KRSI_MAX_PATH_RULES,
					     "KRSI_MAX_PATH_RULES");
			goto undo;
		}
	for (j = 0; j < st->c.n_net; j++)
		if (bpf_map_update_elem(d.obj.maps.net_rules, &st->c.net[j], &st->c.net_val[j],
					BPF_ANY) < 0) {
			r = rule_write_error(err, p->name, "network", j, errno, KRSI_MAX_NET_RULES,
					     "KRSI_MAX_NET_RULES");
			goto undo;
		}
	for (m = 0; m < st->c.n_names; m++)
		if (bpf_map_update_elem(d.obj.maps.name_rules, &st->c.names[m], &one, BPF_ANY) < 0) {
			r = rule_write_error(err, p->name, "name", m, errno, KRSI_MAX_NAME_RULES,
					     "KRSI_MAX_NAME_RULES");
			goto undo;
		}
	/* The identities of its exact rules, for the host and every container under it. */
	r = ids_profile(p, st->slot, &herr);
	if (r < 0) {
		r = err_set(err, r, "profile %s: %s", p->name, herr.msg);
		goto undo;
	}
	return 0;
undo:
	while (i-- > 0)
		bpf_map_delete_elem(d.obj.maps.path_rules, &st->c.paths[i]);
	while (j-- > 0)
		bpf_map_delete_elem(d.obj.maps.net_rules, &st->c.net[j]);
	while (m-- > 0)
		bpf_map_delete_elem(d.obj.maps.name_rules, &st->c.names[m]);
	identity_drop_slot(&d.ids, st->slot);
	prof_untake(st);
	profile_compiled_clear(&st->c);
	return r;
}

/* Flip ST's policy to its staged slot: the one update a program sees. P is owned after. */
static int prof_publish(struct staged *st, bool *ret_changed, struct krsi_err *err)
{
	struct installed *old = prof_find(st->p->name);
	struct profile *p = st->p;

	*ret_changed = false;
	if (st->same) { /* unchanged, or adopted unchanged: only the parsed copy is new */
		profile_free(old->p);
		old->p = p;
		return 0;
	}
	/* The entry first, while nothing points at it; then the one store that publishes it. */
	if (bpf_map_update_elem(d.obj.maps.policies, &st->pidx, &st->c.policy, BPF_ANY) < 0) {
		int r = err_set(err, -errno, "profile %s: writing policy: %s", p->name,
				strerror(errno));

		prof_unstage(st);
		profile_free(p);
		return r;
	}
	profile_point(st->id, st->pidx);
	if (old) {
		retire(old->slot, old->pidx, old->id, false);
		profile_free(old->p);
	} else {
		struct installed *v = realloc(d.prof, (d.n_prof + 1) * sizeof(*v));

		if (!v) {
			/* The policy is in the map; the next start adopts it. */
			profile_compiled_clear(&st->c);
			profile_free(p);
			return err_set(err, -ENOMEM, "out of memory");
		}
		d.prof = v;
		old = &d.prof[d.n_prof++];
		memset(old, 0, sizeof(*old));
		snprintf(old->name, sizeof(old->name), "%s", p->name);
		old->id = st->id;
	}
	old->slot = st->slot;
	old->pidx = st->pidx;
	old->mode = p->mode;
	old->digest = p->digest;
	old->version = p->version;
	old->deny = st->c.policy.deny;
	old->caps = st->c.policy.caps;
	old->p = p;
	*ret_changed = true;
	profile_compiled_clear(&st->c);
	return 0;
}

/*
 * Take a profile out of the maps: no container has it, and it is gone from the directory. Its
 * rules and identities go with its slot after the grace period; its hooks are detached by the
 * caller's hooks_detach_unused() once nothing else needs them.
 */
static void prof_uninstall(size_t i, const char *why)
{
	struct installed *ip = &d.prof[i];
	static struct krsi_verdict_key gone[KRSI_MAX_VERDICT_KEYS];
	struct krsi_verdict_key k, next;
	size_t n_gone = 0;
	void *prev = NULL;

	profile_point(ip->id, 0);
	retire(ip->slot, ip->pidx, ip->id, true);
	/* Its verdict counters: the metrics of a profile that is gone go with it. Collected in
	 * one walk, then deleted: a deletion during the walk would restart it. */
	while (bpf_map_get_next_key(d.obj.maps.verdicts, prev, &next) == 0) {
		k = next;
		prev = &k;
		if (k.profile_id == ip->id && n_gone < KRSI_MAX_VERDICT_KEYS)
			gone[n_gone++] = k;
	}
	for (size_t g = 0; g < n_gone; g++)
		bpf_map_delete_elem(d.obj.maps.verdicts, &gone[g]);
	log_info("profile %s: uninstalled (%s)", ip->name, why);
	profile_free(ip->p);
	memmove(ip, ip + 1, (d.n_prof - i - 1) * sizeof(*ip));
	d.n_prof--;
	d.n.uninstalled++;
}

/* Uninstall the removed profiles whose last container is gone. */
static bool prof_collect(void)
{
	bool any = false;

	for (size_t i = 0; i < d.n_prof;) {
		if (d.prof[i].removed && !registry_count_profile(&d.reg, d.prof[i].name)) {
			prof_uninstall(i, "removed from the directory, and its last container is gone");
			any = true;
			continue;
		}
		i++;
	}
	if (any) {
		hooks_detach_unused();
		config_narrow();
	}
	return any;
}

/*
 * What the directory's "..data" symlink points at ("" without one). A Kubernetes ConfigMap
 * volume is a directory of NAME -> ..data/NAME links, updated by writing a new timestamped
 * directory and renaming a new ..data over the old one: a reload that saw ..data change while
 * it read the files may have mixed two versions, and reads them again.
 */
static void dir_generation(char *buf, size_t size)
{
	char path[4096];
	ssize_t n;

	snprintf(path, sizeof(path), "%s/..data", d.profile_dir);
	n = readlink(path, buf, size - 1);
	buf[n < 0 ? 0 : n] = 0;
}

/* Read every *.json of the directory, all or nothing; *RET_FILE names the one that failed. */
static int prof_read_dir(struct profile ***ret, size_t *ret_n, char *ret_file, size_t file_size,
			 struct krsi_err *err)
{
	struct profile **loaded = NULL;
	struct dirent **names = NULL;
	size_t n = 0;
	int nn, r = 0;

	*ret = NULL;
	*ret_n = 0;
	nn = scandir(d.profile_dir, &names, NULL, alphasort);
	if (nn < 0) {
		snprintf(ret_file, file_size, "%s", d.profile_dir);
		return err_set(err, -errno, "profile directory %s: %s", d.profile_dir,
			       strerror(errno));
	}
	loaded = calloc(nn + 1, sizeof(*loaded));
	if (!loaded) {
		r = err_set(err, -ENOMEM, "out of memory");
		goto out;
	}
	for (int i = 0; i < nn; i++) {
		size_t len = strlen(names[i]->d_name);
		char path[4096];

		if (len < 6 || strcmp(names[i]->d_name + len - 5, ".json") ||
		    names[i]->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", d.profile_dir, names[i]->d_name);
		r = profile_load_file(path, true, &loaded[n], err);
		if (r < 0) {
			snprintf(ret_file, file_size, "%s", path);
			goto out;
		}
		n++;
	}
out:
	if (r < 0) {
		for (size_t i = 0; i < n; i++)
			profile_free(loaded[i]);
		free(loaded);
		loaded = NULL;
		n = 0;
	}
	for (int i = 0; i < nn; i++)
		free(names[i]);
	free(names);
	*ret = loaded;
	*ret_n = n;
	return r;
}

/*
 * Load every *.json of the profile directory. All or nothing: if one file is invalid, no
 * profile changes, and the error names the file, the field and the reason. A profile that is
 * no longer in the directory is uninstalled when no container has it; otherwise it stays in
 * force for those containers (and refuses new ones) until the last one is gone.
 */
static int prof_reload(json_object *changed, json_object *unchanged, json_object *removed,
		       char *ret_file, size_t file_size, struct krsi_err *err)
{
	struct profile **loaded = NULL;
	struct staged *st = NULL;
	size_t n = 0, fresh = 0;
	char gen[4096], gen2[4096], (*names)[KRSI_NAME_MAX] = NULL;
	int r = 0;

	ret_file[0] = 0;
	for (int tries = 0;; tries++) {
		dir_generation(gen, sizeof(gen));
		r = prof_read_dir(&loaded, &n, ret_file, file_size, err);
		dir_generation(gen2, sizeof(gen2));
		if (!strcmp(gen, gen2) || tries == 4)
			break;
		/* ..data was swapped while the files were read: read the new version whole */
		for (size_t i = 0; i < n; i++)
			profile_free(loaded[i]);
		free(loaded);
		loaded = NULL;
	}
	if (r < 0)
		return r;
	names = calloc(n + 1, sizeof(*names));
	if (!names) {
		r = err_set(err, -ENOMEM, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		snprintf(names[i], sizeof(names[i]), "%s", loaded[i]->name);
		fresh += !prof_find(loaded[i]->name);
	}
	if (d.n_prof + fresh > KRSI_MAX_PROFILES) {
		r = err_set(err, -ENOSPC, "%zu profiles installed and %zu new ones: more than the %d "
			    "that krsi holds (KRSI_MAX_PROFILES)", d.n_prof, fresh, KRSI_MAX_PROFILES);
		goto out;
	}
	st = calloc(n + 1, sizeof(*st));
	if (!st) {
		r = err_set(err, -ENOMEM, "out of memory");
		goto out;
	}
	/* Every changed profile's rules first: one that does not fit changes nothing. */
	for (size_t i = 0; i < n; i++) {
		r = prof_stage(loaded[i], &st[i], err);
		if (r < 0) {
			snprintf(ret_file, file_size, "%s/%s.json", d.profile_dir, loaded[i]->name);
			while (i-- > 0)
				prof_unstage(&st[i]);
			goto out;
		}
	}
	for (size_t i = 0; i < n; i++) {
		bool ch;

		r = prof_publish(&st[i], &ch, err);
		loaded[i] = NULL; /* owned by its installed entry now, or freed */
		if (r < 0) {
			/* A policy write after all rules fit: the ones before it are published. */
			for (size_t k = i + 1; k < n; k++)
				prof_unstage(&st[k]);
			snprintf(ret_file, file_size, "%s/%s.json", d.profile_dir, names[i]);
			goto out;
		}
		prof_find(names[i])->removed = false;
		if (ch && changed)
			json_object_array_add(changed, json_object_new_string(names[i]));
		if (!ch && unchanged)
			json_object_array_add(unchanged, json_object_new_string(names[i]));
		if (ch)
			log_info("profile %s: version %llu installed (slot %u)", names[i],
				 (unsigned long long)prof_find(names[i])->version,
				 prof_find(names[i])->slot);
	}
	/* Every file read and installed: what the directory no longer has goes, or waits. */
	for (size_t i = 0; i < d.n_prof;) {
		struct installed *ip = &d.prof[i];
		size_t users = registry_count_profile(&d.reg, ip->name);
		bool seen = false;

		for (size_t k = 0; k < n && !seen; k++)
			seen = !strcmp(names[k], ip->name);
		if (seen) {
			i++;
			continue;
		}
		if (!users) {
			if (removed)
				json_object_array_add(removed, json_object_new_string(ip->name));
			prof_uninstall(i, "no longer in the directory, and no container has it");
			continue;
		}
		if (!ip->removed)
			log_info("profile %s: no longer in %s; stays in force for its %zu container%s, "
				 "refuses new ones", ip->name, d.profile_dir, users, users == 1 ? "" : "s");
		ip->removed = true;
		profile_free(ip->p);
		ip->p = NULL;
		i++;
	}
out:
	/* The hooks and config bits the staging added for what was not published go again. */
	hooks_detach_unused();
	config_narrow();
	for (size_t i = 0; i < n; i++)
		profile_free(loaded[i]);
	free(loaded);
	free(st);
	free(names);
	return r;
}

/* ---- registry ---- */

/*
 * The registered-cgroup filter (krsi.h): how many cgroups entries have each filter bit. A bit
 * is set before the first entry under it is written and cleared after the last is deleted.
 * Counts are uint16_t: at most KRSI_MAX_CGROUPS entries share a bit. Calloc'd lazily: only the
 * pages of bits in use are ever touched.
 */
static uint16_t *filter_refs;

static int filter_word_write(uint32_t w)
{
	uint64_t v = 0;

	for (int b = 0; b < 64; b++)
		if (filter_refs[w * 64 + b])
			v |= 1ULL << b;
	return bpf_map_update_elem(d.obj.maps.cgroup_filter, &w, &v, BPF_ANY) < 0 ? -errno : 0;
}

static int filter_add(uint64_t id)
{
	uint32_t f = id & (KRSI_FILTER_BITS - 1);

	if (filter_refs[f]++)
		return 0;
	return filter_word_write(KRSI_FILTER_WORD(id));
}

static void filter_drop(uint64_t id)
{
	uint32_t f = id & (KRSI_FILTER_BITS - 1);

	if (filter_refs[f] && !--filter_refs[f]) {
		int r = filter_word_write(KRSI_FILTER_WORD(id));

		/* The bit stays set: a hash lookup for a host task, never a verdict. */
		if (r < 0)
			log_info("cgroup filter: clearing a bit: %s", strerror(-r));
	}
}

/*
 * Count the filter from the cgroups map (what the programs look up, whether or not the
 * registry could take it back) and write every word: a pinned filter kept a superset.
 */
static int filter_rebuild(void)
{
	uint64_t cg, next;
	void *prev = NULL;

	free(filter_refs);
	filter_refs = calloc(KRSI_FILTER_BITS, sizeof(*filter_refs));
	if (!filter_refs)
		return -ENOMEM;
	while (bpf_map_get_next_key(d.obj.maps.cgroups, prev, &next) == 0) {
		cg = next;
		prev = &cg;
		filter_refs[cg & (KRSI_FILTER_BITS - 1)]++;
	}
	for (uint32_t w = 0; w < KRSI_FILTER_WORDS; w++) {
		int r = filter_word_write(w);

		if (r < 0)
			return r;
	}
	return 0;
}

static int config_update_mask(void)
{
	uint64_t mask = registry_level_mask(&d.reg);
	struct krsi_config cfg;
	__u32 zero = 0;

	if (bpf_map_lookup_elem(d.obj.maps.config, &zero, &cfg) < 0)
		return -errno;
	if (cfg.level_mask == mask)
		return 0; /* most registrations: a depth that has some already */
	cfg.level_mask = mask;
	return bpf_map_update_elem(d.obj.maps.config, &zero, &cfg, BPF_ANY) < 0 ? -errno : 0;
}

static int reg_write(const struct registry_entry *e, uint32_t profile_id, bool until_exec)
{
	struct krsi_registry_entry re = { 0 };
	struct krsi_cgroup cg = { .flags = until_exec ? 0 : KRSI_CG_ARMED };

	snprintf(re.container, sizeof(re.container), "%s", e->container);
	snprintf(re.profile, sizeof(re.profile), "%s", e->profile);
	snprintf(re.cgroup, sizeof(re.cgroup), "%s", e->cgroup);
	snprintf(re.rootfs, sizeof(re.rootfs), "%s", e->rootfs);
	re.registered_ns = e->registered_ns;
	re.level = registry_cgroup_level(e->cgroup);
	if (bpf_map_update_elem(d.obj.maps.registry, &e->cgroup_id, &re, BPF_ANY) < 0)
		return -errno;
	/* Keep the counters of an existing registration. */
	bpf_map_lookup_elem(d.obj.maps.cgroups, &e->cgroup_id, &cg);
	cg.profile_id = profile_id;
	if (bpf_map_update_elem(d.obj.maps.cgroups, &e->cgroup_id, &cg, BPF_ANY) < 0)
		return -errno;
	return 0;
}

/*
 * Unregister CONTAINER. Its cgroups entry goes first: if that delete fails, the container
 * stays registered and confined (the registry and the maps still agree), and the caller is
 * told. What follows only narrows what the programs look at; a failure there is logged.
 */
static int reg_delete(const char *container, const char *why)
{
	struct registry_entry *e = registry_find(&d.reg, container);
	uint64_t id;
	int r;

	if (!e)
		return 0;
	id = e->cgroup_id;
	if (bpf_map_delete_elem(d.obj.maps.cgroups, &id) < 0 && errno != ENOENT) {
		r = -errno;
		log_info("container %s: unregistering (%s): deleting its cgroups entry: %s; it "
			 "stays registered", container, why, strerror(-r));
		return r;
	}
	filter_drop(id);
	if (bpf_map_delete_elem(d.obj.maps.registry, &id) < 0 && errno != ENOENT)
		log_info("container %s: deleting its registry entry: %s (a restart would find "
			 "it without a cgroups entry and drop it)", container, strerror(errno));
	ids_container_drop(container, -1);
	log_info("container %s: unregistered (%s)", container, why);
	d.n.unregistrations++;
	registry_remove(&d.reg, container);
	r = config_update_mask();
	if (r < 0)
		log_info("config: narrowing the level mask: %s (a cost, not a verdict)",
			 strerror(-r));
	return 0;
}


/* Collect registrations whose cgroup is gone and whose cgroup_rmdir report was lost (a full
 * ring buffer) or came while no krsid ran. */
static void reg_collect(void)
{
	for (size_t i = 0; i < d.reg.n;) {
		struct registry_entry *e = d.reg.v[i];
		uint64_t id = 0;
		int r = cgroup_id(e->cgroup, &id);

		if (r == -ENOENT || (r == 0 && id != e->cgroup_id)) {
			char c[KRSI_CONTAINER_MAX];

			snprintf(c, sizeof(c), "%s", e->container);
			reg_delete(c, "its cgroup is gone");
			continue; /* entry i now holds another one */
		}
		i++;
	}
}

static struct krsi_stats stats_sum(void);

/*
 * The cgroup_rmdir program reports a registered cgroup's removal as it happens (KRSI_EVENT_GONE),
 * so the sweep, one stat() per registration, is only the backstop: every SWEEP_INTERVAL_S, and
 * at the next tick after the ring buffer lost events (a removal notice may be among them).
 */
static void reg_sweep_due(void)
{
	uint64_t now = now_ns(CLOCK_MONOTONIC), lost = stats_sum().lost;

	if (lost == d.swept_lost && now - d.swept_ns < SWEEP_INTERVAL_S * 1000000000ULL)
		return;
	reg_collect();
	d.swept_lost = lost;
	d.swept_ns = now;
}

static json_object *entry_json(const struct registry_entry *e)
{
	json_object *o = json_object_new_object();
	struct installed *ip = prof_find(e->profile);
	struct krsi_cgroup cg = { 0 };

	bpf_map_lookup_elem(d.obj.maps.cgroups, &e->cgroup_id, &cg);
	json_object_object_add(o, "container", json_object_new_string(e->container));
	json_object_object_add(o, "cgroup", json_object_new_string(e->cgroup));
	json_object_object_add(o, "cgroup_id", json_object_new_uint64(e->cgroup_id));
	json_object_object_add(o, "profile", json_object_new_string(e->profile));
	json_object_object_add(o, "mode", json_object_new_string(
						  ip && ip->mode == KRSI_MODE_AUDIT ? "audit" : "enforce"));
	if (ip)
		json_object_object_add(o, "version", json_object_new_uint64(ip->version));
	json_object_object_add(o, "denied", json_object_new_uint64(cg.denied));
	json_object_object_add(o, "audited", json_object_new_uint64(cg.audited));
	json_object_object_add(o, "armed", json_object_new_boolean(cg.flags & KRSI_CG_ARMED));
	json_object_object_add(o, "learning", json_object_new_boolean(e->learn_until_ns));
	return o;
}

static json_object *op_register(struct proto_request *q, bool assign)
{
	struct registry_entry e = { 0 };
	struct krsi_err err = { "" };
	const char *profile = q->profile ? q->profile : d.default_profile;
	struct installed *ip = prof_find(profile);
	/* E's strings until registry_add() copies them. */
	char cgroup[KRSI_CGROUP_PATH_MAX], rootfs[KRSI_ROOTFS_MAX] = "";
	struct registry_entry *cur;
	json_object *rep;
	int r, added;
	bool filtered = false;

	if (!ip)
		return proto_reply_error("profile %s: no such profile", profile);
	cur = registry_find(&d.reg, q->container);
	if (ip->removed && !(cur && !strcmp(cur->profile, profile)))
		return proto_reply_error("profile %s: removed from %s; it stays in force only for the "
					 "containers that had it", profile, d.profile_dir);
	if (assign) {
		cur = registry_find(&d.reg, q->container);
		if (!cur)
			return proto_reply_error("container %s: not registered", q->container);
		/*
		 * Its cgroup and rootfs are CUR's own strings, valid while CUR is registered; the
		 * container's name is the request's, still there when a failure removes CUR.
		 */
		e = *cur;
		e.container = q->container;
	} else {
		e.container = q->container;
		e.cgroup = cgroup;
		e.rootfs = rootfs;
		if (q->has_pid) {
			if (q->pid <= 0 || q->pid > INT32_MAX)
				return proto_reply_error("pid %lld: not a process id", (long long)q->pid);
			r = cgroup_of_pid(q->pid, cgroup, sizeof(cgroup));
			if (r < 0)
				return proto_reply_error("pid %lld: cannot read its cgroup: %s",
							 (long long)q->pid, strerror(-r));
		} else if (q->cgroup) {
			e.cgroup = q->cgroup;
		} else {
			r = cgroup_find_id(q->cgroup_id, cgroup, sizeof(cgroup));
			if (r < 0)
				return proto_reply_error("cgroup id %llu: not found: %s",
							 (unsigned long long)q->cgroup_id,
							 strerror(-r));
		}
		r = cgroup_id(e.cgroup, &e.cgroup_id);
		if (r < 0)
			return proto_reply_error("cgroup %s: %s", e.cgroup, strerror(-r));
		if (!strcmp(e.cgroup, "/"))
			return proto_reply_error("cgroup /: the root cgroup holds the host, refusing");
		e.registered_ns = now_ns(CLOCK_REALTIME);
		if (q->bundle) {
			r = identity_bundle_rootfs(q->bundle, rootfs, sizeof(rootfs), &err);
			if (r < 0)
				return proto_reply_error("container %s: %s", e.container, err.msg);
		}
		e.from_start = q->until_exec;
		/* A live root: the process named, unless it has still to exec into it. */
		if (q->has_pid && !q->until_exec)
			e.pid = q->pid;
		else if (!q->until_exec)
			e.pid = cgroup_some_pid(e.cgroup, 3);
		cur = registry_find(&d.reg, e.container);
		if (cur && cur->cgroup_id == e.cgroup_id) { /* registered again: keep what it had */
			if (!q->bundle)
				e.rootfs = cur->rootfs;
			if (!e.pid)
				e.pid = cur->pid;
			e.learn_until_ns = cur->learn_until_ns; /* its cgroups entry keeps the flag */
			e.from_start = cur->from_start && q->until_exec;
		}
	}
	e.profile = profile;
	/*
	 * The file identities under the profile's slot before the cgroups entry names the
	 * profile: a hard link made at the container's first instruction is already denied.
	 */
	if (ip->p) {
		r = ids_container(&e, ip->p, ip->slot, true, false, &err);
		if (r < 0) {
			cur = registry_find(&d.reg, e.container);
			if (!cur) {
				ids_container_drop(e.container, -1);
			} else if (!prof_find(cur->profile) || prof_find(cur->profile)->slot != ip->slot) {
				identity_view_drop_one(&d.ids, e.container, IDENTITY_BUNDLE, ip->slot);
				identity_view_drop_one(&d.ids, e.container, IDENTITY_LIVE, ip->slot);
			}
			return proto_reply_error("container %s: %s", e.container, err.msg);
		}
	}
	added = registry_add(&d.reg, &e, &err);
	if (added < 0) {
		if (!registry_find(&d.reg, e.container))
			ids_container_drop(e.container, -1);
		return proto_reply_error("%s", err.msg);
	}
	/* A container registered again: registry_add() took its profile and rootfs, not its pid. */
	cur = registry_find(&d.reg, e.container);
	cur->pid = e.pid;
	/*
	 * The level and filter bits first: a cgroups entry at an unmarked level, or whose filter
	 * bit is clear, would not be seen.
	 */
	r = config_update_mask();
	if (r == 0 && added == 0) {
		r = filter_add(e.cgroup_id);
		filtered = true;
	}
	if (r == 0)
		r = reg_write(&e, ip->id, !assign && q->until_exec);
	if (r < 0) {
		registry_remove(&d.reg, e.container);
		config_update_mask();
		bpf_map_delete_elem(d.obj.maps.cgroups, &e.cgroup_id);
		if (filtered)
			filter_drop(e.cgroup_id);
		bpf_map_delete_elem(d.obj.maps.registry, &e.cgroup_id);
		ids_container_drop(e.container, -1);
		return proto_reply_error("container %s: writing the maps: %s", e.container,
					 strerror(-r));
	}
	/* Its views under the profile it had are no longer read. */
	ids_container_drop(e.container, ip->slot);
	if (added == 0) {
		/*
		 * A cgroup removed before its cgroups entry was written sent no notice (the
		 * cgroup_rmdir program found nothing to report): look once more, now that the
		 * entry is there and a later removal would be reported.
		 */
		uint64_t id = 0;

		r = cgroup_id(e.cgroup, &id);
		if (r < 0 || id != e.cgroup_id) {
			char cg[KRSI_CGROUP_PATH_MAX];

			snprintf(cg, sizeof(cg), "%s", e.cgroup);
			reg_delete(e.container, "its cgroup was removed while it registered");
			return proto_reply_error("cgroup %s: removed while it was being registered",
						 cg);
		}
	}
	log_info("container %s: %s cgroup %s (id %llu), profile %s", e.container,
		 assign || added == 1 ? "assigned in" : "registered with", e.cgroup,
		 (unsigned long long)e.cgroup_id, profile);
	rep = proto_reply_ok();
	json_object_object_add(rep, "container", entry_json(registry_find(&d.reg, e.container)));
	return rep;
}

/* ---- learning (krsictl profile learn) ---- */

static struct krsi_stats stats_sum(void);

/* Set or clear KRSI_CG_LEARN on E's cgroups entry; E->learn_until_ns says which. */
static int learn_write(struct registry_entry *e, struct krsi_err *err)
{
	struct krsi_cgroup cg;

	if (bpf_map_lookup_elem(d.obj.maps.cgroups, &e->cgroup_id, &cg) < 0)
		return err_set(err, -errno, "container %s: its cgroups entry: %s", e->container,
			       strerror(errno));
	/* Only an armed entry is written: the programs set ARMED, never clear it. */
	if (!(cg.flags & KRSI_CG_ARMED))
		return err_set(err, -EAGAIN, "container %s: has not run its first program yet "
				"(registered until exec); learn once it runs", e->container);
	cg.flags = e->learn_until_ns ? cg.flags | KRSI_CG_LEARN : cg.flags & ~KRSI_CG_LEARN;
	if (bpf_map_update_elem(d.obj.maps.cgroups, &e->cgroup_id, &cg, BPF_EXIST) < 0)
		return err_set(err, -errno, "container %s: writing its cgroups entry: %s",
			       e->container, strerror(errno));
	return 0;
}

static void learn_end(struct registry_entry *e, const char *why)
{
	struct krsi_err err = { "" };

	e->learn_until_ns = 0;
	if (learn_write(e, &err) < 0)
		log_info("%s", err.msg);
	log_info("container %s: learning ended (%s)", e->container, why);
	hooks_detach_unused();
	config_narrow();
}

/* Learning that ran out of time ends. */
static void learn_expire(void)
{
	uint64_t now = now_ns(CLOCK_MONOTONIC);

	for (size_t i = 0; i < d.reg.n; i++)
		if (d.reg.v[i]->learn_until_ns && d.reg.v[i]->learn_until_ns <= now)
			learn_end(d.reg.v[i], "its time is up");
}

static json_object *op_learn(struct proto_request *q)
{
	struct registry_entry *e = registry_find(&d.reg, q->container);
	struct krsi_stats st = stats_sum();
	struct krsi_err err = { "" };
	json_object *rep;
	int r;

	if (!e)
		return proto_reply_error("container %s: not registered", q->container);
	if (q->stop) {
		if (!e->learn_until_ns)
			return proto_reply_error("container %s: not being learned", q->container);
		/* What was reported before the stop reaches the subscribers before its reply. */
		ring_buffer__consume(d.rb);
		learn_end(e, "on request");
	} else {
		bool was = e->learn_until_ns != 0;

		/* The hooks first: a flag that no running hook reads would learn nothing. */
		r = hooks_attach(KRSI_LEARN_DENY, &err);
		if (r < 0)
			return proto_reply_error("%s", err.msg);
		e->learn_until_ns = now_ns(CLOCK_MONOTONIC) + (uint64_t)q->seconds * 1000000000ULL;
		r = learn_write(e, &err);
		if (r < 0) {
			e->learn_until_ns = 0;
			hooks_detach_unused();
			return proto_reply_error("%s", err.msg);
		}
		config_narrow();
		log_info("container %s: %s for %lld s", e->container,
			 was ? "learning extended" : "learning", (long long)q->seconds);
	}
	rep = proto_reply_ok();
	json_object_object_add(rep, "container", entry_json(e));
	/* Loss anywhere may have been this container's: the client compares two replies. */
	json_object_object_add(rep, "lost", json_object_new_uint64(st.lost));
	return rep;
}

/* ---- events ---- */

static int64_t boot_to_real(void)
{
	return (int64_t)now_ns(CLOCK_REALTIME) - (int64_t)now_ns(CLOCK_BOOTTIME);
}

static void sub_remove(size_t i)
{
	epoll_ctl(d.epfd, EPOLL_CTL_DEL, d.subs[i].fd, NULL);
	close(d.subs[i].fd);
	d.subs[i] = d.subs[--d.n_subs];
}

/*
 * An event to the events log, the subscribers (all, and those that follow CONTAINER; an AGENT
 * event goes to every subscriber) and the recent ring, which takes O's reference.
 */
static void publish(json_object *o, const char *container, bool agent)
{
	const char *line = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN);

	if (d.events) {
		fprintf(d.events, "%s\n", line);
		fflush(d.events);
	}
	for (size_t i = 0; i < d.n_subs;) {
		if (d.subs[i].container[0] && !agent &&
		    (!container || strcmp(d.subs[i].container, container))) {
			i++;
			continue;
		}
		if (proto_send(d.subs[i].fd, o) < 0) {
			sub_remove(i); /* gone, or too slow to keep up */
			d.n.subscribers_dropped++;
			continue;
		}
		i++;
	}
	event_ring_push(&d.recent, o);
}

/* An event of the agent itself: {"time", "type": TYPE, ...O's fields}. Takes O. */
static void publish_agent(const char *type, json_object *o)
{
	json_object *e = json_object_new_object();
	char ts[64];

	event_time_str((int64_t)now_ns(CLOCK_REALTIME), ts, sizeof(ts));
	json_object_object_add(e, "time", json_object_new_string(ts));
	json_object_object_add(e, "type", json_object_new_string(type));
	json_object_object_foreach(o, k, v)
		json_object_object_add(e, k, json_object_get(v));
	json_object_put(o);
	publish(e, NULL, true);
}

static int on_event(void *ctx, void *data, size_t size)
{
	const struct krsi_event *e = data;
	struct registry_entry *re;
	struct installed *ip;
	struct event_names n = { 0 };
	json_object *o;

	if (size < sizeof(*e))
		return 0;
	re = registry_find_cgroup(&d.reg, e->policy_cgroup_id);
	if (e->hook == KRSI_EVENT_GONE) {
		char c[KRSI_CONTAINER_MAX];

		if (re) {
			snprintf(c, sizeof(c), "%s", re->container);
			reg_delete(c, "its cgroup was removed");
		}
		return 0;
	}
	if (e->hook == KRSI_EVENT_ARMED) {
		/*
		 * The container runs in its own root now: resolve its live view there. Its bundle
		 * view is as fresh as its registration; the periodic refresh redoes both.
		 */
		struct krsi_err err = { "" };

		ip = re ? prof_find(re->profile) : NULL;
		if (ip && ip->p) {
			int r;

			re->pid = e->pid;
			r = ids_container(re, ip->p, ip->slot, false, true, &err);
			ids_container_result(re, r);
			if (r < 0)
				log_info("container %s: %s", re->container, err.msg);
		}
		return 0;
	}
	ip = prof_find_id(e->profile_id);
	if (re) {
		n.container = re->container;
		n.cgroup = re->cgroup;
	}
	if (ip)
		n.profile = ip->name;
	o = event_to_json(e, &n, boot_to_real());
	publish(o, re ? re->container : NULL, false);
	return 0;
}

static json_object *op_events(struct proto_request *q, int fd, bool *ret_keep)
{
	json_object *rep = proto_reply_ok(), *arr = json_object_new_array();

	for (size_t k = 0; k < d.recent.n; k++) {
		size_t i = (d.recent.next + EVENTS_RECENT - d.recent.n + k) % EVENTS_RECENT;
		json_object *ev = d.recent.v[i], *c;

		if (q->container && (!json_object_object_get_ex(ev, "container", &c) ||
				     strcmp(json_object_get_string(c), q->container)))
			continue;
		json_object_array_add(arr, json_object_get(ev));
	}
	json_object_object_add(rep, "events", arr);
	if (q->follow) {
		struct epoll_event ev = { .events = EPOLLRDHUP | EPOLLHUP, .data.fd = fd };

		if (d.n_subs >= MAX_SUBSCRIBERS) {
			json_object_put(rep);
			return proto_reply_error("too many subscribers (%d)", MAX_SUBSCRIBERS);
		}
		d.subs[d.n_subs].fd = fd;
		snprintf(d.subs[d.n_subs].container, KRSI_CONTAINER_MAX, "%s",
			 q->container ? q->container : "");
		d.n_subs++;
		epoll_ctl(d.epfd, EPOLL_CTL_ADD, fd, &ev);
		*ret_keep = true;
	}
	return rep;
}

/* ---- requests ---- */

/* The stats map's per-CPU values, summed. */
static struct krsi_stats stats_sum(void)
{
	int ncpu = libbpf_num_possible_cpus();
	struct krsi_stats sum = { 0 }, *v;
	__u32 zero = 0;

	if (ncpu <= 0 || !(v = calloc(ncpu, sizeof(*v))))
		return sum;
	if (bpf_map_lookup_elem(d.obj.maps.stats, &zero, v) == 0)
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

static json_object *op_status(void)
{
	json_object *rep = proto_reply_ok(), *a = json_object_new_object(),
		    *k = json_object_new_object(), *s = json_object_new_object();
	struct krsi_stats sum = stats_sum();
	struct krsi_config cfg = { 0 };
	__u32 zero = 0;

	bpf_map_lookup_elem(d.obj.maps.config, &zero, &cfg);
	kernel_features_probe(&d.kf);
	json_object_object_add(a, "version", json_object_new_string(KRSID_VERSION));
	json_object_object_add(a, "pid", json_object_new_int(getpid()));
	json_object_object_add(a, "started", json_object_new_int64(d.started));
	json_object_object_add(a, "adopted", json_object_new_boolean(d.obj.adopted));
	json_object_object_add(a, "programs", json_object_new_int(d.obj.n_programs));
	json_object_object_add(a, "attached", json_object_new_int(hooks_attached()));
	json_object_object_add(a, "hooks", hooks_json());
	json_object_object_add(a, "profile_dir", json_object_new_string(d.profile_dir));
	json_object_object_add(a, "default_profile", json_object_new_string(d.default_profile));
	json_object_object_add(a, "level_mask", json_object_new_uint64(cfg.level_mask));
	json_object_object_add(a, "file_identities", json_object_new_uint64(d.ids.n_refs));
	json_object_object_add(a, "identity_views", json_object_new_uint64(d.ids.n_views));
	json_object_object_add(a, "refresh_interval_s", json_object_new_uint64(d.refresh_s));
	json_object_object_add(a, "refreshes", json_object_new_uint64(d.n.refreshes));
	json_object_object_add(a, "resolve_timeouts", json_object_new_uint64(d.n.resolve_timeouts));
	json_object_object_add(a, "resolve_pending", json_object_new_uint64(resolve_pending()));
	json_object_object_add(a, "retiring", json_object_new_uint64(d.n_retired));
	json_object_object_add(rep, "agent", a);
	json_object_object_add(k, "lsm", json_object_new_string(d.kf.lsm));
	json_object_object_add(k, "bpf_lsm", json_object_new_boolean(d.kf.bpf_lsm));
	json_object_object_add(k, "audit_switch", json_object_new_boolean(d.kf.audit_switch));
	if (d.kf.audit_switch)
		json_object_object_add(k, "enforcing", json_object_new_boolean(d.kf.enforcing != 0));
	json_object_object_add(k, "btf", json_object_new_boolean(d.kf.btf));
	json_object_object_add(rep, "kernel", k);
	json_object_object_add(s, "events", json_object_new_uint64(sum.events));
	json_object_object_add(s, "lost", json_object_new_uint64(sum.lost));
	json_object_object_add(s, "throttled", json_object_new_uint64(sum.throttled));
	json_object_object_add(s, "denied", json_object_new_uint64(sum.denied));
	json_object_object_add(s, "audited", json_object_new_uint64(sum.audited));
	json_object_object_add(rep, "stats", s);
	json_object_object_add(rep, "containers", json_object_new_int(d.reg.n));
	json_object_object_add(rep, "profiles", json_object_new_int(d.n_prof));
	return rep;
}

static json_object *op_ps(void)
{
	json_object *rep = proto_reply_ok(), *arr = json_object_new_array();

	for (size_t i = 0; i < d.reg.n; i++)
		json_object_array_add(arr, entry_json(d.reg.v[i]));
	json_object_object_add(rep, "containers", arr);
	return rep;
}

static json_object *prof_json(const struct installed *ip, bool full)
{
	json_object *o = json_object_new_object();
	char digest[32];

	snprintf(digest, sizeof(digest), "%016llx", (unsigned long long)ip->digest);
	json_object_object_add(o, "name", json_object_new_string(ip->name));
	json_object_object_add(o, "version", json_object_new_uint64(ip->version));
	json_object_object_add(o, "mode", json_object_new_string(ip->mode == KRSI_MODE_AUDIT ? "audit" : "enforce"));
	json_object_object_add(o, "digest", json_object_new_string(digest));
	json_object_object_add(o, "slot", json_object_new_int64(ip->slot));
	json_object_object_add(o, "id", json_object_new_int64(ip->id));
	json_object_object_add(o, "policy_entry", json_object_new_int64(ip->pidx));
	json_object_object_add(o, "containers",
			       json_object_new_int(registry_count_profile(&d.reg, ip->name)));
	json_object_object_add(o, "in_directory", json_object_new_boolean(ip->p != NULL));
	json_object_object_add(o, "removed", json_object_new_boolean(ip->removed));
	if (full && ip->p)
		json_object_object_add(o, "document", json_object_get(ip->p->doc));
	return o;
}

static json_object *op_profile_list(void)
{
	json_object *rep = proto_reply_ok(), *arr = json_object_new_array();

	for (size_t i = 0; i < d.n_prof; i++)
		json_object_array_add(arr, prof_json(&d.prof[i], false));
	json_object_object_add(rep, "profiles", arr);
	return rep;
}

/*
 * Reload the profile directory (TRIGGER: "request" or "directory"), log it, and publish a
 * "reload" event either way. Returns the reply for a request.
 */
static json_object *reload_run(const char *trigger)
{
	json_object *ch = json_object_new_array(), *un = json_object_new_array(),
		    *rm = json_object_new_array(), *ev = json_object_new_object(), *rep;
	struct krsi_err err = { "" };
	char file[4096];
	int r = prof_reload(ch, un, rm, file, sizeof(file), &err);

	json_object_object_add(ev, "trigger", json_object_new_string(trigger));
	json_object_object_add(ev, "directory", json_object_new_string(d.profile_dir));
	if (r < 0) {
		d.n.reload_failures++;
		log_info("reload (%s) refused: %s; the running policy stays", trigger, err.msg);
		json_object_object_add(ev, "result", json_object_new_string("refused"));
		if (file[0])
			json_object_object_add(ev, "file", json_object_new_string(file));
		json_object_object_add(ev, "reason", json_object_new_string(err.msg));
		publish_agent("reload", ev);
		json_object_put(ch);
		json_object_put(un);
		json_object_put(rm);
		rep = proto_reply_error("%s", err.msg);
		if (file[0])
			json_object_object_add(rep, "file", json_object_new_string(file));
		return rep;
	}
	d.n.reloads++;
	if (json_object_array_length(ch) || json_object_array_length(rm) || !strcmp(trigger, "request")) {
		json_object_object_add(ev, "result", json_object_new_string("ok"));
		json_object_object_add(ev, "changed", json_object_get(ch));
		json_object_object_add(ev, "removed", json_object_get(rm));
		publish_agent("reload", ev);
	} else {
		json_object_put(ev); /* a change that changed nothing (a touched file) */
	}
	rep = proto_reply_ok();
	json_object_object_add(rep, "changed", ch);
	json_object_object_add(rep, "unchanged", un);
	json_object_object_add(rep, "removed", rm);
	return rep;
}

/* ---- the profile directory, watched ---- */

static bool watch_gone; /* the directory was missing or went away: reload when it is back */

/*
 * Watch the directory itself: a file written, renamed in or out, removed, or a new ..data
 * (a ConfigMap update). The timer tick calls this again while the directory is missing.
 */
static void watch_start(void)
{
	struct epoll_event ev = { .events = EPOLLIN };

	if (!d.watch)
		return;
	if (d.watch_fd < 0) {
		d.watch_fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
		if (d.watch_fd < 0) {
			log_info("profile directory %s: inotify: %s; not watched (reload by request)",
				 d.profile_dir, strerror(errno));
			d.watch = false;
			return;
		}
		ev.data.fd = d.watch_fd;
		epoll_ctl(d.epfd, EPOLL_CTL_ADD, d.watch_fd, &ev);
	}
	if (inotify_add_watch(d.watch_fd, d.profile_dir,
			      IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_CLOSE_WRITE |
				      IN_ATTRIB | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR) < 0) {
		if (!watch_gone)
			log_info("profile directory %s: not watched yet: %s; trying again every %d s",
				 d.profile_dir, strerror(errno), GC_INTERVAL_S);
		watch_gone = true;
		close(d.watch_fd); /* one fd, one watch: a new one next time */
		d.watch_fd = -1;
		return;
	}
	if (watch_gone) {
		struct itimerspec its = { .it_value.tv_nsec = WATCH_SETTLE_MS * 1000000L };

		log_info("profile directory %s: watched again; reloading it", d.profile_dir);
		timerfd_settime(d.settle_fd, 0, &its, NULL);
	}
	watch_gone = false;
}

static bool watch_relevant(const struct inotify_event *e)
{
	size_t len;

	if (e->mask & (IN_Q_OVERFLOW | IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED))
		return true;
	if (!e->len)
		return false;
	if (!strcmp(e->name, "..data"))
		return true;
	len = strlen(e->name);
	return e->name[0] != '.' && len > 5 && !strcmp(e->name + len - 5, ".json");
}

/* Changes come in bursts (an editor, a ConfigMap update): reload once they settle. */
static void watch_read(void)
{
	char buf[8192] __attribute__((aligned(__alignof__(struct inotify_event))));
	bool any = false, lost = false;
	ssize_t n;

	while ((n = read(d.watch_fd, buf, sizeof(buf))) > 0)
		for (char *p = buf; p < buf + n;) {
			const struct inotify_event *e = (const struct inotify_event *)p;

			any |= watch_relevant(e);
			lost |= !!(e->mask & (IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED));
			p += sizeof(*e) + e->len;
		}
	if (lost) {
		log_info("profile directory %s: removed or moved; the running policy stays",
			 d.profile_dir);
		epoll_ctl(d.epfd, EPOLL_CTL_DEL, d.watch_fd, NULL);
		close(d.watch_fd);
		d.watch_fd = -1;
		watch_gone = true;
	}
	if (any) {
		struct itimerspec its = { .it_value.tv_nsec = WATCH_SETTLE_MS * 1000000L };

		timerfd_settime(d.settle_fd, 0, &its, NULL);
	}
}

/* ---- metrics ---- */

static uint64_t percpu_sum(int map, const void *key)
{
	int ncpu = libbpf_num_possible_cpus();
	uint64_t *v, sum = 0;

	if (ncpu <= 0 || !(v = calloc(ncpu, sizeof(*v))))
		return 0;
	if (bpf_map_lookup_elem(map, key, v) == 0)
		for (int i = 0; i < ncpu; i++)
			sum += v[i];
	free(v);
	return sum;
}

static void metrics_verdicts(struct metrics_buf *b, uint32_t verdict, const char *name)
{
	struct krsi_verdict_key k, next;
	void *prev = NULL;

	while (bpf_map_get_next_key(d.obj.maps.verdicts, prev, &next) == 0) {
		struct installed *ip;
		char id[32];
		const char *hook;

		k = next;
		prev = &k;
		if (k.verdict != verdict)
			continue;
		ip = prof_find_id(k.profile_id);
		snprintf(id, sizeof(id), "id:%u", k.profile_id);
		hook = names_hook_str(k.hook);
		metrics_sample(b, name,
			       (const char *const[]){ "profile", ip ? ip->name : id, "hook",
						      hook ? hook : "unknown", NULL },
			       percpu_sum(d.obj.maps.verdicts, &k));
	}
}

/* Everything krsid counts, in the Prometheus text format; "krsi_" names, "_total" counters. */
static void metrics_text(struct metrics_buf *b)
{
	struct krsi_stats st = stats_sum();
	char ver[32];

	metrics_family(b, "krsi_denials_total", "counter",
		       "Operations denied (enforce mode), by profile and hook.");
	metrics_verdicts(b, KRSI_VERDICT_DENY, "krsi_denials_total");
	metrics_family(b, "krsi_audits_total", "counter",
		       "Operations an audit-mode profile would have denied, by profile and hook.");
	metrics_verdicts(b, KRSI_VERDICT_AUDIT, "krsi_audits_total");
	metrics_family(b, "krsi_events_total", "counter", "Events sent by the programs to krsid.");
	metrics_sample(b, "krsi_events_total", NULL, st.events);
	metrics_family(b, "krsi_events_lost_total", "counter",
		       "Events lost because the ring buffer was full (the verdicts still held).");
	metrics_sample(b, "krsi_events_lost_total", NULL, st.lost);
	metrics_family(b, "krsi_events_throttled_total", "counter",
		       "Identical reports counted, not sent, within the throttle window.");
	metrics_sample(b, "krsi_events_throttled_total", NULL, st.throttled);
	metrics_family(b, "krsi_containers", "gauge", "Registered containers, by profile.");
	for (size_t i = 0; i < d.n_prof; i++)
		metrics_sample(b, "krsi_containers", (const char *const[]){ "profile", d.prof[i].name, NULL },
			       registry_count_profile(&d.reg, d.prof[i].name));
	metrics_family(b, "krsi_profile_info", "gauge",
		       "Installed profiles: mode, version, and whether the directory still has them.");
	for (size_t i = 0; i < d.n_prof; i++) {
		struct installed *ip = &d.prof[i];

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
	metrics_sample(b, "krsi_profile_reloads_total", NULL, d.n.reloads);
	metrics_family(b, "krsi_profile_reload_failures_total", "counter",
		       "Reloads refused (a bad file): the running policy stayed.");
	metrics_sample(b, "krsi_profile_reload_failures_total", NULL, d.n.reload_failures);
	metrics_family(b, "krsi_profiles_uninstalled_total", "counter",
		       "Profiles taken out once the directory and every container had let them go.");
	metrics_sample(b, "krsi_profiles_uninstalled_total", NULL, d.n.uninstalled);
	metrics_family(b, "krsi_registrations_total", "counter", "Registrations made.");
	metrics_sample(b, "krsi_registrations_total", NULL, d.n.registrations);
	metrics_family(b, "krsi_registration_failures_total", "counter", "Registrations refused.");
	metrics_sample(b, "krsi_registration_failures_total", NULL, d.n.refusals);
	metrics_family(b, "krsi_file_identity_timeouts_total", "counter",
		       "Containers' roots that did not answer within --resolve-timeout.");
	metrics_sample(b, "krsi_file_identity_timeouts_total", NULL, d.n.resolve_timeouts);
	metrics_family(b, "krsi_unregistrations_total", "counter",
		       "Registrations removed (on request, or their cgroup was gone).");
	metrics_sample(b, "krsi_unregistrations_total", NULL, d.n.unregistrations);
	metrics_family(b, "krsi_hook_attached", "gauge", "1 for each LSM hook attached, 0 if not.");
	for (int i = 0; i < d.obj.n_programs; i++)
		metrics_sample(b, "krsi_hook_attached",
			       (const char *const[]){ "hook", d.obj.progs[i].name, NULL },
			       d.obj.progs[i].attached);
	metrics_family(b, "krsi_file_identities", "gauge", "File identities of exact rules held.");
	metrics_sample(b, "krsi_file_identities", NULL, d.ids.n_refs);
	metrics_family(b, "krsi_file_identity_refreshes_total", "counter",
		       "Times every file identity was resolved again.");
	metrics_sample(b, "krsi_file_identity_refreshes_total", NULL, d.n.refreshes);
	metrics_family(b, "krsi_policies_retiring", "gauge",
		       "Replaced or removed policies in their grace period, not yet reusable.");
	metrics_sample(b, "krsi_policies_retiring", NULL, d.n_retired);
	metrics_family(b, "krsi_control_clients_turned_away_total", "counter",
		       "Control clients answered with an error before any request was served.");
	metrics_sample(b, "krsi_control_clients_turned_away_total",
		       (const char *const[]){ "reason", "not_root", NULL }, d.n.clients_refused);
	metrics_sample(b, "krsi_control_clients_turned_away_total",
		       (const char *const[]){ "reason", "busy", NULL }, d.n.clients_busy);
	metrics_sample(b, "krsi_control_clients_turned_away_total",
		       (const char *const[]){ "reason", "deadline", NULL }, d.n.clients_timed_out);
	metrics_family(b, "krsi_control_clients_reading", "gauge",
		       "Control clients whose request is still arriving.");
	metrics_sample(b, "krsi_control_clients_reading", NULL, d.n_clients);
	metrics_family(b, "krsi_event_subscribers", "gauge", "Clients following the events.");
	metrics_sample(b, "krsi_event_subscribers", NULL, d.n_subs);
	metrics_family(b, "krsi_event_subscribers_dropped_total", "counter",
		       "Subscribers dropped because they could not keep up.");
	metrics_sample(b, "krsi_event_subscribers_dropped_total", NULL, d.n.subscribers_dropped);
	metrics_family(b, "krsi_agent_start_time_seconds", "gauge",
		       "When this krsid started, seconds since the epoch.");
	metrics_sample(b, "krsi_agent_start_time_seconds", NULL, d.started);
	metrics_family(b, "krsi_build_info", "gauge", "krsid's version, and whether it adopted pins.");
	metrics_sample(b, "krsi_build_info",
		       (const char *const[]){ "version", KRSID_VERSION, "adopted",
					      d.obj.adopted ? "true" : "false", NULL },
		       1);
}

static int metrics_listen_tcp(int port)
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
static void serve_metrics(int fd)
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
		d.n.scrapes++;
		metrics_text(&b);
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
		if (writev(fd, iov, 2) < 0 && d.verbose)
			log_info("metrics: writing the reply: %s", strerror(errno));
	}
	metrics_buf_free(&b);
	close(fd);
}

/* Reply REP (consumed) to FD, blocking for at most 2 s, and close it. */
static void reply_close(int fd, json_object *rep)
{
	struct timeval tv = { .tv_sec = 2 };

	char buf[4096];

	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	proto_send(fd, rep);
	json_object_put(rep);
	/* Unread input would reset the connection at close, and the client could lose the reply
	 * (an oversized request): what has arrived is read and dropped first. */
	shutdown(fd, SHUT_WR);
	for (int i = 0; i < 256 && recv(fd, buf, sizeof(buf), MSG_DONTWAIT) > 0; i++)
		;
	close(fd);
}

/* Serve the whole request REQ (consumed) that FD sent; FD is closed, or kept as a subscriber. */
static void serve(int fd, json_object *req)
{
	struct proto_request q;
	struct krsi_err err = { "" };
	json_object *rep = NULL;
	struct timeval tv = { .tv_sec = 2 };
	bool keep = false, trim = false;
	int r;

	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	r = proto_request_from_doc(req, &q, &err);
	if (r < 0) {
		rep = proto_reply_error("%s", err.msg);
		goto reply;
	}
	switch (q.op) {
	case PROTO_STATUS:
		rep = op_status();
		break;
	case PROTO_PS:
		rep = op_ps();
		break;
	case PROTO_PROFILE_LIST:
		rep = op_profile_list();
		break;
	case PROTO_PROFILE_SHOW: {
		struct installed *ip = prof_find(q.name);

		if (!ip) {
			rep = proto_reply_error("profile %s: no such profile", q.name);
			break;
		}
		rep = proto_reply_ok();
		json_object_object_add(rep, "profile", prof_json(ip, true));
		break;
	}
	case PROTO_RELOAD:
		rep = reload_run("request");
		break;
	case PROTO_REGISTER:
		rep = op_register(&q, false);
		break;
	case PROTO_ASSIGN:
		rep = op_register(&q, true);
		prof_collect(); /* the removed profile it had may have no container left */
		break;
	case PROTO_UNREGISTER:
		if (!registry_find(&d.reg, q.container)) {
			rep = proto_reply_error("container %s: not registered", q.container);
			break;
		}
		r = reg_delete(q.container, "on request");
		if (r < 0) {
			rep = proto_reply_error("container %s: deleting its cgroups entry: %s; still "
						"registered", q.container, strerror(-r));
			break;
		}
		prof_collect();
		rep = proto_reply_ok();
		break;
	case PROTO_EVENTS:
		rep = op_events(&q, fd, &keep);
		break;
	case PROTO_LEARN:
		rep = op_learn(&q);
		break;
	case PROTO_METRICS: {
		struct metrics_buf b = { 0 };

		metrics_text(&b);
		if (b.oom) {
			rep = proto_reply_error("metrics: out of memory");
		} else {
			rep = proto_reply_ok();
			json_object_object_add(rep, "text", json_object_new_string(b.s ? b.s : ""));
		}
		metrics_buf_free(&b);
		break;
	}
	default:
		rep = proto_reply_error("op not implemented");
	}
	if (q.op == PROTO_REGISTER) {
		json_object *ok;

		if (json_object_object_get_ex(rep, "ok", &ok) && json_object_get_boolean(ok))
			d.n.registrations++;
		else
			d.n.refusals++;
	}
	/*
	 * A listing of every container is a json-c object per field: at 10,000 containers some
	 * 20 MB, freed in the middle of the heap, where glibc keeps it. Give it back.
	 */
	trim = q.op == PROTO_PS && d.reg.n >= 1000;
	proto_request_clear(&q);
reply:
	r = proto_send(fd, rep);
	json_object_put(rep);
	json_object_put(req);
	if (trim)
		malloc_trim(0);
	if (keep && r == 0) {
		/* A subscriber that cannot keep up is dropped, never waited for. */
		fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
		return;
	}
	if (keep) {
		for (size_t i = 0; i < d.n_subs; i++)
			if (d.subs[i].fd == fd) {
				sub_remove(i);
				return;
			}
	}
	close(fd);
}

/* New control clients: root only, at most MAX_CLIENTS reading at once. */
static void clients_accept(void)
{
	for (;;) {
		int fd = accept4(d.listen_fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
		struct epoll_event ev = { .events = EPOLLIN };
		socklen_t len = sizeof(struct ucred);
		struct ucred cred = { 0 };
		struct client *c;

		if (fd < 0 && (errno == EMFILE || errno == ENFILE) && d.spare_fd >= 0) {
			/* Out of fds: the spare one lets the client hear why, not hang in the backlog
			 * while the listening socket wakes the loop again and again. */
			close(d.spare_fd);
			fd = accept4(d.listen_fd, NULL, NULL, SOCK_CLOEXEC);
			if (fd >= 0) {
				d.n.clients_busy++;
				reply_close(fd, proto_reply_error("busy: krsid is out of file descriptors"));
			}
			d.spare_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
			continue;
		}
		if (fd < 0)
			return;
		if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0 || cred.uid != 0) {
			d.n.clients_refused++;
			log_info("refused a client with uid %d, pid %d", (int)cred.uid, (int)cred.pid);
			reply_close(fd, proto_reply_error("permission denied: krsid serves root only "
							  "(uid %d)", (int)cred.uid));
			continue;
		}
		if (d.n_clients == MAX_CLIENTS) {
			d.n.clients_busy++;
			reply_close(fd, proto_reply_error("busy: %d clients are sending requests at once; "
							  "try again", MAX_CLIENTS));
			continue;
		}
		c = &d.clients[d.n_clients];
		if (proto_reader_init(&c->rd, PROTO_REQUEST_MAX) < 0) {
			reply_close(fd, proto_reply_error("out of memory"));
			continue;
		}
		c->fd = fd;
		c->deadline_ns = now_ns(CLOCK_MONOTONIC) + REQUEST_DEADLINE_MS * 1000000ULL;
		ev.data.fd = fd;
		if (epoll_ctl(d.epfd, EPOLL_CTL_ADD, fd, &ev) < 0) {
			proto_reader_free(&c->rd);
			reply_close(fd, proto_reply_error("epoll: %s", strerror(errno)));
			continue;
		}
		d.n_clients++;
	}
}

/* Forget client I (its fd stays open: the caller replies on it or serves it). */
static int client_take(size_t i)
{
	int fd = d.clients[i].fd;

	epoll_ctl(d.epfd, EPOLL_CTL_DEL, fd, NULL);
	proto_reader_free(&d.clients[i].rd);
	d.clients[i] = d.clients[--d.n_clients];
	return fd;
}

/* FD is readable: if it is a client, read what is there and serve a whole request. */
static bool client_read(int fd)
{
	struct krsi_err err = { "" };
	json_object *req = NULL;
	char buf[4096];
	size_t i;
	int r = 0;

	for (i = 0; i < d.n_clients && d.clients[i].fd != fd; i++)
		;
	if (i == d.n_clients)
		return false;
	while (r == 0) {
		ssize_t n = recv(fd, buf, sizeof(buf), 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return true; /* the rest later, before its deadline */
		if (n < 0) {
			r = err_set(&err, -errno, "receive: %s", strerror(errno));
			break;
		}
		r = proto_reader_feed(&d.clients[i].rd, buf, n, &req, &err);
	}
	fd = client_take(i);
	if (r < 0)
		reply_close(fd, proto_reply_error("%s", err.msg));
	else
		serve(fd, req);
	return true;
}

/* Turn away the clients past their deadline; the milliseconds until the next one (-1: none). */
static int clients_expire(void)
{
	uint64_t now = now_ns(CLOCK_MONOTONIC), next = UINT64_MAX;

	for (size_t i = 0; i < d.n_clients;) {
		if (d.clients[i].deadline_ns <= now) {
			d.n.clients_timed_out++;
			reply_close(client_take(i), proto_reply_error("timed out waiting for a message "
								      "(%d ms)", REQUEST_DEADLINE_MS));
			continue;
		}
		if (d.clients[i].deadline_ns < next)
			next = d.clients[i].deadline_ns;
		i++;
	}
	return next == UINT64_MAX ? -1 : (int)((next - now) / 1000000 + 1);
}

/* ---- start-up ---- */

/* Retire the slots of MAP's keys that no policy names; raise *MAX_SLOT to the highest seen. */
static void slots_scan(int map, size_t key_size, size_t slot_off, uint32_t *max_slot)
{
	uint8_t key[sizeof(struct krsi_path_key) + sizeof(struct krsi_inode_key)],
		next[sizeof(key)];
	void *prev = NULL;
	uint32_t slot;

	while (bpf_map_get_next_key(map, prev, next) == 0) {
		memcpy(key, next, key_size);
		prev = key;
		memcpy(&slot, key + slot_off, sizeof(slot));
		if (slot > *max_slot)
			*max_slot = slot;
		if (!slot_in_use(slot) && !slot_due(slot, true, 0))
			slot_retire(slot);
	}
}

static int recover(void)
{
	struct krsi_policy pol;
	struct krsi_registry_entry re;
	uint64_t cg, next_cg;
	void *prev = NULL;
	uint32_t max_slot = 0;
	struct krsi_err err = { "" };
	void *pp = mmap(NULL, KRSI_MAX_PROFILES * sizeof(uint64_t), PROT_READ | PROT_WRITE,
			MAP_SHARED, d.obj.maps.profile_policy, 0);

	if (pp == MAP_FAILED)
		return -errno;
	d.profile_policy = pp;
	memset(d.id_used, 0, sizeof(d.id_used));
	memset(d.pidx_used, 0, sizeof(d.pidx_used));
	for (uint32_t id = 0; id < KRSI_MAX_PROFILES; id++) {
		uint64_t at = __atomic_load_n(&d.profile_policy[id], __ATOMIC_ACQUIRE);
		uint32_t pidx = at;

		if (!at)
			continue;
		if (at >= KRSI_POLICY_SLOTS ||
		    bpf_map_lookup_elem(d.obj.maps.policies, &pidx, &pol) < 0 || !pol.slot) {
			log_info("pinned profile id %u points at policy entry %u, which holds "
				 "none: unpointed", id, (unsigned)at);
			profile_point(id, 0);
			continue;
		}
		struct installed *v = realloc(d.prof, (d.n_prof + 1) * sizeof(*v));

		if (!v)
			return -ENOMEM;
		d.prof = v;
		memset(&d.prof[d.n_prof], 0, sizeof(*v));
		snprintf(d.prof[d.n_prof].name, KRSI_NAME_MAX, "%.*s", KRSI_NAME_MAX - 1, pol.name);
		d.prof[d.n_prof].id = id;
		d.prof[d.n_prof].pidx = pidx;
		d.prof[d.n_prof].slot = pol.slot;
		d.prof[d.n_prof].mode = pol.mode;
		d.prof[d.n_prof].digest = pol.digest;
		d.prof[d.n_prof].version = pol.version;
		d.prof[d.n_prof].deny = pol.deny;
		d.prof[d.n_prof].caps = pol.caps;
		d.n_prof++;
		bit_put(d.id_used, id, true);
		bit_put(d.pidx_used, pidx, true);
		if (pol.slot > max_slot)
			max_slot = pol.slot;
	}
	/*
	 * Entries that no profile points at but that hold a policy: replaced or removed shortly
	 * before the restart, perhaps still read. Their grace period starts now.
	 */
	for (uint32_t pidx = 1; pidx < KRSI_POLICY_SLOTS; pidx++) {
		if (d.pidx_used[pidx / 64] & (1ULL << (pidx % 64)) ||
		    bpf_map_lookup_elem(d.obj.maps.policies, &pidx, &pol) < 0 || !pol.slot)
			continue;
		bit_put(d.pidx_used, pidx, true);
		retire(slot_in_use(pol.slot) ? 0 : pol.slot, pidx, 0, false);
		if (pol.slot > max_slot)
			max_slot = pol.slot;
	}
	prev = NULL;
	while (bpf_map_get_next_key(d.obj.maps.registry, prev, &next_cg) == 0) {
		/* The map's fields may lack a NUL: read each no further than its size. */
		char container[KRSI_CONTAINER_MAX], profile[KRSI_NAME_MAX];
		char cgroup[KRSI_CGROUP_PATH_MAX], rootfs[KRSI_ROOTFS_MAX];
		struct registry_entry e = { 0 };

		cg = next_cg;
		prev = &cg;
		if (bpf_map_lookup_elem(d.obj.maps.registry, &cg, &re) < 0)
			continue;
		snprintf(container, sizeof(container), "%.*s", KRSI_CONTAINER_MAX - 1,
			 re.container);
		snprintf(profile, sizeof(profile), "%.*s", KRSI_NAME_MAX - 1, re.profile);
		snprintf(cgroup, sizeof(cgroup), "%.*s", KRSI_CGROUP_PATH_MAX - 1, re.cgroup);
		snprintf(rootfs, sizeof(rootfs), "%.*s", KRSI_ROOTFS_MAX - 1, re.rootfs);
		e.container = container;
		e.profile = profile;
		e.cgroup = cgroup;
		e.rootfs = rootfs;
		e.cgroup_id = cg;
		e.registered_ns = re.registered_ns;
		if (registry_add(&d.reg, &e, &err) < 0)
			log_info("pinned registry: %s, ignoring", err.msg);
		/* Learning ends with the agent that reported it: nobody collects its events. */
		{
			struct krsi_cgroup c;

			if (bpf_map_lookup_elem(d.obj.maps.cgroups, &cg, &c) == 0 &&
			    c.flags & KRSI_CG_LEARN) {
				c.flags &= ~KRSI_CG_LEARN;
				/* Left set, its allow lists would admit everything, unwatched. */
				if (bpf_map_update_elem(d.obj.maps.cgroups, &cg, &c, BPF_EXIST) < 0) {
					log_info("container %s: ending its learning: %s", e.container,
						 strerror(errno));
					return -errno;
				}
				log_info("container %s: learning ended (the agent restarted)",
					 e.container);
			}
		}
	}
	/* Rule slots that no policy names (a reload cut short by a kill): collect them. */
	slots_scan(d.obj.maps.path_rules, sizeof(struct krsi_path_key),
		   offsetof(struct krsi_path_key, slot), &max_slot);
	slots_scan(d.obj.maps.net_rules, sizeof(struct krsi_net_key),
		   offsetof(struct krsi_net_key, slot), &max_slot);
	slots_scan(d.obj.maps.name_rules, sizeof(struct krsi_name_key),
		   offsetof(struct krsi_name_key, slot), &max_slot);
	slots_scan(d.obj.maps.inode_rules, sizeof(struct krsi_inode_key),
		   offsetof(struct krsi_inode_key, slot), &max_slot);
	d.next_slot = max_slot + 1;
	return 0;
}

/* A listening unix socket at PATH (replacing a stale one), of mode MODE. */
static int unix_listen(const char *path, int flags, int backlog, mode_t mode)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd;

	mkdir("/run/krsi", 0755);
	if (strlen(path) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	strcpy(sa.sun_path, path);
	unlink(path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | flags, 0);
	if (fd < 0)
		return -errno;
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(fd, backlog) < 0) {
		int r = -errno;

		close(fd);
		return r;
	}
	chmod(path, mode);
	return fd;
}

/* Do paths A and B name one file (one namespace, for /proc/PID/ns/ links)? */
static bool same_file(const char *a, const char *b)
{
	struct stat x, y;

	return stat(a, &x) == 0 && stat(b, &y) == 0 && x.st_ino == y.st_ino && x.st_dev == y.st_dev;
}

/* Does PATH name the same file in the agent's root and in the host's (pid 1's)? */
static bool same_as_host(const char *path)
{
	char hp[4400];

	snprintf(hp, sizeof(hp), "%s/1/root%s", host_proc(), path);
	return same_file(path, hp);
}

/*
 * --node-agent: krsid runs in a privileged pod. Host pids are looked up in host_proc() (the
 * host's /proc: the pod's own with hostPID, else a hostPath mount given by --host-proc), bundle
 * paths and the host's view in the root of the host's pid 1, cgroup paths in pid 1's cgroup
 * namespace (joined here). The pins and the socket must be the host's: a private bpffs would
 * take enforcement down with the pod, a private /run/krsi would hide the socket from the hook
 * that the runtime runs on the host.
 */
static int node_agent_enter(struct krsi_err *err)
{
	char own[4096], sock_dir[4096], ns1[320], mnt1[320], *slash;
	struct statfs st;
	const char *mnt;
	uint64_t id;
	bool joined = false;
	int r;

	snprintf(ns1, sizeof(ns1), "%s/1/ns/cgroup", host_proc());
	snprintf(mnt1, sizeof(mnt1), "%s/1/ns/mnt", host_proc());
	if (access(ns1, F_OK) < 0)
		return err_set(err, -errno, "--node-agent: %s: %s (is %s the host's /proc?)", ns1,
			       strerror(errno), host_proc());
	if (getpid() == 1 && same_file(mnt1, "/proc/self/ns/mnt"))
		return err_set(err, -EINVAL, "--node-agent: pid 1 of %s is krsid itself, not the "
			       "host's init: give the pod hostPID: true, or mount the host's /proc "
			       "and name it with --host-proc", host_proc());
	if (!same_file(ns1, "/proc/self/ns/cgroup")) {
		_cleanup_close_ int fd = open(ns1, O_RDONLY | O_CLOEXEC);

		if (fd < 0 || setns(fd, CLONE_NEWCGROUP) < 0)
			return err_set(err, -errno, "--node-agent: joining the host's cgroup namespace "
				       "(%s): %s", ns1, strerror(errno));
		joined = true;
	}
	r = cgroup_mount(&mnt);
	if (r < 0)
		return err_set(err, r, "--node-agent: no cgroup2 file system mounted");
	r = cgroup_of_pid(1, own, sizeof(own));
	if (r == 0)
		r = strcmp(own, "/") ? cgroup_id(own, &id) : 0;
	if (r == 0) {
		r = cgroup_of_pid(0, own, sizeof(own));
		if (r == 0)
			r = cgroup_id(own, &id);
	}
	if (r < 0)
		return err_set(err, r, "--node-agent: the host's cgroups are not under %s: it is not "
			       "the host's cgroup2 hierarchy (mount the host's /sys/fs/cgroup there)", mnt);
	if (statfs("/sys/fs/bpf", &st) < 0 || st.f_type != BPF_FS_MAGIC || !same_as_host("/sys/fs/bpf"))
		return err_set(err, -EINVAL, "--node-agent: /sys/fs/bpf is not the host's bpffs: the "
			       "pins would go with the pod (mount the host's /sys/fs/bpf)");
	snprintf(sock_dir, sizeof(sock_dir), "%s", d.socket_path);
	slash = strrchr(sock_dir, '/');
	if (slash && slash != sock_dir)
		*slash = 0;
	mkdir(sock_dir, 0755);
	if (!same_as_host(sock_dir))
		return err_set(err, -EINVAL, "--node-agent: %s is not the host's: the OCI hook on the "
			       "host would not find the socket (mount the host's %s)", sock_dir, sock_dir);
	r = identity_set_host(1, err);
	if (r < 0)
		return r;
	log_info("node agent: host processes in %s, host paths in the root of its pid 1, cgroups "
		 "in its namespace (%s); pins and %s are the host's", host_proc(),
		 joined ? "joined" : "shared", sock_dir);
	return 0;
}

static void on_signal(int sig)
{
	d.stop = 1;
}

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
		"usage: krsid [-v] [--profiles DIR] [--socket PATH] [--events FILE] [--log FILE]\n"
		"             [--default-profile NAME] [--refresh-interval SECONDS] [--no-watch]\n"
		"             [--resolve-timeout MS]\n"
		"             [--metrics-socket PATH] [--metrics-port PORT]\n"
		"             [--node-agent [--host-proc DIR]] [--reset] [--unload]\n"
		"  --refresh-interval  resolve the exact rules' file identities again every SECONDS\n"
		"             (default %d; 0 = only when profiles and registrations change)\n"
		"  --resolve-timeout  wait at most MS for a container's root to resolve its rules\n"
		"             (default %d): a root that does not answer fails its registration, and\n"
		"             keeps its identities, retried later, at a refresh\n"
		"  --no-watch  reload profiles only on request (krsictl profile reload), not when a\n"
		"             file of the directory (or a ConfigMap's ..data) changes\n"
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

int main(int argc, char **argv)
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
	struct krsi_err err = { "" };
	struct epoll_event ev;
	struct itimerspec its = { .it_interval.tv_sec = GC_INTERVAL_S, .it_value.tv_sec = GC_INTERVAL_S };
	bool reset = false, unload = false;
	unsigned long v;
	int c, r;

	d.log = stderr;
	d.ids.write = ids_write;
	while ((c = getopt_long(argc, argv, "vp:s:e:l:d:h", opts, NULL)) != -1) {
		switch (c) {
		case 'v':
			d.verbose = true;
			break;
		case 'p':
			d.profile_dir = optarg;
			break;
		case 's':
			d.socket_path = optarg;
			break;
		case 'e':
			d.events_path = optarg;
			break;
		case 'l':
			d.log_path = optarg;
			break;
		case 'd':
			d.default_profile = optarg;
			break;
		case 'r':
			if (!opt_ulong("refresh-interval", "seconds", 0, 86400, &v))
				return 2;
			d.refresh_s = v;
			break;
		case 'X':
			if (!opt_ulong("resolve-timeout", "milliseconds", 10, 600000, &v))
				return 2;
			d.resolve_timeout_ms = (int)v;
			break;
		case 'W':
			d.watch = false;
			break;
		case 'M':
			d.metrics_path = optarg;
			break;
		case 'T':
			if (!opt_ulong("metrics-port", "a port", 1, 65535, &v))
				return 2;
			d.metrics_port = v;
			break;
		case 'N':
			d.node_agent = true;
			break;
		case 'P':
			if (host_proc_set(optarg) < 0) {
				fprintf(stderr, "krsid: --host-proc %s: expected an absolute path\n", optarg);
				return 2;
			}
			break;
		case 'R':
			reset = true;
			break;
		case 'U':
			unload = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (d.log_path) {
		d.log = fopen(d.log_path, "ae");
		if (!d.log) {
			fprintf(stderr, "krsid: log %s: %s\n", d.log_path, strerror(errno));
			return 1;
		}
	}
	libbpf_set_print(libbpf_print);
	if (strcmp(host_proc(), "/proc") && !d.node_agent) {
		fprintf(stderr, "krsid: --host-proc needs --node-agent\n");
		return 2;
	}
	if (d.node_agent && node_agent_enter(&err) < 0) {
		log_info("refusing to start: %s", err.msg);
		return 1;
	}
	if (unload) {
		r = bpfobj_unpin_all(&err);
		if (r < 0) {
			log_info("%s", err.msg);
			return 1;
		}
		log_info("unpinned %s: krsi no longer enforces anything", KRSI_PIN_DIR);
		return 0;
	}

	kernel_features_probe(&d.kf);
	log_info("krsid %s starting: lsm=%s; BPF LSM %s; audit switch %s%s; kernel BTF %s",
		 KRSID_VERSION, d.kf.lsm[0] ? d.kf.lsm : "(unknown)",
		 d.kf.bpf_lsm ? "active" : "NOT active",
		 d.kf.audit_switch ? "present" : "absent (stock kernel: always enforcing)",
		 !d.kf.audit_switch ? "" : d.kf.enforcing ? ", enforcing" : ", PERMISSIVE (nothing is denied machine-wide)",
		 d.kf.btf ? "present" : "absent");
	if (!d.kf.bpf_lsm) {
		log_info("refusing to start: \"bpf\" is not in /sys/kernel/security/lsm, so LSM programs "
			 "would load and never run; boot with lsm=...,bpf");
		return 1;
	}
	if (!d.kf.btf) {
		log_info("refusing to start: no /sys/kernel/btf/vmlinux (CONFIG_DEBUG_INFO_BTF)");
		return 1;
	}

	{
		struct krsi_err cerr;
		int fd = proto_connect(d.socket_path, 1000, &cerr);

		if (fd >= 0) {
			close(fd);
			log_info("refusing to start: another krsid answers on %s", d.socket_path);
			return 1;
		}
	}
	r = bpfobj_open(&d.obj, reset, d.verbose, &err);
	if (r < 0) {
		log_info("%s", err.msg);
		return 1;
	}
	if (err.msg[0])
		log_info("%s", err.msg);
	log_info("%s %d programs (%d attached), pinned in %s",
		 d.obj.adopted ? "adopted" : "loaded", d.obj.n_programs, hooks_attached(),
		 KRSI_PIN_DIR);
	r = recover();
	if (r == 0)
		r = filter_rebuild();
	if (r == 0)
		r = ifl_rebuild();
	if (r < 0) {
		log_info("recovering the pinned state: %s", strerror(-r));
		return 1;
	}
	if (d.obj.adopted)
		log_info("recovered %zu containers and %zu profiles from the pinned maps", d.reg.n,
			 d.n_prof);
	/* The hooks that the policies already in the maps need (and those always attached). */
	r = hooks_attach(prof_deny_all(), &err);
	if (r < 0) {
		log_info("%s", err.msg);
		return 1;
	}
	r = config_set_deny(prof_deny_all(), prof_caps_all(), true);
	if (r < 0) {
		log_info("config: writing the hooks' deny bits: %s", strerror(-r));
		return 1;
	}
	{
		char file[4096];

		r = prof_reload(NULL, NULL, NULL, file, sizeof(file), &err);
		if (r < 0)
			log_info("loading profiles: %s; keeping the installed ones", err.msg);
	}
	if (!prof_find(d.default_profile))
		log_info("default profile %s is not installed: registrations without a profile "
			 "will fail", d.default_profile);
	reg_collect();
	r = config_update_mask();
	if (r < 0) {
		log_info("config: writing the level mask: %s", strerror(-r));
		return 1;
	}
	/* The views of what is installed and registered, then the keys none of them holds. */
	ids_refresh();
	ids_sweep();

	if (d.events_path) {
		char dir[4096], *slash;

		snprintf(dir, sizeof(dir), "%s", d.events_path);
		slash = strrchr(dir, '/');
		if (slash && slash != dir) {
			*slash = 0;
			mkdir(dir, 0750);
		}
		d.events = fopen(d.events_path, "ae");
		if (!d.events)
			log_info("events log %s: %s, ignoring", d.events_path, strerror(errno));
	}
	d.rb = ring_buffer__new(d.obj.maps.events, on_event, NULL, NULL);
	if (!d.rb) {
		log_info("ring buffer: %s", strerror(errno));
		return 1;
	}
	/* Anyone may connect; SO_PEERCRED turns away all but root with a clear reply. */
	{
		/* MAX_CLIENTS readers, subscribers and the maps need more than the usual 1,024. */
		struct rlimit rl;

		if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max &&
		    rl.rlim_cur < 4 * MAX_CLIENTS) {
			rl.rlim_cur = rl.rlim_max < 4 * MAX_CLIENTS ? rl.rlim_max : 4 * MAX_CLIENTS;
			setrlimit(RLIMIT_NOFILE, &rl);
		}
	}
	d.spare_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	d.listen_fd = unix_listen(d.socket_path, SOCK_NONBLOCK, MAX_CLIENTS, 0666);
	if (d.listen_fd < 0) {
		log_info("control socket %s: %s", d.socket_path, strerror(-d.listen_fd));
		return 1;
	}
	d.timer_fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
	timerfd_settime(d.timer_fd, 0, &its, NULL);
	d.epfd = epoll_create1(EPOLL_CLOEXEC);
	ev = (struct epoll_event){ .events = EPOLLIN, .data.fd = d.listen_fd };
	epoll_ctl(d.epfd, EPOLL_CTL_ADD, d.listen_fd, &ev);
	ev = (struct epoll_event){ .events = EPOLLIN, .data.fd = d.timer_fd };
	epoll_ctl(d.epfd, EPOLL_CTL_ADD, d.timer_fd, &ev);
	ev = (struct epoll_event){ .events = EPOLLIN, .data.fd = ring_buffer__epoll_fd(d.rb) };
	epoll_ctl(d.epfd, EPOLL_CTL_ADD, ring_buffer__epoll_fd(d.rb), &ev);
	d.settle_fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	ev = (struct epoll_event){ .events = EPOLLIN, .data.fd = d.settle_fd };
	epoll_ctl(d.epfd, EPOLL_CTL_ADD, d.settle_fd, &ev);
	watch_start();
	if (d.metrics_path[0]) {
		/* root and its group: what a node's scraper runs as */
		d.metrics_fd = unix_listen(d.metrics_path, SOCK_NONBLOCK, 16, 0660);
		if (d.metrics_fd < 0) {
			log_info("metrics socket %s: %s", d.metrics_path, strerror(-d.metrics_fd));
			return 1;
		}
		ev = (struct epoll_event){ .events = EPOLLIN, .data.fd = d.metrics_fd };
		epoll_ctl(d.epfd, EPOLL_CTL_ADD, d.metrics_fd, &ev);
	}
	if (d.metrics_port) {
		d.metrics_tcp_fd = metrics_listen_tcp(d.metrics_port);
		if (d.metrics_tcp_fd < 0) {
			log_info("metrics port 127.0.0.1:%d: %s", d.metrics_port,
				 strerror(-d.metrics_tcp_fd));
			return 1;
		}
		ev = (struct epoll_event){ .events = EPOLLIN, .data.fd = d.metrics_tcp_fd };
		epoll_ctl(d.epfd, EPOLL_CTL_ADD, d.metrics_tcp_fd, &ev);
	}

	signal(SIGPIPE, SIG_IGN);
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	d.started = time(NULL);
	{
		char port[16] = "";

		if (d.metrics_port)
			snprintf(port, sizeof(port), "%d", d.metrics_port);
		log_info("ready: %zu profiles, %zu containers, socket %s; profile directory %s %s; "
			 "metrics on %s%s%s", d.n_prof, d.reg.n, d.socket_path, d.profile_dir,
			 d.watch_fd >= 0 ? "watched" : d.watch ? "not watched yet" : "reloaded on request",
			 d.metrics_path[0] ? d.metrics_path : "no socket",
			 d.metrics_port ? " and 127.0.0.1:" : "", port);
	}

	while (!d.stop) {
		struct epoll_event evs[64];
		int n = epoll_wait(d.epfd, evs, ARRAY_SIZE(evs), clients_expire());

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			log_info("epoll: %s", strerror(errno));
			break;
		}
		for (int i = 0; i < n; i++) {
			int fd = evs[i].data.fd;

			if (fd == d.listen_fd) {
				clients_accept();
			} else if (fd == d.timer_fd) {
				uint64_t x;

				if (read(d.timer_fd, &x, sizeof(x)) < 0)
					continue;
				reg_sweep_due();
				prof_collect();
				slots_collect(false);
				resolve_reap();
				learn_expire();
				if (d.watch && d.watch_fd < 0)
					watch_start();
				if (d.refresh_s && now_ns(CLOCK_MONOTONIC) - d.refreshed_ns >=
							   d.refresh_s * 1000000000ULL)
					ids_refresh();
			} else if (fd == ring_buffer__epoll_fd(d.rb)) {
				ring_buffer__consume(d.rb);
			} else if (fd == d.watch_fd) {
				watch_read();
			} else if (fd == d.settle_fd) {
				uint64_t x;

				if (read(d.settle_fd, &x, sizeof(x)) > 0)
					json_object_put(reload_run("directory"));
			} else if (fd == d.metrics_fd || fd == d.metrics_tcp_fd) {
				int cfd = accept4(fd, NULL, NULL, SOCK_CLOEXEC);

				if (cfd >= 0)
					serve_metrics(cfd);
			} else if (!client_read(fd)) {
				for (size_t k = 0; k < d.n_subs; k++)
					if (d.subs[k].fd == fd) {
						sub_remove(k);
						break;
					}
			}
		}
	}
	/* The programs stay attached: exiting is not disabling (krsid --unload is). */
	ring_buffer__consume(d.rb);
	log_info("stopping; LSM programs and policies stay in force");
	unlink(d.socket_path);
	if (d.metrics_fd >= 0)
		unlink(d.metrics_path);
	return 0;
}
