/* SPDX-License-Identifier: GPL-2.0 */
/*
 * krsi ABI: the one header that the BPF programs (krsi.bpf.c) and the agent share.
 *
 * Only fixed-width types, explicit padding, no pointers: every struct here is a map key, a
 * map value or a ring buffer record, copied byte for byte between the kernel and the agent.
 * Changing a layout changes the ABI of the pinned maps: bump KRSI_ABI_VERSION, and the agent
 * refuses to adopt pinned objects of another version (krsid --reset reloads them).
 */
#ifndef KRSI_H
#define KRSI_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

#define KRSI_ABI_VERSION 12

/* Limits shared by the parser, the agent and the BPF programs. */
#define KRSI_PATH_MAX 244	  /* path bytes in a rule or event, NUL included */
#define KRSI_NAME_MAX 64	  /* profile name, NUL included */
#define KRSI_CONTAINER_MAX 128	  /* container id, NUL included */
#define KRSI_CGROUP_PATH_MAX 512  /* cgroup path in the registry, NUL included */
#define KRSI_ROOTFS_MAX 512	  /* a container's rootfs (from its bundle), NUL included */
#define KRSI_COMM_MAX 16
#define KRSI_MAX_LEVELS 64	  /* cgroup depths tracked in krsi_config.level_mask */
#define KRSI_AF_MAX 64		  /* socket families covered by krsi_policy */
#define KRSI_CAP_MAX 64		  /* capabilities covered by krsi_policy.caps */
#define KRSI_LIST_MAX 16384	  /* entries per deny list in a profile */
#define KRSI_MAX_CGROUPS 16384	  /* registered cgroups */
#define KRSI_MAX_PROFILES 1024	  /* profile ids 0..1023 */
/*
 * Entries of the policies array: each published policy has one of its own until its grace
 * period after it was replaced is over (index 0 is never used: "no policy").
 */
#define KRSI_POLICY_SLOTS 4096
#define KRSI_MAX_PATH_RULES 65536 /* all slots together */
#define KRSI_MAX_NET_RULES 16384
#define KRSI_MAX_INODE_RULES 262144 /* file identities of exact rules, all slots and views */
#define KRSI_MAX_NAME_RULES 65536   /* last components of exact rules, all slots */
#define KRSI_BASENAME_MAX 48	    /* bytes of a last component in a name key, NUL included */

/* Hooks, as reported in events; also the bit numbers of krsi_policy.deny. */
enum krsi_hook {
	KRSI_HOOK_EXEC = 0,	   /* bprm_check_security, mmap_file, file_mprotect: code from a file */
	KRSI_HOOK_OPEN_READ,	   /* file_open for reading */
	KRSI_HOOK_OPEN_WRITE,	   /* file_open for writing, and every other change to what a
				    * write rule protects (enum krsi_replace_call) */
	KRSI_HOOK_SOCKET,	   /* socket_create: family and type */
	KRSI_HOOK_CONNECT,	   /* socket_connect: address and port */
	KRSI_HOOK_BIND,		   /* socket_bind: address and port */
	KRSI_HOOK_MOUNT,	   /* every change to the mount table (enum krsi_mount_call) */
	KRSI_HOOK_PTRACE,	   /* ptrace_access_check (attach), ptrace_traceme */
	KRSI_HOOK_MODULE,	   /* kernel_module_request, kernel_read_file, kernel_load_data */
	KRSI_HOOK_BPF,		   /* bpf() */
	KRSI_HOOK_USERNS,	   /* userns_create */
	KRSI_HOOK_WX,		   /* file_mprotect, mmap_file: memory writable and executable */
	KRSI_HOOK_CAPABLE,	   /* capable: a denied capability */
	KRSI_HOOK_SELF,		   /* bpf_map, bpf_prog: a confined task reaching krsi's objects */
	KRSI_HOOK_PATHLESS,	   /* exec or PROT_EXEC mapping of a file on no real directory */
	KRSI_HOOK_REPLACE,	   /* file_open for writing, inode_rename, _link, _unlink, _rmdir:
				    * changing what an exec allow list admits (enum krsi_replace_call) */
	KRSI_HOOK_KNOB,		   /* file_open for writing: a kernel knob (enum krsi_knob) */
	KRSI_HOOK_BLOCKDEV,	   /* file_open for writing: a block device */
	KRSI_HOOK_CGROUP,	   /* task_alloc (clone3 CLONE_INTO_CGROUP), file_open for writing
				    * of another cgroup's file: leaving the container's cgroup subtree
				    * (enum krsi_cgroup_call); set in every policy, not a profile key */
	KRSI_HOOK_COUNT,
};

