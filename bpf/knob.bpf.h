/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Writes whose effect reaches beyond the container, all decided when a file is opened for
 * writing (file_open), by what the file is rather than by its name, so that no other instance
 * of its file system, bind mount or root changes the answer:
 *
 * - cgroup (every profile): the container's cgroup is its identity, and a task that left its
 *   registered cgroup's subtree would leave every rule. No file of a cgroup outside that subtree
 *   is opened for writing (cgroup.procs and cgroup.threads move tasks; the rest are other
 *   cgroups' limits), and no child is started in a cgroup of the caller's choosing
 *   (clone3(CLONE_INTO_CGROUP), task_alloc, in krsi.bpf.c);
 * - kernel_knobs: procfs and sysfs files whose effect reaches beyond the task's own namespaces,
 *   and the kernel's other control file systems (enum krsi_knob);
 * - block_write: block devices.
 *
 * Each decision ends in one decide(), with the file's path resolved into knob_buf, not into
 * the scratch key that file_open's file rules share. The helpers are functions of their own,
 * not inlined, so that the verifier walks what follows each once per answer, not once per way
 * to it (file_open was over its million instructions with them inlined).
 * Depends on kdefs.bpf.h, maps.bpf.h, cgroup.bpf.h (struct ctx), verdict.bpf.h and file.bpf.h
 * (ktree_prefix(), ktree_path()).
 */
#ifndef KRSI_BPF_KNOB_H
#define KRSI_BPF_KNOB_H

#define CGROUP_SUPER_MAGIC 0x27e0eb
#define CGROUP2_SUPER_MAGIC 0x63677270
#define BINFMTFS_MAGIC 0x42494e4d
#define EFIVARFS_MAGIC 0xde5e81e4
#define PSTOREFS_MAGIC 0x6165676c
#define FUSE_CTL_SUPER_MAGIC 0x65735543
#define SELINUX_MAGIC 0xf97cff8c
#define SMACK_MAGIC 0x43415d53
#define S_IFBLK 0060000
#define KNOB_PARENTS 8	    /* sysfs: directories looked at for a network namespace's tag */
#define KNOB_TASK_DEPTH 128 /* ancestors of a task looked at on the way to the idle task */

/*
 * Whether S (map or stack memory of at least N bytes) starts with the N bytes of the literal
 * LIT: every byte is compared, so that the loop unrolls into straight code.
 */
static __always_inline bool str_starts(const char *s, const char *lit, int n)
{
	char diff = 0;

#pragma unroll
	for (int i = 0; i < n; i++)
		diff |= s[i] ^ lit[i];
	return !diff;
}

#define STARTS(s, lit) str_starts(s, lit, sizeof(lit) - 1)
#define IS(s, lit) str_starts(s, lit, sizeof(lit))

/* One step of knob_idle_task(): from a task to its parent. */
static long knob_parent_step(__u32 i, void *arg)
{
	__u64 *t = arg, p = (__u64)BPF_CORE_READ((struct task_struct *)*t, real_parent);

	if (!p || p == *t)
		return 1;
	*t = p;
	if (i + 1 == KNOB_TASK_DEPTH) {
		*t = 0; /* too deep to tell */
		return 1;
	}
	return 0;
}

/*
 * The boot CPU's idle task, whose namespaces are the host's (init_nsproxy): the end of the
 * current task's chain of parents, the one task that is its own parent. 0 when the chain is
 * longer than KNOB_TASK_DEPTH.
 */
static __always_inline __u64 knob_idle_task(void)
{
	__u64 t = bpf_get_current_task();

	bpf_loop(KNOB_TASK_DEPTH, knob_parent_step, &t, 0);
	return t;
}

/* The current task's network namespace, if it is not the host's; else 0. */
static __always_inline __u64 knob_own_net(void)
{
	struct task_struct *cur = (void *)bpf_get_current_task();
	__u64 idle = knob_idle_task(), net = (__u64)BPF_CORE_READ(cur, nsproxy, net_ns);

	if (!idle || net == (__u64)BPF_CORE_READ((struct task_struct *)idle, nsproxy, net_ns))
		return 0;
	return net;
}

/*
 * A sysctl that the current task changes for its own namespaces only. /proc/sys shows each
 * task the tables of its own namespaces: those of a namespace live outside their root's
 * default set (net.*, user.*, the IPC ones under kernel and fs.mqueue), so the file is the
 * namespace's the task is in now; kernel.hostname, kernel.domainname and kernel.ns_last_pid are
 * in the default set and change the task's UTS and PID namespaces. Any of these is the host's
 * when the task shares that namespace with the host.
 */
static __noinline bool knob_sysctl_own(struct file *f, const char *path)
{
	struct inode *inode = f->f_inode;
	struct proc_inode *pi = (void *)inode - bpf_core_field_offset(struct proc_inode, vfs_inode);
	struct ctl_table_header *head = BPF_CORE_READ(pi, sysctl);
	struct task_struct *cur = (void *)bpf_get_current_task();
	struct task_struct *idle;
	void *set, *def;

	if (!head)
		return false;
	set = BPF_CORE_READ(head, set);
	def = (void *)BPF_CORE_READ(head, root) +
	      bpf_core_field_offset(struct ctl_table_root, default_set);
	if (set == def) {
		if (IS(path, "/proc/sys/kernel/ns_last_pid"))
			return BPF_CORE_READ(cur, thread_pid, level) > 0;
		if (!IS(path, "/proc/sys/kernel/hostname") &&
		    !IS(path, "/proc/sys/kernel/domainname"))
			return false;
		idle = (void *)knob_idle_task();
		return idle && BPF_CORE_READ(cur, nsproxy, uts_ns) !=
				       BPF_CORE_READ(idle, nsproxy, uts_ns);
	}
	if (STARTS(path, "/proc/sys/net/"))
		return knob_own_net() != 0;
	if (STARTS(path, "/proc/sys/user/"))
		return BPF_CORE_READ(cur, cred, user_ns, level) > 0;
	/* The IPC tables: kernel.shm*, kernel.msg*, kernel.sem, fs.mqueue.* */
	idle = (void *)knob_idle_task();
	return idle && BPF_CORE_READ(cur, nsproxy, ipc_ns) != BPF_CORE_READ(idle, nsproxy, ipc_ns);
}

/*
 * A sysfs file of a network device of the current task's own network namespace: a directory
 * tagged with that namespace (the device's, under /sys/class/net and /sys/devices/virtual/net)
 * is one of its first KNOB_PARENTS ancestors. Every other sysfs file is a knob.
 */
static __noinline bool knob_sysfs_own(struct file *f)
{
	struct kernfs_node *kn = BPF_CORE_READ(f, f_inode, i_private);
	__u64 net = knob_own_net();

	if (!net)
		return false;
	for (int i = 0; i < KNOB_PARENTS && kn; i++) {
		const void *ns = BPF_CORE_READ(kn, ns);

		if (ns)
			return (__u64)ns == net;
		kn = BPF_CORE_READ(kn, parent);
	}
	return false;
}

/* Whether a file system of magic MAGIC may hold a knob (knob_kind() tells). */
static __noinline bool knob_fs(unsigned long magic)
{
	switch (magic) {
	case PROC_SUPER_MAGIC:
	case SYSFS_MAGIC:
	case DEBUGFS_MAGIC:
	case TRACEFS_MAGIC:
	case SECURITYFS_MAGIC:
	case CONFIGFS_MAGIC:
	case BINFMTFS_MAGIC:
	case EFIVARFS_MAGIC:
	case PSTOREFS_MAGIC:
	case FUSE_CTL_SUPER_MAGIC:
	case SELINUX_MAGIC:
	case SMACK_MAGIC:
	case CGROUP_SUPER_MAGIC:
		return true;
	}
	return false;
}

/*
 * F's path into BUF (KRSI_PATH_MAX bytes): its place in its kernel file system's tree
 * (ktree_path()) or, elsewhere, the task's view; "" when it cannot be told.
 */
static __noinline void knob_path(struct file *f, char *buf)
{
	const char *prefix;
	int plen = ktree_prefix(f->f_path.dentry->d_sb, &prefix);

	if (plen ? !ktree_path(f->f_path.dentry, prefix, plen, buf)
		 : bpf_d_path(&f->f_path, buf, KRSI_PATH_MAX) < 0)
		buf[0] = 0;
}

/* Whether F, opened for writing, is a kernel knob: its enum krsi_knob, or -1. BUF: its path. */
static __noinline int knob_kind(struct file *f, const char *buf)
{
	switch (f->f_inode->i_sb->s_magic) {
	case PROC_SUPER_MAGIC:
		if (!buf[0])
			return KRSI_KNOB_PROC; /* too deep to tell: not below /proc/PID */
		if (buf[6] >= '0' && buf[6] <= '9')
			return -1; /* /proc/PID: the process's own files */
		if (!STARTS(buf, "/proc/sys/"))
			return KRSI_KNOB_PROC;
		return knob_sysctl_own(f, buf) ? -1 : KRSI_KNOB_SYSCTL;
	case SYSFS_MAGIC:
		return knob_sysfs_own(f) ? -1 : KRSI_KNOB_SYSFS;
	case DEBUGFS_MAGIC:
	case TRACEFS_MAGIC:
	case SECURITYFS_MAGIC:
	case CONFIGFS_MAGIC:
	case BINFMTFS_MAGIC:
	case EFIVARFS_MAGIC:
	case PSTOREFS_MAGIC:
	case FUSE_CTL_SUPER_MAGIC:
	case SELINUX_MAGIC:
	case SMACK_MAGIC:
		return KRSI_KNOB_FS;
	case CGROUP_SUPER_MAGIC: {
		/* A v1 hierarchy's release_agent runs a program of the host's as root. */
		struct kernfs_node *kn = BPF_CORE_READ(f, f_inode, i_private);
		char name[16] = {};

		bpf_probe_read_kernel_str(name, sizeof(name), BPF_CORE_READ(kn, name));
		return IS(name, "release_agent") ? KRSI_KNOB_RELEASE_AGENT : -1;
	}
	}
	return -1;
}

/* One step of cgroup_outside(): is ancestor I of the cgroup the registered one? */
struct cgroup_walk {
	__u64 cg;    /* struct cgroup * */
	__u64 cgid;  /* the registered cgroup's id */
	int level;   /* the cgroup's depth */
	bool inside;
};

static long cgroup_walk_step(__u32 i, void *arg)
{
	struct cgroup_walk *w = arg;
	struct cgroup *anc = NULL;

	if ((int)i > w->level)
		return 1;
	bpf_probe_read_kernel(&anc, sizeof(anc),
			      (void *)w->cg + bpf_core_field_offset(struct cgroup, ancestors) +
				      (i & (KRSI_MAX_LEVELS - 1)) * sizeof(anc));
	if (anc && BPF_CORE_READ(anc, kn, id) == w->cgid) {
		w->inside = true;
		return 1;
	}
	return 0;
}

/*
 * A file of a v2 cgroup outside the task's registered cgroup's subtree: the cgroup the file
 * belongs to (the directory's own for a directory), found by its kernfs node, whose ancestors
 * do not include the registered cgroup; 0 inside.
 */
static __noinline __u64 cgroup_outside(struct ctx *c, struct file *f)
{
	struct inode *inode = f->f_inode;
	struct kernfs_node *kn = BPF_CORE_READ(inode, i_private);
	struct cgroup_walk w = { .cgid = c->cgid };
	struct cgroup *cg;

	if ((inode->i_mode & S_IFMT) != S_IFDIR)
		kn = BPF_CORE_READ(kn, parent);
	cg = BPF_CORE_READ(kn, priv);
	if (!cg)
		return 1; /* not a cgroup's: cannot tell, so not inside */
	w.cg = (__u64)cg;
	w.level = BPF_CORE_READ(cg, level);
	bpf_loop(KRSI_MAX_LEVELS, cgroup_walk_step, &w, 0);
	if (w.inside)
		return 0;
	return BPF_CORE_READ(cg, kn, id) ?: 1;
}

/*
 * F is being opened for writing by a task under C's policy: the three classes above. A
 * function of its own, not inlined: every way through it returns to file_open in the same
 * state but for the verdict, so the verifier walks the file rules that follow once per state
 * of file_open's, not once per way through this.
 */
static __noinline int knob_open(struct ctx *c, struct file *f)
{
	struct inode *inode = f->f_inode;
	unsigned long magic = inode->i_sb->s_magic;
	struct report r = { .dev = inode->i_sb->s_dev, .value = inode->i_ino };
	__u32 zero = 0;
	char *buf;
	int kind;

	if (magic == CGROUP2_SUPER_MAGIC) {
		if (!(c->pol->deny & KRSI_DENY(KRSI_HOOK_CGROUP)))
			return 0;
		r.value = cgroup_outside(c, f);
		if (!r.value)
			return 0;
		r.hook = KRSI_HOOK_CGROUP;
		r.arg = KRSI_CGROUP_WRITE;
	} else if ((inode->i_mode & S_IFMT) == S_IFBLK) {
		if (!(c->pol->deny & KRSI_DENY(KRSI_HOOK_BLOCKDEV)))
			return 0;
		r.hook = KRSI_HOOK_BLOCKDEV;
		r.value = inode->i_rdev;
	} else {
		if (!(c->pol->deny & KRSI_DENY(KRSI_HOOK_KNOB)) || !knob_fs(magic))
			return 0;
		r.hook = KRSI_HOOK_KNOB;
	}
	buf = bpf_map_lookup_elem(&knob_buf, &zero);
	if (!buf)
		return 0;
	knob_path(f, buf);
	if (r.hook == KRSI_HOOK_KNOB) {
		kind = knob_kind(f, buf);
		if (kind < 0)
			return 0;
		r.arg = kind;
	}
	r.path = buf;
	/* Each file (and each other cgroup) is a report of its own. */
	r.object = r.value ^ (__u64)r.dev << 32 ^ (__u64)r.hook << 56;
	return decide(c, &r);
}

#endif /* KRSI_BPF_KNOB_H */
