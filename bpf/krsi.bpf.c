// SPDX-License-Identifier: GPL-2.0
/*
 * krsi: one set of LSM programs for the whole machine, loaded once; krsid attaches each only
 * while some installed profile sets a deny bit it reads (agent/hookset.c). The current task's
 * cgroup, or its nearest registered ancestor, selects a profile; the profile's policy (deny
 * bits, masks, and a rule slot in the LPM tries) decides.
 *
 * Cost for tasks that no container registered: config.level_mask has a bit for each cgroup
 * depth at which some cgroup is registered. A task looks up only its ancestors at those
 * depths, so while nothing is registered a program returns after one array lookup, and a host
 * task pays one ancestor helper call and one filter load per registered depth at or above its
 * own, whatever its depth (one, with crun's /<id> or podman's /libpod_parent/libpod-<id>
 * layouts): cgroup_filter, an array whose load the verifier inlines, tells it that its cgroup
 * is not registered without the cgroups hash.
 *
 * Unregistered cgroup = allow: krsi confines containers, not the host. A registered cgroup's
 * sub-cgroups are confined by it: the walk looks at the task's ancestors, and the deepest
 * registered one decides.
 *
 * Atomic reloads: a policy names its rule slot. The agent writes a new rule set under a fresh
 * slot and the new policy to a free entry of the policies array, then points the profile at
 * that entry with one atomic store, so a program sees the old policy and the old rules, or the
 * new and the new. Old slots and entries are reused or deleted after a grace period, long
 * after any program that read the old policy returned.
 */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "krsi.h"
#include "sockaddr.h"

#define EPERM 1
#define AF_INET 2
#define AF_INET6 10
#define PROT_EXEC 0x4
#define PTRACE_MODE_ATTACH 0x02
#define PROT_WRITE 0x2
#define VM_WRITE 0x2
#define VM_EXEC 0x4
#define FMODE_READ 0x1
#define FMODE_WRITE 0x2
#define CAP_OPT_NOAUDIT 0x2
#define DCACHE_DISCONNECTED 0x20 /* include/linux/dcache.h */
#define DCACHE_MOUNTED 0x10000
#define I_OVL_INUSE (1 << 14) /* include/linux/fs.h: an overlay's upper or work directory */
#define S_IFMT 00170000
#define MS_REMOUNT 32
#define MS_UNBINDABLE (1 << 17)
#define MS_PRIVATE (1 << 18)
#define MS_SLAVE (1 << 19)
#define MS_SHARED (1 << 20)
#define S_IFDIR 0040000
#define MAP_TYPE 0x0f
#define MAP_PRIVATE 0x02
#define VM_SHARED 0x8
#define READ_IMPLIES_EXEC 0x0400000
#define OVERLAYFS_SUPER_MAGIC 0x794c7630
#define BPRM_MEM_EXEC_STACK 0x1 /* include/linux/binfmts.h, kernel series patch 13 */
#define BPRM_MEM_READ_IMPLIES_EXEC 0x2
#define BPRM_MEM_WX_SEGMENT 0x4
#define CAP_SYSLOG 34
#define CAP_BPF 39
#define CAP_PERFMON 38
/* kern_mount() (shm_mnt, pipes, anon inodes): ERR_PTR(-EINVAL) in 6.1 fs/mount.h */
#define MNT_NS_INTERNAL ((unsigned long)-22)

char LICENSE[] SEC("license") = "GPL";

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct krsi_config);
} config SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, KRSI_MAX_CGROUPS);
	__type(key, __u64);
	__type(value, struct krsi_cgroup);
} cgroups SEC(".maps");

/*
 * A profile's policy: profile_policy[profile id] is the index of its entry in policies (0: none).
 * Both are arrays, whose lookups the verifier inlines (a hash lookup costs about a hundred
 * instructions more, on every hook call of a confined task). The agent writes a new policy to
 * an entry that nothing points at, then stores its index with one atomic 64-bit store through
 * the mmap'd profile_policy: a program sees the old policy or the new, never a mix. A replaced
 * entry is written again only after the grace period that retires its rules.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, KRSI_MAX_PROFILES);
	__uint(map_flags, BPF_F_MMAPABLE);
	__type(key, __u32);
	__type(value, __u64); /* an mmap'd array's elements are 8 bytes apart whatever their size */
} profile_policy SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, KRSI_POLICY_SLOTS);
	__type(key, __u32);
	__type(value, struct krsi_policy);
} policies SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LPM_TRIE);
	__uint(max_entries, KRSI_MAX_PATH_RULES);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct krsi_path_key);
	__type(value, __u8);
} path_rules SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LPM_TRIE);
	__uint(max_entries, KRSI_MAX_NET_RULES);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct krsi_net_key);
	__type(value, __u8);
} net_rules SEC(".maps");

/* File identities of exact rules (struct krsi_inode_key): another name of a denied file. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, KRSI_MAX_INODE_RULES);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct krsi_inode_key);
	__type(value, __u8);
} inode_rules SEC(".maps");

/* Which identities inode_rules may hold (krsi.h, krsi_inode_bit()): mmap'ed by the agent. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, KRSI_INODE_FILTER_WORDS);
	__uint(map_flags, BPF_F_MMAPABLE);
	__type(key, __u32);
	__type(value, __u64);
} inode_filter SEC(".maps");

/* Last components of exact rules: a path is resolved only when its name could match. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, KRSI_MAX_NAME_RULES);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct krsi_name_key);
	__type(value, __u8);
} name_rules SEC(".maps");

/* Registered cgroups by the low bits of their ids (krsi.h, KRSI_FILTER_WORD): an array, so
 * that a host task's miss is an inlined load, not a hash lookup. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, KRSI_FILTER_WORDS);
	__type(key, __u32);
	__type(value, __u64);
} cgroup_filter SEC(".maps");

/* The agent's bookkeeping, pinned with the rest so that a restart recovers it; unused here. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, KRSI_MAX_CGROUPS);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, __u64);
	__type(value, struct krsi_registry_entry);
} registry SEC(".maps");

/* Ids of krsi's own maps (key high bit clear) and programs (high bit set). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 64);
	__type(key, __u32);
	__type(value, __u8);
} self_ids SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct krsi_stats);
} stats SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, KRSI_MAX_VERDICT_KEYS);
	__type(key, struct krsi_verdict_key);
	__type(value, __u64);
} verdicts SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, struct krsi_throttle_key);
	__type(value, struct krsi_throttle_val);
} throttle SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 256 * 1024);
} events SEC(".maps");

/* Per-CPU buffer for a path and its LPM key: too big for the 512-byte stack. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct krsi_path_key);
} scratch SEC(".maps");

/*
 * wx: files a confined task mapped executable. While such a file is still mapped, no confined
 * task opens it for writing or maps it shared and writable: the pages it runs would change
 * under it. The mark goes with the inode; the first write that finds the file mapped no more
 * clears it.
 */
struct {
	__uint(type, BPF_MAP_TYPE_INODE_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, __u8);
} exec_mapped SEC(".maps");

struct ctx {
	struct krsi_config *cfg;
	struct krsi_policy *pol;
	struct krsi_cgroup *cg;
	__u64 cgid; /* the registered cgroup */
	__u64 learn; /* KRSI_LEARN_DENY while the cgroup is learned (KRSI_CG_LEARN), else 0 */
};

/*
 * Tell the agent that an until_exec registration is armed: the task is in the container's own
 * root now, where the agent resolves the identities of exact rules again.
 */
static __always_inline void armed_notify(__u64 cgid)
{
	struct krsi_event *e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);

	if (!e)
		return; /* the agent's periodic refresh catches up */
	__builtin_memset(e, 0, sizeof(*e));
	e->time_ns = bpf_ktime_get_boot_ns();
	e->cgroup_id = bpf_get_current_cgroup_id();
	e->policy_cgroup_id = cgid;
	e->pid = bpf_get_current_pid_tgid() >> 32;
	e->tid = (__u32)bpf_get_current_pid_tgid();
	e->hook = KRSI_EVENT_ARMED;
	bpf_ringbuf_submit(e, 0);
}

/* Whether some registered cgroup may have id ID: false is certain, true needs the hash. */
static __always_inline bool filter_maybe(__u64 id)
{
	__u32 w = KRSI_FILTER_WORD(id);
	__u64 *word = bpf_map_lookup_elem(&cgroup_filter, &w);

	return word && (*word & KRSI_FILTER_MASK(id));
}

/* Whether inode_rules has key K: its filter bit first, the hash only when the bit is set. */
static __always_inline bool inode_rule(struct krsi_inode_key *k)
{
	__u32 bit = krsi_inode_bit(k->slot, k->kind, k->dev, k->ino), w = bit >> 6;
	__u64 *word = bpf_map_lookup_elem(&inode_filter, &w);

	if (word && !(*word & (1ULL << (bit & 63))))
		return false;
	return bpf_map_lookup_elem(&inode_rules, k) != NULL;
}

/*
 * Find the policy of the current task's nearest registered cgroup; false = not confined, or
 * registered but not armed yet (the runtime still setting the container up) unless ARM: the
 * exec hook arms it.
 *
 * Only the depths whose bit is set in the level mask are looked at, from the root down: at
 * each, the task's cgroup or its ancestor at that depth by one helper call (0 once the depth
 * is below the task's own: no deeper one can be its ancestor either), then the filter, then
 * the cgroups hash; the deepest registered one wins. An unmarked depth costs a shift and a
 * bit test, and the walk ends at the deepest marked one, so a host task at any depth pays
 * one helper call and one filter load per registered depth at or above its own.
 */
static __always_inline bool policy_get_arm(struct ctx *c, bool arm)
{
	struct krsi_cgroup *cg = NULL;
	struct krsi_policy *pol;
	__u32 zero = 0, pidx;
	__u64 *at;
	__u64 mask, id = 0;

	c->cfg = bpf_map_lookup_elem(&config, &zero);
	if (!c->cfg)
		return false;
	mask = c->cfg->level_mask;
	for (int l = 0; l < KRSI_MAX_LEVELS && mask; l++, mask >>= 1) {
		struct krsi_cgroup *at;
		__u64 aid;

		if (!(mask & 1))
			continue;
		aid = bpf_get_current_ancestor_cgroup_id(l);
		if (!aid)
			break;
		if (!filter_maybe(aid))
			continue;
		at = bpf_map_lookup_elem(&cgroups, &aid);
		if (at) {
			cg = at;
			id = aid;
		}
	}
	if (!cg)
		return false;
	at = bpf_map_lookup_elem(&profile_policy, &cg->profile_id);
	if (!at)
		return false;
	pidx = *at; /* read once: the agent may store a new index meanwhile */
	if (!pidx)
		return false; /* a registration without a profile: the agent's bug, allow */
	pol = bpf_map_lookup_elem(&policies, &pidx);
	if (!pol)
		return false;
	if (!(cg->flags & KRSI_CG_ARMED)) {
		if (!arm)
			return false;
		cg->flags |= KRSI_CG_ARMED; /* racing CPUs set the same bit */
		armed_notify(id);
	}
	if (arm && !cg->root_dentry) {
		struct task_struct *task = bpf_get_current_task_btf();

		cg->root_mnt = (__u64)task->fs->root.mnt;
		cg->root_dentry = (__u64)task->fs->root.dentry;
	}
	c->cg = cg;
	c->pol = pol;
	c->cgid = id;
	c->learn = cg->flags & KRSI_CG_LEARN ? KRSI_LEARN_DENY : 0;
	return true;
}

