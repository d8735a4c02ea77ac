// SPDX-License-Identifier: GPL-2.0
/*
 * krsi-bench: the guest side of `make bench` (tests/bench/guest.sh drives it).
 *
 * Under `tests/vm/run --bench` the guest clock advances one nanosecond per guest instruction,
 * so the CLOCK_MONOTONIC deltas printed here are instruction counts, repeatable to about 0.1%.
 *
 *   krsi-bench run OP [--iter N] [--reps R] [--cgroup DIR] [--seccomp] [--landlock MODE]
 *                     [--apparmor PROFILE] [--true PATH] [--file PATH]
 *       Run OP N times, R times over (after one shorter warm-up round), as a member of the
 *       cgroup DIR (a directory under /sys/fs/cgroup), under the seccomp filter of
 *       bench-seccomp.json, a Landlock ruleset (root or allow, below) or a loaded AppArmor
 *       profile when asked. Prints "OP MEDIAN MIN MAX": guest ns per operation.
 *       OP: open      open(2) + close(2) of a file in /tmp (--file: another)
 *           open4     the same of a file four levels deep
 *           exec      vfork + execve of a small static binary (--true) + waitpid
 *           connect   TCP socket + connect to a listener on 127.0.0.1 + accept + close both
 *           mprotect  an anonymous page made R+X, then R again (W^X's hook, both calls)
 *   krsi-bench exec [--cgroup DIR] [--landlock MODE] [--apparmor PROFILE] -- CMD [ARG...]
 *       Run CMD the same way confined (the workload; Landlock's "workload" mode grants what
 *       tests/bench/workload.sh needs, as bench-workload's allow lists do).
 *   krsi-bench serve PORT                   accept and close connections on 127.0.0.1:PORT
 *   krsi-bench mkcg DIR N                   create DIR/c0 .. DIR/c{N-1} (DIR too)
 *   krsi-bench register CGPATH FROM TO PROFILE
 *       register the cgroups CGPATH/c{FROM} .. c{TO-1} (CGPATH relative to the cgroup2 mount)
 *       as containers bench-c{i}, over krsid's control socket: one connection each, without
 *       a krsictl process per container
 *   krsi-bench profile FILE NAME N [allow]  write profile NAME with N deny entries (paths of
 *       the exec, read and write lists, and connect addresses) plus the rules of
 *       bench-seccomp (mount, ptrace, module, bpf, userns, packet and raw sockets); with
 *       "allow", schema 2 and allow lists for exec, read, write and connect that admit what
 *       the loops do (five entries each, the admitting one last; read also admits krsi-true, which
 *       exec opens for reading)
 *   krsi-bench apparmor FILE NAME N [allow]
 *       the same rules as an AppArmor profile NAME, as far as AppArmor 3.0 on Linux 6.1
 *       expresses them (apparmor_write() says what it cannot)
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/landlock.h>
#include <linux/seccomp.h>
#include <netinet/in.h>
#include <sched.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lib/protocol.h"
#include "lib/util.h"

#define OPEN_FILE "/tmp/krsi-bench.file"
/* exec's binary (--true: another); the allow lists admit it */
#define TRUE_PATH "/usr/lib/krsi/bench/krsi-true"
/* open4's file, four levels deep: what a file rule that walks the path (Landlock) pays more. */
#define OPEN_FILE4 "/krsi-bench/deep/d3/krsi-bench.file"
/* create's file, made and removed */
#define CREATE_FILE "/krsi-bench/create-file"
/* tests/bench/workload.sh's tree: its archive, what it unpacks, what it writes */
#define WL_DIR "/krsi-bench/wl"
/* The listener's port, fixed: an ephemeral one lands in another hash bucket each run (±500). */
#define BENCH_PORT 7777
#define MAX_REPS 64

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("krsi-bench: error: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(1);
}

static long parse_num(const char *what, const char *s)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v < 0)
		die("%s: '%s' is not a number", what, s);
	return v;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* ---- the operations ---- */

struct op_state {
	const char *true_path;
	const char *open_path; /* open's file: --file, OPEN_FILE by default */
	int listen_fd;
	struct sockaddr_in addr;
	void *page;
};

static void op_open(struct op_state *st, long n)
{
	for (long i = 0; i < n; i++) {
		int fd = open(st->open_path, O_RDONLY | O_CLOEXEC);

		if (fd < 0)
			die("open %s: %s", st->open_path, strerror(errno));
		close(fd);
	}
}

/*
 * vfork: the child shares the parent's memory until its execve, so no page tables are copied.
 * fork's copy made the loop vary by about 0.5% between rounds, more than some of the
 * differences the bench compares; the LSM hooks crossed are the same.
 */
