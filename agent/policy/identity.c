// SPDX-License-Identifier: GPL-2.0
/* File identities of exact rules: resolution in a root (identity_table.c has the table). */
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <linux/magic.h>
#include <sys/syscall.h>
#include <linux/openat2.h>

#include "lib/cgroup.h"
#include "lib/jsonr.h"
#include "policy/identity.h"

#define IDENTITY_TEXT_MAX (4 << 20) /* a mountinfo of some 20000 mounts */
#define BUNDLE_CONFIG_MAX (4 << 20)

/* ---- parsing ---- */

static int field_u64(const char *text, const char *name, uint64_t *ret)
{
	size_t len = strlen(name);

	for (const char *l = text; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		char *end;

		if (strncmp(l, name, len))
			continue;
		errno = 0;
		*ret = strtoull(l + len, &end, 10);
		if (errno || end == l + len || (*end && *end != '\n'))
			return -EINVAL;
		return 0;
	}
	return -EINVAL;
}

int identity_parse_fdinfo(const char *text, uint64_t *ret_mnt_id, uint64_t *ret_ino)
{
	if (field_u64(text, "mnt_id:\t", ret_mnt_id) < 0)
		return -EINVAL;
	return field_u64(text, "ino:\t", ret_ino);
}

/* Field FIELD (0-based, space-separated) of line L, octal escapes ("\\040") decoded. */
static int mountinfo_field(const char *l, int field, char *buf, size_t size)
{
	size_t n = 0;

	for (int f = 0; f < field; f++) {
		l = strpbrk(l, " \n");
		if (!l || *l == '\n')
			return -EINVAL;
		l++;
	}
	while (*l && *l != ' ' && *l != '\n') {
		char c = *l++;

		if (c == '\\' && l[0] >= '0' && l[0] <= '3' && l[1] >= '0' && l[1] <= '7' &&
		    l[2] >= '0' && l[2] <= '7') {
			c = (char)((l[0] - '0') << 6 | (l[1] - '0') << 3 | (l[2] - '0'));
			l += 3;
			if (!c)
				return -EINVAL; /* no path holds a NUL: not a kernel's mountinfo */
		}
		if (n + 1 >= size)
			return -ENAMETOOLONG;
		buf[n++] = c;
	}
	buf[n] = 0;
	return n ? 0 : -EINVAL;
}

/* "36 35 98:0 /mnt1 /mnt/parent rw,noatime master:1 - ext3 /dev/root rw,errors=continue" */
int identity_mountinfo_dev(const char *text, uint64_t mnt_id, uint64_t *ret_dev, char *ret_point,
			   size_t point_size)
{
	for (const char *l = text; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		unsigned long long id, parent;
		unsigned int major, minor;

		if (sscanf(l, "%llu %llu %u:%u ", &id, &parent, &major, &minor) != 4)
			continue;
		if (id != mnt_id)
			continue;
		if (major >= 1u << 12 || minor >= 1u << 20)
			return -ERANGE;
		if (ret_point) {
			int r = mountinfo_field(l, 4, ret_point, point_size);

			if (r < 0)
				return r;
		}
		*ret_dev = identity_kdev(major, minor);
		return 0;
	}
	return -ENOENT;
}

/*
 * The host: the root and mount namespace that bundle paths and the host's view name. The
 * agent's own unless identity_set_host() named a host process (krsid --node-agent: the host's
 * pid 1, found in host_proc()).
 */
static struct {
	int64_t pid;
	int root; /* /proc/PID/root, open while pid is set */
} host = { 0, -1 };

