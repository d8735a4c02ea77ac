// SPDX-License-Identifier: GPL-2.0
/*
 * krsi-probe: try one operation that a krsi profile can deny, and say what the kernel answered:
 * "ok", or the errno's name ("EPERM"). Exit 0 for ok, 1 for an error, 2 for usage. Used by the
 * guest test suites, and handy to check a profile by hand:
 *
 *   krsi-probe exec PATH [ARG...]     execve (on success the program replaces the probe)
 *   krsi-probe read PATH | write PATH open for reading / writing
 *   krsi-probe notify-recv PATH N     a service manager's notify socket at PATH: print N
 *                                     datagrams, one line "---" after each
 *   krsi-probe create PATH            create PATH (O_CREAT | O_EXCL, mode 0755) for writing
 *   krsi-probe rename OLD NEW | link OLD NEW   rename(2) / link(2)
 *   krsi-probe unlink PATH | rmdir PATH        unlink(2) / rmdir(2)
 *   krsi-probe exchange A B           renameat2(2) RENAME_EXCHANGE
 *   krsi-probe truncate PATH | open-trunc PATH  truncate(2) to 0 / open O_RDONLY|O_TRUNC
 *   krsi-probe mkdir PATH | mknod PATH | symlink TARGET PATH   (mknod: a FIFO)
 *   krsi-probe elf-copy SRC DST execstack|wxseg  copy the ELF program SRC to DST with an
 *                                     executable PT_GNU_STACK / its code segment writable
 *   krsi-probe personality-rie        personality(2) with READ_IMPLIES_EXEC (then back)
 *   krsi-probe proc-mem-write         open /proc/self/mem for writing
 *   krsi-probe exec-map-write PATH    map PATH PROT_READ|PROT_EXEC, then open it for writing
 *   krsi-probe shm-double | shm-exec-write   System V shared memory attached writable, then
 *                                     executable / executable, then writable
 *   krsi-probe syslog                 syslog(2) SYSLOG_ACTION_READ_ALL of 16 bytes
 *   krsi-probe perf                   perf_event_open(2) of a software counter on itself
 *   krsi-probe connect-as SOCKFAM TYPE SAFAM ADDR PORT LEN   connect a SOCKFAM (inet,
 *                                     inet6) socket of TYPE (stream, dgram) with a sockaddr
 *                                     of family SAFAM (inet, inet6, unspec) and length LEN
 *   krsi-probe sendto-as SOCKFAM SAFAM ADDR PORT LEN   one UDP datagram, that sockaddr
 *   krsi-probe bind-as SOCKFAM SAFAM ADDR PORT LEN     UDP bind, that sockaddr
 *   krsi-probe fastopen ADDR PORT     TCP sendto(MSG_FASTOPEN): a connect from sendmsg
 *   krsi-probe socket FAMILY TYPE [PROTO]  e.g. AF_PACKET SOCK_RAW, AF_INET SOCK_RAW 1
 *   krsi-probe connect ADDR PORT      UDP connect (nothing is sent)
 *   krsi-probe bind ADDR PORT         UDP bind
 *   krsi-probe sendto ADDR PORT       one UDP datagram, no connect
 *   krsi-probe mount DIR              mount a tmpfs on DIR, then unmount it
 *   krsi-probe bind-mount SRC DIR | move SRC DIR   mount(2) MS_BIND (then unmount) / MS_MOVE
 *                                     (and back)
 *   krsi-probe remount DIR            MS_REMOUNT|MS_BIND|MS_NOSUID, then back without MS_NOSUID
 *   krsi-probe propagation DIR        mount(2) MS_PRIVATE on the mount at DIR
 *   krsi-probe umount DIR | umount-detach DIR   umount2(DIR, 0 / MNT_DETACH)
 *   krsi-probe pivot-root DIR         in a new mount namespace (made private where allowed),
 *                                     pivot_root(DIR, DIR/old)
 *   krsi-probe open-tree DIR | open-tree-clone DIR   open_tree(2), without / with
 *                                     OPEN_TREE_CLONE|AT_RECURSIVE (a detached copy)
 *   krsi-probe mount-setattr DIR      mount_setattr(2) MOUNT_ATTR_NOSUID, then clear it again
 *   krsi-probe api STEP...            the new mount API, step by step, on one context fd:
 *                                     fsopen=TYPE fspick=DIR set=KEY=VALUE create reconfigure
 *                                     fsmount move=DIR umount=DIR join=CGROUP_DIR (the probe
 *                                     moves itself into the cgroup: what a context made outside
 *                                     does inside); clone=DIR (open_tree OPEN_TREE_CLONE) or
 *                                     tree=DIR (open_tree) as the mount; then, relative to that
 *                                     mount's root, read=REL write=REL, copy=REL (/bin/echo
 *                                     to REL, mode 0755), or exec=REL (execveat, with the
 *                                     argument "ok"); stops at the first step that fails
 *   krsi-probe ptrace                 PTRACE_ATTACH to a child of the probe
 *   krsi-probe traceme                PTRACE_TRACEME in a child
 *   krsi-probe module                 init_module of an empty image (ENOEXEC when allowed)
 *   krsi-probe bpf                    create a BPF array map
 *   krsi-probe bpf-get PATH           open a pinned BPF object
 *   krsi-probe userns                 unshare(CLONE_NEWUSER) in a child
 *   krsi-probe wx                     mprotect anonymous memory to PROT_EXEC
 *   krsi-probe wx-mmap                mmap anonymous memory PROT_WRITE|PROT_EXEC
 *   krsi-probe mmap-exec PATH         mmap PATH PROT_READ|PROT_EXEC (a loader's or dlopen's map)
 *   krsi-probe mprotect-exec PATH     mmap PATH PROT_READ, then mprotect it PROT_EXEC
 *   krsi-probe memfd-exec SRC [ARG...]  copy SRC into a memfd, execveat(AT_EMPTY_PATH) it
 *   krsi-probe memfd-mmap SRC         copy SRC into a memfd, map it PROT_EXEC (read-only fd)
 *   krsi-probe tmpfile-exec DIR SRC [ARG...]  copy SRC into an O_TMPFILE of DIR, exec it
 *   krsi-probe deleted-exec DIR SRC [ARG...]  copy SRC into DIR, unlink it, exec it by fd
 *   krsi-probe wx-memfd               map a memfd MAP_SHARED PROT_WRITE|PROT_EXEC
 *   krsi-probe wx-file PATH           map PATH MAP_SHARED PROT_WRITE|PROT_EXEC
 *   krsi-probe wx-written PATH        map PATH private and writable, write it, mprotect PROT_EXEC
 *   krsi-probe wx-double PATH         hold PATH open for writing, map it PROT_EXEC by another fd
 *   krsi-probe read-handle PATH       open PATH by name_to_handle_at + open_by_handle_at
 *   krsi-probe chown PATH             chown to uid 4242 (CAP_CHOWN)
 *   krsi-probe sethostname            set the hostname to itself (CAP_SYS_ADMIN)
 *   krsi-probe wait FILE OP [ARG...]  wait until FILE exists, then OP in this process
 *   krsi-probe chroot DIR OP [ARG...] chroot(DIR) and chdir("/"), then OP (paths in DIR's view)
 *   krsi-probe pivot DIR OP [ARG...]  in a new mount namespace made private, pivot_root(DIR,
 *                                     DIR/old) and chdir("/"), then OP
 *   krsi-probe chroot-memfd-exec DIR SRC [ARG...] | pivot-memfd-exec DIR SRC [ARG...]
 *                                     memfd-exec with the memfd made before the root changes
 *   krsi-probe read-handle-via DIR PATH  open PATH by handle through the mount DIR is on
 *   krsi-probe read-loop PATH SECONDS open PATH in a loop until SIGTERM or SECONDS pass;
 *                                     print "ok=N EPERM=N other=N"
 *   krsi-probe read-steps PATH        for each line on stdin, open PATH once and print the
 *                                     answer: one task that lives through policy changes
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <elf.h>
#include <sys/ipc.h>
#include <sys/klog.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/shm.h>
#include <sys/stat.h>
#include <sys/mount.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/bpf.h>
#include <linux/perf_event.h>

/*
 * Open PATH for reading by name_to_handle_at() + open_by_handle_at() through the mount that
 * VIA is on, or PATH's own directory's (any fd on the file's mount will do): 0 or an errno.
 */