static pid_t spawn(const char *path, char *const argv[], char *const envp[])
{
	pid_t pid = vfork();

	if (pid == 0) {
		execve(path, argv, envp);
		_exit(127);
	}
	return pid;
}

static void op_exec(struct op_state *st, long n)
{
	char *argv[] = { (char *)st->true_path, NULL }, *envp[] = { NULL };

	for (long i = 0; i < n; i++) {
		int status;
		pid_t pid = spawn(st->true_path, argv, envp);

		if (pid < 0)
			die("vfork: %s", strerror(errno));
		if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status))
			die("%s: did not exit 0 (status 0x%x)", st->true_path, status);
	}
}

static void op_connect(struct op_state *st, long n)
{
	struct linger lg = { .l_onoff = 1, .l_linger = 0 };

	for (long i = 0; i < n; i++) {
		int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), a;

		if (s < 0)
			die("socket: %s", strerror(errno));
		if (connect(s, (struct sockaddr *)&st->addr, sizeof(st->addr)) < 0)
			die("connect: %s", strerror(errno));
		a = accept4(st->listen_fd, NULL, NULL, SOCK_CLOEXEC);
		if (a < 0)
			die("accept: %s", strerror(errno));
		/* A reset instead of TIME_WAIT: 100,000 connections would run out of ports. */
		setsockopt(s, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
		close(s);
		close(a);
	}
}

static void op_mprotect(struct op_state *st, long n)
{
	for (long i = 0; i < n; i++) {
		if (mprotect(st->page, 4096, PROT_READ | PROT_EXEC) < 0 ||
		    mprotect(st->page, 4096, PROT_READ) < 0)
			die("mprotect: %s", strerror(errno));
	}
}

/*
 * fsopen(2) of a tmpfs context, then close: the mount table's hooks (a profile with "mount"
 * attaches them) on a path that changes nothing. Denied (EPERM) in a container whose profile
 * has mount, where it measures a denial and its report.
 */
static void op_fsopen(struct op_state *st, long n)
{
	(void)st;
	for (long i = 0; i < n; i++) {
		int fd = (int)syscall(SYS_fsopen, "tmpfs", 1 /* FSOPEN_CLOEXEC */);

		if (fd >= 0)
			close(fd);
		else if (errno != EPERM)
			die("fsopen: %s", strerror(errno));
	}
}

/*
 * open(2) with O_CREAT of a new file, close, unlink: the name hooks that write rules attach
 * (inode_create, inode_unlink), allowed everywhere (no rule names the file).
 */
static void op_create(struct op_state *st, long n)
{
	(void)st;
	for (long i = 0; i < n; i++) {
		int fd = open(CREATE_FILE, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);

		if (fd < 0)
			die("create %s: %s", CREATE_FILE, strerror(errno));
		close(fd);
		if (unlink(CREATE_FILE) < 0)
			die("unlink %s: %s", CREATE_FILE, strerror(errno));
	}
}

static const struct op {
	const char *name;
	void (*fn)(struct op_state *st, long n);
	long iter; /* default iterations per repetition */
} ops[] = {
	{ "open", op_open, 20000 },
	{ "open4", op_open, 20000 },
	{ "exec", op_exec, 200 },
	{ "connect", op_connect, 3000 },
	{ "mprotect", op_mprotect, 20000 },
	{ "fsopen", op_fsopen, 5000 },
	{ "create", op_create, 5000 },
};

