// SPDX-License-Identifier: GPL-2.0
/*
 * The trampoline floor: empty LSM programs on the hooks that krsi attaches for the bench's
 * profiles and that its per-operation loops cross (tests/bench/krsi-floor.c attaches them).
 * What any BPF LSM design with the same rule kinds pays per call before it looks at anything:
 * the bar that krsi's host-task cost is measured against. capable() is among them: the kernel
 * asks it on the way through open() and exec, and a profile with a capability rule needs it.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "GPL";

SEC("lsm/file_open")
int BPF_PROG(file_open, struct file *file, int ret)
{
	return ret;
}

SEC("lsm/bprm_check_security")
int BPF_PROG(bprm_check_security, struct linux_binprm *bprm, int ret)
{
	return ret;
}

SEC("lsm/socket_connect")
int BPF_PROG(socket_connect, struct socket *sock, struct sockaddr *address, int addrlen, int ret)
{
	return ret;
}

SEC("lsm/file_mprotect")
int BPF_PROG(file_mprotect, struct vm_area_struct *vma, unsigned long reqprot, unsigned long prot,
	     int ret)
{
	return ret;
}

SEC("lsm/mmap_file")
int BPF_PROG(mmap_file, struct file *file, unsigned long reqprot, unsigned long prot,
	     unsigned long flags, int ret)
{
	return ret;
}

SEC("lsm/socket_create")
int BPF_PROG(socket_create, int family, int type, int protocol, int kern, int ret)
{
	return ret;
}

SEC("lsm/socket_bind")
int BPF_PROG(socket_bind, struct socket *sock, struct sockaddr *address, int addrlen, int ret)
{
	return ret;
}

SEC("lsm/socket_sendmsg")
int BPF_PROG(socket_sendmsg, struct socket *sock, struct msghdr *msg, int size, int ret)
{
	return ret;
}

SEC("lsm/capable")
int BPF_PROG(capable, const struct cred *cred, struct user_namespace *ns, int cap,
	     unsigned int opts, int ret)
{
	return ret;
}