static __always_inline bool policy_get(struct ctx *c)
{
	return policy_get_arm(c, false);
}

static __always_inline __u64 hash_str(const char *s)
{
	__u64 h = 0xcbf29ce484222325ULL;

	for (int i = 0; i < KRSI_PATH_MAX; i++) {
		if (!s[i])
			break;
		h ^= (unsigned char)s[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

struct report {
	__u32 hook;
	__s32 arg;
	__u64 object; /* what makes two reports identical, besides hook and verdict */
	__u64 value;
	__u32 dev;
	const char *path; /* kernel string or NULL */
	struct krsi_event_net *net;
};

static __always_inline void report(struct ctx *c, __u32 verdict, struct report *r)
{
	struct krsi_throttle_key tk = {
		.cgroup_id = c->cgid, .object = r->object, .hook = r->hook, .verdict = verdict
	};
	struct krsi_throttle_val *t, tv = {};
	struct krsi_stats *st;
	struct krsi_event *e;
	__u32 zero = 0, suppressed = 0;
	__u64 now = bpf_ktime_get_boot_ns();

	st = bpf_map_lookup_elem(&stats, &zero);
	t = bpf_map_lookup_elem(&throttle, &tk);
	if (t) {
		if (now - t->last_ns < c->cfg->throttle_ns) {
			__sync_fetch_and_add(&t->suppressed, 1);
			if (st)
				st->throttled++;
			return;
		}
		suppressed = t->suppressed;
		t->suppressed = 0;
		t->last_ns = now;
	} else {
		tv.last_ns = now;
		bpf_map_update_elem(&throttle, &tk, &tv, BPF_ANY);
	}
	e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (!e) {
		if (st)
			st->lost++;
		return;
	}
	e->time_ns = now;
	e->cgroup_id = bpf_get_current_cgroup_id();
	e->policy_cgroup_id = c->cgid;
	e->pid = bpf_get_current_pid_tgid() >> 32;
	e->tid = (__u32)bpf_get_current_pid_tgid();
	e->hook = r->hook;
	e->verdict = verdict;
	e->profile_id = c->cg->profile_id;
	e->slot = c->pol->slot;
	e->suppressed = suppressed;
	e->arg = r->arg;
	e->value = r->value;
	e->dev = r->dev;
	bpf_get_current_comm(e->comm, sizeof(e->comm));
	if (r->net)
		__builtin_memcpy(&e->net, r->net, sizeof(e->net));
	else
		__builtin_memset(&e->net, 0, sizeof(e->net));
	e->path[0] = 0;
	if (r->path)
		bpf_probe_read_kernel_str(e->path, sizeof(e->path), r->path);
	bpf_ringbuf_submit(e, 0);
	if (st)
		st->events++;
}

/* One more verdict of this profile on this hook, for the metrics. */
static __always_inline void count_verdict(struct ctx *c, __u32 hook, __u32 verdict)
{
	struct krsi_verdict_key vk = {
		.profile_id = c->cg->profile_id, .hook = hook, .verdict = verdict
	};
	__u64 *n, one = 1;

	n = bpf_map_lookup_elem(&verdicts, &vk);
	if (n)
		*n += 1; /* this CPU's count */
	else if (bpf_map_update_elem(&verdicts, &vk, &one, BPF_NOEXIST) < 0 &&
		 (n = bpf_map_lookup_elem(&verdicts, &vk)))
		*n += 1; /* another CPU made the key first */
}

/*
 * -EPERM when ENFORCE, else 0, as a value the verifier knows the range of: the kernel series'
 * return check (patch 5) refuses a program whose return it cannot bound, and the compiler
 * likes to make this -(enforce & 1), a negation the verifier does not follow. The barrier
 * hides what the compiler knows, and the compare gives the verifier both values.
 */
static __always_inline int verdict_errno(bool enforce)
{
	int r = enforce ? -EPERM : 0;

	barrier_var(r);
	if (r != -EPERM)
		r = 0;
	return r;
}

/* A rule matched: count, report, and return the verdict of the policy's mode. */
static __always_inline int decide(struct ctx *c, struct report *r)
{
	struct krsi_stats *st;
	__u32 zero = 0;
	bool enforce = c->pol->mode == KRSI_MODE_ENFORCE;

	count_verdict(c, r->hook, enforce ? KRSI_VERDICT_DENY : KRSI_VERDICT_AUDIT);
	st = bpf_map_lookup_elem(&stats, &zero);
	if (enforce) {
		__sync_fetch_and_add(&c->cg->denied, 1);
		if (st)
			st->denied++;
	} else {
		__sync_fetch_and_add(&c->cg->audited, 1);
		if (st)
			st->audited++;
	}
	report(c, enforce ? KRSI_VERDICT_DENY : KRSI_VERDICT_AUDIT, r);
	return verdict_errno(enforce);
}

/*
 * A learned container did what R says, and no deny rule denies it: report it (verdict learn,
 * throttled as any report) and allow it. Counted as neither a denial nor an audit.
 */
static __always_inline int learn(struct ctx *c, struct report *r)
{
	report(c, KRSI_VERDICT_LEARN, r);
	return 0;
}

/* For the deny kinds that are one switch. */
static __always_inline int flag_check(__u32 hook, __s32 arg, __u64 value, const char *path)
{
	struct ctx c;
	struct report r = { .hook = hook, .arg = arg, .value = value, .path = path };

	if (!policy_get(&c) || !(c.pol->deny & KRSI_DENY(hook)))
		return 0;
	r.object = arg;
	return decide(&c, &r);
}

/*
 * The kernel's own file systems have one tree each, the same in every instance, and one place
 * where every system mounts it. A file on one of them is named by that place and its path in
 * the tree, however it was reached: a rule on /proc/sys/kernel/core_pattern holds for a procfs
 * instance the container mounted elsewhere, for a bind mount of /proc/sys, under any root.
 */
#define PROC_SUPER_MAGIC 0x9fa0
#define SYSFS_MAGIC 0x62656572
#define DEBUGFS_MAGIC 0x64626720
#define TRACEFS_MAGIC 0x74726163
#define SECURITYFS_MAGIC 0x73636673
#define CONFIGFS_MAGIC 0x62656570

static __always_inline int ktree_prefix(struct super_block *sb, const char **prefix)
{
	switch (sb->s_magic) {
	case PROC_SUPER_MAGIC: *prefix = "/proc"; return 5;
	case SYSFS_MAGIC: *prefix = "/sys"; return 4;
	case DEBUGFS_MAGIC: *prefix = "/sys/kernel/debug"; return 17;
	case TRACEFS_MAGIC: *prefix = "/sys/kernel/tracing"; return 19;
	case SECURITYFS_MAGIC: *prefix = "/sys/kernel/security"; return 20;
	case CONFIGFS_MAGIC: *prefix = "/sys/kernel/config"; return 18;
	}
	return 0;
}

/* Built from the last component back, in a buffer that every masked offset and size fits. */
#define KTREE_BUF 1024
#define KTREE_OFF (KTREE_BUF / 2 - 1)
#define KTREE_NAME (KTREE_BUF / 4 - 1)
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, char[KTREE_BUF]);
} ktree_buf SEC(".maps");

/* One step of ktree_path(): the name of one directory, from the last component back. */
struct ktree_walk {
	__u64 d;	    /* struct dentry *: the next component */
	__u64 stop;	    /* a dentry that ends the walk as the tree's root does, or 0 */
	const char *prefix; /* a constant string */
	int plen;
	int pos;	    /* where the path starts in ktree_buf */
	int done;	    /* 1: the path is in ktree_buf from pos; -1: it cannot be told */
	bool at_stop;	    /* the walk ended at STOP, not at its file system's root */
};

static long ktree_step(__u32 i, void *arg)
{
	struct ktree_walk *w = arg;
	struct dentry *d = (void *)w->d, *parent = BPF_CORE_READ(d, d_parent);
	__u32 zero = 0;
	char *buf = bpf_map_lookup_elem(&ktree_buf, &zero);
	int pos = w->pos, len;

	if (!buf || pos < 0 || pos > KTREE_OFF) {
		w->done = -1;
		return 1;
	}
	if (parent == d || w->d == w->stop) {
		w->done = -1;
		w->at_stop = w->d == w->stop;
		if (w->d != w->stop && d != BPF_CORE_READ(d, d_sb, s_root))
			return 1; /* disconnected: where it is cannot be told */
		if (pos == KTREE_OFF)
			buf[--pos & KTREE_OFF] = '/'; /* the tree's root itself */
		if (pos < w->plen)
			return 1;
		pos -= w->plen;
		if (bpf_probe_read_kernel(buf + (pos & KTREE_OFF), w->plen & 31, w->prefix) < 0)
			return 1;
		w->pos = pos;
		w->done = 1;
		return 1;
	}
	len = BPF_CORE_READ(d, d_name.len);
	if (len > KTREE_NAME || pos < len + 1 + w->plen) {
		w->done = -1;
		return 1;
	}
	pos -= len;
	if (bpf_probe_read_kernel(buf + (pos & KTREE_OFF), len & KTREE_NAME,
				  BPF_CORE_READ(d, d_name.name)) < 0) {
		w->done = -1;
		return 1;
	}
	buf[--pos & KTREE_OFF] = '/';
	w->pos = pos;
	w->d = (__u64)parent;
	return 0;
}

/*
 * The path of D in its kernel file system's tree, under PREFIX (PLEN bytes), into OUT
 * (KRSI_PATH_MAX bytes): false when it is longer, deeper than KRSI_DIR_DEPTH, or cut off from
 * its tree's root (a disconnected dentry).
 */
static __always_inline bool ktree_path_stop(struct dentry *d, const char *prefix, int plen,
					    __u64 stop, char *out, bool *at_stop)
{
	struct ktree_walk w = { .d = (__u64)d, .prefix = prefix, .plen = plen, .pos = KTREE_OFF,
				.stop = stop };
	__u32 zero = 0;
	char *buf = bpf_map_lookup_elem(&ktree_buf, &zero);

	if (!buf)
		return false;
	buf[KTREE_OFF] = 0;
	bpf_loop(KRSI_DIR_DEPTH + 1, ktree_step, &w, 0);
	if (at_stop)
		*at_stop = w.at_stop;
	if (w.done != 1 || KTREE_OFF - w.pos >= KRSI_PATH_MAX)
		return false;
	return bpf_probe_read_kernel_str(out, KRSI_PATH_MAX, buf + (w.pos & KTREE_OFF)) > 0;
}

static __always_inline bool ktree_path(struct dentry *d, const char *prefix, int plen,
				       char *out)
{
	return ktree_path_stop(d, prefix, plen, 0, out, NULL);
}

/*
 * Resolve PATH into the scratch key: the task's view, relative to its root, or for a file of
 * the kernel's own file systems, its place in their tree (ktree_prefix).
 */
static __always_inline struct krsi_path_key *path_resolve(struct path *path)
{
	struct krsi_path_key *k;
	const char *prefix;
	__u32 zero = 0;
	int plen;

	k = bpf_map_lookup_elem(&scratch, &zero);
	if (!k)
		return NULL;
	plen = ktree_prefix(path->dentry->d_sb, &prefix);
	if (plen) {
		if (!ktree_path(path->dentry, prefix, plen, k->path))
			return NULL;
	} else if (bpf_d_path(path, k->path, sizeof(k->path)) < 0) {
		/* Too long (ENAMETOOLONG) or unresolvable: no path rule can match. See docs. */
		return NULL;
	}
	k->prefixlen = (sizeof(*k) - sizeof(k->prefixlen)) * 8;
	return k;
}

/*
 * A file that lives on no real directory, so that no path rule could name it: on an internal
 * mount (memfd_create, shared anonymous memory, anything of kern_mount()) or on a lazily
 * unmounted one, or with no name left (unlinked while open, O_TMPFILE).
 */
static __always_inline __u32 file_pathless(struct file *f)
{
	struct vfsmount *mnt = f->f_path.mnt;
	struct mount *m = (void *)mnt - bpf_core_field_offset(struct mount, mnt);
	unsigned long ns = (unsigned long)BPF_CORE_READ(m, mnt_ns);

	/* An internal mount, or none any more (a lazy unmount clears mnt_ns). */
	if (ns == MNT_NS_INTERNAL || !ns)
		return KRSI_MATCH_MEMFD;
	/* Not in the task's mount tree: a detached copy, an instance never attached. */
	if (ns != (unsigned long)bpf_get_current_task_btf()->nsproxy->mnt_ns)
		return KRSI_MATCH_DETACHED;
	if (!f->f_path.dentry->d_inode->__i_nlink)
		return KRSI_MATCH_UNLINKED;
	return 0;
}

/*
 * DENTRY's name into NK->name as bpf_probe_read_kernel_str() puts it there (the rest of the
 * zeroed key left zero). A name of up to DNAME_INLINE_LEN - 1 bytes lives in the dentry
 * itself, and is read from it with four loads, masked to its length: the helper copied it a
 * byte at a time, the larger part of a file rule's cost for a file that no rule names.
 */
#define DNAME_INLINE_LEN 32
static __always_inline void name_key_fill(struct krsi_name_key *nk, struct dentry *dentry)
{
	const unsigned char *name = dentry->d_name.name;
	__u32 len = dentry->d_name.len;

	if (len < DNAME_INLINE_LEN && (const void *)name == (const void *)dentry->d_iname) {
#pragma unroll
		for (int i = 0; i < DNAME_INLINE_LEN / 8; i++) {
			__u64 w = *(__u64 *)&dentry->d_iname[i * 8];
			int left = (int)len - i * 8;

			if (left <= 0)
				break;
			if (left < 8)
				w &= (1ULL << (left * 8)) - 1;
			__builtin_memcpy(&nk->name[i * 8], &w, 8);
		}
		return;
	}
	bpf_probe_read_kernel_str(nk->name, sizeof(nk->name), name);
}

/* A file's path, resolved at most once per hook call (into the scratch key). */
struct fpath {
	struct krsi_path_key *k;
	bool tried;
};

static __always_inline struct krsi_path_key *fpath_get(struct fpath *fp, struct file *f)
{
	if (!fp->tried) {
		fp->tried = true;
		fp->k = path_resolve(&f->f_path);
	}
	return fp->k;
}

enum walk {
	WALK_NONE = 0,	  /* no directory of a rule above the file */
	WALK_MATCH = 1,	  /* the directory of a rule is above the file */
	WALK_UNKNOWN = 2, /* the file is cut off from its file system's root: cannot tell */
};

/* Whether directory D is the directory of a directory rule of K's kind (K's dev: D's). */
static __always_inline bool dir_rule(struct krsi_inode_key *k, struct dentry *d)
{
	k->ino = BPF_CORE_READ(d, d_inode, i_ino);
	return inode_rule(k);
}

/* The state of dir_walk(), one directory a step. Pointers are kept as numbers. */
struct dir_walk_state {
	struct krsi_inode_key k; /* k.dev: the device of d's file system */
	__u64 d, vm, m;	       /* the directory reached, its mount (vfsmount, mount) */
	__u64 mnt_root;	       /* vm's root */
	__u64 root, root_mnt;  /* the task's root */
	__u64 sub;	       /* the root of the first mount met that shows a subtree */
	__u64 stop;	       /* the container's root: the walk up from sub ends there */
	int result;	       /* enum walk; -1 while walking */
	bool second;	       /* walking up from sub */
	bool at_root;
};

/* The walk up from SUB, or the end when no mount showed a subtree. */
static __always_inline long dir_walk_second(struct dir_walk_state *w)
{
	struct dentry *sub = (void *)w->sub;

	if (!sub || w->sub == w->stop) {
		w->result = WALK_NONE;
		return 1;
	}
	w->second = true;
	w->d = w->sub;
	w->k.dev = BPF_CORE_READ(sub, d_sb, s_dev);
	return 0;
}

static long dir_walk_step(__u32 i, void *arg)
{
	struct dir_walk_state *w = arg;
	struct dentry *d = (void *)w->d, *parent = BPF_CORE_READ(d, d_parent);

	if (!w->second) {
		if (w->d == w->root && w->vm == w->root_mnt)
			w->at_root = true;
		if (w->d == w->mnt_root) {
			/* The root of a mount: go on from where it is mounted (the same path). */
			struct mount *m = (void *)w->m, *pm = BPF_CORE_READ(m, mnt_parent);

			if (!w->sub && parent != d)
				w->sub = w->d; /* the mount shows a subtree: its ancestors come next */
			if (pm == m)
				return dir_walk_second(w); /* the top: the namespace's, or a detached tree's */
			w->d = (__u64)BPF_CORE_READ(m, mnt_mountpoint);
			w->m = (__u64)pm;
			w->vm = (__u64)pm + bpf_core_field_offset(struct mount, mnt);
			w->mnt_root = (__u64)BPF_CORE_READ(pm, mnt.mnt_root);
			w->k.dev = BPF_CORE_READ(pm, mnt.mnt_sb, s_dev);
			return 0;
		}
	}
	if (parent == d) {
		/*
		 * A file system's root: the end. Or cut off: a file handle's file that the dentry
		 * cache could not connect to its parents. A pseudo file (memfd, pipe, socket) has
		 * no parents either, and no directory to be in: the end.
		 */
		if (d != BPF_CORE_READ(d, d_sb, s_root) &&
		    BPF_CORE_READ(d, d_flags) & DCACHE_DISCONNECTED) {
			w->result = WALK_UNKNOWN;
			return 1;
		}
		if (w->second) {
			w->result = WALK_NONE;
			return 1;
		}
		return dir_walk_second(w);
	}
	if (w->second && w->d == w->stop) {
		w->result = WALK_NONE; /* above the container's root is not the container's */
		return 1;
	}
	w->d = (__u64)parent;
	if (dir_rule(&w->k, parent)) {
		w->result = WALK_MATCH;
		return 1;
	}
	return 0;
}

/*
 * Whether the directory of a directory rule of KIND is above file F, by identity: among the
 * directories above F across mounts, up to the top of the mount tree F is on, past the task's
 * root (a chroot or a pivot_root changes no answer); and where a mount shows a subtree of its
 * file system (a bind mount or detached copy of a subdirectory, or the mount a file handle was
 * opened through), also among the subtree's ancestors in that file system, up to the
 * container's root (the root its registration was armed with: a container whose root file
 * system is a directory below /tmp on the host is not below /tmp). So a rule on /tmp holds for
 * /tmp/x reached as /x after chroot("/tmp"), through a bind mount of /tmp/sub, or through a
 * detached copy of /tmp. *AT_ROOT: the walk passed the task's root, so the path that
 * bpf_d_path() gives is F's path from that root. At most KRSI_DIR_DEPTH directories each way;
 * bpf_loop() keeps the verifier's work to one step.
 */
static __always_inline enum walk dir_walk(struct ctx *c, struct file *f, __u32 kind, bool *at_root)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct vfsmount *vm = f->f_path.mnt;
	struct dir_walk_state w = {
		.k = { .slot = c->pol->slot, .kind = kind | KRSI_KIND_DIR,
		       .dev = f->f_path.dentry->d_sb->s_dev },
		.d = (__u64)f->f_path.dentry,
		.vm = (__u64)vm,
		.mnt_root = (__u64)vm->mnt_root,
		.m = (__u64)vm - bpf_core_field_offset(struct mount, mnt),
		.root = (__u64)task->fs->root.dentry,
		.root_mnt = (__u64)task->fs->root.mnt,
		.stop = c->cg->root_dentry ?: (__u64)task->fs->root.dentry,
		.result = -1,
	};

	bpf_loop(2 * KRSI_DIR_DEPTH, dir_walk_step, &w, 0);
	*at_root = w.at_root;
	return w.result < 0 ? WALK_NONE : w.result;
}