/* Event-only hook values, never deny bits. */
#define KRSI_EVENT_ARMED 62 /* an until_exec registration was armed by the execve of pid */
#define KRSI_EVENT_GONE 61  /* the registered cgroup policy_cgroup_id was removed (rmdir) */

/*
 * krsi_event.arg of exec and pathless events: how the code was reached (low byte) and what
 * matched (next byte).
 */
enum krsi_exec_call {
	KRSI_CALL_EXECVE = 0,
	KRSI_CALL_MMAP = 1,
	KRSI_CALL_MPROTECT = 2,
	/* wx events only */
	KRSI_CALL_PERSONALITY = 3, /* personality(2) */
	KRSI_CALL_OPEN = 4,	   /* opening a process's memory (/proc/PID/mem) for writing */
	KRSI_CALL_PTRACE = 5,	   /* attaching to a process (ptrace, /proc/PID/mem) */
};

enum krsi_match {
	KRSI_MATCH_PATH = 0,	/* the path, by an exact or a directory rule */
	KRSI_MATCH_INODE = 1,	/* the file's identity: another name of a denied file */
	KRSI_MATCH_MEMFD = 2,	/* pathless: a file on an internal mount (memfd, shared memory) */
	KRSI_MATCH_UNLINKED = 3, /* pathless: a file with no name left (deleted, O_TMPFILE) */
	KRSI_MATCH_NOT_ALLOWED = 4, /* the kind has an allow list, and nothing in it matched */
	KRSI_MATCH_EXEC_ALLOWED = 5, /* a write to a file or directory allowed for exec */
	KRSI_MATCH_DIR = 6,	/* a directory rule's directory, by identity, is above the file */
	KRSI_MATCH_CUT_OFF = 7, /* a deny list's directory rules: the file is cut off from its
				 * file system's root (a file handle), so none can be ruled out */
	KRSI_MATCH_DETACHED = 8, /* pathless: on a mount outside the task's mount namespace (a
				  * detached copy or a file system instance never attached) */
	KRSI_MATCH_ABOVE = 9,	/* write: a directory above what a write rule protects */
};

/*
 * krsi_event.arg of replace and write events: the call (low byte) and the match (next byte).
 * Replace events match KRSI_MATCH_EXEC_ALLOWED. Under an
 * exec allow list, the files and directories it admits stay what they were: none is opened for
 * writing, renamed, replaced or removed, nothing is created, linked or renamed into a directory
 * it admits or onto the name of an exact rule, and no directory above one is renamed.
 */
enum krsi_replace_call {
	KRSI_REPLACE_WRITE = 0,
	KRSI_REPLACE_RENAME = 1,
	KRSI_REPLACE_LINK = 2,
	KRSI_REPLACE_UNLINK = 3,
	KRSI_REPLACE_RMDIR = 4,
	/* write events */
	KRSI_REPLACE_TRUNCATE = 5, /* path_truncate: truncate(2), ftruncate(2), O_TRUNC */
	KRSI_REPLACE_CREATE = 6,   /* inode_create: a new file (open with O_CREAT) */
	KRSI_REPLACE_MKDIR = 7,
	KRSI_REPLACE_MKNOD = 8,
	KRSI_REPLACE_SYMLINK = 9,
	KRSI_REPLACE_MOUNT = 10,   /* sb_mount, move_mount: a mount over the path */
};