static void op_setup(const struct op *op, struct op_state *st)
{
	if (op->fn == op_open) {
		int fd;

		if (!strcmp(op->name, "open4") && st->open_path == (const char *)OPEN_FILE) {
			st->open_path = OPEN_FILE4;
			mkdir("/krsi-bench", 0755);
			mkdir("/krsi-bench/deep", 0755);
			mkdir("/krsi-bench/deep/d3", 0755);
		}
		fd = open(st->open_path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
		if (fd < 0)
			die("create %s: %s", st->open_path, strerror(errno));
		close(fd);
	} else if (op->fn == op_exec) {
		if (access(st->true_path, X_OK) < 0)
			die("%s: %s", st->true_path, strerror(errno));
	} else if (op->fn == op_connect) {
		socklen_t len = sizeof(st->addr);

		int one = 1;

		st->listen_fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		st->addr.sin_family = AF_INET;
		st->addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		st->addr.sin_port = htons(BENCH_PORT);
		if (st->listen_fd < 0 ||
		    setsockopt(st->listen_fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
		    bind(st->listen_fd, (struct sockaddr *)&st->addr, sizeof(st->addr)) < 0 ||
		    listen(st->listen_fd, 64) < 0 ||
		    getsockname(st->listen_fd, (struct sockaddr *)&st->addr, &len) < 0)
			die("listener on 127.0.0.1: %s", strerror(errno));
	} else if (op->fn == op_mprotect) {
		st->page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (st->page == MAP_FAILED)
			die("mmap: %s", strerror(errno));
		memset(st->page, 0, 4096);
	}
}

/* ---- seccomp: bench-seccomp.json's rules, as far as a filter can see them ---- */

/*
 * A tiny assembler: jumps name labels, resolved at the end. Paths and addresses are pointers
 * in a syscall's arguments, out of a filter's reach, so only the flag and socket rules of a
 * profile can be a filter.
 */
enum { L_NONE, L_DENY, L_ENOSYS, L_ALLOW, L_SOCKET, L_RAW, L_NS, L_COUNT };

struct asm_insn {
	struct sock_filter f;
	int jt, jf, label; /* label: this instruction starts label */
};

static struct asm_insn prog[128];
static int n_prog, next_label;

static void emit(uint16_t code, uint32_t k, int jt, int jf)
{
	if (n_prog == (int)(sizeof(prog) / sizeof(prog[0])))
		die("seccomp filter too long");
	prog[n_prog++] = (struct asm_insn){ .f = BPF_STMT(code, k), .jt = jt, .jf = jf,
					    .label = next_label };
	next_label = 0;
}

/* The next instruction starts label L. */
static void label(int l)
{
	next_label = l;
}

static void seccomp_install(void)
{
	static const int denied[] = {
		SYS_mount, SYS_umount2, SYS_move_mount, SYS_fsopen, SYS_fsconfig, SYS_fsmount,
		SYS_fspick, SYS_open_tree, SYS_mount_setattr, SYS_pivot_root, SYS_ptrace, SYS_bpf,
		SYS_init_module, SYS_finit_module, SYS_delete_module,
	};
	struct sock_filter out[128];
	struct sock_fprog fp;
	int at[L_COUNT];
	size_t i;

	memset(prog, 0, sizeof(prog));
	n_prog = 0;
	emit(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch), 0, 0);
	emit(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, L_NONE, L_DENY);
	emit(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr), 0, 0);
	emit(BPF_JMP | BPF_JGE | BPF_K, 0x40000000, L_DENY, L_NONE); /* x32 */
	for (i = 0; i < sizeof(denied) / sizeof(denied[0]); i++)
		emit(BPF_JMP | BPF_JEQ | BPF_K, denied[i], L_DENY, L_NONE);
	emit(BPF_JMP | BPF_JEQ | BPF_K, SYS_socket, L_SOCKET, L_NONE);
	emit(BPF_JMP | BPF_JEQ | BPF_K, SYS_unshare, L_NS, L_NONE);
	emit(BPF_JMP | BPF_JEQ | BPF_K, SYS_clone, L_NS, L_NONE);
	/* clone3's flags are behind a pointer: ENOSYS makes libc fall back to clone. */
	emit(BPF_JMP | BPF_JEQ | BPF_K, SYS_clone3, L_ENOSYS, L_ALLOW);

	label(L_SOCKET);
	emit(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0]), 0, 0);
	emit(BPF_JMP | BPF_JEQ | BPF_K, AF_PACKET, L_DENY, L_NONE);
	emit(BPF_JMP | BPF_JEQ | BPF_K, AF_KEY, L_DENY, L_NONE);
	emit(BPF_JMP | BPF_JEQ | BPF_K, AF_INET, L_RAW, L_NONE);
	emit(BPF_JMP | BPF_JEQ | BPF_K, AF_INET6, L_RAW, L_ALLOW);
	label(L_RAW);
	emit(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[1]), 0, 0);
	emit(BPF_ALU | BPF_AND | BPF_K, 0xf, 0, 0);
	emit(BPF_JMP | BPF_JEQ | BPF_K, SOCK_RAW, L_DENY, L_ALLOW);
	label(L_NS);
	emit(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0]), 0, 0);
	emit(BPF_JMP | BPF_JSET | BPF_K, CLONE_NEWUSER, L_DENY, L_ALLOW);
	label(L_ALLOW);
	emit(BPF_RET | BPF_K, SECCOMP_RET_ALLOW, 0, 0);
	label(L_DENY);
	emit(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM, 0, 0);
	label(L_ENOSYS);
	emit(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS, 0, 0);

	for (int l = 0; l < L_COUNT; l++)
		at[l] = -1;
	for (int k = 0; k < n_prog; k++)
		if (prog[k].label)
			at[prog[k].label] = k;
	for (int k = 0; k < n_prog; k++) {
		out[k] = prog[k].f;
		if (BPF_CLASS(out[k].code) != BPF_JMP)
			continue;
		for (int j = 0; j < 2; j++) {
			int l = j ? prog[k].jf : prog[k].jt;

			if (l && (at[l] <= k || at[l] - k - 1 > 255))
				die("seccomp filter: bad jump at %d", k);
			if (j)
				out[k].jf = l ? at[l] - k - 1 : 0;
			else
				out[k].jt = l ? at[l] - k - 1 : 0;
		}
	}
	fp = (struct sock_fprog){ .len = n_prog, .filter = out };
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
	    syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &fp) < 0)
		die("seccomp: %s", strerror(errno));
	/* The filter must deny what the profile denies, or the comparison means nothing. */
	if (syscall(SYS_unshare, CLONE_NEWUSER) == 0 || errno != EPERM)
		die("seccomp filter: unshare(CLONE_NEWUSER) was not denied");
	if (socket(AF_INET, SOCK_RAW, IPPROTO_ICMP) >= 0 || errno != EPERM)
		die("seccomp filter: a raw socket was not denied");
}

