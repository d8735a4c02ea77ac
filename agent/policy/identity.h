/* SPDX-License-Identifier: GPL-2.0 */
/*
 * File identities of exact rules. An exact exec, read or write rule names a file; the BPF
 * programs match it by path and by identity (the inode_rules map), so that another name of
 * the same file (a hard link, the file after rename, a path through a detached or bind mount)
 * is denied too.
 *
 * The agent resolves every exact rule of a profile in a root and stores what it finds as a
 * view: for each profile the host's view (the agent's own root), and for each registered
 * container its bundle view (the rootfs its runtime named, resolved before the container runs)
 * and its live view (the root of a process in its cgroup, once it runs). Views are resolved
 * again when a profile changes (under its new slot), when a container's registration is armed,
 * and every refresh interval. Keys are refcounted: a key shared by views stays in the map
 * until the last view holding it goes.
 *
 * What identity cannot follow: a copy is another file (exec_dirs is for that); a file that
 * appears at a rule's path after the last resolution is matched by its path, and by identity
 * only from the next refresh. A file that leaves a rule's path (renamed, or replaced there)
 * keeps its identity while it exists: a refresh drops it once its file handle no longer opens
 * (deleted; an unrelated file that reuses its inode number has another generation). Where the
 * file system gives no handles, it stays until the view goes (the container is unregistered).
 */
#ifndef KRSI_IDENTITY_H
#define KRSI_IDENTITY_H

#include <stdbool.h>
#include <stdint.h>

#include "bpf/krsi.h"
#include "policy/profile.h"
#include "lib/util.h"

/* The kernel's dev_t of MAJOR:MINOR (MAJOR << 20 | MINOR), as the BPF side reads s_dev. */
static inline uint64_t identity_kdev(unsigned int major, unsigned int minor)
{
	return (uint64_t)major << 20 | minor;
}

/* Parse /proc/PID/fdinfo/FD text: the "mnt_id:" and "ino:" lines. -EINVAL if one is missing. */
int identity_parse_fdinfo(const char *text, uint64_t *ret_mnt_id, uint64_t *ret_ino);
/*
 * The device (kernel dev_t) of mount MNT_ID in mountinfo TEXT and, if RET_POINT, its mount
 * point (octal escapes decoded) in POINT_SIZE bytes; -ENOENT if no such mount.
 */
int identity_mountinfo_dev(const char *text, uint64_t mnt_id, uint64_t *ret_dev, char *ret_point,
			   size_t point_size);

/*
 * What the agent keeps of a resolved file to tell later whether it still exists, under any name:
 * its file handle (name_to_handle_at) and its mount (the mount point, or only the mount's id
 * when statx resolved it: the point is looked up when needed). A file system that gives no
 * handles (overlayfs without nfs_export) leaves has_handle false.
 */
struct identity_hold {
	struct krsi_inode_key key;
	bool has_handle;
	int handle_type;
	unsigned int handle_bytes;
	unsigned char handle[128]; /* MAX_HANDLE_SZ */
	uint64_t mnt_id;
	char mount_point[KRSI_PATH_MAX]; /* "" = not looked up: mount mnt_id's */
	char rule[KRSI_PATH_MAX]; /* the exact rule that named it */
};

/*
 * Resolve absolute PATH inside ROOT (symlinks followed, never out of the root, no magic
 * links) and return the identity the kernel's programs see: the inode number of the dentry
 * and its superblock's device. By statx() where the file system reports exactly those
 * (identity_statx_trusted(), asked once per mount of ROOT by fstatfs()); elsewhere (overlayfs,
 * btrfs, FUSE) from /proc/self/fdinfo and the mount in the root's mountinfo (read once per
 * root). -ENOENT and the like when the path is not there.
 */
struct identity_root;
int identity_resolve(struct identity_root *root, const char *path, uint64_t *ret_dev,
		     uint64_t *ret_ino, struct identity_hold *ret_hold);

/*
 * A root to resolve in: an open directory, the mountinfo of its mount namespace, and the root
 * that mountinfo's mount points are relative to (the agent's "/" or the process's root).
 */
struct identity_mount {
	uint64_t id;
	bool trusted; /* identity_statx_trusted() of its file system */
};

struct identity_root {
	int fd;
	int mnt_root;
	char mountinfo[320];
	char *mountinfo_text; /* read at the first need */
	bool slow; /* never statx(): the tests compare both ways */
	size_t n_mounts;
	struct identity_mount mounts[16]; /* file systems asked about, by mount id */
};

/* Whether statx() on a file system of magic FS_MAGIC (statfs f_type) gives the programs' identity. */
bool identity_statx_trusted(int64_t fs_magic);

/*
 * Resolve host paths (bundles, roots, the host's view) in the root and mount namespace of
 * host process PID (looked up in host_proc()) instead of the agent's own: for an agent in a
 * pod (PID 1, the host's init). PID 0 goes back to the agent's own.
 */