/*
 * Whether the path bpf_d_path() gives for a file that dir_walk() found AT_ROOT names the file
 * the rules mean: the task's root is still the one it was armed with (no chroot, no
 * pivot_root), or, for a registration armed before any execve was seen, is the root of a mount
 * attached right at the top of the task's mount tree. Path admission by allow rules needs it:
 * in a tree of the container's own making, any path can name any file.
 */
static __always_inline bool path_trusted(struct ctx *c, bool at_root)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct dentry *root = task->fs->root.dentry;
	struct vfsmount *root_mnt = task->fs->root.mnt;
	struct mount *m, *pm;

	if (!at_root)
		return false;
	if (c->cg->root_dentry)
		return c->cg->root_dentry == (__u64)root && c->cg->root_mnt == (__u64)root_mnt;
	if (root != root_mnt->mnt_root)
		return false;
	m = (void *)root_mnt - bpf_core_field_offset(struct mount, mnt);
	pm = BPF_CORE_READ(m, mnt_parent);
	return pm == m || BPF_CORE_READ(pm, mnt_parent) == pm;
}

/*
 * Whether file F matches a rule of KIND: by its identity first (one hash lookup), then by its
 * path. Where the policy has no directory rule of KIND, the path is resolved only if the
 * file's name is the last component of some exact rule of KIND (one more hash lookup), which a
 * file whose name is in no rule never pays. A file mounted on its own (a bind-mounted file) is
 * named by its mount point, not by its dentry: its path is always resolved. On a match, R's
 * arg says how (CALL | match << 8). A path that cannot be resolved matches nothing.
 */
static __always_inline bool file_match(struct ctx *c, struct file *f, __u32 kind, __u32 call,
				       struct fpath *fp, struct report *r)
{
	struct dentry *dentry = f->f_path.dentry;
	struct inode *inode = dentry->d_inode;
	struct krsi_inode_key ik = {
		.slot = c->pol->slot, .kind = kind, .dev = inode->i_sb->s_dev, .ino = inode->i_ino
	};
	struct krsi_path_key *k;

	r->dev = ik.dev;
	r->value = ik.ino;
	if (inode_rule(&ik)) {
		r->arg = call | KRSI_MATCH_INODE << 8;
		return true;
	}
	if (!(c->pol->dirs & (1u << kind)) && dentry != f->f_path.mnt->mnt_root) {
		struct krsi_name_key nk = { .slot = c->pol->slot, .kind = kind };

		name_key_fill(&nk, dentry);
		if (!bpf_map_lookup_elem(&name_rules, &nk))
			return false;
	}
	k = fpath_get(fp, f);
	if (k) {
		k->slot = c->pol->slot;
		k->kind = kind;
		if (bpf_map_lookup_elem(&path_rules, k)) {
			r->arg = call | KRSI_MATCH_PATH << 8;
			return true;
		}
	}
	/* A deny list's directories by identity: where the path does not tell (see dir_walk). */
	if (kind < KRSI_PATH_ALLOW && (c->pol->dirs & (1u << kind))) {
		bool at_root;
		enum walk w = dir_walk(c, f, kind, &at_root);

		if (w != WALK_NONE) {
			r->arg = call | (w == WALK_MATCH ? KRSI_MATCH_DIR : KRSI_MATCH_CUT_OFF) << 8;
			return true;
		}
	}
	return false;
}