int identity_set_host(int64_t pid, struct krsi_err *err)
{
	char p[320];
	int fd;

	if (pid <= 0) {
		if (host.root >= 0)
			close(host.root);
		host.pid = 0;
		host.root = -1;
		return 0;
	}
	snprintf(p, sizeof(p), "%s/%lld/root", host_proc(), (long long)pid);
	fd = open(p, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return err_set(err, -errno, "host root %s: %s", p, strerror(errno));
	if (host.root >= 0)
		close(host.root);
	host.pid = pid;
	host.root = fd;
	return 0;
}

/*
 * Open absolute PATH as the host names it: from the host's root, its symlinks resolved there
 * (an absolute link inside a host path is the host's, not the agent's).
 */
static int host_open(const char *path, int flags)
{
	struct open_how how = { .flags = flags | O_CLOEXEC, .resolve = RESOLVE_IN_ROOT };
	int fd;

	if (host.root < 0)
		return open(path, flags | O_CLOEXEC);
	fd = syscall(SYS_openat2, host.root, path, &how, sizeof(how));
	return fd < 0 ? -1 : fd;
}

/* Read a whole (proc) file of at most IDENTITY_TEXT_MAX bytes, NUL-terminated, from FD. */
static int read_fd_text(int fd, char **ret)
{
	size_t len = 0, cap = 0;
	char *buf = NULL;

	for (;;) {
		ssize_t n;

		if (cap - len < 4096) {
			size_t c = cap ? 2 * cap : 16384;
			char *v;

			if (c > IDENTITY_TEXT_MAX) {
				free(buf);
				return -EFBIG;
			}
			v = realloc(buf, c);
			if (!v) {
				free(buf);
				return -ENOMEM;
			}
			buf = v;
			cap = c;
		}
		n = read(fd, buf + len, cap - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int r = -errno;

			free(buf);
			return r;
		}
		if (n == 0)
			break;
		len += n;
	}
	buf[len] = 0;
	*ret = buf;
	return 0;
}

static int read_text(int dirfd, const char *path, char **ret)
{
	_cleanup_close_ int fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC);

	return fd < 0 ? -errno : read_fd_text(fd, ret);
}

/* ---- resolution ---- */

bool identity_statx_trusted(int64_t fs_magic)
{
	/*
	 * File systems whose getattr is generic_fillattr() on the inode the programs see: stat's
	 * inode number is its i_ino and stat's device its superblock's s_dev. Not overlayfs (it
	 * reports the real file's), not btrfs (a subvolume's anonymous device), not FUSE (what
	 * the server says): those take the /proc fdinfo and mountinfo way.
	 */
	switch (fs_magic) {
	case EXT4_SUPER_MAGIC: /* ext2, ext3 and ext4 */
	case XFS_SUPER_MAGIC:
	case TMPFS_MAGIC:
	case RAMFS_MAGIC:
	case PROC_SUPER_MAGIC:
	case SYSFS_MAGIC:
	case V9FS_MAGIC:
		return true;
	default:
		return false;
	}
}

/*
 * FD's identity by statx() (and fstatfs(), once per mount of ROOT), where its file system
 * reports what the kernel's programs see; false: ask /proc.
 */
static bool resolve_statx(struct identity_root *root, int fd, uint64_t *ret_mnt_id,
			  uint64_t *ret_dev, uint64_t *ret_ino)
{
	struct statx sx;
	bool trusted = false;
	size_t i;

	if (root->slow)
		return false;
	if (statx(fd, "", AT_EMPTY_PATH | AT_STATX_DONT_SYNC, STATX_INO | STATX_MNT_ID, &sx) < 0 ||
	    !(sx.stx_mask & STATX_INO) || !(sx.stx_mask & STATX_MNT_ID))
		return false;
	for (i = 0; i < root->n_mounts && root->mounts[i].id != sx.stx_mnt_id; i++)
		;
	if (i < root->n_mounts) {
		trusted = root->mounts[i].trusted;
	} else {
		struct statfs sf;

		if (fstatfs(fd, &sf) < 0)
			return false;
		trusted = identity_statx_trusted(sf.f_type);
		if (root->n_mounts < ARRAY_SIZE(root->mounts))
			root->mounts[root->n_mounts++] = (struct identity_mount){ sx.stx_mnt_id, trusted };
	}
	if (!trusted || sx.stx_dev_major >= 1u << 12 || sx.stx_dev_minor >= 1u << 20)
		return false;
	*ret_mnt_id = sx.stx_mnt_id;
	*ret_dev = identity_kdev(sx.stx_dev_major, sx.stx_dev_minor);
	*ret_ino = sx.stx_ino;
	return true;
}

