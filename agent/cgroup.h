/* SPDX-License-Identifier: GPL-2.0 */
/* cgroup v2 lookups: mount point, a pid's cgroup, a cgroup's id and path. */
#ifndef KRSI_CGROUP_H
#define KRSI_CGROUP_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* The cgroup2 line ("0::/path") of a /proc/PID/cgroup text. Pure; tested on the host. */
int cgroup_parse_proc(const char *text, char *buf, size_t size);
/* Where cgroup2 is mounted (cached). */
int cgroup_mount(const char **ret);
int cgroup_of_pid(pid_t pid, char *buf, size_t size);
/* The id of the cgroup at PATH (relative to the mount, "/a/b"); -ENOENT when it is gone. */
int cgroup_id(const char *path, uint64_t *ret);
/* Search the hierarchy for the cgroup with ID. */
int cgroup_find_id(uint64_t id, char *buf, size_t size);

#endif