/* A verdict on file F: name it in the report, count, report. */
static __always_inline int file_decide(struct ctx *c, struct file *f, struct fpath *fp,
				       struct report *r)
{
	struct krsi_path_key *k = fpath_get(fp, f);

	r->path = k ? k->path : (const char *)f->f_path.dentry->d_name.name;
	/* Each name of the file, and each call, is a report of its own. */
	r->object = (k ? hash_str(k->path) : r->value ^ (__u64)r->dev << 32) ^ (__u64)r->arg << 48;
	return decide(c, r);
}


/*
 * file_match() without bpf_d_path(): exact rules by identity, directory rules by the identity
 * of an ancestor.
 */
static __always_inline bool file_match_nopath(struct ctx *c, struct file *f, __u32 kind,
					      __u32 call, struct report *r)
{
	struct inode *inode = f->f_path.dentry->d_inode;
	struct krsi_inode_key ik = {
		.slot = c->pol->slot, .kind = kind, .dev = inode->i_sb->s_dev, .ino = inode->i_ino
	};

	if (inode_rule(&ik)) {
		r->arg = call | KRSI_MATCH_INODE << 8;
		return true;
	}
	if (c->pol->dirs & (1u << kind)) {
		bool at_root;
		enum walk w = dir_walk(c, f, kind, &at_root);

		/* A deny list takes what cannot be told; an allow list admits only a match. */
		if (w == WALK_MATCH || (w == WALK_UNKNOWN && kind < KRSI_PATH_ALLOW)) {
			r->arg = call | (w == WALK_MATCH ? KRSI_MATCH_DIR : KRSI_MATCH_CUT_OFF) << 8;
			return true;
		}
	}
	return false;
}

/* file_rules() without bpf_d_path(). The report names the file by its last component. */
static __always_inline int file_rules_nopath(struct ctx *c, struct file *f, __u32 kind,
					     __u32 hook, __u32 call)
{
	struct dentry *dentry = f->f_path.dentry;
	struct report r = { .hook = hook, .dev = dentry->d_inode->i_sb->s_dev,
			    .value = dentry->d_inode->i_ino, .path = (const char *)dentry->d_name.name };

	if (file_match_nopath(c, f, kind, call, &r))
		goto verdict;
	/* Learning needs the path, which this hook cannot resolve: execve and mmap report it. */
	if (c->learn & KRSI_DENY(hook))
		return 0;
	if (!(c->pol->allow & KRSI_DENY(hook)) ||
	    file_match_nopath(c, f, kind + KRSI_PATH_ALLOW, call, &r))
		return 0;
	r.arg = call | KRSI_MATCH_NOT_ALLOWED << 8;
verdict:
	r.object = r.value ^ (__u64)r.dev << 32 ^ (__u64)r.arg << 48;
	return decide(c, &r);
}

/*
 * The rules of KIND for file F: a deny rule that matches denies; then, where the kind has an
 * allow list (HOOK's bit in the policy's allow), a file that no allow rule admits is denied.
 *
 * Exec allow rules admit by identity only: the file an exact rule found at its path, or a file
 * below the directory a directory rule found (dir_walk). Those stay in place (replace), so that
 * no new code takes an admitted path. Read and write allow rules admit the file an exact rule
 * found; a file below an allowed directory (by identity), or at an allowed path for what was
 * not there when the rules were resolved (only a path from the container's own root:
 * path_trusted), only when it has one name, or a hard link made into an allowed directory
 * would admit any file of the same file system.
 */
static __always_inline int file_rules(struct ctx *c, struct file *f, __u32 kind, __u32 hook,
				      __u32 call, struct fpath *fp)
{
	struct report r = { .hook = hook };

	if (file_match(c, f, kind, call, fp, &r))
		return file_decide(c, f, fp, &r);
	if (c->learn & KRSI_DENY(hook)) {
		struct krsi_path_key *k = fpath_get(fp, f);

		if (!k)
			return 0; /* no path to learn */
		r.path = k->path;
		r.arg = call;
		r.object = hash_str(k->path) ^ (__u64)call << 48;
		return learn(c, &r);
	}
	if (!(c->pol->allow & KRSI_DENY(hook)))
		return 0;
	if (kind == KRSI_PATH_EXEC) {
		if (file_match_nopath(c, f, KRSI_PATH_ALLOW_EXEC, call, &r))
			return 0;
	} else {
		struct inode *inode = f->f_path.dentry->d_inode;
		struct krsi_inode_key ik = { .slot = c->pol->slot, .kind = kind + KRSI_PATH_ALLOW,
					     .dev = inode->i_sb->s_dev, .ino = inode->i_ino };
		struct krsi_path_key *k;
		bool at_root;

		if (inode_rule(&ik))
			return 0;
		/* A name in an allowed directory admits only a file that has no other. */
		if (inode->__i_nlink <= 1) {
			k = fpath_get(fp, f);
			if (dir_walk(c, f, ik.kind, &at_root) == WALK_MATCH)
				return 0;
			if (path_trusted(c, at_root) && k) {
				k->slot = c->pol->slot;
				k->kind = ik.kind;
				if (bpf_map_lookup_elem(&path_rules, k))
					return 0;
			}
		}
	}
	r.arg = call | KRSI_MATCH_NOT_ALLOWED << 8;
	return file_decide(c, f, fp, &r);
}

/*
 * Code from file F reaches the task (CALL: execve, or a PROT_EXEC mapping). DPATH: the hook
 * may resolve paths (not file_mprotect, which runs under the mmap lock).
 */
static __always_inline int exec_check(struct ctx *c, struct file *f, __u32 call, bool dpath)
{
	struct fpath fp = {};
	__u32 why;

	if (c->pol->deny & KRSI_DENY(KRSI_HOOK_PATHLESS)) {
		why = file_pathless(f);
		if (why) {
			struct report r = { .hook = KRSI_HOOK_PATHLESS, .arg = call | why << 8 };
			struct krsi_path_key *k = dpath ? path_resolve(&f->f_path) : NULL;

			r.path = k ? k->path : (const char *)f->f_path.dentry->d_name.name;
			r.value = f->f_path.dentry->d_inode->i_ino;
			r.object = r.value ^ (__u64)r.arg << 48;
			return decide(c, &r);
		}
	}
	if (!((c->pol->deny | c->learn) & KRSI_DENY(KRSI_HOOK_EXEC)))
		return 0;
	if (!dpath)
		return file_rules_nopath(c, f, KRSI_PATH_EXEC, KRSI_HOOK_EXEC, call);
	return file_rules(c, f, KRSI_PATH_EXEC, KRSI_HOOK_EXEC, call, &fp);
}

SEC("lsm/bprm_check_security")
int BPF_PROG(bprm_check_security, struct linux_binprm *bprm, int ret)
{
	struct ctx c;

	if (ret)
		return ret;
	if (!policy_get_arm(&c, true))
		return 0;
	/* bprm->file is the binary being run: after symlinks, whatever argv[0] says. */
	return exec_check(&c, bprm->file, KRSI_CALL_EXECVE, true);
}

/* Some installed policy sets deny bit HOOK: the programs need not look further if none does. */
static __always_inline bool deny_anywhere(__u32 hook)
{
	__u32 zero = 0;
	struct krsi_config *cfg = bpf_map_lookup_elem(&config, &zero);

	return cfg && cfg->deny_any & KRSI_DENY(hook);
}

/* ---- wx helpers ---- */

/*
 * A wx report. FILE: the file concerned or NULL; its inode makes reports on two files two
 * reports. VALUE: the address (mprotect), the flags (execve), the personality.
 */
static __always_inline int wx_deny(struct ctx *c, __u32 call, __u32 why, __u64 value,
				   struct file *file)
{
	struct report r = { .hook = KRSI_HOOK_WX, .arg = call | why << 8, .value = value };

	if (file) {
		r.path = (const char *)BPF_CORE_READ(file, f_path.dentry, d_name.name);
		r.dev = BPF_CORE_READ(file, f_inode, i_sb, s_dev);
	}
	r.object = (call | why << 8) ^ (file ? (__u64)BPF_CORE_READ(file, f_inode, i_ino) << 16 : 0);
	return decide(c, &r);
}

/* The inode whose pages a mapping of F maps: an overlay file's are its upper or lower file's. */
static __always_inline struct inode *mapped_inode(struct file *f)
{
	struct inode *inode = BPF_CORE_READ(f, f_inode);
	struct ovl_inode *oi;
	struct dentry *upper;

	if (BPF_CORE_READ(inode, i_sb, s_magic) != OVERLAYFS_SUPER_MAGIC)
		return inode;
	oi = (void *)inode - bpf_core_field_offset(struct ovl_inode, vfs_inode);
	upper = BPF_CORE_READ(oi, __upperdentry);
	if (upper)
		return BPF_CORE_READ(upper, d_inode);
	return BPF_CORE_READ(oi, lowerpath.dentry, d_inode);
}

/*
 * Some task can change F's pages: F is open for writing (i_writecount), or mapped shared and
 * writable (i_mmap_writable: System V shared memory counts there only).
 */
static __always_inline bool file_has_writers(struct file *f)
{
	struct inode *real = mapped_inode(f);

	return BPF_CORE_READ(f, f_inode, i_writecount.counter) > 0 ||
	       BPF_CORE_READ(real, i_writecount.counter) > 0 ||
	       BPF_CORE_READ(real, i_mapping, i_mmap_writable.counter) > 0;
}

