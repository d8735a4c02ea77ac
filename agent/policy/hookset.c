// SPDX-License-Identifier: GPL-2.0
#include <string.h>

#include "bpf/krsi.h"
#include "policy/hookset.h"
#include "lib/util.h"

/* Every program of bpf/krsi.bpf.c that reads a deny bit, and the bits it reads. */
static const struct {
	const char *prog;
	uint64_t deny;
} table[] = {
	/*
	 * wx: /proc/PID/mem, and files mapped executable, are not opened for writing; nor are
	 * kernel knobs, block devices and (every profile) other cgroups' files (bpf/knob.bpf.h).
	 */
	{ "file_open", KRSI_DENY(KRSI_HOOK_OPEN_READ) | KRSI_DENY(KRSI_HOOK_OPEN_WRITE) |
			       KRSI_DENY(KRSI_HOOK_REPLACE) | KRSI_DENY(KRSI_HOOK_WX) |
			       KRSI_DENY(KRSI_HOOK_KNOB) | KRSI_DENY(KRSI_HOOK_BLOCKDEV) |
			       KRSI_DENY(KRSI_HOOK_CGROUP) },
	/* Every profile: no child started in a cgroup of its caller's choosing. */
	{ "task_alloc", KRSI_DENY(KRSI_HOOK_CGROUP) },
	/*
	 * What a write rule protects is not truncated, renamed, replaced or removed, and no new
	 * name takes its path; what an exec allow list admits stays what it was; and (mount) no
	 * mount point of another mount namespace is removed, which would detach its mounts there.
	 */
	{ "path_truncate", KRSI_DENY(KRSI_HOOK_OPEN_WRITE) },
	{ "inode_create", KRSI_DENY(KRSI_HOOK_OPEN_WRITE) | KRSI_DENY(KRSI_HOOK_REPLACE) },
	{ "inode_mkdir", KRSI_DENY(KRSI_HOOK_OPEN_WRITE) | KRSI_DENY(KRSI_HOOK_REPLACE) },
	{ "inode_mknod", KRSI_DENY(KRSI_HOOK_OPEN_WRITE) | KRSI_DENY(KRSI_HOOK_REPLACE) },
	{ "inode_symlink", KRSI_DENY(KRSI_HOOK_OPEN_WRITE) | KRSI_DENY(KRSI_HOOK_REPLACE) },
	{ "inode_rename", KRSI_DENY(KRSI_HOOK_REPLACE) | KRSI_DENY(KRSI_HOOK_MOUNT) |
				  KRSI_DENY(KRSI_HOOK_OPEN_WRITE) },
	{ "inode_link", KRSI_DENY(KRSI_HOOK_REPLACE) | KRSI_DENY(KRSI_HOOK_OPEN_WRITE) },
	{ "inode_unlink", KRSI_DENY(KRSI_HOOK_REPLACE) | KRSI_DENY(KRSI_HOOK_MOUNT) |
				  KRSI_DENY(KRSI_HOOK_OPEN_WRITE) },
	{ "inode_rmdir", KRSI_DENY(KRSI_HOOK_REPLACE) | KRSI_DENY(KRSI_HOOK_MOUNT) |
				 KRSI_DENY(KRSI_HOOK_OPEN_WRITE) },
	{ "socket_create", KRSI_DENY(KRSI_HOOK_SOCKET) },
	{ "socket_connect", KRSI_DENY(KRSI_HOOK_CONNECT) },
	{ "socket_sendmsg", KRSI_DENY(KRSI_HOOK_CONNECT) },
	{ "socket_bind", KRSI_DENY(KRSI_HOOK_BIND) },
	/* Also write: no mount over what a write rule protects. */
	{ "sb_mount", KRSI_DENY(KRSI_HOOK_MOUNT) | KRSI_DENY(KRSI_HOOK_OPEN_WRITE) },
	{ "move_mount", KRSI_DENY(KRSI_HOOK_MOUNT) | KRSI_DENY(KRSI_HOOK_OPEN_WRITE) },
	{ "sb_umount", KRSI_DENY(KRSI_HOOK_MOUNT) },
	{ "sb_pivotroot", KRSI_DENY(KRSI_HOOK_MOUNT) },
	{ "sb_remount", KRSI_DENY(KRSI_HOOK_MOUNT) },
	{ "sb_kern_mount", KRSI_DENY(KRSI_HOOK_MOUNT) },
	{ "mount_clone", KRSI_DENY(KRSI_HOOK_MOUNT) },
	{ "mount_setattr", KRSI_DENY(KRSI_HOOK_MOUNT) },
	{ "fs_context_open", KRSI_DENY(KRSI_HOOK_MOUNT) },
	{ "fs_context_mount", KRSI_DENY(KRSI_HOOK_MOUNT) },
	/* Also wx: a tracer writes its tracee's code through the kernel. */
	{ "ptrace_access_check", KRSI_DENY(KRSI_HOOK_PTRACE) | KRSI_DENY(KRSI_HOOK_WX) },
	{ "ptrace_traceme", KRSI_DENY(KRSI_HOOK_PTRACE) | KRSI_DENY(KRSI_HOOK_WX) },
	{ "kernel_module_request", KRSI_DENY(KRSI_HOOK_MODULE) },
	{ "kernel_read_file", KRSI_DENY(KRSI_HOOK_MODULE) },
	{ "kernel_load_data", KRSI_DENY(KRSI_HOOK_MODULE) },
	/*
	 * A denied CAP_BPF, CAP_PERFMON or CAP_SYSLOG denies its operation, which the kernel
	 * also allows with CAP_SYS_ADMIN.
	 */
	{ "bpf", KRSI_DENY(KRSI_HOOK_BPF) | KRSI_DENY(KRSI_HOOK_CAPABLE) },
	{ "perf_event_open", KRSI_DENY(KRSI_HOOK_CAPABLE) },
	{ "syslog", KRSI_DENY(KRSI_HOOK_CAPABLE) },
	{ "userns_create", KRSI_DENY(KRSI_HOOK_USERNS) },
	/* W^X, and PROT_EXEC mappings as exec: the loader's and dlopen()'s way to run a file. */
	{ "file_mprotect",
	  KRSI_DENY(KRSI_HOOK_WX) | KRSI_DENY(KRSI_HOOK_EXEC) | KRSI_DENY(KRSI_HOOK_PATHLESS) },
	{ "mmap_file",
	  KRSI_DENY(KRSI_HOOK_WX) | KRSI_DENY(KRSI_HOOK_EXEC) | KRSI_DENY(KRSI_HOOK_PATHLESS) },
	/* wx: memory the kernel makes executable at execve, and READ_IMPLIES_EXEC (patch 13). */
	{ "bprm_exec_memory", KRSI_DENY(KRSI_HOOK_WX) },
	{ "task_setpersonality", KRSI_DENY(KRSI_HOOK_WX) },
	{ "capable", KRSI_DENY(KRSI_HOOK_CAPABLE) },
	/*
	 * Attached whatever the profiles say. bprm_check_security also arms until_exec
	 * registrations: detached, a container registered at prestart would never be armed,
	 * and a profile loaded later could not confine it. bpf_map and bpf_prog deny every
	 * confined task an fd to krsi's own maps and programs. cgroup_rmdir (a tracepoint, not
	 * an LSM hook) tells the agent that a registered cgroup is gone.
	 */
	{ "bprm_check_security", 0 },
	{ "bpf_map", 0 },
	{ "bpf_prog", 0 },
	{ "cgroup_rmdir", 0 },
};