int identity_set_host(int64_t pid, struct krsi_err *err);
/* Open ROOT_PATH (a directory as the host names it): mountinfo of the host. */
int identity_root_open_path(const char *root_path, struct identity_root *ret, struct krsi_err *err);
/* Open the root of host process PID (in host_proc()), as it sees it. */
int identity_root_open_pid(int64_t pid, struct identity_root *ret, struct krsi_err *err);
void identity_root_close(struct identity_root *r);

/*
 * The rootfs a bundle names: "root.path" of BUNDLE/config.json, relative to the bundle unless
 * absolute. Errors name the file and the reason.
 */
int identity_bundle_rootfs(const char *bundle, char *buf, size_t size, struct krsi_err *err);
/* The same, from TEXT (LEN bytes) read from the file CFG: exposed for the fuzzer. */
int identity_bundle_rootfs_text(const char *bundle, const char *cfg, const char *text,
				size_t len, char *buf, size_t size, struct krsi_err *err);
/*
 * Its two ways, exposed for the tests and the fuzzer. _scan: root.path's value into BUF when
 * jsonr (lib/jsonr.h) reads TEXT as JSON (RFC 8259) without an escaped NUL, with a non-empty
 * root.path string without \u escapes that fits, else -EINVAL (no message: the caller falls
 * back to _json). _json: json-c's full parse, with an error that names CFG and the reason.
 */
int identity_bundle_root_scan(const char *text, size_t len, char *buf, size_t size);
int identity_bundle_rootfs_json(const char *bundle, const char *cfg, const char *text, size_t len,
				char *buf, size_t size, struct krsi_err *err);

/*
 * The keys of P's exact rules under SLOT as resolved in ROOT: *RET and *RET_HOLDS (malloc'ed,
 * side by side) and *RET_N. Rules whose path does not resolve add nothing. OLD (may be NULL)
 * is the view being refreshed: a file it held that is no longer at its rule's path (renamed,
 * or replaced there) stays while it still exists, as its file handle tells, or, where the file
 * system gives no handles, for as long as the view lives.
 */
struct identity_view;
int identity_view_keys(const struct profile *p, uint32_t slot, struct identity_root *root,
		       const struct identity_view *old, struct krsi_inode_key **ret,
		       struct identity_hold **ret_holds, size_t *ret_n);
/* Whether the file HOLD was resolved to still exists (in ROOT's mount namespace). */
bool identity_hold_alive(const struct identity_hold *hold, struct identity_root *root);

/* ---- the table of views: refcounted keys mirrored into a map by a callback ---- */

enum identity_source {
	IDENTITY_HOST = 0,   /* the agent's root, for every profile */
	IDENTITY_BUNDLE = 1, /* a container's rootfs as its runtime named it */
	IDENTITY_LIVE = 2,   /* the root of a process in the container's cgroup */
};

struct identity_view {
	char owner[KRSI_CONTAINER_MAX]; /* container, or a profile name for IDENTITY_HOST */
	enum identity_source source;
	uint32_t slot;
	struct krsi_inode_key *keys;
	struct identity_hold *holds; /* side by side with keys, or NULL */
	size_t n;
};

struct identity_ref {
	struct krsi_inode_key key;
	uint32_t refs; /* 0 = free bucket */
};

/* WRITE(ctx, key, true) adds KEY to the map, (…, false) deletes it; returns 0 or -errno. */
typedef int (*identity_write_fn)(void *ctx, const struct krsi_inode_key *key, bool add);

struct identity_table {
	struct identity_view *views;
	size_t n_views;
	struct identity_ref *refs; /* open addressing, size a power of two */
	size_t n_refs, n_used, cap_refs; /* keys held; buckets holding a key or a tombstone */
	identity_write_fn write;
	void *ctx;
};

/*
 * Make the view (OWNER, SOURCE, SLOT) hold exactly KEYS, with HOLDS (NULL or side by side;
 * both taken over: freed by the table, also on failure). New keys are written first; if a write fails (the map is full), every key
 * written by this call is taken back and the old view stays, so nothing is half applied.
 */
int identity_view_set(struct identity_table *t, const char *owner, enum identity_source source,
		      uint32_t slot, struct krsi_inode_key *keys, struct identity_hold *holds,
		      size_t n, struct krsi_err *err);
/* Drop views: of OWNER (any source when SOURCE < 0) under any slot but KEEP_SLOT (or all: -1). */
void identity_view_drop(struct identity_table *t, const char *owner, int source, int64_t keep_slot);
void identity_view_drop_one(struct identity_table *t, const char *owner,
			    enum identity_source source, uint32_t slot);
/* Drop every view under SLOT (a retired profile slot). */
void identity_drop_slot(struct identity_table *t, uint32_t slot);
bool identity_has(const struct identity_table *t, const struct krsi_inode_key *key);
const struct identity_view *identity_view_find(const struct identity_table *t, const char *owner,
					       enum identity_source source, uint32_t slot);
void identity_table_clear(struct identity_table *t);

#endif
