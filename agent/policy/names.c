// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <strings.h>

#include "bpf/krsi.h"
#include "policy/names.h"
#include "lib/util.h"

struct name {
	int num;
	const char *name;
};

/* Numbers from the kernel's uapi (linux/capability.h, linux/socket.h, linux/net.h): fixed ABI,
 * spelled out so that the tables do not depend on the build machine's headers. */
static const struct name caps[] = {
	{ 0, "CAP_CHOWN" },		 { 1, "CAP_DAC_OVERRIDE" },	  { 2, "CAP_DAC_READ_SEARCH" },
	{ 3, "CAP_FOWNER" },		 { 4, "CAP_FSETID" },		  { 5, "CAP_KILL" },
	{ 6, "CAP_SETGID" },		 { 7, "CAP_SETUID" },		  { 8, "CAP_SETPCAP" },
	{ 9, "CAP_LINUX_IMMUTABLE" },	 { 10, "CAP_NET_BIND_SERVICE" },  { 11, "CAP_NET_BROADCAST" },
	{ 12, "CAP_NET_ADMIN" },	 { 13, "CAP_NET_RAW" },		  { 14, "CAP_IPC_LOCK" },
	{ 15, "CAP_IPC_OWNER" },	 { 16, "CAP_SYS_MODULE" },	  { 17, "CAP_SYS_RAWIO" },
	{ 18, "CAP_SYS_CHROOT" },	 { 19, "CAP_SYS_PTRACE" },	  { 20, "CAP_SYS_PACCT" },
	{ 21, "CAP_SYS_ADMIN" },	 { 22, "CAP_SYS_BOOT" },	  { 23, "CAP_SYS_NICE" },
	{ 24, "CAP_SYS_RESOURCE" },	 { 25, "CAP_SYS_TIME" },	  { 26, "CAP_SYS_TTY_CONFIG" },
	{ 27, "CAP_MKNOD" },		 { 28, "CAP_LEASE" },		  { 29, "CAP_AUDIT_WRITE" },
	{ 30, "CAP_AUDIT_CONTROL" },	 { 31, "CAP_SETFCAP" },		  { 32, "CAP_MAC_OVERRIDE" },
	{ 33, "CAP_MAC_ADMIN" },	 { 34, "CAP_SYSLOG" },		  { 35, "CAP_WAKE_ALARM" },
	{ 36, "CAP_BLOCK_SUSPEND" },	 { 37, "CAP_AUDIT_READ" },	  { 38, "CAP_PERFMON" },
	{ 39, "CAP_BPF" },		 { 40, "CAP_CHECKPOINT_RESTORE" },
};

static const struct name families[] = {
	{ 1, "AF_UNIX" },	{ 2, "AF_INET" },     { 3, "AF_AX25" },	     { 4, "AF_IPX" },
	{ 5, "AF_APPLETALK" },	{ 6, "AF_NETROM" },   { 7, "AF_BRIDGE" },    { 8, "AF_ATMPVC" },
	{ 9, "AF_X25" },	{ 10, "AF_INET6" },   { 11, "AF_ROSE" },     { 12, "AF_DECnet" },
	{ 13, "AF_NETBEUI" },	{ 14, "AF_SECURITY" }, { 15, "AF_KEY" },     { 16, "AF_NETLINK" },
	{ 17, "AF_PACKET" },	{ 18, "AF_ASH" },     { 19, "AF_ECONET" },   { 20, "AF_ATMSVC" },
	{ 21, "AF_RDS" },	{ 22, "AF_SNA" },     { 23, "AF_IRDA" },     { 24, "AF_PPPOX" },
	{ 25, "AF_WANPIPE" },	{ 26, "AF_LLC" },     { 27, "AF_IB" },	     { 28, "AF_MPLS" },
	{ 29, "AF_CAN" },	{ 30, "AF_TIPC" },    { 31, "AF_BLUETOOTH" }, { 32, "AF_IUCV" },
	{ 33, "AF_RXRPC" },	{ 34, "AF_ISDN" },    { 35, "AF_PHONET" },   { 36, "AF_IEEE802154" },
	{ 37, "AF_CAIF" },	{ 38, "AF_ALG" },     { 39, "AF_NFC" },	     { 40, "AF_VSOCK" },
	{ 41, "AF_KCM" },	{ 42, "AF_QIPCRTR" }, { 43, "AF_SMC" },	     { 44, "AF_XDP" },
	{ 45, "AF_MCTP" },
};