/* ---- run ---- */

static void cgroup_join(const char *dir)
{
	char path[4096];
	int fd;

	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, "0\n", 2) != 2)
		die("join %s: %s", dir, strerror(errno));
	close(fd);
}

/*
 * ---- Landlock: the peer a platform team would use for file rules without krsi ----
 *
 * Landlock (in 6.1: ABI 2, files only, no network) handles the kinds of access it is told to
 * and allows only what a rule grants beneath a path; it cannot deny a file below a directory
 * that a rule grants. So:
 *   root   the ruleset of a deny list: read, write and execute handled, one rule granting
 *          them beneath "/". Nothing is denied: what any Landlock emulation of a deny list
 *          pays at least (Landlock checks the rules of every directory up to the root).
 *   allow  the allow lists of bench-allow-10 (krsi-bench profile ... allow): the same files,
 *          each granted its kind; the loops' files too (what krsi's allow lists admit).
 * The ruleset restricts this process before the loop, as the seccomp filter does.
 */
#ifndef __NR_landlock_create_ruleset
#define __NR_landlock_create_ruleset 444
#define __NR_landlock_add_rule 445
#define __NR_landlock_restrict_self 446
#endif
#define LL_HANDLED (LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_READ_FILE | \
		    LANDLOCK_ACCESS_FS_WRITE_FILE)

static void landlock_grant(int ruleset, const char *path, uint64_t access)
{
	struct landlock_path_beneath_attr pb = { .allowed_access = access };

	pb.parent_fd = open(path, O_PATH | O_CLOEXEC);
	if (pb.parent_fd < 0)
		die("landlock: %s: %s", path, strerror(errno));
	if (syscall(__NR_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &pb, 0) < 0)
		die("landlock: a rule for %s: %s", path, strerror(errno));
	close(pb.parent_fd);
}

static void landlock_install(const char *mode, const struct op_state *st)
{
	static const char *const kinds[] = { "exec", "read", "write" };
	static const uint64_t access[] = { LANDLOCK_ACCESS_FS_EXECUTE, LANDLOCK_ACCESS_FS_READ_FILE,
					   LANDLOCK_ACCESS_FS_WRITE_FILE };
	struct landlock_ruleset_attr attr = { .handled_access_fs = LL_HANDLED };
	char path[128];
	int ruleset;

	ruleset = (int)syscall(__NR_landlock_create_ruleset, &attr, sizeof(attr), 0);
	if (ruleset < 0)
		die("landlock: create ruleset: %s (is landlock in lsm=?)", strerror(errno));
	if (!strcmp(mode, "root")) {
		landlock_grant(ruleset, "/", LL_HANDLED);
	} else if (!strcmp(mode, "allow")) {
		/* bench-allow-10's lists: three files of each kind that the loops never touch,
		 * /krsi-bench/allow/f3, and what the loops do: krsi-true is run and read, the
		 * open loop's file read and written. */
		for (int k = 0; k < 3; k++) {
			for (int i = 0; i < 3; i++) {
				snprintf(path, sizeof(path), "/krsi-bench/allow-%s/f%d", kinds[k], i);
				landlock_grant(ruleset, path, access[k]);
			}
			landlock_grant(ruleset, "/krsi-bench/allow/f3", access[k]);
		}
		landlock_grant(ruleset, st->true_path,
			       LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_READ_FILE);
		landlock_grant(ruleset, st->open_path,
			       LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_WRITE_FILE);
	} else if (!strcmp(mode, "workload")) {
		/* bench-wl-allow's lists (wl_profile()): programs and libraries under /usr,
		 * configuration, the workload's tree and /dev/null. */
		landlock_grant(ruleset, "/usr", LL_HANDLED & ~LANDLOCK_ACCESS_FS_WRITE_FILE);
		landlock_grant(ruleset, "/etc", LANDLOCK_ACCESS_FS_READ_FILE);
		landlock_grant(ruleset, "/proc", LANDLOCK_ACCESS_FS_READ_FILE);
		landlock_grant(ruleset, WL_DIR, LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_WRITE_FILE);
		landlock_grant(ruleset, "/dev/null",
			       LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_WRITE_FILE);
	} else {
		die("--landlock %s: expected root, allow or workload", mode);
	}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
	    syscall(__NR_landlock_restrict_self, ruleset, 0) < 0)
		die("landlock: restrict: %s", strerror(errno));
	close(ruleset);
	if (!strcmp(mode, "allow") && open("/etc/hostname", O_RDONLY | O_CLOEXEC) >= 0)
		die("landlock allow: /etc/hostname was not denied");
}