/*
 * krsi_event.arg of mount events: the call, by the hook that saw it. The event's path is the
 * file system type (where the hook knows it) and its value the call's flags.
 */
enum krsi_mount_call {
	KRSI_MOUNT_MOUNT = 0,	   /* sb_mount: mount(2), every form */
	KRSI_MOUNT_MOVE = 1,	   /* move_mount: move_mount(2) */
	KRSI_MOUNT_UMOUNT = 2,	   /* sb_umount: umount(2), umount2(2) */
	KRSI_MOUNT_PIVOT_ROOT = 3, /* sb_pivotroot: pivot_root(2) */
	KRSI_MOUNT_RECONFIGURE = 4, /* sb_remount: fsconfig(FSCONFIG_CMD_RECONFIGURE) */
	KRSI_MOUNT_CREATE = 5,	   /* sb_kern_mount: fsconfig(FSCONFIG_CMD_CREATE) */
	KRSI_MOUNT_CLONE = 6,	   /* mount_clone: open_tree(OPEN_TREE_CLONE) */
	KRSI_MOUNT_SETATTR = 7,	   /* mount_setattr: mount_setattr(2) */
	KRSI_MOUNT_FSOPEN = 8,	   /* fs_context_open: fsopen(2) */
	KRSI_MOUNT_FSPICK = 9,	   /* fs_context_open: fspick(2) */
	KRSI_MOUNT_FSMOUNT = 10,   /* fs_context_mount: fsmount(2) */
	KRSI_MOUNT_DETACH = 11,	   /* inode_unlink, _rmdir, _rename: removing or renaming over a
				    * mount point of another mount namespace (value: the call,
				    * enum krsi_replace_call) */
};

/* krsi_event.arg of wx events: the call (low byte, KRSI_CALL_MMAP or _MPROTECT) and why. */
enum krsi_wx_reason {
	KRSI_WX_ANON = 0,	 /* anonymous memory made executable */
	KRSI_WX_WRITE_EXEC = 1,	 /* writable and executable at once */
	KRSI_WX_WRITTEN = 2,	 /* a writable or written mapping made executable */
	KRSI_WX_WRITERS = 3,	 /* the file is open for writing or mapped shared and writable: the
				  * other half of a double map */
	KRSI_WX_EXEC_STACK = 4,	 /* execve: the program asks for an executable stack */
	KRSI_WX_READ_IMPLIES_EXEC = 5, /* execve or personality(2): READ_IMPLIES_EXEC */
	KRSI_WX_SEGMENT = 6,	 /* execve: a segment of the program or its interpreter is W+X */
	KRSI_WX_KERNEL_WRITE = 7, /* a write through the kernel: /proc/PID/mem, ptrace */
	KRSI_WX_MAPPED_EXEC = 8, /* the file is mapped executable: not opened or mapped for writing */
};

/*
 * krsi_event.value of capable events: the route by which a denied capability was asked for.
 * Where the kernel accepts CAP_SYS_ADMIN in place of a narrower capability, the operation's
 * own hook denies it while the narrower one is denied (agent/README.md lists them).
 */
enum krsi_cap_route {
	KRSI_CAP_CAPABLE = 0, /* capable(): the capability itself */
	KRSI_CAP_SYSLOG = 1,  /* syslog: CAP_SYSLOG, or CAP_SYS_ADMIN in its place */
	KRSI_CAP_PERF = 2,    /* perf_event_open: CAP_PERFMON, or CAP_SYS_ADMIN */
	KRSI_CAP_BPF = 3,     /* bpf: CAP_BPF, or CAP_SYS_ADMIN */
};

/*
 * krsi_event.arg of knob events: what kind of knob the file is. Its path is the file's place in
 * its file system's tree (file.bpf.h, ktree_path()), whatever instance it was opened through.
 */