/* F was mapped executable by a confined task under wx. */
static __always_inline void exec_mark(struct file *f)
{
	bpf_inode_storage_get(&exec_mapped, f->f_inode, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
}

/* F, to be written, was mapped executable by a confined task and is mapped still. */
static __always_inline bool exec_mapped_now(struct file *f)
{
	struct inode *real;

	if (!bpf_inode_storage_get(&exec_mapped, f->f_inode, 0, 0))
		return false;
	real = mapped_inode(f);
	if (BPF_CORE_READ(real, i_mapping, i_mmap.rb_root.rb_node))
		return true;
	bpf_inode_storage_delete(&exec_mapped, f->f_inode);
	return false;
}

/* F is /proc/PID/mem or /proc/PID/task/TID/mem: writes to it write another mapping's pages. */
static __always_inline bool proc_mem_file(struct file *f)
{
	struct dentry *d = f->f_path.dentry;
	char name[4] = {}, parent[2] = {};

	if (d->d_sb->s_magic != PROC_SUPER_MAGIC || d->d_name.len != 3)
		return false;
	bpf_probe_read_kernel(name, 3, d->d_name.name);
	if (name[0] != 'm' || name[1] != 'e' || name[2] != 'm')
		return false;
	bpf_probe_read_kernel(parent, 1, BPF_CORE_READ(d, d_parent, d_name.name));
	return parent[0] >= '0' && parent[0] <= '9';
}

/* wx: a debugger writes its tracee's code through the kernel (PTRACE_POKETEXT, /proc/PID/mem). */
static __always_inline int wx_ptrace(__u64 pid)
{
	struct ctx c;

	if (!deny_anywhere(KRSI_HOOK_WX) || !policy_get(&c) ||
	    !(c.pol->deny & KRSI_DENY(KRSI_HOOK_WX)))
		return 0;
	return wx_deny(&c, KRSI_CALL_PTRACE, KRSI_WX_KERNEL_WRITE, pid, NULL);
}

/* wx for a file opened for writing. */
static __always_inline int wx_open(struct ctx *c, struct file *f)
{
	if (proc_mem_file(f))
		return wx_deny(c, KRSI_CALL_OPEN, KRSI_WX_KERNEL_WRITE, 0, f);
	if (exec_mapped_now(f))
		return wx_deny(c, KRSI_CALL_OPEN, KRSI_WX_MAPPED_EXEC, 0, f);
	return 0;
}

SEC("lsm/file_open")
int BPF_PROG(file_open, struct file *file, int ret)
{
	struct fpath fp = {};
	struct ctx c;
	__u64 deny;
	unsigned int mode;
	int r;

	if (ret)
		return ret;
	if (!policy_get(&c))
		return 0;
	deny = (c.pol->deny | c.learn) &
	       (KRSI_DENY(KRSI_HOOK_OPEN_READ) | KRSI_DENY(KRSI_HOOK_OPEN_WRITE));
	mode = file->f_mode;
	/*
	 * With an exec allow list, what may run may not be written: a file or directory allowed
	 * for exec is never opened for writing (nor created), so the code at an allowed path is
	 * the code that was there.
	 */
	if (mode & FMODE_WRITE && c.pol->deny & KRSI_DENY(KRSI_HOOK_REPLACE)) {
		struct report rep = { .hook = KRSI_HOOK_REPLACE };

		/* By identity, and by path for what was not there when it was resolved. */
		if (file_match_nopath(&c, file, KRSI_PATH_ALLOW_EXEC, 0, &rep) ||
		    file_match(&c, file, KRSI_PATH_ALLOW_EXEC, 0, &fp, &rep)) {
			rep.arg = KRSI_REPLACE_WRITE | KRSI_MATCH_EXEC_ALLOWED << 8;
			r = file_decide(&c, file, &fp, &rep);
			if (r)
				return r;
		}
	}
	if (mode & FMODE_WRITE && c.pol->deny & KRSI_DENY(KRSI_HOOK_WX)) {
		r = wx_open(&c, file);
		if (r)
			return r;
	}
	if (!deny)
		return 0;
	if (mode & FMODE_WRITE && deny & KRSI_DENY(KRSI_HOOK_OPEN_WRITE)) {
		r = file_rules(&c, file, KRSI_PATH_WRITE, KRSI_HOOK_OPEN_WRITE, 0, &fp);
		if (r)
			return r;
	}
	if (mode & FMODE_READ && deny & KRSI_DENY(KRSI_HOOK_OPEN_READ))
		return file_rules(&c, file, KRSI_PATH_READ, KRSI_HOOK_OPEN_READ, 0, &fp);
	return 0;
}

/*
 * The report of socket_create's denial. Apart from the program, so that the zeroing of its
 * locals comes after the policy check: a host task, or a policy without socket rules, stores
 * nothing (the net programs' locals took a dozen stores before the check in each).
 */
static __always_inline int socket_deny(struct ctx *c, int family, __u32 t, int protocol)
{
	struct krsi_event_net net = { .family = family, .type = t };
	struct report r = { .hook = KRSI_HOOK_SOCKET, .net = &net };

	r.arg = protocol;
	r.object = (__u64)family << 8 | t;
	return decide(c, &r);
}

SEC("lsm/socket_create")
int BPF_PROG(socket_create, int family, int type, int protocol, int kern, int ret)
{
	struct ctx c;
	__u32 t = type & 0xf; /* without SOCK_NONBLOCK, SOCK_CLOEXEC */
	__u32 fam = (__u32)family;

	if (ret)
		return ret;
	if (kern || fam >= KRSI_AF_MAX)
		return 0;
	if (!policy_get(&c) || !(c.pol->deny & KRSI_DENY(KRSI_HOOK_SOCKET)))
		return 0;
	fam &= KRSI_AF_MAX - 1; /* for the verifier: the compiler may drop the bound above */
	if (!(c.pol->families & (1ULL << fam)) && !(c.pol->types[fam] & (1u << t)))
		return 0;
	return socket_deny(&c, family, t, protocol);
}

/*
 * What the rules of K's op say about K: KRSI_NET_RULE_DENY when a deny rule matches, else
 * KRSI_NET_RULE_ALLOW when an allow rule does, else 0. Two lookups at most, with K's port and
 * with any port; K's port is kept. The agent stores an allow rule that a deny rule covers as a
 * deny (krsi.h), so a deny found by either lookup is the answer, whatever the other finds.
 */
static __always_inline __u8 net_match(struct krsi_net_key *k)
{
	__u16 port = k->port;
	__u8 *v, hit = 0;

	v = bpf_map_lookup_elem(&net_rules, k);
	if (v) {
		if (*v == KRSI_NET_RULE_DENY)
			return KRSI_NET_RULE_DENY;
		hit = *v;
	}
	k->port = 0; /* rules for any port */
	v = bpf_map_lookup_elem(&net_rules, k);
	k->port = port;
	return v && *v == KRSI_NET_RULE_DENY ? KRSI_NET_RULE_DENY : v ? *v : hit;
}

/* SA against the network rules of C's policy; its locals zeroed only past the check. */
static __always_inline int net_decide(struct ctx *c, struct krsi_sa *sa, __u8 op, __u32 hook)
{
	struct krsi_event_net net = {};
	struct report r = { .hook = hook, .net = &net };
	struct krsi_net_key k = {};
	__u8 v;

	k.family = sa->family;
	k.port = sa->port;
	__builtin_memcpy(k.addr, sa->addr, 16);
	k.prefixlen = (sizeof(k) - sizeof(k.prefixlen)) * 8;
	k.slot = c->pol->slot;
	k.op = op;
	v = net_match(&k);
	if (v != KRSI_NET_RULE_DENY) {
		/* No deny rule: with an allow list, what it does not admit is denied. */
		if (c->learn & KRSI_DENY(hook))
			r.arg = -1; /* learned, below */
		else if (!(c->pol->allow & KRSI_DENY(hook)) || v == KRSI_NET_RULE_ALLOW)
			return 0;
		else
			r.arg = KRSI_MATCH_NOT_ALLOWED << 8;
	}
	net.family = k.family == 4 ? AF_INET : AF_INET6;
	net.port = k.port;
	__builtin_memcpy(net.addr, k.addr, 16);
	{
		__u64 a, b;

		__builtin_memcpy(&a, &k.addr[0], 8);
		__builtin_memcpy(&b, &k.addr[8], 8);
		r.object = ((__u64)k.port << 48) ^ a ^ b ^ (__u64)r.arg << 32;
	}
	if (r.arg == -1) {
		r.arg = 0;
		return learn(c, &r);
	}
	return decide(c, &r);
}

/*
 * ADDRESS (ADDRLEN bytes, the kernel's copy) given to a connect, bind or sendmsg (SA_OP) on
 * SOCK: the address it reaches, by the kernel's reading of every form (bpf/sockaddr.h).
 */
static __always_inline int net_check(struct socket *sock, struct sockaddr *address, int addrlen,
				     int sa_op, __u8 op, __u32 hook)
{
	__u64 b[(KRSI_SA_BYTES + 7) / 8]; /* 8-byte aligned: the parser loads words */
	struct krsi_sa sa;
	struct ctx c;

	if (!policy_get(&c) || !((c.pol->deny | c.learn) & KRSI_DENY(hook)))
		return 0;
	if (addrlen < 2)
		return 0;
	/* The kernel's sockaddr_storage: 128 bytes; only the first ADDRLEN are looked at. */
	if (bpf_probe_read_kernel(b, KRSI_SA_BYTES, address) < 0)
		return 0;
	krsi_sa_parse((const __u8 *)b, addrlen, BPF_CORE_READ(sock, sk, __sk_common.skc_family),
		      sa_op, &sa);
	if (!sa.family)
		return 0;
	return net_decide(&c, &sa, op, hook);
}

SEC("lsm/socket_connect")
int BPF_PROG(socket_connect, struct socket *sock, struct sockaddr *address, int addrlen, int ret)
{
	if (ret)
		return ret;
	return net_check(sock, address, addrlen, KRSI_SA_CONNECT, KRSI_NET_CONNECT,
			 KRSI_HOOK_CONNECT);
}

SEC("lsm/socket_bind")
int BPF_PROG(socket_bind, struct socket *sock, struct sockaddr *address, int addrlen, int ret)
{
	if (ret)
		return ret;
	return net_check(sock, address, addrlen, KRSI_SA_BIND, KRSI_NET_BIND, KRSI_HOOK_BIND);
}

/*
 * sendto()/sendmsg() with a destination: an unconnected UDP socket, or a TCP fast open
 * (MSG_FASTOPEN connects from sendmsg), must not bypass connect rules.
 */
SEC("lsm/socket_sendmsg")
int BPF_PROG(socket_sendmsg, struct socket *sock, struct msghdr *msg, int size, int ret)
{
	void *name;

	if (ret)
		return ret;
	name = msg->msg_name;
	if (!name)
		return 0;
	return net_check(sock, name, msg->msg_namelen, KRSI_SA_SENDMSG, KRSI_NET_CONNECT,
			 KRSI_HOOK_CONNECT);
}

/* ---- write: what write rules protect keeps its content ---- */

/* The identity of D's inode has a key of KIND in inode_rules. */
static __always_inline bool dentry_is(struct ctx *c, struct dentry *d, __u32 kind)
{
	struct inode *inode = BPF_CORE_READ(d, d_inode);
	struct krsi_inode_key k = { .slot = c->pol->slot, .kind = kind };

	if (!inode)
		return false;
	k.dev = BPF_CORE_READ(inode, i_sb, s_dev);
	k.ino = BPF_CORE_READ(inode, i_ino);
	return inode_rule(&k);
}

/* The state of dentry_under(), one directory a step. */
struct up_walk {
	struct krsi_inode_key k;
	__u64 d;
	bool found;
	bool layer; /* met an overlay's upper or work directory first */
};

static long up_walk_step(__u32 i, void *arg)
{
	struct up_walk *w = arg;
	struct dentry *d = (void *)w->d, *parent = BPF_CORE_READ(d, d_parent);
	struct inode *inode = BPF_CORE_READ(d, d_inode);

	if (inode) {
		w->k.dev = BPF_CORE_READ(inode, i_sb, s_dev);
		w->k.ino = BPF_CORE_READ(inode, i_ino);
		if (inode_rule(&w->k)) {
			w->found = true;
			return 1;
		}
		if (BPF_CORE_READ(inode, i_state) & I_OVL_INUSE) {
			w->layer = true;
			return 1;
		}
	}
	if (!parent || parent == d)
		return 1;
	w->d = (__u64)parent;
	return 0;
}

/*
 * D, or a directory above it on its file system, has a key of KIND (KRSI_KIND_DIR: is the
 * directory of a directory rule). The dentries' own parents: no mount, root or bind mount
 * changes the answer. *LAYER: the walk met a directory that an overlay uses as its upper or
 * work directory, where the overlay's own calls (copy up, whiteouts) run in the task.
 */
static __always_inline bool dentry_under(struct ctx *c, struct dentry *d, __u32 kind, bool *layer)
{
	struct up_walk w = { .k = { .slot = c->pol->slot, .kind = kind }, .d = (__u64)d };

	bpf_loop(KRSI_DIR_DEPTH, up_walk_step, &w, 0);
	if (layer)
		*layer = w.layer;
	return w.found;
}

/* N's name is the last component of an exact rule of KIND whose directory is N's parent. */
static __always_inline bool name_rule_at(struct ctx *c, struct dentry *n, __u32 kind)
{
	struct krsi_name_key nk = { .slot = c->pol->slot, .kind = kind };

	if (!dentry_is(c, BPF_CORE_READ(n, d_parent), kind | KRSI_KIND_ABOVE))
		return false;
	bpf_probe_read_kernel_str(nk.name, sizeof(nk.name), BPF_CORE_READ(n, d_name.name));
	return bpf_map_lookup_elem(&name_rules, &nk);
}

/*
 * D's path, read up its dentries to the task's root, is admitted by a path rule of KIND: what
 * was made at an allowed path since the rules were resolved (an allowed directory the
 * container made itself). Only in the container's own root, as file_open admits by path.
 */
static __always_inline bool dentry_path_admitted(struct ctx *c, struct dentry *d, __u32 kind)
{
	struct task_struct *task = bpf_get_current_task_btf();
	__u64 root = (__u64)task->fs->root.dentry;
	struct krsi_path_key *k;
	__u32 zero = 0;
	bool at_root = false;

	if (c->cg->root_dentry && root != c->cg->root_dentry)
		return false;
	k = bpf_map_lookup_elem(&scratch, &zero);
	if (!k || !ktree_path_stop(d, "", 0, root, k->path, &at_root) || !at_root)
		return false;
	k->prefixlen = (sizeof(*k) - sizeof(k->prefixlen)) * 8;
	k->slot = c->pol->slot;
	k->kind = kind;
	return bpf_map_lookup_elem(&path_rules, k) != NULL;
}

/*
 * Why the file or directory D may not change (1 + enum krsi_match), or 0. A deny rule protects
 * its file (by identity), a directory rule its directory and everything below, and both the
 * directories above them (they are not renamed or removed, or another could take the path).
 * A write allow list protects what it does not admit: CONTENT, the file's bytes are to change
 * (truncation: a file with another name is not admitted by its directory); else its name
 * (removal, rename).
 */
static __always_inline __u32 write_guarded(struct ctx *c, struct dentry *d, bool content)
{
	struct inode *inode = BPF_CORE_READ(d, d_inode);
	bool layer = false;

	if (dentry_is(c, d, KRSI_PATH_WRITE))
		return 1 + KRSI_MATCH_INODE;
	/* At an exact rule's path: another file put there since the rules were resolved. */
	if (name_rule_at(c, d, KRSI_PATH_WRITE))
		return 1 + KRSI_MATCH_PATH;
	if (dentry_is(c, d, KRSI_PATH_WRITE | KRSI_KIND_ABOVE))
		return 1 + KRSI_MATCH_ABOVE;
	if (c->pol->dirs & (1u << KRSI_PATH_WRITE) &&
	    dentry_under(c, d, KRSI_PATH_WRITE | KRSI_KIND_DIR, NULL))
		return 1 + KRSI_MATCH_DIR;
	if (!(c->pol->allow & KRSI_DENY(KRSI_HOOK_OPEN_WRITE)) ||
	    c->learn & KRSI_DENY(KRSI_HOOK_OPEN_WRITE))
		return 0;
	if (dentry_is(c, d, KRSI_PATH_ALLOW_WRITE) || name_rule_at(c, d, KRSI_PATH_ALLOW_WRITE))
		return 0;
	if ((!content || !inode || BPF_CORE_READ(inode, __i_nlink) <= 1 ||
	     (BPF_CORE_READ(inode, i_mode) & S_IFMT) == S_IFDIR) &&
	    (dentry_under(c, d, KRSI_PATH_ALLOW_WRITE | KRSI_KIND_DIR, &layer) ||
	     dentry_path_admitted(c, d, KRSI_PATH_ALLOW_WRITE)))
		return 0;
	/* The overlay's own calls below its upper directory: the call was checked above it. */
	return layer ? 0 : 1 + KRSI_MATCH_NOT_ALLOWED;
}

/*
 * Why the new name N may not be made (1 + enum krsi_match), or 0. DIR: N is to be a directory,
 * which a write allow list admits where one of its rules' paths goes through it.
 */
static __always_inline __u32 write_name_guarded(struct ctx *c, struct dentry *n, bool dir)
{
	struct dentry *p = BPF_CORE_READ(n, d_parent);
	bool layer = false;

	if (c->pol->dirs & (1u << KRSI_PATH_WRITE) &&
	    dentry_under(c, p, KRSI_PATH_WRITE | KRSI_KIND_DIR, NULL))
		return 1 + KRSI_MATCH_DIR;
	if (name_rule_at(c, n, KRSI_PATH_WRITE))
		return 1 + KRSI_MATCH_PATH;
	if (!(c->pol->allow & KRSI_DENY(KRSI_HOOK_OPEN_WRITE)) ||
	    c->learn & KRSI_DENY(KRSI_HOOK_OPEN_WRITE))
		return 0;
	if (dentry_under(c, p, KRSI_PATH_ALLOW_WRITE | KRSI_KIND_DIR, &layer) ||
	    name_rule_at(c, n, KRSI_PATH_ALLOW_WRITE) ||
	    (dir && name_rule_at(c, n, KRSI_PATH_ALLOW_WRITE | KRSI_KIND_ABOVE)) ||
	    dentry_path_admitted(c, n, KRSI_PATH_ALLOW_WRITE))
		return 0;
	return layer ? 0 : 1 + KRSI_MATCH_NOT_ALLOWED;
}

static __always_inline bool write_policy(struct ctx *c)
{
	return deny_anywhere(KRSI_HOOK_OPEN_WRITE) && policy_get(c) &&
	       (c->pol->deny & KRSI_DENY(KRSI_HOOK_OPEN_WRITE));
}

/* A report on D under HOOK, ARG: the call and the match; PATH (or NULL: D's name) names it. */
static __always_inline int name_deny(struct ctx *c, struct dentry *d, __u32 hook, __s32 arg,
				     const char *path)
{
	struct inode *inode = BPF_CORE_READ(d, d_inode);
	struct report r = { .hook = hook, .arg = arg,
			    .path = (const char *)BPF_CORE_READ(d, d_name.name) };

	if (!inode)
		inode = BPF_CORE_READ(d, d_parent, d_inode); /* a new name: its directory */
	if (inode) {
		r.dev = BPF_CORE_READ(inode, i_sb, s_dev);
		r.value = BPF_CORE_READ(inode, i_ino);
	}
	/* Its directory and the start of its name: two names of one file are two reports. */
	{
		__u64 name = 0;

		bpf_probe_read_kernel_str(&name, sizeof(name), r.path);
		r.object = name ^ (__u64)BPF_CORE_READ(d, d_parent, d_inode, i_ino) << 24 ^
			   r.value ^ (__u64)r.arg << 48;
	}
	if (path)
		r.path = path;
	return decide(c, &r);
}

/*
 * WHY: 1 + enum krsi_match, from write_guarded() or write_name_guarded(). The report names D by
 * its path from the task's root, up its dentries (or from its file system's root, for a file
 * on another mount); by its last component where that cannot be told.
 */
static __always_inline int write_deny(struct ctx *c, struct dentry *d, __u32 call, __u32 why)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct krsi_path_key *k;
	__u32 zero = 0;

	k = bpf_map_lookup_elem(&scratch, &zero);
	if (!k || !ktree_path_stop(d, "", 0, (__u64)task->fs->root.dentry, k->path, NULL))
		return name_deny(c, d, KRSI_HOOK_OPEN_WRITE, call | (why - 1) << 8, NULL);
	return name_deny(c, d, KRSI_HOOK_OPEN_WRITE, call | (why - 1) << 8, k->path);
}

