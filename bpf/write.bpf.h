/* SPDX-License-Identifier: GPL-2.0 */
/*
 * write: what write rules protect keeps its content. Whether a directory above a dentry, on its own
 * file system, has a rule's key (dentry_under()), whether a name is at an exact rule's path or a
 * path was admitted since the rules were resolved, why a file may not change or a name may not be
 * made, the write report, and the checks that the programs call: write_new_name() (after replace),
 * write_existing(), write_existing_in(), write_mount() and write_rename_in(). Depends on
 * kdefs.bpf.h, maps.bpf.h, cgroup.bpf.h, verdict.bpf.h, file.bpf.h (dentry_is(), name_deny(),
 * ktree_path_stop()) and replace.bpf.h.
 */
#ifndef KRSI_BPF_WRITE_H
#define KRSI_BPF_WRITE_H

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

/* C's policy (policy_with()) has write rules. */
static __always_inline bool write_in(struct ctx *c)
{
	return c->pol->deny & KRSI_DENY(KRSI_HOOK_OPEN_WRITE);
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

/*
 * CALL makes the new name N (create, mkdir, mknod, symlink, link): not in a directory an exec
 * allow list admits, nor at an exact exec allow rule's path (replace, reported first); not
 * where a write rule protects the path.
 */
static __always_inline int write_new_name(struct dentry *n, __u32 call)
{
	struct ctx c;
	__u32 why;

	if (!policy_with(&c, KRSI_NAME_HOOKS))
		return 0;
	if (replace_in(&c) && dentry_new_name_admitted(&c, n))
		return replace_deny(&c, n, call);
	if (!write_in(&c))
		return 0;
	why = write_name_guarded(&c, n, call == KRSI_REPLACE_MKDIR);
	return why ? write_deny(&c, n, call, why) : 0;
}

/*
 * CALL changes the existing file or directory D (truncate, unlink, rmdir, a mount over it);
 * CONTENT: its bytes (write_guarded()). C: the task's policy, from policy_with().
 */
static __always_inline int write_existing_in(struct ctx *c, struct dentry *d, __u32 call,
					     bool content)
{
	__u32 why;

	if (!write_in(c))
		return 0;
	why = write_guarded(c, d, content);
	return why ? write_deny(c, d, call, why) : 0;
}

static __always_inline int write_existing(struct dentry *d, __u32 call, bool content)
{
	struct ctx c;

	if (!policy_with(&c, KRSI_DENY(KRSI_HOOK_OPEN_WRITE)))
		return 0;
	return write_existing_in(&c, d, call, content);
}

/* A mount over D (sb_mount, move_mount) puts other content at its path. */
static __always_inline int write_mount(struct dentry *d)
{
	return write_existing(d, KRSI_REPLACE_MOUNT, false);
}

/*
 * write: renaming what a write rule protects, or over it, or onto the path of an exact rule.
 * RENAME_EXCHANGE passes this hook twice, each way. C: the task's policy, from policy_with().
 */
static __always_inline int write_rename_in(struct ctx *c, struct dentry *old, struct dentry *new)
{
	__u32 why;

	if (!write_in(c))
		return 0;
	why = write_guarded(c, old, false);
	if (why)
		return write_deny(c, old, KRSI_REPLACE_RENAME, why);
	if (BPF_CORE_READ(new, d_inode)) {
		why = write_guarded(c, new, false);
		if (why)
			return write_deny(c, new, KRSI_REPLACE_RENAME, why);
	}
	why = write_name_guarded(c, new, (BPF_CORE_READ(old, d_inode, i_mode) & S_IFMT) == S_IFDIR);
	return why ? write_deny(c, new, KRSI_REPLACE_RENAME, why) : 0;
}

#endif /* KRSI_BPF_WRITE_H */