/* ---- AppArmor: the same rules as a profile, loaded by apparmor_parser in the guest ---- */

/*
 * What AppArmor 3.0's parser and Linux 6.1's AppArmor express of a krsi-bench profile:
 *   deny form  "file," (every file access; exec inherits the profile), then the deny lists'
 *              files denied by name, and the flag rules as AppArmor has them: mount, remount,
 *              umount and pivot_root, ptrace, capability sys_module (module) and bpf (bpf),
 *              packet, key and raw inet sockets.
 *   allow      no "file,": only the allow lists' files, with the loops' own (what krsi's
 *              allow lists admit); the deny lists as above.
 * Not expressible, so left out: connect addresses (6.1 mediates a socket's family and type,
 * not its address: "network inet stream," admits every TCP connect), "userns" (no rule before
 * Linux 6.7), bpf(2) by a task with CAP_SYS_ADMIN (only the capability can be denied).
 */
static void apparmor_write(FILE *f, const char *name, long n, bool allow)
{
	static const char *const kinds[] = { "exec", "read", "write" };
	static const char *const perm[] = { "ix", "r", "w" };

	fprintf(f, "# krsi-bench: the rules of %s.json, as far as AppArmor expresses them\n"
		   "profile %s flags=(attach_disconnected) {\n"
		   "  capability,\n  network,\n  signal,\n  unix,\n",
		   name, name);
	if (!allow) {
		fprintf(f, "  file,\n");
	} else {
		for (int k = 0; k < 3; k++) {
			for (int i = 0; i < 3; i++)
				fprintf(f, "  /krsi-bench/allow-%s/f%d %s,\n", kinds[k], i, perm[k]);
			fprintf(f, "  %s %s,\n", k == 1 ? TRUE_PATH : "/krsi-bench/allow/f3", perm[k]);
		}
		fprintf(f, "  " TRUE_PATH " ix,\n"
			   "  " OPEN_FILE " rw,\n  " OPEN_FILE4 " rw,\n  " CREATE_FILE " w,\n");
	}
	for (int k = 0; k < 3; k++) {
		long m = n / 4 + (k < n % 4);

		for (long i = 0; i < m; i++)
			fprintf(f, "  deny /krsi-bench/%s/f%ld %s,\n", kinds[k], i, k ? perm[k] : "x");
	}
	fprintf(f, "  deny mount,\n  deny remount,\n  deny umount,\n  deny pivot_root,\n"
		   "  deny ptrace,\n  deny capability sys_module,\n  deny capability bpf,\n"
		   "  deny network packet,\n  deny network key,\n"
		   "  deny network inet raw,\n  deny network inet6 raw,\n}\n");
}

/* The workload's allow lists (tests/bench/workload.sh), as an AppArmor profile. */
static void apparmor_write_workload(FILE *f, const char *name)
{
	fprintf(f, "# krsi-bench: bench-wl-allow's lists as an AppArmor profile\n"
		   "profile %s flags=(attach_disconnected) {\n"
		   "  capability,\n  network,\n  signal,\n  unix,\n"
		   "  / r,\n  /usr/{,**} mrix,\n  /etc/{,**} r,\n  /proc/{,**} r,\n"
		   "  /dev/null rw,\n  " WL_DIR "/{,**} rwl,\n}\n", name);
}

/*
 * Enter the loaded profile NAME now (not at the next exec): after the loop's set-up, as the
 * seccomp filter and the Landlock ruleset are installed.
 */