static __always_inline bool replace_policy(struct ctx *c);
static __always_inline bool dentry_new_name_admitted(struct ctx *c, struct dentry *d);
static __always_inline int replace_deny(struct ctx *c, struct dentry *d, __u32 call);

/*
 * CALL makes the new name N (create, mkdir, mknod, symlink, link): not in a directory an exec
 * allow list admits, nor at an exact exec allow rule's path (replace, reported first); not
 * where a write rule protects the path.
 */
static __always_inline int write_new_name(struct dentry *n, __u32 call)
{
	struct ctx c;
	__u32 why;

	if (replace_policy(&c) && dentry_new_name_admitted(&c, n))
		return replace_deny(&c, n, call);
	if (!write_policy(&c))
		return 0;
	why = write_name_guarded(&c, n, call == KRSI_REPLACE_MKDIR);
	return why ? write_deny(&c, n, call, why) : 0;
}

/*
 * CALL changes the existing file or directory D (truncate, unlink, rmdir, a mount over it);
 * CONTENT: its bytes (write_guarded()).
 */
static __always_inline int write_existing(struct dentry *d, __u32 call, bool content)
{
	struct ctx c;
	__u32 why;

	if (!write_policy(&c))
		return 0;
	why = write_guarded(&c, d, content);
	return why ? write_deny(&c, d, call, why) : 0;
}

/*
 * truncate(2), ftruncate(2) and open(2) with O_TRUNC (even read-only) all pass path_truncate
 * (6.1 has no file_truncate hook; CONFIG_SECURITY_PATH).
 */
SEC("lsm/path_truncate")
int BPF_PROG(path_truncate, const struct path *path, int ret)
{
	if (ret)
		return ret;
	return write_existing(BPF_CORE_READ(path, dentry), KRSI_REPLACE_TRUNCATE, true);
}

SEC("lsm/inode_create")
int BPF_PROG(inode_create, struct inode *dir, struct dentry *dentry, umode_t mode, int ret)
{
	if (ret)
		return ret;
	return write_new_name(dentry, KRSI_REPLACE_CREATE);
}

SEC("lsm/inode_mkdir")
int BPF_PROG(inode_mkdir, struct inode *dir, struct dentry *dentry, umode_t mode, int ret)
{
	if (ret)
		return ret;
	return write_new_name(dentry, KRSI_REPLACE_MKDIR);
}

SEC("lsm/inode_mknod")
int BPF_PROG(inode_mknod, struct inode *dir, struct dentry *dentry, umode_t mode, dev_t dev,
	     int ret)
{
	if (ret)
		return ret;
	return write_new_name(dentry, KRSI_REPLACE_MKNOD);
}

SEC("lsm/inode_symlink")
int BPF_PROG(inode_symlink, struct inode *dir, struct dentry *dentry, const char *old_name,
	     int ret)
{
	if (ret)
		return ret;
	return write_new_name(dentry, KRSI_REPLACE_SYMLINK);
}

/* A mount over D (sb_mount, move_mount) puts other content at its path. */
static __always_inline int write_mount(struct dentry *d)
{
	return write_existing(d, KRSI_REPLACE_MOUNT, false);
}

/*
 * "mount": every change to the mount table and every new file system instance, one program
 * per route (kernel/MOUNT-HOOKS.md has the map). mount(2) in all its forms passes sb_mount
 * first; the new mount API passes fs_context_open (fsopen, fspick), sb_kern_mount (fsconfig's
 * CMD_CREATE), sb_remount (its CMD_RECONFIGURE), fs_context_mount (fsmount), mount_clone
 * (open_tree's OPEN_TREE_CLONE), mount_setattr and move_mount. The last four and
 * fs_context_open are hooks of the kernel series. The runtime's own mounts run before the
 * container's first execve, while its registration is not armed (policy_get).
 */