static int read_by_handle(const char *path, const char *via)
{
	struct file_handle *h = malloc(sizeof(*h) + MAX_HANDLE_SZ);
	char dir[4096], *slash;
	int mount_id, mfd, fd;

	if (!h)
		return ENOMEM;
	h->handle_bytes = MAX_HANDLE_SZ;
	if (name_to_handle_at(AT_FDCWD, path, h, &mount_id, 0) < 0)
		return errno;
	if (!via) {
		snprintf(dir, sizeof(dir), "%s", path);
		slash = strrchr(dir, '/');
		if (slash && slash != dir)
			*slash = 0;
		else
			snprintf(dir, sizeof(dir), "/");
		via = dir;
	}
	mfd = open(via, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (mfd < 0)
		return errno;
	fd = open_by_handle_at(mfd, h, O_RDONLY | O_CLOEXEC);
	return fd < 0 ? errno : 0;
}

/*
 * The new mount API's steps on one file system context (and the mount made of it): 0 when
 * every step succeeded, else the errno of the first that failed (EINVAL for an unknown step).
 */
static int api_steps(int n, char **steps)
{
	int fc = -1, mfd = -1, r = 0;

	for (int i = 0; i < n && !r; i++) {
		char *s = steps[i], *arg = strchr(s, '=');

		if (arg)
			*arg++ = 0;
		if (!strcmp(s, "fsopen") && arg)
			r = (fc = fsopen(arg, FSOPEN_CLOEXEC)) < 0;
		else if (!strcmp(s, "fspick") && arg)
			r = (fc = fspick(AT_FDCWD, arg, FSPICK_CLOEXEC)) < 0;
		else if (!strcmp(s, "set") && arg) {
			char *val = strchr(arg, '=');

			if (val)
				*val++ = 0;
			r = fsconfig(fc, val ? FSCONFIG_SET_STRING : FSCONFIG_SET_FLAG, arg, val, 0) < 0;
		} else if (!strcmp(s, "create"))
			r = fsconfig(fc, FSCONFIG_CMD_CREATE, NULL, NULL, 0) < 0;
		else if (!strcmp(s, "reconfigure"))
			r = fsconfig(fc, FSCONFIG_CMD_RECONFIGURE, NULL, NULL, 0) < 0;
		else if (!strcmp(s, "fsmount"))
			r = (mfd = fsmount(fc, FSMOUNT_CLOEXEC, 0)) < 0;
		else if ((!strcmp(s, "clone") || !strcmp(s, "tree")) && arg)
			r = (mfd = open_tree(AT_FDCWD, arg,
					     OPEN_TREE_CLOEXEC |
						     (s[0] == 'c' ? OPEN_TREE_CLONE | AT_RECURSIVE : 0))) < 0;
		else if ((!strcmp(s, "read") || !strcmp(s, "write")) && arg) {
			int fd = openat(mfd, arg, (s[0] == 'r' ? O_RDONLY : O_WRONLY) | O_CLOEXEC);

			r = fd < 0;
			if (fd >= 0)
				close(fd);
		} else if (!strcmp(s, "copy") && arg) {
			int in = open("/bin/echo", O_RDONLY | O_CLOEXEC);
			int out = openat(mfd, arg, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);
			char buf[65536];
			ssize_t got;

			r = in < 0 || out < 0;
			while (!r && (got = read(in, buf, sizeof(buf))) > 0)
				r = write(out, buf, got) != got;
			if (in >= 0)
				close(in);
			if (out >= 0)
				r = close(out) < 0 || r;
		} else if (!strcmp(s, "exec") && arg) {
			char *args[] = { arg, "ok", NULL };

			r = syscall(SYS_execveat, mfd, arg, args, environ, 0) < 0;
		} else if (!strcmp(s, "move") && arg)
			r = move_mount(mfd, "", AT_FDCWD, arg, MOVE_MOUNT_F_EMPTY_PATH) < 0;
		else if (!strcmp(s, "umount") && arg) {
			if (mfd >= 0)
				close(mfd); /* the mount's own fd keeps it busy */
			mfd = -1;
			r = umount2(arg, 0) < 0;
		} else if (!strcmp(s, "join") && arg) {
			char procs[4096];
			FILE *f;

			snprintf(procs, sizeof(procs), "%s/cgroup.procs", arg);
			f = fopen(procs, "w");
			r = !f || fprintf(f, "%d\n", getpid()) < 0;
			r = (f && fclose(f) != 0) || r;
		} else {
			errno = EINVAL;
			r = 1;
		}
		if (r)
			r = errno;
	}
	return r;
}

static const struct {
	const char *name;
	int num;
} tab[] = {
	{ "AF_UNIX", 1 },     { "AF_INET", 2 },	    { "AF_INET6", 10 },	  { "AF_NETLINK", 16 },
	{ "AF_PACKET", 17 },  { "AF_KEY", 15 },	    { "AF_ALG", 38 },	  { "AF_VSOCK", 40 },
	{ "SOCK_STREAM", 1 }, { "SOCK_DGRAM", 2 },  { "SOCK_RAW", 3 },	  { "SOCK_SEQPACKET", 5 },
};

static int num(const char *s)
{
	for (size_t i = 0; i < sizeof(tab) / sizeof(tab[0]); i++)
		if (!strcmp(tab[i].name, s))
			return tab[i].num;
	return atoi(s);
}

static const char *errname(int e)
{
	switch (e) {
	case EPERM: return "EPERM";
	case EACCES: return "EACCES";
	case ENOENT: return "ENOENT";
	case ENOEXEC: return "ENOEXEC";
	case EINVAL: return "EINVAL";
	case ENETUNREACH: return "ENETUNREACH";
	case EADDRNOTAVAIL: return "EADDRNOTAVAIL";
	case EAFNOSUPPORT: return "EAFNOSUPPORT";
	case EBUSY: return "EBUSY";
	case ENOSYS: return "ENOSYS";
	case ETXTBSY: return "ETXTBSY";
	case EEXIST: return "EEXIST";
	case EADDRINUSE: return "EADDRINUSE";
	case ECONNREFUSED: return "ECONNREFUSED";
	}
	return strerror(e);
}

static int result(int r)
{
	if (r == 0) {
		printf("ok\n");
		return 0;
	}
	printf("%s\n", errname(r));
	return 1;
}

static int sockaddr_of(const char *addr, const char *port, struct sockaddr_storage *ss,
		       socklen_t *len)
{
	struct sockaddr_in *sin = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;

	memset(ss, 0, sizeof(*ss));
	if (inet_pton(AF_INET, addr, &sin->sin_addr) == 1) {
		sin->sin_family = AF_INET;
		sin->sin_port = htons(atoi(port));
		*len = sizeof(*sin);
		return AF_INET;
	}
	if (inet_pton(AF_INET6, addr, &sin6->sin6_addr) == 1) {
		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons(atoi(port));
		*len = sizeof(*sin6);
		return AF_INET6;
	}
	return -1;
}


/* A copy of the ELF program SRC at DST (mode 0755) with CHANGE made to its headers. */
static int elf_copy(const char *src, const char *dst, const char *change)
{
	int in = open(src, O_RDONLY | O_CLOEXEC), out = -1, r = 0;
	struct stat st;
	Elf64_Ehdr *eh;
	Elf64_Phdr *ph;
	char *buf = NULL;

	if (in < 0 || fstat(in, &st) < 0 || !(buf = malloc(st.st_size)) ||
	    read(in, buf, st.st_size) != st.st_size) {
		r = errno ?: EIO;
		goto out;
	}
	eh = (Elf64_Ehdr *)buf;
	if (st.st_size < (off_t)sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_phoff + (size_t)eh->e_phnum * sizeof(*ph) > (size_t)st.st_size) {
		r = ENOEXEC;
		goto out;
	}
	ph = (Elf64_Phdr *)(buf + eh->e_phoff);
	for (int i = 0; i < eh->e_phnum; i++) {
		if (!strcmp(change, "execstack") && ph[i].p_type == PT_GNU_STACK)
			ph[i].p_flags |= PF_X;
		if (!strcmp(change, "wxseg") && ph[i].p_type == PT_LOAD && ph[i].p_flags & PF_X)
			ph[i].p_flags |= PF_W;
	}
	out = open(dst, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);
	if (out < 0 || write(out, buf, st.st_size) != st.st_size)
		r = errno ?: EIO;
out:
	if (out >= 0)
		close(out);
	if (in >= 0)
		close(in);
	free(buf);
	return r;
}

/*
 * Programs written whole, for the loader's own routes to W+X memory (kernel series patches 13
 * and 14), each printing "ok" only once it has done what it is for:
 * - bss-exec: x86-64, one read+execute segment of a page in the file and two in memory; the
 *   loader maps the second page with the heap's flags (writable) and the segment's VM_EXEC.
 *   The program copies code into that page and runs it there: it prints "ok" and exits 0.
 * - ia32-rie: i386 with no PT_GNU_STACK, which a 64-bit caller's execve gives
 *   READ_IMPLIES_EXEC (an executable heap and stack): it prints "ok" only if personality()
 *   says so, and exits 1 otherwise.
 */
#define ELF_BSS_VADDR 0x400000u
#define ELF_IA32_VADDR 0x08048000u
#define EMIT(...)                                                                        \
	do {                                                                             \
		const unsigned char b_[] = { __VA_ARGS__ };                              \
		memcpy(code + n, b_, sizeof(b_));                                        \
		n += sizeof(b_);                                                         \
	} while (0)
#define LE32(v) (v) & 0xff, ((v) >> 8) & 0xff, ((v) >> 16) & 0xff, ((v) >> 24) & 0xff

static int elf_make(const char *kind, const char *dst)
{
	unsigned char buf[4096] = { 0 }, *code;
	size_t n = 0, len;
	int fd, r = 0;

	if (!strcmp(kind, "bss-exec")) {
		Elf64_Ehdr *eh = (Elf64_Ehdr *)buf;
		Elf64_Phdr *ph = (Elf64_Phdr *)(eh + 1);
		uint32_t start = ELF_BSS_VADDR + sizeof(*eh) + sizeof(*ph), page = ELF_BSS_VADDR + 4096;
		uint32_t tmpl = start + 26, msg = tmpl + 33;

		code = (unsigned char *)(ph + 1);
		EMIT(0xbe, LE32(tmpl));			 /* mov $tmpl,%esi */
		EMIT(0xbf, LE32(page));			 /* mov $page,%edi */
		EMIT(0xb9, LE32(33));			 /* mov $33,%ecx */
		EMIT(0xf3, 0xa4);			 /* rep movsb */
		EMIT(0xb8, LE32(page));			 /* mov $page,%eax */
		EMIT(0xff, 0xe0);			 /* jmp *%rax */
		EMIT(0x90, 0x90);			 /* (tmpl is at start + 26) */
		EMIT(0xb8, LE32(1));			 /* tmpl: mov $1,%eax (write) */
		EMIT(0xbf, LE32(1));			 /* mov $1,%edi */
		EMIT(0x48, 0xc7, 0xc6, LE32(msg));	 /* mov $msg,%rsi */
		EMIT(0xba, LE32(3));			 /* mov $3,%edx */
		EMIT(0x0f, 0x05);			 /* syscall */
		EMIT(0xb8, LE32(231));			 /* mov $231,%eax (exit_group) */
		EMIT(0x31, 0xff);			 /* xor %edi,%edi */
		EMIT(0x0f, 0x05);			 /* syscall */
		EMIT('o', 'k', '\n');			 /* msg */
		memcpy(eh->e_ident, ELFMAG, SELFMAG);
		eh->e_ident[EI_CLASS] = ELFCLASS64;
		eh->e_ident[EI_DATA] = ELFDATA2LSB;
		eh->e_ident[EI_VERSION] = EV_CURRENT;
		eh->e_type = ET_EXEC;
		eh->e_machine = EM_X86_64;
		eh->e_version = EV_CURRENT;
		eh->e_entry = start;
		eh->e_phoff = sizeof(*eh);
		eh->e_ehsize = sizeof(*eh);
		eh->e_phentsize = sizeof(*ph);
		eh->e_phnum = 1;
		ph->p_type = PT_LOAD;
		ph->p_flags = PF_R | PF_X;
		ph->p_vaddr = ph->p_paddr = ELF_BSS_VADDR;
		ph->p_filesz = 4096;
		ph->p_memsz = 8192;
		ph->p_align = 4096;
		len = 4096;
	} else if (!strcmp(kind, "ia32-rie")) {
		Elf32_Ehdr *eh = (Elf32_Ehdr *)buf;
		Elf32_Phdr *ph = (Elf32_Phdr *)(eh + 1);
		uint32_t start = ELF_IA32_VADDR + sizeof(*eh) + sizeof(*ph), msg = start + 62;

		code = (unsigned char *)(ph + 1);
		EMIT(0xb8, LE32(136));			 /* mov $136,%eax (personality) */
		EMIT(0xbb, LE32(0xffffffffu));		 /* mov $-1,%ebx (query) */
		EMIT(0xcd, 0x80);			 /* int $0x80 */
		EMIT(0xa9, LE32(0x400000u));		 /* test $READ_IMPLIES_EXEC,%eax */
		EMIT(0x74, 0x1f);			 /* jz fail (+31) */
		EMIT(0xb8, LE32(4));			 /* mov $4,%eax (write) */
		EMIT(0xbb, LE32(1));			 /* mov $1,%ebx */
		EMIT(0xb9, LE32(msg));			 /* mov $msg,%ecx */
		EMIT(0xba, LE32(3));			 /* mov $3,%edx */
		EMIT(0xcd, 0x80);			 /* int $0x80 */
		EMIT(0x31, 0xdb);			 /* xor %ebx,%ebx */
		EMIT(0xb8, LE32(1));			 /* mov $1,%eax (exit) */
		EMIT(0xcd, 0x80);			 /* int $0x80 */
		EMIT(0xbb, LE32(1));			 /* fail: mov $1,%ebx */
		EMIT(0xb8, LE32(1));			 /* mov $1,%eax (exit) */
		EMIT(0xcd, 0x80);			 /* int $0x80 */
		EMIT('o', 'k', '\n');			 /* msg, at start + 62 */
		memcpy(eh->e_ident, ELFMAG, SELFMAG);
		eh->e_ident[EI_CLASS] = ELFCLASS32;
		eh->e_ident[EI_DATA] = ELFDATA2LSB;
		eh->e_ident[EI_VERSION] = EV_CURRENT;
		eh->e_type = ET_EXEC;
		eh->e_machine = EM_386;
		eh->e_version = EV_CURRENT;
		eh->e_entry = start;
		eh->e_phoff = sizeof(*eh);
		eh->e_ehsize = sizeof(*eh);
		eh->e_phentsize = sizeof(*ph);
		eh->e_phnum = 1;
		ph->p_type = PT_LOAD;
		ph->p_flags = PF_R | PF_X;
		ph->p_vaddr = ph->p_paddr = ELF_IA32_VADDR;
		len = sizeof(*eh) + sizeof(*ph) + n;
		ph->p_filesz = ph->p_memsz = len;
		ph->p_align = 4096;
	} else {
		return EINVAL;
	}
	fd = open(dst, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);
	if (fd < 0 || write(fd, buf, len) != (ssize_t)len)
		r = errno ?: EIO;
	if (fd >= 0)
		close(fd);
	return r;
}

/*
 * clone3(2) with CLONE_INTO_CGROUP into the cgroup directory DIR (an O_PATH descriptor is
 * enough): the child exits at once; 0 once it has, or the call's errno.
 */
static int clone_into_cgroup(const char *dir)
{
	struct {
		uint64_t flags, pidfd, child_tid, parent_tid, exit_signal, stack, stack_size, tls,
			set_tid, set_tid_size, cgroup;
	} args = { .flags = 0x200000000ULL /* CLONE_INTO_CGROUP */, .exit_signal = SIGCHLD };
	int fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC), status;
	long pid;

	if (fd < 0)
		return errno;
	args.cgroup = fd;
	pid = syscall(SYS_clone3, &args, sizeof(args));
	if (pid == 0)
		_exit(0);
	close(fd);
	if (pid < 0)
		return errno;
	return waitpid(pid, &status, 0) == pid ? 0 : errno;
}