static void apparmor_enter(const char *name)
{
	char cmd[256], cur[256];
	int fd = open("/proc/self/attr/apparmor/current", O_RDWR | O_CLOEXEC);
	ssize_t r;
	int len = snprintf(cmd, sizeof(cmd), "changeprofile %s", name);

	if (fd < 0)
		die("apparmor: /proc/self/attr/apparmor/current: %s (is apparmor in lsm=?)", strerror(errno));
	if (write(fd, cmd, len) != len)
		die("apparmor: changeprofile %s: %s (is it loaded?)", name, strerror(errno));
	close(fd);
	/* An allow-list profile may not read its own attr: then it must deny /etc/hostname. */
	fd = open("/proc/self/attr/apparmor/current", O_RDONLY | O_CLOEXEC);
	if (fd < 0 && errno == EACCES) {
		if (open("/etc/hostname", O_RDONLY | O_CLOEXEC) >= 0 || errno != EACCES)
			die("apparmor: %s: /etc/hostname was not denied", name);
		return;
	}
	r = fd < 0 ? -1 : read(fd, cur, sizeof(cur) - 1);
	if (r <= 0 || strncmp(cur, name, strlen(name)) || cur[strlen(name)] != ' ')
		die("apparmor: not in profile %s after changeprofile (%.*s)", name, (int)(r > 0 ? r : 0), cur);
	close(fd);
}

/* What run and exec confine a process by: the options they share. */
struct confinement {
	const char *cgroup, *landlock, *apparmor;
};

/* ARGV[*I] is one of the shared options (its value follows): take it, and say so. */
static bool confinement_option(struct confinement *c, char **argv, int *i)
{
	const char **to;

	if (!strcmp(argv[*i], "--cgroup"))
		to = &c->cgroup;
	else if (!strcmp(argv[*i], "--landlock"))
		to = &c->landlock;
	else if (!strcmp(argv[*i], "--apparmor"))
		to = &c->apparmor;
	else
		return false;
	*to = argv[++*i];
	return true;
}

/* The Landlock ruleset and the AppArmor profile, after the set-up that they would deny. */
static void confine(const struct confinement *c, const struct op_state *st)
{
	if (c->landlock)
		landlock_install(c->landlock, st);
	if (c->apparmor)
		apparmor_enter(c->apparmor);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static int cmd_run(int argc, char **argv)
{
	struct op_state st = { .true_path = TRUE_PATH, .open_path = OPEN_FILE, .listen_fd = -1 };
	const struct op *op = NULL;
	struct confinement conf = { 0 };
	bool filter = false;
	long iter = 0, reps = 5;
	double v[MAX_REPS];

	if (argc < 1)
		die("run: which operation?");
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (!strcmp(argv[0], ops[i].name))
			op = &ops[i];
	if (!op)
		die("run: unknown operation '%s'", argv[0]);
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--seccomp"))
			filter = true;
		else if (i + 1 >= argc)
			die("run: option %s needs a value", argv[i]);
		else if (!strcmp(argv[i], "--iter"))
			iter = parse_num("--iter", argv[++i]);
		else if (!strcmp(argv[i], "--reps"))
			reps = parse_num("--reps", argv[++i]);
		else if (!strcmp(argv[i], "--true"))
			st.true_path = argv[++i];
		else if (!strcmp(argv[i], "--file"))
			st.open_path = argv[++i];
		else if (!confinement_option(&conf, argv, &i))
			die("run: unknown option %s", argv[i]);
	}
	if (!iter)
		iter = op->iter;
	if (reps < 1 || reps > MAX_REPS)
		die("run: --reps must be 1..%d", MAX_REPS);
	if (conf.cgroup)
		cgroup_join(conf.cgroup);
	if (filter)
		seccomp_install();
	op_setup(op, &st);
	confine(&conf, &st);
	op->fn(&st, iter / 10 + 1); /* warm-up: caches, page tables, the dentry */
	for (long r = 0; r < reps; r++) {
		uint64_t t0 = now_ns();

		op->fn(&st, iter);
		v[r] = (double)(now_ns() - t0) / iter;
	}
	qsort(v, reps, sizeof(v[0]), cmp_double);
	printf("%s %.1f %.1f %.1f\n", op->name, reps % 2 ? v[reps / 2] : (v[reps / 2 - 1] + v[reps / 2]) / 2,
	       v[0], v[reps - 1]);
	return 0;
}

/* ---- set-up helpers ---- */

static int cmd_mkcg(int argc, char **argv)
{
	char path[4096];
	long n;

	if (argc != 2)
		die("usage: krsi-bench mkcg DIR N");
	n = parse_num("N", argv[1]);
	if (mkdir(argv[0], 0755) < 0 && errno != EEXIST)
		die("mkdir %s: %s", argv[0], strerror(errno));
	for (long i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/c%ld", argv[0], i);
		if (mkdir(path, 0755) < 0 && errno != EEXIST)
			die("mkdir %s: %s", path, strerror(errno));
	}
	return 0;
}

/* One request over krsid's control socket (agent/lib/request.c writes it, protocol.c sends
 * it); the reply must say ok. */