enum krsi_knob {
	KRSI_KNOB_SYSCTL = 0, /* /proc/sys: a sysctl of the whole machine, or of the host's
			       * namespace (net.*, user.*, the IPC and UTS ones, ns_last_pid) */
	KRSI_KNOB_PROC = 1,   /* another procfs file outside /proc/PID (sysrq-trigger, irq, ...) */
	KRSI_KNOB_SYSFS = 2,  /* sysfs, but for a network device of the task's own namespace */
	KRSI_KNOB_FS = 3,     /* debugfs, tracefs, securityfs, configfs, efivarfs, pstore,
			       * binfmt_misc, fusectl, selinuxfs, smackfs */
	KRSI_KNOB_RELEASE_AGENT = 4, /* a cgroup v1 hierarchy's release_agent */
};

/* krsi_event.arg of cgroup events: how the task would leave its container's cgroup subtree. */
enum krsi_cgroup_call {
	KRSI_CGROUP_CLONE = 0, /* clone3(2) with CLONE_INTO_CGROUP: path empty */
	KRSI_CGROUP_WRITE = 1, /* a file of a cgroup outside the subtree opened for writing
				* (cgroup.procs, cgroup.threads, a limit): path, cgroup id in value */
};

#define KRSI_DENY(hook) (1ULL << (hook))

enum krsi_mode {
	KRSI_MODE_ENFORCE = 0, /* deny with -EPERM and report */
	KRSI_MODE_AUDIT = 1,   /* allow and report */
};

enum krsi_verdict {
	KRSI_VERDICT_DENY = 0,
	KRSI_VERDICT_AUDIT = 1,
	KRSI_VERDICT_LEARN = 2, /* a learned container did it, and no deny rule matched */
};

/*
 * Path rule kinds (krsi_path_key.kind). A rule is an entry in the path_rules LPM trie whose
 * data is (slot, kind, path bytes). An exact rule stores the path with its terminating NUL,
 * so only that path matches; a directory rule stores "/dir/" without NUL, so every path below
 * it matches. A lookup with the full key length finds the longest stored prefix: any hit is a
 * deny, since the trie holds nothing else.
 */
enum krsi_path_kind {
	KRSI_PATH_EXEC = 1,
	KRSI_PATH_READ = 2,
	KRSI_PATH_WRITE = 3,
	/* Allow lists (schema 2): KRSI_PATH_ALLOW + the kind. A hit admits, a miss denies. */
	KRSI_PATH_ALLOW_EXEC = 5,
	KRSI_PATH_ALLOW_READ = 6,
	KRSI_PATH_ALLOW_WRITE = 7,
};
#define KRSI_PATH_ALLOW 4

struct krsi_path_key {
	__u32 prefixlen; /* in bits, counted from slot */
	__u32 slot;
	__u32 kind;
	char path[KRSI_PATH_MAX];
};

/*
 * File identities of exact rules: key of the inode_rules hash. The agent resolves every exact
 * rule in each registered container's root and in the host's, and stores the file's identity
 * as the kernel sees it: the superblock's device (the kernel's dev_t, MAJOR << 20 | MINOR)
 * and the inode number of the path's dentry. Another name of the same file (a hard link, the
 * file after rename) has the same identity.
 */
struct krsi_inode_key {
	__u32 slot;
	__u32 kind; /* enum krsi_path_kind, | KRSI_KIND_DIR for a directory rule's directory */
	__u64 dev;
	__u64 ino;
};

/*
 * A directory rule's directory in inode_rules: where bpf_d_path() may not run (file_mprotect),
 * a file is under a denied directory when one of its ancestors, up to the task's root and
 * across mounts, has that identity.
 */
#define KRSI_KIND_DIR 0x100
/*
 * A directory above an exec allow rule's file or directory: it is not renamed (replace). Above
 * a write rule's (deny or allow), the root included: a new name there that is the last
 * component of an exact rule of the kind is the rule's path, before it exists.
 */