/* Move this process into the cgroup directory DIR by writing its pid to cgroup.procs. */
static int cgroup_move(const char *dir)
{
	char path[4096], pid[32];
	int fd, n = snprintf(pid, sizeof(pid), "%d\n", getpid()), r = 0;

	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return errno;
	if (write(fd, pid, n) != n)
		r = errno ?: EIO;
	close(fd);
	return r;
}

/* Two System V attachments of one segment, WHICH first: 'w' writable, 'x' executable. */
static int shm_two(char first)
{
	int id = shmget(IPC_PRIVATE, 4096, IPC_CREAT | 0600), r = 0;
	int rw = 0, rx = SHM_EXEC | SHM_RDONLY;
	void *a, *b;

	if (id < 0)
		return errno;
	a = shmat(id, NULL, first == 'w' ? rw : rx);
	if (a == (void *)-1) {
		r = errno;
	} else {
		b = shmat(id, NULL, first == 'w' ? rx : rw);
		r = b == (void *)-1 ? errno : 0;
		if (!r)
			shmdt(b);
		shmdt(a);
	}
	shmctl(id, IPC_RMID, NULL);
	return r;
}

static int family_of(const char *s)
{
	return !strcmp(s, "inet") ? AF_INET : !strcmp(s, "inet6") ? AF_INET6 :
	       !strcmp(s, "unspec") ? AF_UNSPEC : -1;
}

