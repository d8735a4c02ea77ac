/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel's own constants that the programs and their helpers use: macros of its headers
 * (errno, address families, ptrace modes, mmap, mprotect and VM flags, file modes, dentry and
 * inode flags, mount flags, personality, the binfmt flags of the kernel series, capabilities),
 * which vmlinux.h, made from BTF, cannot carry. Depends on nothing.
 */
#ifndef KRSI_BPF_KDEFS_H
#define KRSI_BPF_KDEFS_H

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

#endif /* KRSI_BPF_KDEFS_H */