#define KRSI_KIND_ABOVE 0x200
#define KRSI_DIR_DEPTH 32 /* ancestors looked at */

/*
 * The identity filter (map inode_filter, an mmap'able array of __u64 words): bit
 * krsi_inode_bit(key) is set while some key of inode_rules may have it. A program looks up
 * inode_rules only on a set bit, so a file that no exact rule names (nearly every file) costs
 * an array load, which the verifier inlines, where a hash lookup cost about 115 instructions
 * more. The agent counts the keys of each bit: it sets a bit before it writes a key, clears it
 * once the last key under it is deleted, and counts again from inode_rules when it starts, so
 * that a key in the map never has a clear bit. A bit shared by two keys costs the lookup.
 */
#define KRSI_INODE_FILTER_LOG2 20 /* 1,048,576 bits, 128 KB */
#define KRSI_INODE_FILTER_WORDS (1u << (KRSI_INODE_FILTER_LOG2 - 6))

static inline __u32 krsi_inode_bit(__u32 slot, __u32 kind, __u64 dev, __u64 ino)
{
	__u64 h = (ino ^ ((__u64)kind << 32 | slot)) * 0x9E3779B97F4A7C15ULL;

	h = (h ^ (h >> 29) ^ dev) * 0xBF58476D1CE4E5B9ULL;
	return (__u32)(h >> (64 - KRSI_INODE_FILTER_LOG2));
}

/*
 * Last components of exact rules: key of the name_rules hash. Where a policy has no directory
 * rule of a kind, a file whose name is in no exact rule of that kind cannot match by path, so
 * its path is never resolved. Names of KRSI_BASENAME_MAX bytes or more are cut to
 * KRSI_BASENAME_MAX - 1 bytes on both sides; the full path decides.
 */
struct krsi_name_key {
	__u32 slot;
	__u32 kind;
	char name[KRSI_BASENAME_MAX];
};

/*
 * Network rules: an LPM trie over (slot, op, family, port, address). The port is part of the
 * fixed prefix, port 0 meaning "any port": a connect or bind is looked up twice, with its port
 * and with 0. IPv4 addresses use the first 4 bytes of addr; IPv4-mapped IPv6 addresses are
 * looked up as IPv4.
 *
 * Deny and allow rules of one op share the trie; the value says which (KRSI_NET_RULE_*), so
 * that a kind with an allow list costs the same two lookups as one with a deny list only. The
 * agent keeps "a deny rule wins" true under longest-prefix matching: an allow rule that a deny
 * rule of the same port or of any port covers is stored as a deny (profile_compile), and an
 * allow rule with a deny rule's key is not stored. So a deny rule matches an address exactly
 * when one of the two lookups finds a deny value, and an allow rule admits it exactly when
 * neither does and one finds an allow value.
 */
enum krsi_net_op {
	KRSI_NET_CONNECT = 1,
	KRSI_NET_BIND = 2,
};

enum krsi_net_rule {
	KRSI_NET_RULE_DENY = 1,
	KRSI_NET_RULE_ALLOW = 2, /* allow lists: a hit admits, a miss denies */
};

struct krsi_net_key {
	__u32 prefixlen; /* in bits, counted from slot */
	__u32 slot;
	__u8 op;
	__u8 family; /* 4 or 6 */
	__u16 port;  /* host byte order; 0 = any */
	__u8 addr[16];
};

#define KRSI_NET_KEY_FIXED_BITS ((4 + 1 + 1 + 2) * 8) /* slot, op, family, port */

/*
 * A profile's compiled form: an entry of the policies array, which profile_policy[profile id]
 * points at. The agent writes a new version to a free entry and then points the profile at it
 * with one atomic store, so a container sees either the old policy (slot) or the new one,
 * never a mix. slot is never 0 in a written entry: an entry of zeros is free.
 */