/* A sockaddr of family SAFAM (the address parsed as IPv6 for inet6, else IPv4). */
static void sockaddr_as(int safam, const char *addr, const char *port,
			struct sockaddr_storage *ss)
{
	struct sockaddr_in *sin = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;

	memset(ss, 0, sizeof(*ss));
	if (safam == AF_INET6) {
		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons(atoi(port));
		inet_pton(AF_INET6, addr, &sin6->sin6_addr);
	} else {
		sin->sin_family = safam;
		sin->sin_port = htons(atoi(port));
		inet_pton(AF_INET, addr, &sin->sin_addr);
	}
}

/*
 * OP (connect-as, bind-as, sendto-as) on a socket of family SOCKFAM and TYPE ("stream" or
 * "dgram") with a sockaddr of A[0] (family) A[1] (address) A[2] (port), A[3] bytes long:
 * 0 or the errno. A refused connect was tried, not denied: 0.
 */
static int sock_as(const char *op, const char *sockfam, const char *type, char **a)
{
	int sf = family_of(sockfam), saf = family_of(a[0]), fd, r;
	struct sockaddr_storage ss;
	socklen_t len = atoi(a[3]);

	if (sf < 0 || saf < 0) {
		fprintf(stderr, "krsi-probe: %s: bad family\n", op);
		exit(2);
	}
	sockaddr_as(saf, a[1], a[2], &ss);
	fd = socket(sf, strcmp(type, "stream") ? SOCK_DGRAM : SOCK_STREAM, 0);
	if (fd < 0)
		return errno;
	if (op[0] == 'c')
		r = connect(fd, (struct sockaddr *)&ss, len) < 0 ? errno : 0;
	else if (op[0] == 'b')
		r = bind(fd, (struct sockaddr *)&ss, len) < 0 ? errno : 0;
	else
		r = sendto(fd, "x", 1, 0, (struct sockaddr *)&ss, len) < 0 ? errno : 0;
	close(fd);
	return op[0] == 'c' && r == ECONNREFUSED ? 0 : r;
}