static void call(const struct krsi_request *req)
{
	_cleanup_json_ json_object *rep = NULL;
	struct krsi_err err = { "" };
	json_object *ok;
	char line[PROTO_REQUEST_MAX];
	int n = krsi_request_write(req, line, sizeof(line));

	if (n < 0)
		die("request %s: %s", proto_op_name(req->op), strerror(-n));
	if (proto_call(PROTO_SOCKET_PATH, line, n, 0, &rep, &err) < 0)
		die("%s: %s", PROTO_SOCKET_PATH, err.msg);
	if (!json_object_object_get_ex(rep, "ok", &ok) || !json_object_get_boolean(ok))
		die("krsid refused %.*s: %s", n - 1, line, json_object_to_json_string(rep));
}

static int cmd_register(int argc, char **argv)
{
	char container[64], cgroup[512];
	long from, to;
	uint64_t t0 = now_ns();

	if (argc != 4)
		die("usage: krsi-bench register CGPATH FROM TO PROFILE");
	from = parse_num("FROM", argv[1]);
	to = parse_num("TO", argv[2]);
	for (long i = from; i < to; i++) {
		snprintf(container, sizeof(container), "bench-c%ld", i);
		snprintf(cgroup, sizeof(cgroup), "%s/c%ld", argv[0], i);
		call(&(struct krsi_request){ .op = PROTO_REGISTER, .container = container,
					     .cgroup = cgroup, .profile = argv[3] });
		if ((i + 1) % 1000 == 0)
			fprintf(stderr, "krsi-bench: %ld registered (%.1f guest s)\n", i + 1,
				(now_ns() - t0) / 1e9);
	}
	return 0;
}

static int cmd_profile(int argc, char **argv)
{
	static const char *const kinds[] = { "exec", "read", "write", "connect" };
	FILE *f;
	long n;

	bool allow = argc == 4 && !strcmp(argv[3], "allow");
	bool dirs = argc == 4 && !strcmp(argv[3], "dirs");
	bool workload = argc == 4 && !strcmp(argv[3], "workload");

	if (argc != 3 && !allow && !dirs && !workload)
		die("usage: krsi-bench profile FILE NAME N [allow|dirs|workload]");
	n = parse_num("N", argv[2]);
	f = fopen(argv[0], "we");
	if (!f)
		die("%s: %s", argv[0], strerror(errno));
	fprintf(f, "{\n\"name\": \"%s\",\n\"version\": 1,\n\"mode\": \"enforce\",\n", argv[1]);
	if (allow) {
		static const char *const admit[] = { TRUE_PATH,
						     OPEN_FILE "\", \"" OPEN_FILE4,
						     OPEN_FILE "\", \"" OPEN_FILE4 };

		fprintf(f, "\"schema\": 2,\n\"allow\": {\n");
		for (int k = 0; k < 3; k++) {
			fprintf(f, "  \"%s\": [", kinds[k]);
			for (int i = 0; i < 3; i++)
				fprintf(f, "\"/krsi-bench/allow-%s/f%d\", ", kinds[k], i);
			/* exec opens the binary for reading: a read allow list admits it too */
			fprintf(f, "\"%s\", ", k == 1 ? admit[0] : "/krsi-bench/allow/f3");
			/* and the file the create op makes and removes */
			fprintf(f, "\"%s\"%s],\n", admit[k], k == 2 ? ", \"" CREATE_FILE "\"" : "");
		}
		fprintf(f, "  \"connect\": [\"10.1.0.0/16:80\", \"10.2.0.0/16:80\", "
			   "\"10.3.0.0/16:80\", \"10.4.0.0/16:80\", \"127.0.0.1\"]\n},\n");
	}
	if (workload) /* what tests/bench/workload.sh does, and no more */
		fprintf(f, "\"schema\": 2,\n\"allow\": {\n"
			   "  \"exec_dirs\": [\"/usr\"],\n"
			   "  \"read_dirs\": [\"/usr\", \"/etc\", \"/proc\", \"" WL_DIR "\"],\n"
			   "  \"read\": [\"/dev/null\"],\n"
			   "  \"write_dirs\": [\"" WL_DIR "\"],\n"
			   "  \"write\": [\"/dev/null\"],\n"
			   "  \"connect\": [\"127.0.0.1\"]\n},\n");
	fprintf(f, "\"description\": \"krsi-bench: %ld deny entries that the benchmark never "
		   "matches, and the rules a seccomp filter can express\",\n", n);
	/* Directory rules of each path kind, which the loop's files are not below. */
	for (int k = 0; dirs && k < 3; k++)
		fprintf(f, "\"%s_dirs\": [\"/krsi-bench/dir-%s/a\", \"/krsi-bench/dir-%s/b\", "
			   "\"/krsi-bench/dir-%s/c\"],\n", kinds[k], kinds[k], kinds[k], kinds[k]);
	/* n entries over the four lists, none matching what the benchmark does. */
	for (int k = 0; k < 4; k++) {
		long m = n / 4 + (k < n % 4);

		fprintf(f, "\"%s\": [", kinds[k]);
		for (long i = 0; i < m; i++) {
			if (k == 3) /* 10.B.C.D/32, port 80: the benchmark connects to 127.0.0.1 */
				fprintf(f, "%s\"10.%ld.%ld.%ld/32:80\"", i ? "," : "", (i >> 16) & 255,
					(i >> 8) & 255, i & 255);
			else
				fprintf(f, "%s\"/krsi-bench/%s/f%ld\"", i ? "," : "", kinds[k], i);
		}
		fprintf(f, "],\n");
	}
	fprintf(f, "\"socket\": [\"AF_PACKET\", \"AF_KEY\", \"AF_INET:SOCK_RAW\", \"AF_INET6:SOCK_RAW\"],\n"
		   "\"mount\": true, \"ptrace\": true, \"module\": true, \"bpf\": true, \"userns\": true\n}\n");
	if (fclose(f))
		die("%s: %s", argv[0], strerror(errno));
	return 0;
}

