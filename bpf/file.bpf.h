/* SPDX-License-Identifier: GPL-2.0 */
/*
 * File rules, by identity and by path: the inode_rules lookup behind its filter, the hash of a
 * reported path, the paths of the kernel's own file systems (ktree_path()), path resolution into
 * the scratch key, pathless files, the name filter, the walk up a file's directories across mounts
 * (dir_walk()), whether a path from the task's root can be trusted, file_rules() with its allow
 * lists and learning, exec_check() for code from a file, and the identity and report of a dentry
 * (dentry_is(), name_deny()) that replace.bpf.h and write.bpf.h share. Depends on kdefs.bpf.h,
 * maps.bpf.h, cgroup.bpf.h and verdict.bpf.h.
 */
#ifndef KRSI_BPF_FILE_H
#define KRSI_BPF_FILE_H

/* Whether inode_rules has key K: its filter bit first, the hash only when the bit is set. */
static __always_inline bool inode_rule(struct krsi_inode_key *k)
{
	__u32 bit = krsi_inode_bit(k->slot, k->kind, k->dev, k->ino), w = bit >> 6;
	__u64 *word = bpf_map_lookup_elem(&inode_filter, &w);

	if (word && !(*word & (1ULL << (bit & 63))))
		return false;
	return bpf_map_lookup_elem(&inode_rules, k) != NULL;
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
		/*
		 * A name in an allowed directory admits only a file that has no other. A
		 * directory has one name whatever its link count says (its subdirectories' "..").
		 */
		if (inode->__i_nlink <= 1 || (inode->i_mode & S_IFMT) == S_IFDIR) {
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
 * F is the program an execve of the current task is loading: the task is in execve and its
 * new mm's exe_file is F (set before the program's segments are mapped), the same struct file
 * that bprm_check_security saw.
 */
static __always_inline bool exec_own_program(struct file *f)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct mm_struct *mm;

	if (!BPF_CORE_READ_BITFIELD(task, in_execve))
		return false;
	mm = task->mm;
	return mm && mm->exe_file == f;
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

#endif /* KRSI_BPF_FILE_H */
