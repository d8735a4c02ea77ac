// SPDX-License-Identifier: GPL-2.0
/*
 * krsi-fault.so: an LD_PRELOAD shim that makes chosen BPF map writes of a process fail, for the
 * faults guest suite. libbpf calls bpf(2) through libc's syscall(), which this wraps.
 *
 * The control file ($KRSI_FAULT_FILE, default /run/krsi-fault) is read at each map update and
 * delete. It holds one line "OP MAP N": the next N calls of OP ("update" or "delete") on the
 * map named MAP fail with ENOMEM, as a full map or an allocation failure would. Each failure
 * counts N down in the file; "OP MAP 0", an empty file or none fails nothing. Every failure is
 * logged to stderr: "krsi-fault: update config: ENOMEM".
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdbool.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/bpf.h>

typedef long (*syscall_fn)(long, ...);

static syscall_fn real_syscall(void)
{
	static syscall_fn fn;

	if (!fn)
		fn = (syscall_fn)dlsym(RTLD_NEXT, "syscall");
	return fn;
}

/* The name of the map behind FD, or "". */
static void map_name(int fd, char *name, size_t size)
{
	struct bpf_map_info info;
	union bpf_attr a;

	memset(&info, 0, sizeof(info));
	memset(&a, 0, sizeof(a));
	a.info.bpf_fd = fd;
	a.info.info_len = sizeof(info);
	a.info.info = (unsigned long)&info;
	name[0] = 0;
	if (real_syscall()(__NR_bpf, BPF_OBJ_GET_INFO_BY_FD, &a, sizeof(a)) == 0)
		snprintf(name, size, "%s", info.name);
}

/*
 * The control file as last read, by its stat: krsid deletes tens of thousands of rules in one
 * go when it collects a rule slot, and a read of the file per call would stall it.
 */
static struct {
	bool valid;
	struct stat st;
	char op[16], map[64];
	int n;
} ctl;

/* Whether this call of OP on the map behind FD is to fail (and count it down). */
static int fault_hit(const char *op, int fd)
{
	const char *file = getenv("KRSI_FAULT_FILE") ? getenv("KRSI_FAULT_FILE") : "/run/krsi-fault";
	char name[64];
	int hit = 0, saved = errno;
	struct stat st;
	FILE *f;

	if (stat(file, &st) < 0)
		goto out;
	if (!ctl.valid || st.st_ino != ctl.st.st_ino || st.st_size != ctl.st.st_size ||
	    st.st_mtim.tv_sec != ctl.st.st_mtim.tv_sec ||
	    st.st_mtim.tv_nsec != ctl.st.st_mtim.tv_nsec) {
		ctl.valid = true;
		ctl.st = st;
		ctl.n = 0;
		f = fopen(file, "r");
		if (f) {
			if (fscanf(f, "%15s %63s %d", ctl.op, ctl.map, &ctl.n) != 3)
				ctl.n = 0;
			fclose(f);
		}
	}
	if (ctl.n <= 0 || strcmp(ctl.op, op))
		goto out;
	map_name(fd, name, sizeof(name));
	if (strcmp(name, ctl.map))
		goto out;
	ctl.n--;
	f = fopen(file, "w");
	if (f) {
		fprintf(f, "%s %s %d\n", ctl.op, ctl.map, ctl.n);
		fclose(f);
	}
	if (stat(file, &st) == 0)
		ctl.st = st;
	fprintf(stderr, "krsi-fault: %s %s: ENOMEM\n", op, name);
	hit = 1;
out:
	errno = saved;
	return hit;
}

long syscall(long nr, ...)
{
	long a[6];
	va_list ap;

	va_start(ap, nr);
	for (int i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	if (nr == __NR_bpf && (a[0] == BPF_MAP_UPDATE_ELEM || a[0] == BPF_MAP_DELETE_ELEM)) {
		const union bpf_attr *attr = (const void *)a[1];

		if (fault_hit(a[0] == BPF_MAP_UPDATE_ELEM ? "update" : "delete", attr->map_fd)) {
			errno = ENOMEM;
			return -1;
		}
	}
	return real_syscall()(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
}