struct krsi_policy {
	__u32 slot;	    /* generation of this policy's rules in path_rules/net_rules */
	__u32 mode;	    /* enum krsi_mode */
	__u64 deny;	    /* KRSI_DENY(hook) bits of the active deny kinds */
	__u64 caps;	    /* denied capabilities, bit = CAP_* number */
	__u64 families;	    /* socket families denied for every type, bit = AF_* number */
	__u16 types[KRSI_AF_MAX]; /* per family: denied socket types, bit = SOCK_* number */
	__u32 dirs;	    /* bit K (enum krsi_path_kind): some directory rule of kind K */
	/*
	 * KRSI_DENY(hook) of the kinds with an allow list (exec, open read/write, connect, bind):
	 * after the deny rules, what no allow rule admits is denied. Their bits are in deny too.
	 */
	__u32 allow;
	/* Agent metadata, never read by the programs. */
	__u64 digest;	    /* hash of the profile file's contents */
	__u64 version;	    /* the profile's "version" */
	__u32 profile_id;
	__u32 _pad0;
	char name[KRSI_NAME_MAX];
};

/*
 * krsi_cgroup.flags. A registration made by the OCI hook (before the runtime has finished
 * setting the container up: masked paths are mounted, pivot_root, capabilities dropped) starts
 * unarmed: only exec rules apply, and the first execve in the cgroup, the container's first
 * instruction, arms it. Every other registration is armed from the start.
 */
#define KRSI_CG_ARMED 0x1
/*
 * Being learned (krsictl profile learn): every exec, write-open, connect and bind that no deny
 * rule denies is reported (verdict learn) and allowed, whatever the kind's allow list says.
 * The agent sets it only on an armed entry, so that it never races the programs' ARMED bit.
 */
#define KRSI_CG_LEARN 0x2
#define KRSI_LEARN_DENY                                                                  \
	(KRSI_DENY(KRSI_HOOK_EXEC) | KRSI_DENY(KRSI_HOOK_OPEN_WRITE) |                     \
	 KRSI_DENY(KRSI_HOOK_CONNECT) | KRSI_DENY(KRSI_HOOK_BIND))

/* Value of the cgroups map, keyed by cgroup id: what the programs need, and the counters. */
struct krsi_cgroup {
	__u32 profile_id;
	__u32 flags; /* KRSI_CG_* */
	__u64 denied;  /* denials (enforce) under this registration */
	__u64 audited; /* would-be denials (audit) */
	/* The root of the task whose execve armed it, or the first execve after: set by the
	 * programs, compared only (path_trusted); 0 from the agent. */
	__u64 root_dentry;
	__u64 root_mnt;
};

/* Value of the registry map, keyed by cgroup id: the agent's bookkeeping, pinned so that it
 * survives a restart. Never read by the programs. */
struct krsi_registry_entry {
	char container[KRSI_CONTAINER_MAX];
	char profile[KRSI_NAME_MAX];
	char cgroup[KRSI_CGROUP_PATH_MAX]; /* relative to the cgroup2 mount, "/a/b" */
	char rootfs[KRSI_ROOTFS_MAX];	   /* the bundle's rootfs, "" if not given */
	__u64 registered_ns;		   /* CLOCK_REALTIME */
	__u32 level;			   /* depth of cgroup: "/" = 0, "/a" = 1 */
	__u32 _pad0;
};

/*
 * The registered-cgroup filter (map cgroup_filter, an array of __u64 words): bit
 * KRSI_FILTER_BIT(id) is set while some registered cgroup's id has those low bits. A task
 * looks up the cgroups hash only for an ancestor whose bit is set, so a host task pays an
 * array load (inlined by the verifier) where a hash lookup cost about 170 instructions. A bit
 * shared by two ids only costs the host task that hash lookup: the agent counts the ids of
 * each bit, sets a bit before it writes a cgroups entry and clears it after the last entry
 * under it is deleted, so a registered cgroup's bit is never clear.
 */