/* Run FN in a child; its errno comes back as the exit status. */
static int in_child(int (*fn)(void))
{
	int st;
	pid_t pid = fork();

	if (pid == 0)
		_exit(fn());
	if (pid < 0 || waitpid(pid, &st, 0) < 0)
		return errno;
	return WIFEXITED(st) ? WEXITSTATUS(st) : EINTR;
}

/* Copy SRC into FD; 0 or an errno. */
static int copy_into(int fd, const char *src)
{
	char buf[65536];
	int in = open(src, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (in < 0)
		return errno;
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(fd, buf, n) != n) {
			close(in);
			return errno ? errno : EIO;
		}
	close(in);
	return n < 0 ? errno : 0;
}

/*
 * A read-only fd of the file behind writable fd RW, which is closed: exec refuses a file that
 * is open for writing (ETXTBSY), as an attacker's loader knows.
 */
static int reopen_ro(int rw)
{
	char p[64];
	int fd;

	snprintf(p, sizeof(p), "/proc/self/fd/%d", rw);
	fd = open(p, O_RDONLY | O_CLOEXEC);
	close(rw);
	return fd;
}

static int exec_fd(int fd, char **argv)
{
	syscall(SYS_execveat, fd, "", argv, environ, AT_EMPTY_PATH);
	return errno;
}

/* Map FD PROT_READ|PROT_EXEC (private); 0 or an errno. */
static int map_exec(int fd)
{
	void *p = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);

	if (p == MAP_FAILED)
		return errno;
	munmap(p, 4096);
	return 0;
}

static int memfd_copy(const char *src, int *ret)
{
	int fd = memfd_create("krsi-probe", MFD_CLOEXEC), r;

	if (fd < 0)
		return errno;
	r = copy_into(fd, src);
	if (r) {
		close(fd);
		return r;
	}
	fd = reopen_ro(fd);
	if (fd < 0)
		return errno;
	*ret = fd;
	return 0;
}

/*
 * Make DIR the root: chroot(2), or (PIVOT) pivot_root(DIR, DIR/old) in a new mount namespace
 * made private; then chdir("/"). 0 or an errno.
 */