SEC("lsm/sb_mount")
int BPF_PROG(sb_mount, const char *dev_name, const struct path *path, const char *type,
	     unsigned long flags, void *data, int ret)
{
	if (ret)
		return ret;
	ret = flag_check(KRSI_HOOK_MOUNT, KRSI_MOUNT_MOUNT, flags, type);
	/* A mount on PATH, not a change of an existing mount's flags or propagation. */
	if (ret || flags & (MS_REMOUNT | MS_SHARED | MS_PRIVATE | MS_SLAVE | MS_UNBINDABLE))
		return ret;
	return write_mount(path->dentry);
}

SEC("lsm/move_mount")
int BPF_PROG(move_mount, const struct path *from_path, const struct path *to_path, int ret)
{
	if (ret)
		return ret;
	ret = flag_check(KRSI_HOOK_MOUNT, KRSI_MOUNT_MOVE, 0,
			 from_path->mnt->mnt_sb->s_type->name);
	return ret ?: write_mount(to_path->dentry);
}

SEC("lsm/sb_umount")
int BPF_PROG(sb_umount, struct vfsmount *mnt, int flags, int ret)
{
	if (ret)
		return ret;
	return flag_check(KRSI_HOOK_MOUNT, KRSI_MOUNT_UMOUNT, flags, mnt->mnt_sb->s_type->name);
}

SEC("lsm/sb_pivotroot")
int BPF_PROG(sb_pivotroot, const struct path *old_path, const struct path *new_path, int ret)
{
	if (ret)
		return ret;
	return flag_check(KRSI_HOOK_MOUNT, KRSI_MOUNT_PIVOT_ROOT, 0,
			  new_path->mnt->mnt_sb->s_type->name);
}

SEC("lsm/sb_remount")
int BPF_PROG(sb_remount, struct super_block *sb, void *mnt_opts, int ret)
{
	if (ret)
		return ret;
	return flag_check(KRSI_HOOK_MOUNT, KRSI_MOUNT_RECONFIGURE, 0, sb->s_type->name);
}

SEC("lsm/sb_kern_mount")
int BPF_PROG(sb_kern_mount, struct super_block *sb, int ret)
{
	if (ret)
		return ret;
	return flag_check(KRSI_HOOK_MOUNT, KRSI_MOUNT_CREATE, sb->s_flags, sb->s_type->name);
}

SEC("lsm/mount_clone")
int BPF_PROG(mount_clone, const struct path *path, bool recurse, int ret)
{
	if (ret)
		return ret;
	return flag_check(KRSI_HOOK_MOUNT, KRSI_MOUNT_CLONE, recurse,
			  path->mnt->mnt_sb->s_type->name);
}

SEC("lsm/mount_setattr")
int BPF_PROG(mount_setattr, const struct path *path, unsigned int attr_set,
	     unsigned int attr_clr, unsigned int propagation, bool recurse, int ret)
{
	if (ret)
		return ret;
	return flag_check(KRSI_HOOK_MOUNT, KRSI_MOUNT_SETATTR,
			  attr_set | (__u64)attr_clr << 32, path->mnt->mnt_sb->s_type->name);
}

#define FS_CONTEXT_FOR_MOUNT 0
SEC("lsm/fs_context_open")
int BPF_PROG(fs_context_open, struct fs_context *fc, int ret)
{
	if (ret)
		return ret;
	return flag_check(KRSI_HOOK_MOUNT,
			  fc->purpose == FS_CONTEXT_FOR_MOUNT ? KRSI_MOUNT_FSOPEN : KRSI_MOUNT_FSPICK,
			  0, fc->fs_type->name);
}

SEC("lsm/fs_context_mount")
int BPF_PROG(fs_context_mount, struct fs_context *fc, unsigned int mnt_flags, int ret)
{
	if (ret)
		return ret;
	return flag_check(KRSI_HOOK_MOUNT, KRSI_MOUNT_FSMOUNT, mnt_flags, fc->fs_type->name);
}

/* Attaching to another process; reading /proc/PID files (PTRACE_MODE_READ) stays allowed. */
SEC("lsm/ptrace_access_check")
int BPF_PROG(ptrace_access_check, struct task_struct *child, unsigned int mode, int ret)
{
	if (ret)
		return ret;
	if (!(mode & PTRACE_MODE_ATTACH))
		return 0;
	ret = flag_check(KRSI_HOOK_PTRACE, mode, child->tgid, NULL);
	return ret ?: wx_ptrace(child->tgid);
}

SEC("lsm/ptrace_traceme")
int BPF_PROG(ptrace_traceme, struct task_struct *parent, int ret)
{
	if (ret)
		return ret;
	ret = flag_check(KRSI_HOOK_PTRACE, 0, parent->tgid, NULL);
	return ret ?: wx_ptrace(parent->tgid);
}

SEC("lsm/kernel_module_request")
int BPF_PROG(kernel_module_request, char *kmod_name, int ret)
{
	if (ret)
		return ret;
	return flag_check(KRSI_HOOK_MODULE, -1, 0, kmod_name);
}

SEC("lsm/kernel_read_file")
int BPF_PROG(kernel_read_file, struct file *file, enum kernel_read_file_id id, bool contents,
	     int ret)
{
	if (ret)
		return ret;
	return flag_check(KRSI_HOOK_MODULE, id, 0, NULL);
}

SEC("lsm/kernel_load_data")
int BPF_PROG(kernel_load_data, enum kernel_load_data_id id, bool contents, int ret)
{
	if (ret)
		return ret;
	return flag_check(KRSI_HOOK_MODULE, 100 + id, 0, NULL);
}

/* A confined task never gets an fd to krsi's maps or programs, whatever its profile says. */
static __always_inline int self_check(__u32 key, __u32 id)
{
	struct report r = { .hook = KRSI_HOOK_SELF, .arg = key >> 31, .value = id, .object = key };
	struct ctx c;

	if (!bpf_map_lookup_elem(&self_ids, &key))
		return 0;
	if (!policy_get(&c))
		return 0;
	__sync_fetch_and_add(&c.cg->denied, 1);
	count_verdict(&c, KRSI_HOOK_SELF, KRSI_VERDICT_DENY);
	report(&c, KRSI_VERDICT_DENY, &r);
	return -EPERM;
}

SEC("lsm/bpf_map")
int BPF_PROG(bpf_map, struct bpf_map *map, fmode_t fmode, int ret)
{
	if (ret)
		return ret;
	return self_check(map->id & 0x7fffffff, map->id);
}

SEC("lsm/bpf_prog")
int BPF_PROG(bpf_prog, struct bpf_prog *prog, int ret)
{
	if (ret)
		return ret;
	return self_check(prog->aux->id | 0x80000000, prog->aux->id);
}

SEC("lsm/userns_create")
int BPF_PROG(userns_create, const struct cred *cred, int ret)
{
	if (ret)
		return ret;
	return flag_check(KRSI_HOOK_USERNS, 0, 0, NULL);
}

/*
 * W^X ("wx"): no memory is writable and executable at once, shared or private, file-backed or
 * anonymous; no anonymous memory becomes executable; no mapping that is or was writable becomes
 * executable; no file that is open for writing is mapped executable (a double mapping).
 * Exec rules ("exec", "exec_dirs", "pathless_exec"): a PROT_EXEC mapping of a file is code
 * from that file, as an execve of it would be: the loader (ld.so FILE) and dlopen() map it so.
 */
SEC("lsm/file_mprotect")
int BPF_PROG(file_mprotect, struct vm_area_struct *vma, unsigned long reqprot, unsigned long prot,
	     int ret)
{
	struct file *file;
	struct ctx c;
	unsigned long flags;

	if (ret)
		return ret;
	file = vma->vm_file;
	flags = vma->vm_flags;
	if (!(prot & PROT_EXEC)) {
		/* A shared mapping made writable: its file's pages may run elsewhere (wx). */
		if (!(prot & PROT_WRITE) || !(flags & VM_SHARED) || !file ||
		    !deny_anywhere(KRSI_HOOK_WX))
			return 0;
		if (!policy_get(&c) || !(c.pol->deny & KRSI_DENY(KRSI_HOOK_WX)) ||
		    !exec_mapped_now(file))
			return 0;
		return wx_deny(&c, KRSI_CALL_MPROTECT, KRSI_WX_MAPPED_EXEC, vma->vm_start, file);
	}
	/* Anonymous memory: only W^X applies. */
	if (!file && !deny_anywhere(KRSI_HOOK_WX))
		return 0;
	if (!policy_get(&c))
		return 0;
	if (c.pol->deny & KRSI_DENY(KRSI_HOOK_WX)) {
		if (!file)
			return wx_deny(&c, KRSI_CALL_MPROTECT, KRSI_WX_ANON, vma->vm_start, NULL);
		if (prot & PROT_WRITE)
			return wx_deny(&c, KRSI_CALL_MPROTECT, KRSI_WX_WRITE_EXEC, vma->vm_start, file);
		if (flags & VM_WRITE || vma->anon_vma)
			return wx_deny(&c, KRSI_CALL_MPROTECT, KRSI_WX_WRITTEN, vma->vm_start, file);
		if (file_has_writers(file))
			return wx_deny(&c, KRSI_CALL_MPROTECT, KRSI_WX_WRITERS, vma->vm_start, file);
	}
	/* Already executable: checked when it was mapped or made so. */
	if (!file || flags & VM_EXEC)
		return 0;
	ret = exec_check(&c, file, KRSI_CALL_MPROTECT, false);
	if (!ret && c.pol->deny & KRSI_DENY(KRSI_HOOK_WX))
		exec_mark(file);
	return ret;
}

SEC("lsm/mmap_file")
int BPF_PROG(mmap_file, struct file *file, unsigned long reqprot, unsigned long prot,
	     unsigned long flags, int ret)
{
	struct ctx c;

	if (ret)
		return ret;
	if (!(prot & PROT_EXEC)) {
		/* A shared writable mapping of a file whose pages may run elsewhere (wx). */
		if (!(prot & PROT_WRITE) || !file || (flags & MAP_TYPE) == MAP_PRIVATE ||
		    !deny_anywhere(KRSI_HOOK_WX))
			return 0;
		if (!policy_get(&c) || !(c.pol->deny & KRSI_DENY(KRSI_HOOK_WX)) ||
		    !exec_mapped_now(file))
			return 0;
		return wx_deny(&c, KRSI_CALL_MMAP, KRSI_WX_MAPPED_EXEC, 0, file);
	}
	if (!file && !deny_anywhere(KRSI_HOOK_WX))
		return 0;
	if (!policy_get(&c))
		return 0;
	if (c.pol->deny & KRSI_DENY(KRSI_HOOK_WX)) {
		if (!file)
			return wx_deny(&c, KRSI_CALL_MMAP, KRSI_WX_ANON, 0, NULL);
		if (prot & PROT_WRITE)
			return wx_deny(&c, KRSI_CALL_MMAP, KRSI_WX_WRITE_EXEC, 0, file);
		if (file_has_writers(file))
			return wx_deny(&c, KRSI_CALL_MMAP, KRSI_WX_WRITERS, 0, file);
	}
	if (!file)
		return 0;
	ret = exec_check(&c, file, KRSI_CALL_MMAP, true);
	if (!ret && c.pol->deny & KRSI_DENY(KRSI_HOOK_WX))
		exec_mark(file);
	return ret;
}

/*
 * wx: memory the kernel makes executable without an mmap or mprotect (kernel series patch
 * 13). An execve whose program asks for an executable stack, has a writable and executable
 * segment (its own or its interpreter's) or takes READ_IMPLIES_EXEC (which makes the heap and
 * every readable mapping executable) fails with EPERM, as does personality(2) with
 * READ_IMPLIES_EXEC: there is no other answer to either.
 */
