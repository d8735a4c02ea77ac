/* SPDX-License-Identifier: GPL-2.0 */
/* cgroup v2 lookups: mount point, a pid's cgroup, a cgroup's id and path. */
#ifndef KRSI_CGROUP_H
#define KRSI_CGROUP_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* The cgroup2 line ("0::/path") of a /proc/PID/cgroup text. Pure; tested on the host. */
int cgroup_parse_proc(const char *text, char *buf, size_t size);
/* The "populated" line of a cgroup.events text: 1 or 0, -EINVAL without one. Pure. */
int cgroup_parse_populated(const char *text);
/*
 * Whether cgroup CG (relative to the mount) or any cgroup below it has a process: 1 or 0, from
 * its cgroup.events (one read); -errno when that cannot be read.
 */
int cgroup_populated(const char *cg);
/*
 * The proc file system that host pids (the OCI state's, cgroup.procs') are looked up in:
 * "/proc" unless krsid runs in a pod whose PID namespace is not the host's and has the host's
 * /proc mounted elsewhere (--host-proc). DIR must be an absolute path.
 */
int host_proc_set(const char *dir);
const char *host_proc(void);
/* Where cgroup2 is mounted (cached). */
int cgroup_mount(const char **ret);
/* The cgroup of host pid PID (0: this process), as this cgroup namespace names it. */
int cgroup_of_pid(pid_t pid, char *buf, size_t size);
/*
 * The lowest host pid in cgroup CG or below it, found through host_proc()'s pid directories
 * (for when cgroup.procs shows none: its pids are those of the reader's PID namespace); 0 if
 * none.
 */
int64_t cgroup_scan_pid(const char *cg);
/* The id of the cgroup at PATH (relative to the mount, "/a/b"); -ENOENT when it is gone. */
int cgroup_id(const char *path, uint64_t *ret);
/* Search the hierarchy for the cgroup with ID. */
int cgroup_find_id(uint64_t id, char *buf, size_t size);

#endif