static int enter_root(int pivot, const char *dir)
{
	char old[4096];

	if (!pivot)
		return chroot(dir) < 0 || chdir("/") < 0 ? errno : 0;
	snprintf(old, sizeof(old), "%s/old", dir);
	if (unshare(CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
	    syscall(SYS_pivot_root, dir, old) < 0 || chdir("/") < 0)
		return errno;
	return 0;
}

static volatile sig_atomic_t stop;

static void on_term(int sig)
{
	stop = 1;
}

static int do_userns(void)
{
	return unshare(CLONE_NEWUSER) < 0 ? errno : 0;
}

static int do_traceme(void)
{
	return ptrace(PTRACE_TRACEME, 0, NULL, NULL) < 0 ? errno : 0;
}

/* A datagram socket at PATH, as systemd's NOTIFY_SOCKET: print N messages as they come. */
static int notify_recv(const char *path, int n)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char buf[4096];
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		return result(errno);
	for (int i = 0; i < n; i++) {
		ssize_t r = recv(fd, buf, sizeof(buf) - 1, 0);

		if (r < 0)
			return result(errno);
		buf[r] = 0;
		printf("%s\n---\n", buf);
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *op;
	struct sockaddr_storage ss;
	socklen_t len;
	int fd, r;

	setvbuf(stdout, NULL, _IONBF, 0);
	/* "wait FILE OP...": a process that is already running when its cgroup is registered,
	 * like a container runtime's init, then acts without an execve. */
	if (argc > 3 && !strcmp(argv[1], "wait")) {
		while (access(argv[2], F_OK) < 0)
			usleep(20000);
		argv += 2;
		argc -= 2;
	}
	if (argc > 3 && (!strcmp(argv[1], "chroot") || !strcmp(argv[1], "pivot"))) {
		r = enter_root(argv[1][0] == 'p', argv[2]);
		if (r)
			return result(r);
		argv += 2;
		argc -= 2;
	}
	op = argc > 1 ? argv[1] : "";
	if (!strcmp(op, "notify-recv") && argc == 4)
		return notify_recv(argv[2], atoi(argv[3]));
	if (!strcmp(op, "exec") && argc >= 3) {
		execv(argv[2], argv + 2);
		return result(errno);
	}
	if ((!strcmp(op, "read") || !strcmp(op, "write")) && argc == 3) {
		fd = open(argv[2], op[0] == 'r' ? O_RDONLY : O_WRONLY);
		if (fd < 0)
			return result(errno);
		close(fd);
		return result(0);
	}
	if (!strcmp(op, "create") && argc == 3) {
		fd = open(argv[2], O_WRONLY | O_CREAT | O_EXCL, 0755);
		if (fd < 0)
			return result(errno);
		close(fd);
		return result(0);
	}
	if (!strcmp(op, "rename") && argc == 4)
		return result(rename(argv[2], argv[3]) < 0 ? errno : 0);
	if (!strcmp(op, "link") && argc == 4)
		return result(link(argv[2], argv[3]) < 0 ? errno : 0);
	if (!strcmp(op, "unlink") && argc == 3)
		return result(unlink(argv[2]) < 0 ? errno : 0);
	if (!strcmp(op, "rmdir") && argc == 3)
		return result(rmdir(argv[2]) < 0 ? errno : 0);
	if (!strcmp(op, "exchange") && argc == 4)
		return result(syscall(SYS_renameat2, AT_FDCWD, argv[2], AT_FDCWD, argv[3],
				      RENAME_EXCHANGE) < 0 ? errno : 0);
	if (!strcmp(op, "truncate") && argc == 3)
		return result(truncate(argv[2], 0) < 0 ? errno : 0);
	if (!strcmp(op, "open-trunc") && argc == 3) {
		fd = open(argv[2], O_RDONLY | O_TRUNC);
		if (fd < 0)
			return result(errno);
		close(fd);
		return result(0);
	}
	if (!strcmp(op, "mkdir") && argc == 3)
		return result(mkdir(argv[2], 0755) < 0 ? errno : 0);
	if (!strcmp(op, "mknod") && argc == 3)
		return result(mknod(argv[2], S_IFIFO | 0644, 0) < 0 ? errno : 0);
	if (!strcmp(op, "symlink") && argc == 4)
		return result(symlink(argv[2], argv[3]) < 0 ? errno : 0);
	if (!strcmp(op, "elf-make") && argc == 4)
		return result(elf_make(argv[2], argv[3]));
	if (!strcmp(op, "clone-into-cgroup") && argc == 3)
		return result(clone_into_cgroup(argv[2]));
	if (!strcmp(op, "cgroup-move") && argc == 3)
		return result(cgroup_move(argv[2]));
	if (!strcmp(op, "elf-copy") && argc == 5)
		return result(elf_copy(argv[2], argv[3], argv[4]));
	if (!strcmp(op, "personality-rie") && argc == 2) {
		int old = personality(0xffffffff);

		if (personality(old | READ_IMPLIES_EXEC) < 0)
			return result(errno);
		personality(old);
		return result(0);
	}
	if (!strcmp(op, "proc-mem-write") && argc == 2) {
		fd = open("/proc/self/mem", O_RDWR | O_CLOEXEC);
		if (fd < 0)
			return result(errno);
		close(fd);
		return result(0);
	}
	if (!strcmp(op, "exec-map-write") && argc == 3) {
		fd = open(argv[2], O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return result(errno);
		if (mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0) == MAP_FAILED)
			return result(errno);
		fd = open(argv[2], O_WRONLY | O_CLOEXEC);
		if (fd < 0)
			return result(errno);
		close(fd);
		return result(0);
	}
	if ((!strcmp(op, "shm-double") || !strcmp(op, "shm-exec-write")) && argc == 2)
		return result(shm_two(op[4] == 'd' ? 'w' : 'x'));
	if (!strcmp(op, "syslog") && argc == 2) {
		char buf[16];

		return result(klogctl(3 /* SYSLOG_ACTION_READ_ALL */, buf, sizeof(buf)) < 0 ? errno : 0);
	}
	if (!strcmp(op, "perf") && argc == 2) {
		struct perf_event_attr a = { .type = PERF_TYPE_SOFTWARE, .size = sizeof(a),
					     .config = PERF_COUNT_SW_CPU_CLOCK, .exclude_kernel = 1,
					     .exclude_hv = 1 };

		fd = syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
		if (fd < 0)
			return result(errno);
		close(fd);
		return result(0);
	}
	/* connect-as has a socket type; bind-as and sendto-as use UDP. */
	if ((!strcmp(op, "connect-as") && argc == 8) ||
	    ((!strcmp(op, "bind-as") || !strcmp(op, "sendto-as")) && argc == 7))
		return result(sock_as(op, argv[2], argc == 8 ? argv[3] : "dgram", argv + argc - 4));
	if (!strcmp(op, "fastopen") && argc == 4) {
		int fam = sockaddr_of(argv[2], argv[3], &ss, &len);

		if (fam < 0) {
			fprintf(stderr, "krsi-probe: %s: not an address\n", argv[2]);
			return 2;
		}
		fd = socket(fam, SOCK_STREAM, 0);
		if (fd < 0)
			return result(errno);
		r = sendto(fd, "x", 1, MSG_FASTOPEN, (struct sockaddr *)&ss, len) < 0 ? errno : 0;
		close(fd);
		/* Refused or unanswered: the connect was tried, not denied. */
		return result(r == ECONNREFUSED || r == EINPROGRESS ? 0 : r);
	}
	if (!strcmp(op, "read-loop") && argc == 4) {
		time_t end = time(NULL) + atoi(argv[3]);
		long ok = 0, eperm = 0, other = 0;

		signal(SIGTERM, on_term);
		while (!stop && time(NULL) < end) {
			for (int i = 0; i < 100; i++) {
				fd = open(argv[2], O_RDONLY);
				if (fd >= 0) {
					ok++;
					close(fd);
				} else if (errno == EPERM) {
					eperm++;
				} else {
					other++;
				}
			}
		}
		printf("ok=%ld EPERM=%ld other=%ld\n", ok, eperm, other);
		return 0;
	}
	if (!strcmp(op, "read-steps") && argc == 3) {
		char line[64];

		while (fgets(line, sizeof(line), stdin)) {
			fd = open(argv[2], O_RDONLY);
			r = fd < 0 ? errno : 0;
			if (fd >= 0)
				close(fd);
			result(r);
		}
		return 0;
	}
	if (!strcmp(op, "socket") && (argc == 4 || argc == 5)) {
		fd = socket(num(argv[2]), num(argv[3]), argc == 5 ? atoi(argv[4]) : 0);
		if (fd < 0)
			return result(errno);
		close(fd);
		return result(0);
	}
	if ((!strcmp(op, "connect") || !strcmp(op, "bind")) && argc == 4) {
		int fam = sockaddr_of(argv[2], argv[3], &ss, &len);

		if (fam < 0) {
			fprintf(stderr, "krsi-probe: %s: not an address\n", argv[2]);
			return 2;
		}
		fd = socket(fam, SOCK_DGRAM, 0);
		if (fd < 0)
			return result(errno);
		r = op[0] == 'c' ? connect(fd, (struct sockaddr *)&ss, len)
				 : bind(fd, (struct sockaddr *)&ss, len);
		r = r < 0 ? errno : 0;
		close(fd);
		return result(r);
	}
	if (!strcmp(op, "sendto") && argc == 4) {
		int fam = sockaddr_of(argv[2], argv[3], &ss, &len);

		if (fam < 0) {
			fprintf(stderr, "krsi-probe: %s: not an address\n", argv[2]);
			return 2;
		}
		fd = socket(fam, SOCK_DGRAM, 0);
		if (fd < 0)
			return result(errno);
		r = sendto(fd, "x", 1, 0, (struct sockaddr *)&ss, len) < 0 ? errno : 0;
		close(fd);
		return result(r);
	}
	if (!strcmp(op, "mount") && argc == 3) {
		if (mount("krsi-probe", argv[2], "tmpfs", 0, "size=64k") < 0)
			return result(errno);
		umount(argv[2]);
		return result(0);
	}
	if ((!strcmp(op, "bind-mount") || !strcmp(op, "move")) && argc == 4) {
		int bind = !strcmp(op, "bind-mount");

		if (mount(argv[2], argv[3], NULL, bind ? MS_BIND : MS_MOVE, NULL) < 0)
			return result(errno);
		if (bind)
			umount(argv[3]);
		else
			mount(argv[3], argv[2], NULL, MS_MOVE, NULL);
		return result(0);
	}
	if (!strcmp(op, "remount") && argc == 3) {
		if (mount(NULL, argv[2], NULL, MS_REMOUNT | MS_BIND | MS_NOSUID, NULL) < 0)
			return result(errno);
		mount(NULL, argv[2], NULL, MS_REMOUNT | MS_BIND, NULL);
		return result(0);
	}
	if (!strcmp(op, "propagation") && argc == 3)
		return result(mount(NULL, argv[2], NULL, MS_PRIVATE, NULL) < 0 ? errno : 0);
	if ((!strcmp(op, "umount") || !strcmp(op, "umount-detach")) && argc == 3)
		return result(umount2(argv[2], op[6] ? MNT_DETACH : 0) < 0 ? errno : 0);
	if (!strcmp(op, "pivot-root") && argc == 3) {
		char old[4096];

		snprintf(old, sizeof(old), "%s/old", argv[2]);
		if (unshare(CLONE_NEWNS) < 0)
			return result(errno);
		/* Denied with the rest where mount is; pivot_root(2) is then denied by its own hook. */
		mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL);
		return result(syscall(SYS_pivot_root, argv[2], old) < 0 ? errno : 0);
	}
	if ((!strcmp(op, "open-tree") || !strcmp(op, "open-tree-clone")) && argc == 3) {
		int fd = open_tree(AT_FDCWD, argv[2],
				   op[9] ? OPEN_TREE_CLONE | AT_RECURSIVE | OPEN_TREE_CLOEXEC :
					   OPEN_TREE_CLOEXEC);

		return result(fd < 0 ? errno : 0);
	}
	if (!strcmp(op, "mount-setattr") && argc == 3) {
		struct mount_attr set = { .attr_set = MOUNT_ATTR_NOSUID };
		struct mount_attr clr = { .attr_clr = MOUNT_ATTR_NOSUID };

		if (mount_setattr(AT_FDCWD, argv[2], 0, &set, sizeof(set)) < 0)
			return result(errno);
		mount_setattr(AT_FDCWD, argv[2], 0, &clr, sizeof(clr));
		return result(0);
	}
	if (!strcmp(op, "api") && argc >= 3)
		return result(api_steps(argc - 2, argv + 2));
	if (!strcmp(op, "ptrace") && argc == 2) {
		pid_t child = fork();
		int st;

		if (child == 0) {
			pause();
			_exit(0);
		}
		r = ptrace(PTRACE_ATTACH, child, NULL, NULL) < 0 ? errno : 0;
		if (r == 0) {
			waitpid(child, &st, 0);
			ptrace(PTRACE_DETACH, child, NULL, NULL);
		}
		kill(child, SIGKILL);
		waitpid(child, &st, 0);
		return result(r);
	}
	if (!strcmp(op, "traceme") && argc == 2)
		return result(in_child(do_traceme));
	if (!strcmp(op, "module") && argc == 2) {
		static char image[4096];

		r = syscall(SYS_init_module, image, sizeof(image), "") < 0 ? errno : 0;
		return result(r);
	}
	if (!strcmp(op, "bpf") && argc == 2) {
		union bpf_attr a;

		memset(&a, 0, sizeof(a));
		a.map_type = BPF_MAP_TYPE_ARRAY;
		a.key_size = 4;
		a.value_size = 4;
		a.max_entries = 1;
		fd = syscall(SYS_bpf, BPF_MAP_CREATE, &a, sizeof(a));
		if (fd < 0)
			return result(errno);
		close(fd);
		return result(0);
	}
	if (!strcmp(op, "bpf-get") && argc == 3) {
		union bpf_attr a;

		memset(&a, 0, sizeof(a));
		a.pathname = (unsigned long)argv[2];
		fd = syscall(SYS_bpf, BPF_OBJ_GET, &a, sizeof(a));
		if (fd < 0)
			return result(errno);
		close(fd);
		return result(0);
	}
	if (!strcmp(op, "userns") && argc == 2)
		return result(in_child(do_userns));
	if (!strcmp(op, "wx") && argc == 2) {
		void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED)
			return result(errno);
		r = mprotect(p, 4096, PROT_READ | PROT_EXEC) < 0 ? errno : 0;
		munmap(p, 4096);
		return result(r);
	}
	if (!strcmp(op, "wx-mmap") && argc == 2) {
		void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED)
			return result(errno);
		munmap(p, 4096);
		return result(0);
	}
	if ((!strcmp(op, "mmap-exec") || !strcmp(op, "mprotect-exec")) && argc == 3) {
		void *p;

		fd = open(argv[2], O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return result(errno);
		if (op[1] == 'm')
			return result(map_exec(fd));
		p = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 0);
		if (p == MAP_FAILED)
			return result(errno);
		return result(mprotect(p, 4096, PROT_READ | PROT_EXEC) < 0 ? errno : 0);
	}
	/* The memfd is made first: its read-only reopen needs /proc, which the new root lacks. */
	if ((!strcmp(op, "chroot-memfd-exec") || !strcmp(op, "pivot-memfd-exec")) && argc >= 4) {
		r = memfd_copy(argv[3], &fd);
		if (!r)
			r = enter_root(op[0] == 'p', argv[2]);
		return result(r ? r : exec_fd(fd, argv + 3));
	}
	if (!strcmp(op, "memfd-exec") && argc >= 3) {
		r = memfd_copy(argv[2], &fd);
		return result(r ? r : exec_fd(fd, argv + 2));
	}
	if (!strcmp(op, "memfd-mmap") && argc == 3) {
		r = memfd_copy(argv[2], &fd);
		return result(r ? r : map_exec(fd));
	}
	if ((!strcmp(op, "tmpfile-exec") || !strcmp(op, "deleted-exec")) && argc >= 4) {
		char path[4096];

		if (op[0] == 't') {
			fd = open(argv[2], O_TMPFILE | O_RDWR | O_CLOEXEC, 0700);
		} else {
			snprintf(path, sizeof(path), "%s/.krsi-probe-%d", argv[2], (int)getpid());
			fd = open(path, O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC, 0700);
		}
		if (fd < 0)
			return result(errno);
		r = copy_into(fd, argv[3]);
		if (r)
			return result(r);
		fd = reopen_ro(fd);
		if (fd < 0)
			return result(errno);
		if (op[0] == 'd' && unlink(path) < 0)
			return result(errno);
		return result(exec_fd(fd, argv + 3));
	}
	if ((!strcmp(op, "wx-memfd") && argc == 2) || (!strcmp(op, "wx-file") && argc == 3)) {
		void *p;

		fd = argc == 2 ? memfd_create("krsi-probe", MFD_CLOEXEC) :
				 open(argv[2], O_RDWR | O_CLOEXEC);
		if (fd < 0 || (argc == 2 && ftruncate(fd, 4096) < 0))
			return result(errno);
		p = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_SHARED, fd, 0);
		if (p == MAP_FAILED)
			return result(errno);
		return result(0);
	}
	if (!strcmp(op, "wx-written") && argc == 3) {
		char *p;

		fd = open(argv[2], O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return result(errno);
		p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
		if (p == MAP_FAILED)
			return result(errno);
		p[0] = p[0]; /* a private copy of the page: code the file never had */
		return result(mprotect(p, 4096, PROT_READ | PROT_EXEC) < 0 ? errno : 0);
	}
	if (!strcmp(op, "wx-double") && argc == 3) {
		int w = open(argv[2], O_WRONLY | O_CLOEXEC);

		if (w < 0)
			return result(errno);
		fd = open(argv[2], O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return result(errno);
		return result(map_exec(fd));
	}
	if (!strcmp(op, "read-handle-via") && argc == 4)
		return result(read_by_handle(argv[3], argv[2]));
	if (!strcmp(op, "read-handle") && argc == 3)
		return result(read_by_handle(argv[2], NULL));
	if (!strcmp(op, "chown") && argc == 3)
		return result(chown(argv[2], 4242, -1) < 0 ? errno : 0);
	if (!strcmp(op, "sethostname") && argc == 2) {
		char name[256] = "";

		gethostname(name, sizeof(name) - 1);
		return result(sethostname(name, strlen(name)) < 0 ? errno : 0);
	}
	fprintf(stderr, "usage: krsi-probe OP [ARG...]; see the source's header for the ops\n");
	return 2;
}
