/* SPDX-License-Identifier: GPL-2.0 */
/*
 * replace: what an exec allow list admits stays what it was. Whether a dentry is what exec rules
 * admit or a directory above it (dentry_bound()), whether a new name would be admitted, the replace
 * policy and report, and detach_check() ("mount": removing a mount point detaches the mounts of
 * other namespaces on it). Depends on kdefs.bpf.h, maps.bpf.h, cgroup.bpf.h, verdict.bpf.h
 * (flag_check()) and file.bpf.h (dentry_is(), name_deny()).
 */
#ifndef KRSI_BPF_REPLACE_H
#define KRSI_BPF_REPLACE_H

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

/* The deny bits of the name hooks: replace (exec allow lists), then write. */
#define KRSI_NAME_HOOKS (KRSI_DENY(KRSI_HOOK_REPLACE) | KRSI_DENY(KRSI_HOOK_OPEN_WRITE))

/* C's policy (policy_with(KRSI_NAME_HOOKS)) has an exec allow list to keep in place. */
static __always_inline bool replace_in(struct ctx *c)
{
	return c->pol->deny & KRSI_DENY(KRSI_HOOK_REPLACE);
}

static __always_inline int replace_deny(struct ctx *c, struct dentry *d, __u32 call)
{
	return name_deny(c, d, KRSI_HOOK_REPLACE, call | KRSI_MATCH_EXEC_ALLOWED << 8, NULL);
}

#endif /* KRSI_BPF_REPLACE_H */