static int find(const char *prog)
{
	for (size_t i = 0; i < ARRAY_SIZE(table); i++)
		if (!strcmp(table[i].prog, prog))
			return (int)i;
	return -1;
}

const char *hookset_route(const char *prog)
{
	static const struct {
		const char *prog, *route;
	} routes[] = {
		{ "mount_clone", "open_tree(2) with OPEN_TREE_CLONE (a detached copy of a tree)" },
		{ "mount_setattr", "mount_setattr(2) (a mount's flags and propagation)" },
		{ "fs_context_open", "fsopen(2) and fspick(2) (a file system context)" },
		{ "fs_context_mount", "fsmount(2) (a detached mount of a new file system)" },
		{ "bprm_exec_memory", "the memory execve(2) makes writable and executable (an "
				      "executable stack, W+X segments, READ_IMPLIES_EXEC)" },
		{ "task_setpersonality", "personality(2) with READ_IMPLIES_EXEC" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(routes); i++)
		if (!strcmp(routes[i].prog, prog))
			return routes[i].route;
	return NULL;
}

bool hookset_known(const char *prog)
{
	return find(prog) >= 0;
}

uint64_t hookset_deny_bits(const char *prog)
{
	int i = find(prog);

	return i < 0 ? 0 : table[i].deny; /* unknown: attached, to be safe */
}

bool hookset_always(const char *prog)
{
	return hookset_deny_bits(prog) == 0;
}

bool hookset_needed(const char *prog, uint64_t deny)
{
	uint64_t bits = hookset_deny_bits(prog);

	return !bits || (bits & deny);
}