static const struct name socktypes[] = {
	{ 1, "SOCK_STREAM" }, { 2, "SOCK_DGRAM" },  { 3, "SOCK_RAW" },	   { 4, "SOCK_RDM" },
	{ 5, "SOCK_SEQPACKET" }, { 6, "SOCK_DCCP" }, { 10, "SOCK_PACKET" },
};

static const struct name hooks[] = {
	{ KRSI_HOOK_EXEC, "exec" },	  { KRSI_HOOK_OPEN_READ, "read" },
	{ KRSI_HOOK_OPEN_WRITE, "write" }, { KRSI_HOOK_SOCKET, "socket" },
	{ KRSI_HOOK_CONNECT, "connect" }, { KRSI_HOOK_BIND, "bind" },
	{ KRSI_HOOK_MOUNT, "mount" },	  { KRSI_HOOK_PTRACE, "ptrace" },
	{ KRSI_HOOK_MODULE, "module" },	  { KRSI_HOOK_BPF, "bpf" },
	{ KRSI_HOOK_USERNS, "userns" },	  { KRSI_HOOK_WX, "wx" },
	{ KRSI_HOOK_CAPABLE, "capable" }, { KRSI_HOOK_SELF, "self" },
	{ KRSI_HOOK_PATHLESS, "pathless_exec" }, { KRSI_HOOK_REPLACE, "replace" },
	{ KRSI_HOOK_KNOB, "knob" },	  { KRSI_HOOK_BLOCKDEV, "blockdev" },
	{ KRSI_HOOK_CGROUP, "cgroup" },
};

/* Mount events: the syscall each hook stands for (enum krsi_mount_call). */
static const struct name mount_calls[] = {
	{ KRSI_MOUNT_MOUNT, "mount" },		{ KRSI_MOUNT_MOVE, "move_mount" },
	{ KRSI_MOUNT_UMOUNT, "umount" },	{ KRSI_MOUNT_PIVOT_ROOT, "pivot_root" },
	{ KRSI_MOUNT_RECONFIGURE, "fsconfig_reconfigure" },
	{ KRSI_MOUNT_CREATE, "fsconfig_create" },
	{ KRSI_MOUNT_CLONE, "open_tree_clone" }, { KRSI_MOUNT_SETATTR, "mount_setattr" },
	{ KRSI_MOUNT_FSOPEN, "fsopen" },	{ KRSI_MOUNT_FSPICK, "fspick" },
	{ KRSI_MOUNT_FSMOUNT, "fsmount" },	{ KRSI_MOUNT_DETACH, "remove_mountpoint" },
};

static int lookup(const struct name *t, size_t n, const char *prefix, const char *name)
{
	size_t plen = prefix ? strlen(prefix) : 0;

	if (!name)
		return -ENOENT;
	for (size_t i = 0; i < n; i++) {
		if (!strcasecmp(t[i].name, name))
			return t[i].num;
		if (plen && !strcasecmp(t[i].name + plen, name))
			return t[i].num;
	}
	return -ENOENT;
}

static const char *rlookup(const struct name *t, size_t n, int num)
{
	for (size_t i = 0; i < n; i++)
		if (t[i].num == num)
			return t[i].name;
	return NULL;
}

int names_cap(const char *name)
{
	return lookup(caps, ARRAY_SIZE(caps), "CAP_", name);
}

int names_family(const char *name)
{
	return lookup(families, ARRAY_SIZE(families), "AF_", name);
}

int names_socktype(const char *name)
{
	return lookup(socktypes, ARRAY_SIZE(socktypes), "SOCK_", name);
}

int names_hook(const char *name)
{
	return lookup(hooks, ARRAY_SIZE(hooks), NULL, name);
}

const char *names_cap_str(int cap)
{
	return rlookup(caps, ARRAY_SIZE(caps), cap);
}

const char *names_family_str(int family)
{
	return rlookup(families, ARRAY_SIZE(families), family);
}

const char *names_socktype_str(int type)
{
	return rlookup(socktypes, ARRAY_SIZE(socktypes), type);
}

const char *names_hook_str(int hook)
{
	return rlookup(hooks, ARRAY_SIZE(hooks), hook);
}

const char *names_mount_call_str(int call)
{
	return rlookup(mount_calls, ARRAY_SIZE(mount_calls), call);
}