static int cmd_apparmor(int argc, char **argv)
{
	bool allow = argc == 4 && !strcmp(argv[3], "allow");
	bool workload = argc == 3 && !strcmp(argv[2], "workload");
	FILE *f;

	if (argc != 3 && !allow)
		die("usage: krsi-bench apparmor FILE NAME N [allow] | FILE NAME workload");
	f = fopen(argv[0], "we");
	if (!f)
		die("%s: %s", argv[0], strerror(errno));
	if (workload)
		apparmor_write_workload(f, argv[1]);
	else
		apparmor_write(f, argv[1], parse_num("N", argv[2]), allow);
	if (fclose(f))
		die("%s: %s", argv[0], strerror(errno));
	return 0;
}

/* serve PORT: accept connections on 127.0.0.1:PORT and close them, until killed. */
static int cmd_serve(int argc, char **argv)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int one = 1, s;

	if (argc != 1)
		die("usage: krsi-bench serve PORT");
	a.sin_port = htons((uint16_t)parse_num("PORT", argv[0]));
	s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s < 0 || setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
	    bind(s, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(s, 512) < 0)
		die("serve: listener on 127.0.0.1:%s: %s", argv[0], strerror(errno));
	for (;;) {
		int c = accept4(s, NULL, NULL, SOCK_CLOEXEC);

		if (c >= 0)
			close(c);
		else if (errno != EINTR && errno != ECONNABORTED)
			die("serve: accept: %s", strerror(errno));
	}
}

/* exec: a command (the workload) confined the way run confines its loop. */
static int cmd_exec(int argc, char **argv)
{
	struct op_state st = { .true_path = TRUE_PATH, .open_path = OPEN_FILE };
	struct confinement conf = { 0 };
	int i;

	for (i = 0; i < argc && strcmp(argv[i], "--"); i++) {
		if (i + 1 >= argc)
			die("exec: option %s needs a value", argv[i]);
		else if (!confinement_option(&conf, argv, &i))
			die("exec: unknown option %s", argv[i]);
	}
	if (i + 1 >= argc)
		die("usage: krsi-bench exec [--cgroup DIR] [--landlock MODE] [--apparmor PROFILE] "
		    "-- CMD [ARG...]");
	if (conf.cgroup)
		cgroup_join(conf.cgroup);
	confine(&conf, &st);
	execv(argv[i + 1], argv + i + 1);
	die("exec %s: %s", argv[i + 1], strerror(errno));
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: krsi-bench run|exec|serve|mkcg|register|profile|apparmor ... "
				"(see the source)\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!strcmp(argv[1], "run"))
		return cmd_run(argc - 2, argv + 2);
	if (!strcmp(argv[1], "mkcg"))
		return cmd_mkcg(argc - 2, argv + 2);
	if (!strcmp(argv[1], "register"))
		return cmd_register(argc - 2, argv + 2);
	if (!strcmp(argv[1], "profile"))
		return cmd_profile(argc - 2, argv + 2);
	if (!strcmp(argv[1], "apparmor"))
		return cmd_apparmor(argc - 2, argv + 2);
	if (!strcmp(argv[1], "exec"))
		return cmd_exec(argc - 2, argv + 2);
	if (!strcmp(argv[1], "serve"))
		return cmd_serve(argc - 2, argv + 2);
	fprintf(stderr, "krsi-bench: unknown command '%s'\n", argv[1]);
	return 2;
}