/* ROOT's mountinfo, read at the first need. */
static int root_mountinfo(struct identity_root *root)
{
	return root->mountinfo_text ? 0 : read_text(AT_FDCWD, root->mountinfo, &root->mountinfo_text);
}

int identity_resolve(struct identity_root *root, const char *path, uint64_t *ret_dev,
		     uint64_t *ret_ino, struct identity_hold *ret_hold)
{
	struct open_how how = {
		.flags = O_PATH | O_CLOEXEC,
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
	};
	_cleanup_close_ int fd = -1;
	_cleanup_free_ char *info = NULL;
	char fdinfo[64];
	uint64_t mnt_id, ino, dev;
	int r;

	fd = syscall(SYS_openat2, root->fd, path, &how, sizeof(how));
	if (fd < 0)
		return -errno;
	if (ret_hold)
		ret_hold->mount_point[0] = 0;
	if (!resolve_statx(root, fd, &mnt_id, &dev, &ino)) {
		snprintf(fdinfo, sizeof(fdinfo), "/proc/self/fdinfo/%d", fd);
		r = read_text(AT_FDCWD, fdinfo, &info);
		if (r < 0)
			return r;
		r = identity_parse_fdinfo(info, &mnt_id, &ino);
		if (r < 0)
			return r;
		r = root_mountinfo(root);
		if (r < 0)
			return r;
		r = identity_mountinfo_dev(root->mountinfo_text, mnt_id, &dev,
					   ret_hold ? ret_hold->mount_point : NULL,
					   ret_hold ? sizeof(ret_hold->mount_point) : 0);
		if (r < 0)
			return r;
	}
	*ret_dev = dev;
	*ret_ino = ino;
	if (ret_hold) {
		union {
			struct file_handle fh;
			unsigned char buf[sizeof(struct file_handle) + sizeof(ret_hold->handle)];
		} h;
		int mid;

		ret_hold->mnt_id = mnt_id;
		h.fh.handle_bytes = sizeof(ret_hold->handle);
		ret_hold->has_handle = name_to_handle_at(fd, "", &h.fh, &mid, AT_EMPTY_PATH) == 0;
		if (ret_hold->has_handle) {
			ret_hold->handle_type = h.fh.handle_type;
			ret_hold->handle_bytes = h.fh.handle_bytes;
			memcpy(ret_hold->handle, h.fh.f_handle, h.fh.handle_bytes);
		}
	}
	return 0;
}

bool identity_hold_alive(const struct identity_hold *hold, struct identity_root *root)
{
	struct open_how how = {
		.flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC, /* not O_PATH: a handle's mount fd */
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
	};
	union {
		struct file_handle fh;
		unsigned char buf[sizeof(struct file_handle) + sizeof(hold->handle)];
	} h;
	_cleanup_close_ int mfd = -1, fd = -1;
	char point[KRSI_PATH_MAX];
	uint64_t dev;

	if (!hold->has_handle)
		return true; /* nothing tells: kept */
	/* Resolved by statx: where its mount is, looked up now (a refresh, not a start, pays). */
	snprintf(point, sizeof(point), "%s", hold->mount_point);
	if (!point[0] && (root_mountinfo(root) < 0 ||
			  identity_mountinfo_dev(root->mountinfo_text, hold->mnt_id, &dev, point,
						 sizeof(point)) < 0))
		return true; /* its mount is not there any more: cannot tell */
	mfd = syscall(SYS_openat2, root->mnt_root, point, &how, sizeof(how));
	if (mfd < 0)
		return true; /* its mount is not where it was: cannot tell */
	h.fh.handle_bytes = hold->handle_bytes;
	h.fh.handle_type = hold->handle_type;
	memcpy(h.fh.f_handle, hold->handle, hold->handle_bytes);
	fd = open_by_handle_at(mfd, &h.fh, O_PATH | O_CLOEXEC);
	if (fd >= 0)
		return true;
	/* ESTALE: gone, or its inode number reused by another file (another generation). */
	return errno != ESTALE && errno != ENOENT;
}

