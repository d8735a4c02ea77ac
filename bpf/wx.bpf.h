/* SPDX-License-Identifier: GPL-2.0 */
/*
 * W^X helpers: the wx report, the inode whose pages a mapping of a file maps, whether a file has
 * writers, the exec_mapped marks of files that a confined task mapped executable, /proc/PID/mem,
 * and the wx checks of ptrace and of a file opened for writing; the programs file_mprotect,
 * mmap_file, bprm_exec_memory and task_setpersonality hold the rest. Depends on kdefs.bpf.h,
 * maps.bpf.h, cgroup.bpf.h, verdict.bpf.h and file.bpf.h (PROC_SUPER_MAGIC).
 */
#ifndef KRSI_BPF_WX_H
#define KRSI_BPF_WX_H

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

#endif /* KRSI_BPF_WX_H */