#define KRSI_FILTER_WORDS 4096 /* 262,144 bits, 32 KB */
#define KRSI_FILTER_BITS (KRSI_FILTER_WORDS * 64)
#define KRSI_FILTER_WORD(id) ((__u32)((id) >> 6) & (KRSI_FILTER_WORDS - 1))
#define KRSI_FILTER_MASK(id) (1ULL << ((id) & 63))

/* The config map's single value. */
struct krsi_config {
	/*
	 * Bit L is set when some cgroup at depth L is registered. A task looks up its ancestors
	 * (itself included) at the depths whose bit is set, down to its own depth, and the deepest
	 * registered one wins: a host task pays one failed lookup per registered depth at or above
	 * its own, and nothing at all while no cgroup is registered.
	 */
	__u64 level_mask;
	__u64 throttle_ns; /* identical reports within this window are counted, not sent */
	__u32 abi_version;
	__u32 _pad0;
	/*
	 * The deny bits of every installed policy ORed: a hook whose check needs a bit that no
	 * policy sets returns before the cgroup walk (anonymous memory made executable, while no
	 * profile sets "wx"). Set before a policy with a new bit is published, narrowed after.
	 */
	__u64 deny_any;
	/*
	 * The denied capabilities of every installed policy ORed: capable() returns before the
	 * cgroup walk for a capability that no profile denies. Widened and narrowed as deny_any.
	 */
	__u64 caps_any;
};

/* The stats map's single value (per CPU). */
struct krsi_stats {
	__u64 events;	 /* sent to the ring buffer */
	__u64 lost;	 /* ring buffer full */
	__u64 throttled; /* identical repeats not sent */
	__u64 denied;
	__u64 audited;
};

/*
 * Key of the verdicts map (per CPU, a __u64 count): denials and audits by profile and hook,
 * for the metrics. Counted where the verdict is made, so throttling and a full ring buffer
 * lose nothing here.
 */
struct krsi_verdict_key {
	__u32 profile_id;
	__u16 hook;	/* enum krsi_hook */
	__u16 verdict;	/* enum krsi_verdict */
};
#define KRSI_MAX_VERDICT_KEYS 8192

/* Key and value of the throttle LRU map. */
struct krsi_throttle_key {
	__u64 cgroup_id; /* the registered cgroup */
	__u64 object;	 /* hash of the object */
	__u32 hook;
	__u32 verdict;
};

struct krsi_throttle_val {
	__u64 last_ns;
	__u32 suppressed;
	__u32 _pad0;
};

struct krsi_event_net {
	__u16 family; /* AF_* */
	__u16 port;   /* host byte order */
	__u32 type;   /* SOCK_* for socket_create */
	__u8 addr[16];
};

/* A ring buffer record. */
struct krsi_event {
	__u64 time_ns;	  /* CLOCK_BOOTTIME */
	__u64 cgroup_id;  /* the task's own cgroup */
	__u64 policy_cgroup_id; /* the registered cgroup whose policy applied */
	__u32 pid;	  /* thread group id */
	__u32 tid;
	__u32 hook;	  /* enum krsi_hook */
	__u32 verdict;	  /* enum krsi_verdict */
	__u32 profile_id;
	__u32 slot;
	__u32 suppressed; /* identical reports throttled since the last one sent */
	__s32 arg;	  /* capability, kernel read/load id, bpf cmd, socket protocol; exec and
			   * wx: call and match (enum krsi_exec_call, krsi_match, krsi_wx_reason) */
	__u64 value;	  /* address (wx), target pid (ptrace), mount flags, inode (path hooks) */
	char comm[KRSI_COMM_MAX];
	struct krsi_event_net net;
	char path[KRSI_PATH_MAX]; /* path, fs type, module name */
	__u32 dev;		  /* path hooks: the file's device (kernel dev_t) */
};

#endif /* KRSI_H */