SEC("lsm/bprm_exec_memory")
int BPF_PROG(bprm_exec_memory, struct linux_binprm *bprm, unsigned int flags, int ret)
{
	struct ctx c;
	__u32 why = KRSI_WX_READ_IMPLIES_EXEC;

	if (ret)
		return ret;
	if (!deny_anywhere(KRSI_HOOK_WX) || !policy_get(&c) ||
	    !(c.pol->deny & KRSI_DENY(KRSI_HOOK_WX)))
		return 0;
	if (flags & BPRM_MEM_EXEC_STACK)
		why = KRSI_WX_EXEC_STACK;
	else if (flags & BPRM_MEM_WX_SEGMENT)
		why = KRSI_WX_SEGMENT;
	return wx_deny(&c, KRSI_CALL_EXECVE, why, flags, bprm->file);
}

SEC("lsm/task_setpersonality")
int BPF_PROG(task_setpersonality, unsigned int persona, int ret)
{
	struct ctx c;

	if (ret)
		return ret;
	if (!(persona & READ_IMPLIES_EXEC) || !deny_anywhere(KRSI_HOOK_WX) || !policy_get(&c) ||
	    !(c.pol->deny & KRSI_DENY(KRSI_HOOK_WX)))
		return 0;
	return wx_deny(&c, KRSI_CALL_PERSONALITY, KRSI_WX_READ_IMPLIES_EXEC, persona, NULL);
}


/* ---- replace: what an exec allow list admits stays what it was ---- */

/* D, or a directory above it on its file system, is a directory that exec rules admit. */
static __always_inline bool dentry_in_exec_dir(struct ctx *c, struct dentry *d)
{
	for (int i = 0; i < KRSI_DIR_DEPTH; i++) {
		struct dentry *parent = BPF_CORE_READ(d, d_parent);

		if (dentry_is(c, d, KRSI_PATH_ALLOW_EXEC | KRSI_KIND_DIR))
			return true;
		if (parent == d)
			return false;
		d = parent;
	}
	return false;
}

/* What exec rules admit, or a directory above it: not to be moved, replaced or removed. */
static __always_inline bool dentry_bound(struct ctx *c, struct dentry *d)
{
	return dentry_is(c, d, KRSI_PATH_ALLOW_EXEC) ||
	       dentry_is(c, d, KRSI_PATH_ALLOW_EXEC | KRSI_KIND_ABOVE) || dentry_in_exec_dir(c, d);
}

/* A new name D: in an admitted directory, or the last component of an exact exec rule. */
static __always_inline bool dentry_new_name_admitted(struct ctx *c, struct dentry *d)
{
	struct krsi_name_key nk = { .slot = c->pol->slot, .kind = KRSI_PATH_ALLOW_EXEC };

	if (dentry_in_exec_dir(c, BPF_CORE_READ(d, d_parent)))
		return true;
	bpf_probe_read_kernel_str(nk.name, sizeof(nk.name), BPF_CORE_READ(d, d_name.name));
	return bpf_map_lookup_elem(&name_rules, &nk);
}

/*
 * "mount": removing a directory or file, or renaming over one, that is a mount point in
 * another mount namespace detaches the mounts on it there (__detach_mounts(); in the
 * remover's own namespace the kernel refuses with EBUSY first). D: what is removed or
 * replaced; CALL: enum krsi_replace_call.
 */
static __always_inline int detach_check(struct dentry *d, __u32 call)
{
	if (!(BPF_CORE_READ(d, d_flags) & DCACHE_MOUNTED) || !deny_anywhere(KRSI_HOOK_MOUNT))
		return 0;
	return flag_check(KRSI_HOOK_MOUNT, KRSI_MOUNT_DETACH, call, NULL);
}

static __always_inline bool replace_policy(struct ctx *c)
{
	return deny_anywhere(KRSI_HOOK_REPLACE) && policy_get(c) &&
	       (c->pol->deny & KRSI_DENY(KRSI_HOOK_REPLACE));
}

static __always_inline int replace_deny(struct ctx *c, struct dentry *d, __u32 call)
{
	return name_deny(c, d, KRSI_HOOK_REPLACE, call | KRSI_MATCH_EXEC_ALLOWED << 8, NULL);
}

/*
 * write: renaming what a write rule protects, or over it, or onto the path of an exact rule.
 * RENAME_EXCHANGE passes this hook twice, each way.
 */
static __always_inline int write_rename(struct dentry *old, struct dentry *new)
{
	struct ctx c;
	__u32 why;

	if (!write_policy(&c))
		return 0;
	why = write_guarded(&c, old, false);
	if (why)
		return write_deny(&c, old, KRSI_REPLACE_RENAME, why);
	if (BPF_CORE_READ(new, d_inode)) {
		why = write_guarded(&c, new, false);
		if (why)
			return write_deny(&c, new, KRSI_REPLACE_RENAME, why);
	}
	why = write_name_guarded(&c, new, (BPF_CORE_READ(old, d_inode, i_mode) & S_IFMT) == S_IFDIR);
	return why ? write_deny(&c, new, KRSI_REPLACE_RENAME, why) : 0;
}

SEC("lsm/inode_rename")
int BPF_PROG(inode_rename, struct inode *old_dir, struct dentry *old_dentry, struct inode *new_dir,
	     struct dentry *new_dentry, int ret)
{
	struct ctx c;

	if (ret)
		return ret;
	if (BPF_CORE_READ(new_dentry, d_inode)) {
		ret = detach_check(new_dentry, KRSI_REPLACE_RENAME);
		if (ret)
			return ret;
	}
	/* What an exec allow list admits first: its report says why more precisely. */
	if (replace_policy(&c)) {
		if (dentry_bound(&c, old_dentry))
			return replace_deny(&c, old_dentry, KRSI_REPLACE_RENAME);
		if (dentry_bound(&c, new_dentry) || dentry_new_name_admitted(&c, new_dentry))
			return replace_deny(&c, new_dentry, KRSI_REPLACE_RENAME);
	}
	return write_rename(old_dentry, new_dentry);
}

SEC("lsm/inode_link")
int BPF_PROG(inode_link, struct dentry *old_dentry, struct inode *dir, struct dentry *new_dentry,
	     int ret)
{
	if (ret)
		return ret;
	return write_new_name(new_dentry, KRSI_REPLACE_LINK);
}

SEC("lsm/inode_unlink")
int BPF_PROG(inode_unlink, struct inode *dir, struct dentry *dentry, int ret)
{
	struct ctx c;

	if (ret)
		return ret;
	ret = detach_check(dentry, KRSI_REPLACE_UNLINK);
	if (ret)
		return ret;
	if (replace_policy(&c) && dentry_bound(&c, dentry))
		return replace_deny(&c, dentry, KRSI_REPLACE_UNLINK);
	return write_existing(dentry, KRSI_REPLACE_UNLINK, false);
}

SEC("lsm/inode_rmdir")
int BPF_PROG(inode_rmdir, struct inode *dir, struct dentry *dentry, int ret)
{
	struct ctx c;

	if (ret)
		return ret;
	ret = detach_check(dentry, KRSI_REPLACE_RMDIR);
	if (ret)
		return ret;
	if (replace_policy(&c) && dentry_bound(&c, dentry))
		return replace_deny(&c, dentry, KRSI_REPLACE_RMDIR);
	return write_existing(dentry, KRSI_REPLACE_RMDIR, false);
}

static __always_inline bool caps_anywhere(int cap)
{
	__u32 zero = 0;
	struct krsi_config *cfg = bpf_map_lookup_elem(&config, &zero);

	return cfg && (cfg->caps_any & (1ULL << cap));
}

/*
 * Where the kernel takes CAP_SYS_ADMIN in place of a narrower capability (check_syslog_
 * permissions(), perfmon_capable(), bpf_capable()), denying the narrower one in capable() stops
 * nothing for a task that holds CAP_SYS_ADMIN: the operation's own hook denies it instead,
 * while CAP (its narrower capability) is denied. ROUTE: enum krsi_cap_route.
 */
static __always_inline int cap_route(int cap, __u32 route)
{
	struct report r = { .hook = KRSI_HOOK_CAPABLE, .arg = cap, .value = route,
			    .object = cap | route << 8 };
	struct ctx c;

	if (!caps_anywhere(cap))
		return 0;
	if (!policy_get(&c) || !(c.pol->deny & KRSI_DENY(KRSI_HOOK_CAPABLE)) ||
	    !(c.pol->caps & (1ULL << cap)))
		return 0;
	return decide(&c, &r);
}

/* syslog(2) and /dev/kmsg reads, after the kernel's CAP_SYSLOG-or-CAP_SYS_ADMIN check. */
SEC("lsm/syslog")
int BPF_PROG(syslog, int type, int ret)
{
	if (ret)
		return ret;
	return cap_route(CAP_SYSLOG, KRSI_CAP_SYSLOG);
}

SEC("lsm/perf_event_open")
int BPF_PROG(perf_event_open, struct perf_event_attr *attr, int type, int ret)
{
	if (ret)
		return ret;
	return cap_route(CAP_PERFMON, KRSI_CAP_PERF);
}

SEC("lsm/bpf")
int BPF_PROG(bpf, int cmd, union bpf_attr *attr, unsigned int size, int ret)
{
	if (ret)
		return ret;
	ret = flag_check(KRSI_HOOK_BPF, cmd, 0, NULL);
	return ret ?: cap_route(CAP_BPF, KRSI_CAP_BPF);
}

SEC("lsm/capable")
int BPF_PROG(capable, const struct cred *cred, struct user_namespace *ns, int cap,
	     unsigned int opts, int ret)
{
	struct report r = { .hook = KRSI_HOOK_CAPABLE, .arg = cap, .object = cap };
	struct ctx c;

	if (ret)
		return ret;
	if (cap < 0 || cap >= KRSI_CAP_MAX)
		return 0;
	/* The kernel asks capable() on hot paths: one config lookup for what no profile denies. */
	if (!caps_anywhere(cap))
		return 0;
	if (!policy_get(&c) || !(c.pol->deny & KRSI_DENY(KRSI_HOOK_CAPABLE)) ||
	    !(c.pol->caps & (1ULL << cap)))
		return 0;
	if (opts & CAP_OPT_NOAUDIT) /* a probe (has_capability_noaudit): deny, silently */
		return verdict_errno(c.pol->mode == KRSI_MODE_ENFORCE);
	return decide(&c, &r);
}

/*
 * A registered cgroup was removed: tell the agent, which unregisters its container at once
 * instead of finding out on its periodic sweep (a runtime may never run the poststop hook).
 * A full ring buffer loses the notice and counts it lost; the agent then sweeps.
 */
SEC("tp_btf/cgroup_rmdir")
int BPF_PROG(cgroup_rmdir, struct cgroup *cgrp, const char *path)
{
	__u64 id = cgrp->kn->id;
	struct krsi_event *e;
	__u32 zero = 0;

	if (!filter_maybe(id) || !bpf_map_lookup_elem(&cgroups, &id))
		return 0;
	e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (!e) {
		struct krsi_stats *st = bpf_map_lookup_elem(&stats, &zero);

		if (st)
			st->lost++; /* the agent sweeps when lost moves */
		return 0;
	}
	__builtin_memset(e, 0, sizeof(*e));
	e->time_ns = bpf_ktime_get_boot_ns();
	e->cgroup_id = id;
	e->policy_cgroup_id = id;
	e->hook = KRSI_EVENT_GONE;
	bpf_ringbuf_submit(e, 0);
	return 0;
}
