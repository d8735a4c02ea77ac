// SPDX-License-Identifier: GPL-2.0
/*
 * libcgroup was considered for these: its cgroup_init() wants v1 controllers or fails on a
 * bare cgroup2 hierarchy in older releases, and it has no cgroup id lookup, so getmntent() and
 * name_to_handle_at() do the job in a few lines.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <mntent.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <linux/magic.h>

#include "lib/cgroup.h"
#include "lib/util.h"

#define CGROUP_DEFAULT_MOUNT "/sys/fs/cgroup"

static char proc_dir[256] = "/proc";

int host_proc_set(const char *dir)
{
	if (dir[0] != '/' || strlen(dir) >= sizeof(proc_dir))
		return -EINVAL;
	snprintf(proc_dir, sizeof(proc_dir), "%s", dir);
	return 0;
}

const char *host_proc(void)
{
	return proc_dir;
}

int cgroup_parse_proc(const char *text, char *buf, size_t size)
{
	const char *p = text;

	while (p && *p) {
		const char *end = strchr(p, '\n');
		size_t len = end ? (size_t)(end - p) : strlen(p);

		if (len >= 3 && !strncmp(p, "0::", 3)) {
			if (len - 3 == 0 || p[3] != '/' || len - 3 >= size)
				return -EINVAL;
			memcpy(buf, p + 3, len - 3);
			buf[len - 3] = 0;
			/* " (deleted)" is appended to a removed cgroup */
			if (len - 3 > 10 && !strcmp(buf + len - 3 - 10, " (deleted)"))
				return -ENOENT;
			return 0;
		}
		p = end ? end + 1 : NULL;
	}
	return -ENODATA;
}

int cgroup_parse_populated(const char *text)
{
	for (const char *l = text; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		if (strncmp(l, "populated ", 10))
			continue;
		if ((l[10] == '0' || l[10] == '1') && (l[11] == '\n' || l[11] == 0))
			return l[10] - '0';
		return -EINVAL;
	}
	return -EINVAL;
}

int cgroup_populated(const char *cg)
{
	char path[4096], text[256];
	const char *mnt;
	int r = cgroup_mount(&mnt);

	if (r < 0)
		return r;
	if (snprintf(path, sizeof(path), "%s%s/cgroup.events", mnt, cg) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	r = read_small(path, text, sizeof(text));
	return r < 0 ? r : cgroup_parse_populated(text);
}

int cgroup_mount(const char **ret)
{
	static char mnt[256];
	struct mntent *m;
	struct statfs sf;
	FILE *f;

	if (mnt[0]) {
		*ret = mnt;
		return 0;
	}
	/*
	 * Where every distribution mounts it: one statfs(), where reading the mount table costs
	 * the OCI hook's every run some 100,000 instructions (make bench). A hybrid layout (v1
	 * controllers there, cgroup2 at .../unified) is tmpfs there, and the table decides.
	 */
	if (statfs(CGROUP_DEFAULT_MOUNT, &sf) == 0 && sf.f_type == CGROUP2_SUPER_MAGIC) {
		strcpy(mnt, CGROUP_DEFAULT_MOUNT);
		*ret = mnt;
		return 0;
	}
	f = setmntent("/proc/self/mounts", "re");
	if (!f)
		return -errno;
	while ((m = getmntent(f))) {
		if (!strcmp(m->mnt_type, "cgroup2") && strlen(m->mnt_dir) < sizeof(mnt)) {
			strcpy(mnt, m->mnt_dir);
			break;
		}
	}
	endmntent(f);
	if (!mnt[0])
		return -ENOENT;
	*ret = mnt;
	return 0;
}

int cgroup_of_pid(pid_t pid, char *buf, size_t size)
{
	char path[320], text[4096];
	int r;

	if (pid == 0)
		snprintf(path, sizeof(path), "/proc/self/cgroup");
	else
		snprintf(path, sizeof(path), "%s/%d/cgroup", proc_dir, (int)pid);
	r = read_small(path, text, sizeof(text));
	return r < 0 ? r : cgroup_parse_proc(text, buf, size);
}

int64_t cgroup_scan_pid(const char *cg)
{
	size_t len = strlen(cg);
	long long best = 0;
	struct dirent *de;
	DIR *dir = opendir(proc_dir);

	if (!dir)
		return 0;
	while ((de = readdir(dir))) {
		char own[4096], *end;
		long long pid;

		errno = 0;
		pid = strtoll(de->d_name, &end, 10);
		if (errno || *end || pid <= 0 || (best && pid >= best))
			continue;
		if (cgroup_of_pid(pid, own, sizeof(own)) < 0)
			continue;
		if (!strncmp(own, cg, len) && (own[len] == 0 || own[len] == '/'))
			best = pid;
	}
	closedir(dir);
	return best;
}

int cgroup_id(const char *path, uint64_t *ret)
{
	struct {
		struct file_handle fh;
		uint64_t id;
	} h = { .fh.handle_bytes = sizeof(uint64_t) };
	const char *mnt;
	char full[4096];
	int mount_id, r;

	r = cgroup_mount(&mnt);
	if (r < 0)
		return r;
	if (snprintf(full, sizeof(full), "%s%s", mnt, path) >= (int)sizeof(full))
		return -ENAMETOOLONG;
	if (name_to_handle_at(AT_FDCWD, full, &h.fh, &mount_id, 0) < 0)
		return -errno;
	if (h.fh.handle_bytes != sizeof(uint64_t))
		return -EOPNOTSUPP;
	*ret = h.id;
	return 0;
}

static uint64_t find_id;
static char *find_buf;
static size_t find_size, find_mnt_len;

static int find_cb(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	struct {
		struct file_handle fh;
		uint64_t id;
	} h = { .fh.handle_bytes = sizeof(uint64_t) };
	int mount_id;

	if (type != FTW_D)
		return 0;
	if (name_to_handle_at(AT_FDCWD, path, &h.fh, &mount_id, 0) < 0 || h.id != find_id)
		return 0;
	snprintf(find_buf, find_size, "%s", path[find_mnt_len] ? path + find_mnt_len : "/");
	return 1;
}

int cgroup_find_id(uint64_t id, char *buf, size_t size)
{
	const char *mnt;
	int r = cgroup_mount(&mnt);

	if (r < 0)
		return r;
	find_id = id;
	find_buf = buf;
	find_size = size;
	find_mnt_len = strlen(mnt);
	r = nftw(mnt, find_cb, 16, FTW_PHYS | FTW_MOUNT);
	if (r < 0)
		return -errno;
	return r == 1 ? 0 : -ENOENT;
}
