// SPDX-License-Identifier: GPL-2.0
/*
 * krsi: one set of LSM programs for the whole machine, loaded once; krsid attaches each only
 * while some installed profile sets a deny bit it reads (agent/policy/hookset.c). The current
 * task's cgroup, or its nearest registered ancestor, selects a profile; the profile's policy
 * (deny bits, masks, and a rule slot in the LPM tries) decides.
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
 *
 * The programs are here; what they share is in headers, one concern each, included in dependency
 * order: kdefs.bpf.h (the kernel's constants), maps.bpf.h, cgroup.bpf.h (which policy),
 * verdict.bpf.h (decide, report), file.bpf.h (file rules), net.bpf.h, wx.bpf.h, replace.bpf.h,
 * write.bpf.h and knob.bpf.h.
 */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "krsi.h"
#include "sockaddr.h"
#include "kdefs.bpf.h"
#include "maps.bpf.h"
#include "cgroup.bpf.h"
#include "verdict.bpf.h"
#include "file.bpf.h"
#include "net.bpf.h"
#include "wx.bpf.h"
#include "replace.bpf.h"
#include "write.bpf.h"
#include "knob.bpf.h"

char LICENSE[] SEC("license") = "GPL";

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
	 * Another cgroup's files, the kernel's knobs, block devices (knob.bpf.h): first, where
	 * the verifier has one state of this program to walk the function with.
	 */
	if (mode & FMODE_WRITE) {
		r = knob_open(&c, file);
		if (r)
			return r;
	}
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
 * clone3(2) with CLONE_INTO_CGROUP starts the child in the cgroup of a descriptor the caller
 * holds, which may be outside its container's cgroup subtree and so outside every rule. The
 * destination is not known here (task_alloc runs before cgroup_can_fork() reads the
 * descriptor), and the one check that sees it, inode_permission on the common ancestor's
 * cgroup.procs, runs on every path component of every lookup on the machine: a confined task
 * is refused the flag itself. It may still move its own processes within its subtree by
 * writing cgroup.procs there (knob.bpf.h).
 */
#define CLONE_INTO_CGROUP 0x200000000ULL
SEC("lsm/task_alloc")
int BPF_PROG(task_alloc, struct task_struct *task, unsigned long clone_flags, int ret)
{
	struct report r = { .hook = KRSI_HOOK_CGROUP, .arg = KRSI_CGROUP_CLONE,
			    .object = KRSI_CGROUP_CLONE };
	struct ctx c;

	if (ret)
		return ret;
	if (!((__u64)clone_flags & CLONE_INTO_CGROUP) || !policy_get(&c) ||
	    !(c.pol->deny & KRSI_DENY(KRSI_HOOK_CGROUP)))
		return 0;
	return decide(&c, &r);
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
	/*
	 * With no W^X anywhere, anonymous memory and execve mapping its own program (below) need
	 * nothing else.
	 */
	if (!deny_anywhere(KRSI_HOOK_WX) && (!file || exec_own_program(file)))
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
	/*
	 * execve mapping its own program: bprm_check_security (always attached) checked this
	 * very file with these exec rules, so it is not checked twice. The loader (PT_INTERP)
	 * that execve maps next is another file, and is checked here.
	 */
	if (exec_own_program(file))
		ret = 0;
	else
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
	if (!policy_with(&c, KRSI_NAME_HOOKS))
		return 0;
	/* What an exec allow list admits first: its report says why more precisely. */
	if (replace_in(&c)) {
		if (dentry_bound(&c, old_dentry))
			return replace_deny(&c, old_dentry, KRSI_REPLACE_RENAME);
		if (dentry_bound(&c, new_dentry) || dentry_new_name_admitted(&c, new_dentry))
			return replace_deny(&c, new_dentry, KRSI_REPLACE_RENAME);
	}
	return write_rename_in(&c, old_dentry, new_dentry);
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
	if (!policy_with(&c, KRSI_NAME_HOOKS))
		return 0;
	if (replace_in(&c) && dentry_bound(&c, dentry))
		return replace_deny(&c, dentry, KRSI_REPLACE_UNLINK);
	return write_existing_in(&c, dentry, KRSI_REPLACE_UNLINK, false);
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
	if (!policy_with(&c, KRSI_NAME_HOOKS))
		return 0;
	if (replace_in(&c) && dentry_bound(&c, dentry))
		return replace_deny(&c, dentry, KRSI_REPLACE_RMDIR);
	return write_existing_in(&c, dentry, KRSI_REPLACE_RMDIR, false);
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