int identity_root_open_path(const char *root_path, struct identity_root *ret, struct krsi_err *err)
{
	ret->mnt_root = -1;
	ret->mountinfo_text = NULL;
	ret->slow = false;
	ret->n_mounts = 0;
	ret->fd = host_open(root_path, O_PATH | O_DIRECTORY);
	if (ret->fd < 0)
		return err_set(err, -errno, "root %s: %s", root_path, strerror(errno));
	ret->mnt_root = host_open("/", O_PATH | O_DIRECTORY);
	if (ret->mnt_root < 0) {
		int r = -errno;

		identity_root_close(ret);
		return err_set(err, r, "root /: %s", strerror(-r));
	}
	if (host.root >= 0)
		snprintf(ret->mountinfo, sizeof(ret->mountinfo), "%s/%lld/mountinfo", host_proc(),
			 (long long)host.pid);
	else
		snprintf(ret->mountinfo, sizeof(ret->mountinfo), "/proc/self/mountinfo");
	return 0;
}

int identity_root_open_pid(int64_t pid, struct identity_root *ret, struct krsi_err *err)
{
	char p[320];

	snprintf(p, sizeof(p), "%s/%lld/root", host_proc(), (long long)pid);
	ret->mnt_root = -1;
	ret->mountinfo_text = NULL;
	ret->slow = false;
	ret->n_mounts = 0;
	ret->fd = open(p, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (ret->fd < 0)
		return err_set(err, -errno, "pid %lld: its root: %s", (long long)pid, strerror(errno));
	ret->mnt_root = dup(ret->fd); /* its mountinfo's mount points are relative to its root */
	if (ret->mnt_root < 0) {
		int r = -errno;

		identity_root_close(ret);
		return err_set(err, r, "pid %lld: %s", (long long)pid, strerror(-r));
	}
	snprintf(ret->mountinfo, sizeof(ret->mountinfo), "%s/%lld/mountinfo", host_proc(),
		 (long long)pid);
	return 0;
}

void identity_root_close(struct identity_root *r)
{
	if (r->fd >= 0)
		close(r->fd);
	if (r->mnt_root >= 0)
		close(r->mnt_root);
	r->fd = r->mnt_root = -1;
	free(r->mountinfo_text);
	r->mountinfo_text = NULL;
}

/*
 * The root.path string of a bundle's config.json, read with jsonr (lib/jsonr.h) instead of
 * json-c's tree: json-c took about 300,000 instructions for crun's 3 KB config.json, a tenth
 * of what the OCI hook adds to a container start (make bench). jsonr accepts only JSON as
 * RFC 8259 writes it, part of what json-c's strict mode accepts, and reads it as json-c does
 * (tests/fuzz/fuzz_jsonr.c) but where json-c departs from the RFC; for anything else this
 * returns -EINVAL and the caller parses with json-c, whose message names the fault, so a
 * refusal never depends on jsonr. Left to json-c for that: containers nested deeper than
 * BUNDLE_CONFIG_DEPTH (at most 25 of json-c's levels, well within its 32); an escaped NUL, at
 * which json-c cuts a key ("root\u0000" is its "root"); and a root.path with a \u escape,
 * since json-c 0.16 decodes some surrogate pairs otherwise ("\ud836\udc00", U+1D800, is its
 * U+FFFD). A repeated key counts by its last occurrence, as in json-c's objects.
 * tests/fuzz/fuzz_identity.c checks that whatever this accepts, json-c accepts with the same
 * root.path.
 */
#define BUNDLE_CONFIG_DEPTH 24

/* Whether P (LEN bytes) holds a backslash and S: that escape, or a cheap test's false alarm
 * ("\\u" is an escaped backslash and a u). */
static bool has_escape(const char *p, size_t len, const char *s)
{
	const char *end = p + len;
	size_t n = strlen(s);

	for (; (p = memchr(p, '\\', end - p)) && (size_t)(end - p) > n; p++)
		if (!memcmp(p + 1, s, n))
			return true;
	return false;
}

int identity_bundle_root_scan(const char *text, size_t len, char *buf, size_t size)
{
	static const char *const root_path[] = { "root", "path" };
	struct jsonr_value path;
	_cleanup_free_ char *s = NULL;
	char why[96];
	size_t n;

	if (has_escape(text, len, "u0000") ||
	    jsonr_parse_find(text, len, BUNDLE_CONFIG_DEPTH, root_path, 2, &path, why,
			     sizeof(why)) < 0)
		return -EINVAL;
	if (path.type != JSONR_STRING || has_escape(path.text, path.len, "u") ||
	    jsonr_string(&path, &s, &n) < 0 || !n || n >= size)
		return -EINVAL;
	memcpy(buf, s, n + 1);
	return 0;
}

int identity_bundle_rootfs_json(const char *bundle, const char *cfg, const char *text, size_t len,
				char *buf, size_t size, struct krsi_err *err)
{
	_cleanup_json_ json_object *doc = NULL;
	json_object *root, *path;
	char what[128 + KRSI_ROOTFS_MAX];
	const char *s;
	int r;

	if (len > BUNDLE_CONFIG_MAX)
		return err_set(err, -EFBIG, "bundle config %s: larger than %d bytes", cfg,
			       BUNDLE_CONFIG_MAX);
	snprintf(what, sizeof(what), "bundle config %s", cfg);
	r = json_parse_strict(what, text, len, &doc, err);
	if (r < 0)
		return r;
	if (!json_object_is_type(doc, json_type_object))
		return err_set(err, -EINVAL, "bundle config %s: not a JSON object", cfg);
	if (!json_object_object_get_ex(doc, "root", &root) ||
	    !json_object_is_type(root, json_type_object) ||
	    !json_object_object_get_ex(root, "path", &path) ||
	    !json_object_is_type(path, json_type_string))
		return err_set(err, -EINVAL, "bundle config %s: no root.path string", cfg);
	s = json_object_get_string(path);
	if (!s[0])
		return err_set(err, -EINVAL, "bundle config %s: root.path is empty", cfg);
	if (json_string_has_nul(path))
		return err_set(err, -EINVAL, "bundle config %s: root.path \"%s\": holds a NUL", cfg,
			       s);
	if (s[0] == '/')
		r = snprintf(buf, size, "%s", s);
	else
		r = snprintf(buf, size, "%s/%s", bundle, s);
	if (r < 0 || (size_t)r >= size)
		return err_set(err, -ENAMETOOLONG, "bundle config %s: root.path too long", cfg);
	return 0;
}

int identity_bundle_rootfs_text(const char *bundle, const char *cfg, const char *text,
				size_t len, char *buf, size_t size, struct krsi_err *err)
{
	char path[KRSI_ROOTFS_MAX];
	int r;

	if (len > BUNDLE_CONFIG_MAX || identity_bundle_root_scan(text, len, path, sizeof(path)) < 0)
		return identity_bundle_rootfs_json(bundle, cfg, text, len, buf, size, err);
	if (path[0] == '/')
		r = snprintf(buf, size, "%s", path);
	else
		r = snprintf(buf, size, "%s/%s", bundle, path);
	if (r < 0 || (size_t)r >= size)
		return identity_bundle_rootfs_json(bundle, cfg, text, len, buf, size, err);
	return 0;
}

int identity_bundle_rootfs(const char *bundle, char *buf, size_t size, struct krsi_err *err)
{
	_cleanup_free_ char *text = NULL;
	_cleanup_close_ int fd = -1;
	char cfg[PATH_MAX];
	int r;

	if (bundle[0] != '/')
		return err_set(err, -EINVAL, "bundle %s: not an absolute path", bundle);
	if (snprintf(cfg, sizeof(cfg), "%s/config.json", bundle) >= (int)sizeof(cfg))
		return err_set(err, -ENAMETOOLONG, "bundle %s: path too long", bundle);
	fd = host_open(cfg, O_RDONLY);
	r = fd < 0 ? -errno : read_fd_text(fd, &text);
	if (r < 0)
		return err_set(err, r, "bundle config %s: %s", cfg, strerror(-r));
	return identity_bundle_rootfs_text(bundle, cfg, text, strlen(text), buf, size, err);
}

static const struct {
	enum profile_path_list list;
	uint32_t kind;
} exact_lists[] = {
	{ PROFILE_EXEC, KRSI_PATH_EXEC },
	{ PROFILE_READ, KRSI_PATH_READ },
	{ PROFILE_WRITE, KRSI_PATH_WRITE },
	/* Allow lists: another name of an allowed file is allowed. */
	{ PROFILE_ALLOW_EXEC, KRSI_PATH_ALLOW_EXEC },
	{ PROFILE_ALLOW_READ, KRSI_PATH_ALLOW_READ },
	{ PROFILE_ALLOW_WRITE, KRSI_PATH_ALLOW_WRITE },
	/*
	 * A directory rule names the directory: the programs look for it among a file's
	 * ancestors, under any root and through any mount (dir_walk in bpf/file.bpf.h).
	 */
	{ PROFILE_EXEC_DIRS, KRSI_PATH_EXEC | KRSI_KIND_DIR },
	{ PROFILE_READ_DIRS, KRSI_PATH_READ | KRSI_KIND_DIR },
	{ PROFILE_WRITE_DIRS, KRSI_PATH_WRITE | KRSI_KIND_DIR },
	{ PROFILE_ALLOW_EXEC_DIRS, KRSI_PATH_ALLOW_EXEC | KRSI_KIND_DIR },
	{ PROFILE_ALLOW_READ_DIRS, KRSI_PATH_ALLOW_READ | KRSI_KIND_DIR },
	{ PROFILE_ALLOW_WRITE_DIRS, KRSI_PATH_ALLOW_WRITE | KRSI_KIND_DIR },
};

/* The lists whose rules' directories above get KRSI_KIND_ABOVE keys; ROOT: "/" too. */
static const struct {
	enum profile_path_list list;
	uint32_t kind;
	bool root;
} above_lists[] = {
	{ PROFILE_ALLOW_EXEC, KRSI_PATH_ALLOW_EXEC, false },
	{ PROFILE_ALLOW_EXEC_DIRS, KRSI_PATH_ALLOW_EXEC, false },
	{ PROFILE_WRITE, KRSI_PATH_WRITE, true },
	{ PROFILE_WRITE_DIRS, KRSI_PATH_WRITE, true },
	{ PROFILE_ALLOW_WRITE, KRSI_PATH_ALLOW_WRITE, true },
	{ PROFILE_ALLOW_WRITE_DIRS, KRSI_PATH_ALLOW_WRITE, true },
};

static bool keys_have(const struct krsi_inode_key *keys, size_t n, const struct krsi_inode_key *k)
{
	for (size_t i = 0; i < n; i++)
		if (!memcmp(&keys[i], k, sizeof(*k)))
			return true;
	return false;
}

/* P still has the exact rule RULE of kind KIND. */
static bool rule_kept(const struct profile *p, uint32_t kind, const char *rule)
{
	for (size_t l = 0; l < ARRAY_SIZE(exact_lists); l++) {
		if (exact_lists[l].kind != kind)
			continue;
		for (size_t i = 0; i < p->n_paths[exact_lists[l].list]; i++)
			if (!strcmp(p->paths[exact_lists[l].list][i], rule))
				return true;
	}
	return false;
}

int identity_view_keys(const struct profile *p, uint32_t slot, struct identity_root *root,
		       const struct identity_view *old, struct krsi_inode_key **ret,
		       struct identity_hold **ret_holds, size_t *ret_n)
{
	struct krsi_inode_key *keys;
	struct identity_hold *holds;
	size_t n = 0, max = old ? old->n : 0;

	for (size_t l = 0; l < ARRAY_SIZE(exact_lists); l++)
		max += p->n_paths[exact_lists[l].list];
	for (size_t a = 0; a < ARRAY_SIZE(above_lists); a++)
		for (size_t i = 0; i < p->n_paths[above_lists[a].list]; i++)
			for (const char *c = p->paths[above_lists[a].list][i]; *c; c++)
				max += *c == '/';
	keys = calloc(max + 1, sizeof(*keys));
	holds = calloc(max + 1, sizeof(*holds));
	if (!keys || !holds) {
		free(keys);
		free(holds);
		return -ENOMEM;
	}
	for (size_t l = 0; l < ARRAY_SIZE(exact_lists); l++) {
		enum profile_path_list list = exact_lists[l].list;

		for (size_t i = 0; i < p->n_paths[list]; i++) {
			struct krsi_inode_key k = { .slot = slot, .kind = exact_lists[l].kind };
			uint64_t dev, ino;

			if (identity_resolve(root, p->paths[list][i], &dev, &ino, &holds[n]) < 0)
				continue;
			k.dev = dev;
			k.ino = ino;
			if (keys_have(keys, n, &k))
				continue; /* two rules naming one file */
			keys[n] = k;
			holds[n].key = k;
			snprintf(holds[n].rule, sizeof(holds[n].rule), "%s", p->paths[list][i]);
			n++;
		}
	}
	/*
	 * The directories above what an exec allow rule admits ("/a" and "/a/b" for "/a/b/c"):
	 * none may be renamed, or another directory could take the rule's path (see replace in
	 * krsi.h), and the next resolution would admit what it holds. Above a write rule's (and
	 * "/"): not renamed or removed either, and a new name there that is an exact rule's last
	 * component is the rule's path before it exists (write_name_guarded).
	 */
	for (size_t a = 0; a < ARRAY_SIZE(above_lists); a++) {
		enum profile_path_list list = above_lists[a].list;

		for (size_t i = 0; i < p->n_paths[list]; i++) {
			const char *rule = p->paths[list][i];

			/*
			 * A write rule in the kernel's trees: procfs and sysfs make no name and
			 * rename none, so nothing can take the path (and default's rules cost no
			 * resolution more per container start).
			 */
			if (above_lists[a].root &&
			    (!strncmp(rule, "/proc/", 6) || !strncmp(rule, "/sys/", 5)))
				continue;
			for (const char *c = above_lists[a].root ? rule : rule + 1; *c; c++) {
				struct krsi_inode_key k = {
					.slot = slot, .kind = above_lists[a].kind | KRSI_KIND_ABOVE
				};
				char dir[KRSI_PATH_MAX];
				uint64_t dev, ino;

				if (*c != '/' || !c[1])
					continue;
				snprintf(dir, sizeof(dir), "%.*s", c == rule ? 1 : (int)(c - rule), rule);
				if (identity_resolve(root, dir, &dev, &ino, &holds[n]) < 0)
					continue;
				k.dev = dev;
				k.ino = ino;
				if (keys_have(keys, n, &k))
					continue;
				keys[n] = k;
				holds[n].key = k;
				snprintf(holds[n].rule, sizeof(holds[n].rule), "%s", rule);
				n++;
			}
		}
	}
	/*
	 * What left its rule's path but still exists stays denied by identity, while the profile
	 * still has that rule: a rule taken out of the profile takes its identities with it.
	 */
	for (size_t i = 0; old && old->holds && i < old->n; i++) {
		struct krsi_inode_key k = old->keys[i];

		k.slot = slot;
		if (k.kind & KRSI_KIND_ABOVE || keys_have(keys, n, &k) ||
		    !rule_kept(p, k.kind, old->holds[i].rule) ||
		    !identity_hold_alive(&old->holds[i], root))
			continue;
		keys[n] = k;
		holds[n] = old->holds[i];
		holds[n].key = k;
		n++;
	}
	*ret = keys;
	*ret_holds = holds;
	*ret_n = n;
	return 0;
}
