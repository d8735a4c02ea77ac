// SPDX-License-Identifier: GPL-2.0
/*
 * The node agent (--node-agent): the host's files in the root of its pid 1, cgroups in
 * its cgroup namespace.
 */
#include <sched.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/statfs.h>

#include "daemon/krsid.h"

/* Do paths A and B name one file (one namespace, for /proc/PID/ns/ links)? */
static bool same_file(const char *a, const char *b)
{
	struct stat x, y;

	return stat(a, &x) == 0 && stat(b, &y) == 0 && x.st_ino == y.st_ino && x.st_dev == y.st_dev;
}

/* Does PATH name the same file in the agent's root and in the host's (pid 1's)? */
static bool same_as_host(const char *path)
{
	char hp[4400];

	snprintf(hp, sizeof(hp), "%s/1/root%s", host_proc(), path);
	return same_file(path, hp);
}

/*
 * --node-agent: krsid runs in a privileged pod. Host pids are looked up in host_proc() (the
 * host's /proc: the pod's own with hostPID, else a hostPath mount given by --host-proc), bundle
 * paths and the host's view in the root of the host's pid 1, cgroup paths in pid 1's cgroup
 * namespace (joined here). The pins and the socket must be the host's: a private bpffs would
 * take enforcement down with the pod, a private /run/krsi would hide the socket from the hook
 * that the runtime runs on the host.
 */
int node_agent_enter(struct krsid *d, struct krsi_err *err)
{
	char own[4096], sock_dir[4096], ns1[320], mnt1[320], *slash;
	struct statfs st;
	const char *mnt;
	uint64_t id;
	bool joined = false;
	int r;

	snprintf(ns1, sizeof(ns1), "%s/1/ns/cgroup", host_proc());
	snprintf(mnt1, sizeof(mnt1), "%s/1/ns/mnt", host_proc());
	if (access(ns1, F_OK) < 0)
		return err_set(err, -errno, "--node-agent: %s: %s (is %s the host's /proc?)", ns1,
			       strerror(errno), host_proc());
	if (getpid() == 1 && same_file(mnt1, "/proc/self/ns/mnt"))
		return err_set(err, -EINVAL, "--node-agent: pid 1 of %s is krsid itself, not the "
			       "host's init: give the pod hostPID: true, or mount the host's /proc "
			       "and name it with --host-proc", host_proc());
	if (!same_file(ns1, "/proc/self/ns/cgroup")) {
		_cleanup_close_ int fd = open(ns1, O_RDONLY | O_CLOEXEC);

		if (fd < 0 || setns(fd, CLONE_NEWCGROUP) < 0)
			return err_set(err, -errno, "--node-agent: joining the host's cgroup namespace "
				       "(%s): %s", ns1, strerror(errno));
		joined = true;
	}
	r = cgroup_mount(&mnt);
	if (r < 0)
		return err_set(err, r, "--node-agent: no cgroup2 file system mounted");
	r = cgroup_of_pid(1, own, sizeof(own));
	if (r == 0)
		r = strcmp(own, "/") ? cgroup_id(own, &id) : 0;
	if (r == 0) {
		r = cgroup_of_pid(0, own, sizeof(own));
		if (r == 0)
			r = cgroup_id(own, &id);
	}
	if (r < 0)
		return err_set(err, r, "--node-agent: the host's cgroups are not under %s: it is not "
			       "the host's cgroup2 hierarchy (mount the host's /sys/fs/cgroup there)", mnt);
	if (statfs("/sys/fs/bpf", &st) < 0 || st.f_type != BPF_FS_MAGIC || !same_as_host("/sys/fs/bpf"))
		return err_set(err, -EINVAL, "--node-agent: /sys/fs/bpf is not the host's bpffs: the "
			       "pins would go with the pod (mount the host's /sys/fs/bpf)");
	snprintf(sock_dir, sizeof(sock_dir), "%s", d->socket_path);
	slash = strrchr(sock_dir, '/');
	if (slash && slash != sock_dir)
		*slash = 0;
	mkdir(sock_dir, 0755);
	if (!same_as_host(sock_dir))
		return err_set(err, -EINVAL, "--node-agent: %s is not the host's: the OCI hook on the "
			       "host would not find the socket (mount the host's %s)", sock_dir, sock_dir);
	r = identity_set_host(1, err);
	if (r < 0)
		return r;
	log_info("node agent: host processes in %s, host paths in the root of its pid 1, cgroups "
		 "in its namespace (%s); pins and %s are the host's", host_proc(),
		 joined ? "joined" : "shared", sock_dir);
	return 0;
}
