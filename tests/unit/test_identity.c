// SPDX-License-Identifier: GPL-2.0
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <linux/magic.h>
#include <sys/sysmacros.h>

#include "policy/identity.h"
#include "unit.h"

/* A fake inode_rules map: what the table wrote, with a capacity to run out of. */
struct fake_map {
	struct krsi_inode_key keys[64];
	size_t n, cap;
	int writes, deletes;
};

static int fake_find(struct fake_map *m, const struct krsi_inode_key *k)
{
	for (size_t i = 0; i < m->n; i++)
		if (!memcmp(&m->keys[i], k, sizeof(*k)))
			return (int)i;
	return -1;
}

static int fake_write(void *ctx, const struct krsi_inode_key *k, bool add)
{
	struct fake_map *m = ctx;
	int i = fake_find(m, k);

	if (add) {
		if (i >= 0)
			return -EEXIST; /* the table must never write a key twice */
		if (m->n >= m->cap)
			return -E2BIG;
		m->keys[m->n++] = *k;
		m->writes++;
		return 0;
	}
	if (i < 0)
		return -ENOENT;
	m->keys[i] = m->keys[--m->n];
	m->deletes++;
	return 0;
}

static struct krsi_inode_key *keys_of(uint32_t slot, const uint64_t *inos, size_t n)
{
	struct krsi_inode_key *k = calloc(n + 1, sizeof(*k));

	for (size_t i = 0; i < n; i++)
		k[i] = (struct krsi_inode_key){ .slot = slot, .kind = KRSI_PATH_EXEC, .dev = 8 << 20 | 1,
						.ino = inos[i] };
	return k;
}

static bool in_map(struct fake_map *m, uint32_t slot, uint64_t ino)
{
	struct krsi_inode_key k = { .slot = slot, .kind = KRSI_PATH_EXEC, .dev = 8 << 20 | 1, .ino = ino };

	return fake_find(m, &k) >= 0;
}

static void test_parsers(void)
{
	const char *fdinfo = "pos:\t0\nflags:\t012100000\nmnt_id:\t29\nino:\t1234567\n";
	const char *mi = "22 1 254:1 / / rw,relatime shared:1 - ext4 /dev/vda1 rw\n"
			 "29 22 0:25 / /tmp rw,nosuid shared:12 - tmpfs tmpfs rw\n"
			 "30 22 259:3 / /data rw - xfs /dev/nvme0n1p3 rw\n";
	uint64_t mnt = 0, ino = 0, dev = 0;

	CHECK(identity_parse_fdinfo(fdinfo, &mnt, &ino) == 0 && mnt == 29 && ino == 1234567,
	      "fdinfo: mnt_id and ino");
	CHECK(identity_parse_fdinfo("pos:\t0\nflags:\t0\nmnt_id:\t29\n", &mnt, &ino) == -EINVAL,
	      "fdinfo without ino: an error, not a guess");
	CHECK(identity_parse_fdinfo("mnt_id:\t29\nino:\t12x\n", &mnt, &ino) == -EINVAL,
	      "fdinfo with a malformed ino: an error");
	CHECK(identity_mountinfo_dev(mi, 29, &dev, NULL, 0) == 0 && dev == (0ULL << 20 | 25),
	      "mountinfo: 0:25 is the kernel's dev_t 25");
	CHECK(identity_mountinfo_dev(mi, 30, &dev, NULL, 0) == 0 && dev == (259ULL << 20 | 3),
	      "mountinfo: 259:3 is MAJOR << 20 | MINOR");
	CHECK(identity_mountinfo_dev(mi, 31, &dev, NULL, 0) == -ENOENT, "mountinfo: an unknown mount id");
	{
		const char *esc = "41 22 0:50 / /mnt/with\\040space\\134x rw - tmpfs t rw\n";
		char point[64];

		CHECK(identity_mountinfo_dev(esc, 41, &dev, point, sizeof(point)) == 0 &&
			      !strcmp(point, "/mnt/with space\\x"),
		      "mountinfo: the mount point, octal escapes decoded (%s)", point);
		CHECK(identity_mountinfo_dev(esc, 41, &dev, point, 8) == -ENAMETOOLONG,
		      "mountinfo: a mount point longer than the buffer is an error");
		CHECK(identity_mountinfo_dev("2 1 2:1 / \\000x rw - t t rw\n", 2, &dev, point,
					     sizeof(point)) == -EINVAL,
		      "mountinfo: a mount point with an escaped NUL is refused (fuzz regression)");
	}
	CHECK(identity_mountinfo_dev("garbage\n\n", 1, &dev, NULL, 0) == -ENOENT, "mountinfo: garbage");
}

/* Resolution on this machine: the identity of a file is the one stat sees (on a plain fs). */
static void test_resolve(void)
{
	char dir[] = "/tmp/krsi-unit-id.XXXXXX", f[256], l[256], s[256];
	struct identity_root root = { -1, -1, "", NULL };
	struct krsi_err err = { "" };
	uint64_t dev = 0, ino = 0, dev2 = 0, ino2 = 0;
	struct stat st;
	int fd;

	if (!mkdtemp(dir)) {
		CHECK(0, "mkdtemp: %s", strerror(errno));
		return;
	}
	snprintf(f, sizeof(f), "%s/file", dir);
	snprintf(l, sizeof(l), "%s/link", dir);
	snprintf(s, sizeof(s), "%s/sym", dir);
	fd = open(f, O_CREAT | O_WRONLY, 0600);
	close(fd);
	CHECK(link(f, l) == 0 && symlink("file", s) == 0, "fixtures: a hard link and a symlink");
	CHECK(identity_root_open_path("/", &root, &err) == 0, "open the root /");
	CHECK(identity_resolve(&root, f, &dev, &ino, NULL) == 0, "resolve %s", f);
	stat(f, &st);
	CHECK(ino == st.st_ino, "its inode is stat's (%llu, %llu)", (unsigned long long)ino,
	      (unsigned long long)st.st_ino);
	/* Equal to stat's device on file systems that report their superblock's (tmpfs, ext4). */
	CHECK(dev == identity_kdev(major(st.st_dev), minor(st.st_dev)),
	      "its device is the superblock's, in the kernel's encoding");
	CHECK(identity_resolve(&root, l, &dev2, &ino2, NULL) == 0 && dev2 == dev &&
		      ino2 == ino,
	      "a hard link has the same identity");
	CHECK(identity_resolve(&root, s, &dev2, &ino2, NULL) == 0 && ino2 == ino,
	      "a symlink resolves to its target");
	identity_root_close(&root);
	/* In a root of its own: the path is resolved below it, never above. */
	CHECK(identity_root_open_path(dir, &root, &err) == 0, "open %s as a root", dir);
	CHECK(identity_resolve(&root, "/file", &dev2, &ino2, NULL) == 0 && ino2 == ino,
	      "/file inside the root is %s", f);
	CHECK(identity_resolve(&root, f, &dev2, &ino2, NULL) == -ENOENT,
	      "the host path does not exist inside the root");
	CHECK(identity_resolve(&root, "/../../../file", &dev2, &ino2, NULL) == 0 &&
		      ino2 == ino,
	      "\"..\" stops at the root");
	identity_root_close(&root);
	CHECK(identity_root_open_path("/nonexistent/krsi", &root, &err) == -ENOENT &&
		      strstr(err.msg, "/nonexistent/krsi"),
	      "a missing root: an error naming it (%s)", err.msg);
	unlink(s);
	unlink(l);
	unlink(f);
	rmdir(dir);
}

static void test_bundle(void)
{
	char dir[] = "/tmp/krsi-unit-bundle.XXXXXX", cfg[256], buf[512];
	struct krsi_err err = { "" };
	FILE *f;

	if (!mkdtemp(dir)) {
		CHECK(0, "mkdtemp: %s", strerror(errno));
		return;
	}
	snprintf(cfg, sizeof(cfg), "%s/config.json", dir);
	CHECK(identity_bundle_rootfs(dir, buf, sizeof(buf), &err) == -ENOENT &&
		      strstr(err.msg, cfg),
	      "no config.json: an error naming it (%s)", err.msg);
	f = fopen(cfg, "w");
	fputs("{\"ociVersion\":\"1.0.2\",\"root\":{\"path\":\"rootfs\",\"readonly\":true}}", f);
	fclose(f);
	CHECK(identity_bundle_rootfs(dir, buf, sizeof(buf), &err) == 0 &&
		      !strncmp(buf, dir, strlen(dir)) && !strcmp(buf + strlen(dir), "/rootfs"),
	      "a relative root.path is below the bundle (%s)", buf);
	f = fopen(cfg, "w");
	fputs("{\"root\":{\"path\":\"/var/lib/c/merged\"}}", f);
	fclose(f);
	CHECK(identity_bundle_rootfs(dir, buf, sizeof(buf), &err) == 0 &&
		      !strcmp(buf, "/var/lib/c/merged"),
	      "an absolute root.path is taken as is");
	f = fopen(cfg, "w");
	fputs("{\"root\":{\"path\":7}}", f);
	fclose(f);
	CHECK(identity_bundle_rootfs(dir, buf, sizeof(buf), &err) == -EINVAL &&
		      strstr(err.msg, "root.path"),
	      "root.path not a string: an error naming it (%s)", err.msg);
	f = fopen(cfg, "w");
	fputs("{\"root\":", f);
	fclose(f);
	CHECK(identity_bundle_rootfs(dir, buf, sizeof(buf), &err) == -EINVAL &&
		      strstr(err.msg, "not valid JSON at byte 8"),
	      "truncated JSON: an error (%s)", err.msg);
	CHECK(identity_bundle_rootfs("relative/bundle", buf, sizeof(buf), &err) == -EINVAL,
	      "a relative bundle path is refused");
	unlink(cfg);
	rmdir(dir);
}

/* config.json's two readers: jsonr (the scan), and json-c where jsonr does not decide. */
static void test_bundle_scan(void)
{
	static const struct {
		const char *doc, *scan, *full, *why;
	} cases[] = {
		{ "{\"ociVersion\":\"1.0.2\",\"process\":{\"args\":[\"sh\",\"-c\",\"echo \\\"x\\\"\"],"
		  "\"rlimits\":[{\"type\":\"RLIMIT_NOFILE\",\"hard\":1024,\"soft\":1.5e3}]},"
		  "\"root\":{\"path\":\"rootfs\",\"readonly\":true},\"hooks\":{},\"x\":[null,false,-0]}",
		  "rootfs", "/b/rootfs", "a runtime's config: jsonr reads it" },
		{ " \n{\"root\" : { \"path\" : \"/r\\/s\\tx\" } }\r\n", "/r/s\tx", "/r/s\tx",
		  "whitespace and escapes it decodes" },
		{ "{\"root\":{\"path\":\"a\"},\"root\":{\"readonly\":true,\"path\":\"b\",\"path\":\"c\"}}",
		  "c", "/b/c", "a repeated key: the last one, as json-c" },
		{ "{\"root\":{\"path\":\"a\"},\"root\":{\"readonly\":true}}", NULL, NULL,
		  "a later root without a path replaces one with it" },
		{ "{\"root\":{\"path\":\"\\u0072ootfs\"}}", NULL, "/b/rootfs",
		  "\\u in root.path: json-c decodes it" },
		{ "{\"root\":{\"path\":\"x\"},\"ro\\u006ft\":{\"path\":\"y\"}}", "y", "/b/y",
		  "an escaped key is decoded (it is \"root\")" },
		{ "{\"root\":{\"path\":\"x\"},\"root\\u0000\":{\"path\":\"y\"}}", NULL,
		  "/b/y", "an escaped NUL is json-c's to read (it cuts the key: \"root\")" },
		{ "{\"root\":{\"path\":\"a\\u0000b\"}}", NULL, NULL, "an escaped NUL in root.path" },
		{ "{\"root\":{\"path\":\"a\x01\"}}", "a\x01", "/b/a\x01",
		  "a raw control character, as json-c's strict mode takes it" },
		{ "{\"root\":{\"path\":\"x\",}}", NULL, NULL, "a trailing comma is not JSON" },
		{ "{\"root\":{\"path\":\"x\"}} x", NULL, NULL, "data after the document" },
		{ "{\"root\":{\"path\":\"x\"},\"n\":01}", NULL, NULL, "a leading zero" },
		{ "{\"root\":{\"path\":\"\"}}", NULL, NULL, "an empty root.path" },
		{ "{\"root\":{\"path\":\"x\"},\"d\":[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]}",
		  NULL, "/b/x", "nested deeper than the scan goes: json-c decides" },
		{ "{\"root\":{\"path\":\"x\"},"
		  "\"d\":[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]}",
		  "x", "/b/x", "nested 24 deep: the scan reads it" },
		{ "{\"root\":{\"path\":\"x\"},"
		  "\"d\":[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]}",
		  NULL, "/b/x", "nested 25 deep: json-c decides" },
		{ "[{\"root\":{\"path\":\"x\"}}]", NULL, NULL, "not an object" },
	};
	struct krsi_err err = { "" };
	char scan[KRSI_ROOTFS_MAX], buf[KRSI_ROOTFS_MAX];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *d = cases[i].doc;
		int rs = identity_bundle_root_scan(d, strlen(d), scan, sizeof(scan));
		int rj = identity_bundle_rootfs_json("/b", "/b/config.json", d, strlen(d), buf,
						     sizeof(buf), &err);
		int rt;

		if (cases[i].scan)
			CHECK(rs == 0 && !strcmp(scan, cases[i].scan), "scan: %s (%s)", cases[i].why,
			      rs == 0 ? scan : "refused");
		else
			CHECK(rs == -EINVAL, "scan leaves it to json-c: %s", cases[i].why);
		if (cases[i].full)
			CHECK(rj == 0 && !strcmp(buf, cases[i].full), "json-c: %s (%s)", cases[i].why,
			      rj == 0 ? buf : err.msg);
		else
			CHECK(rj < 0 && strstr(err.msg, "/b/config.json"), "json-c refuses: %s (%s)",
			      cases[i].why, err.msg);
		rt = identity_bundle_rootfs_text("/b", "/b/config.json", d, strlen(d), buf,
						 sizeof(buf), &err);
		CHECK(cases[i].full ? rt == 0 && !strcmp(buf, cases[i].full) : rt < 0,
		      "together: %s", cases[i].why);
	}
	/*
	 * A surrogate pair whose code point ends in D800-DFFF (U+1D800), which json-c 0.16 decodes
	 * as U+FFFD (found by the fuzzer): krsid reads root.path as json-c does, whatever that is.
	 */
	{
		static const char doc[] = "{\"root\":{\"path\":\"\\ud836\\udc00\"}}";
		char full[KRSI_ROOTFS_MAX];
		int rj = identity_bundle_rootfs_json("/b", "/b/config.json", doc, strlen(doc), full,
						     sizeof(full), &err);

		CHECK(identity_bundle_root_scan(doc, strlen(doc), scan, sizeof(scan)) == -EINVAL &&
			      identity_bundle_rootfs_text("/b", "/b/config.json", doc, strlen(doc),
							  buf, sizeof(buf), &err) == rj &&
			      (rj < 0 || !strcmp(buf, full)),
		      "a surrogate pair in root.path: read as json-c reads it");
	}
	/* A relative root.path that fits alone, not below the bundle (found by the fuzzer). */
	{
		char doc[KRSI_ROOTFS_MAX + 64], name[KRSI_ROOTFS_MAX - 1]; /* 510 bytes and the NUL */

		memset(name, 'x', sizeof(name) - 1);
		name[sizeof(name) - 1] = 0;
		snprintf(doc, sizeof(doc), "{\"root\":{\"path\":\"%s\"}}", name);
		CHECK(identity_bundle_root_scan(doc, strlen(doc), scan, sizeof(scan)) == 0 &&
			      identity_bundle_rootfs_text("/b", "/b/config.json", doc, strlen(doc), buf,
							  sizeof(buf), &err) == -ENAMETOOLONG &&
			      strstr(err.msg, "/b/config.json") && strstr(err.msg, "too long"),
		      "a root.path that fits alone but not below its bundle: an error naming the file (%s)",
		      err.msg);
	}
}

/* A view refreshed after its file was renamed, deleted, replaced. */
/*
 * The two ways of resolving agree: statx() where the file system is trusted to report what the
 * programs see, /proc fdinfo and mountinfo everywhere (root.slow).
 */
static void test_resolve_ways(void)
{
	const char *paths[] = { "/proc/version", "/dev/shm", "/etc/passwd", "/tmp" };
	struct krsi_err err = { "" };

	CHECK(identity_statx_trusted(EXT4_SUPER_MAGIC) && identity_statx_trusted(TMPFS_MAGIC) &&
		      identity_statx_trusted(PROC_SUPER_MAGIC),
	      "statx is trusted on ext4, tmpfs and proc");
	CHECK(!identity_statx_trusted(OVERLAYFS_SUPER_MAGIC) &&
		      !identity_statx_trusted(BTRFS_SUPER_MAGIC) &&
		      !identity_statx_trusted(FUSE_SUPER_MAGIC),
	      "statx is not trusted on overlayfs, btrfs or FUSE (they report another inode)");
	for (size_t i = 0; i < ARRAY_SIZE(paths); i++) {
		struct identity_root fast = { -1, -1, "", NULL }, slow = { -1, -1, "", NULL };
		struct identity_hold hf, hs;
		uint64_t df = 0, inf = 0, ds = 1, ins = 1;
		struct statfs sf;
		bool trusted;

		if (statfs(paths[i], &sf) < 0)
			continue; /* not on this machine */
		trusted = identity_statx_trusted(sf.f_type);
		identity_root_open_path("/", &fast, &err);
		identity_root_open_path("/", &slow, &err);
		slow.slow = true;
		CHECK(identity_resolve(&fast, paths[i], &df, &inf, &hf) == 0 &&
			      identity_resolve(&slow, paths[i], &ds, &ins, &hs) == 0 && df == ds &&
			      inf == ins && hf.mnt_id == hs.mnt_id,
		      "%s (fs magic %#lx): statx and /proc give one identity", paths[i],
		      (unsigned long)sf.f_type);
		CHECK(hs.mount_point[0] && (trusted ? !hf.mount_point[0] && !fast.mountinfo_text
						    : !strcmp(hf.mount_point, hs.mount_point)),
		      "%s: %s", paths[i],
		      trusted ? "statx: no mountinfo read, the mount point is looked up when needed"
			      : "untrusted file system: resolved by /proc, mount point and all");
		identity_root_close(&fast);
		identity_root_close(&slow);
	}
}

/* The identity filter's bit (krsi.h): what the programs and krsid both compute. */
static void test_inode_bit(void)
{
	static uint8_t seen[1u << KRSI_INODE_FILTER_LOG2];
	size_t distinct = 0, moved = 0;

	memset(seen, 0, sizeof(seen));
	for (uint64_t ino = 1000; ino < 11000; ino++) {
		uint32_t b = krsi_inode_bit(5, KRSI_PATH_READ, 259ULL << 20 | 3, ino);

		distinct += !seen[b];
		seen[b] = 1;
		moved += b != krsi_inode_bit(6, KRSI_PATH_READ, 259ULL << 20 | 3, ino);
		moved += b != krsi_inode_bit(5, KRSI_PATH_EXEC, 259ULL << 20 | 3, ino);
		moved += b != krsi_inode_bit(5, KRSI_PATH_READ, 259ULL << 20 | 4, ino);
	}
	CHECK(krsi_inode_bit(5, KRSI_PATH_READ, 7, 42) == krsi_inode_bit(5, KRSI_PATH_READ, 7, 42) &&
		      krsi_inode_bit(~0u, ~0u, ~0ULL, ~0ULL) < 1u << KRSI_INODE_FILTER_LOG2,
	      "the filter bit is a function of the key, within the filter");
	/* 10,000 keys in 1,048,576 bits: about 48 shared by chance. */
	CHECK(distinct >= 9900, "10,000 consecutive inodes take %zu distinct bits (>= 9,900)",
	      distinct);
	CHECK(moved >= 29900, "another slot, kind or device moves the bit (%zu of 30,000)", moved);
}

static void test_holds(bool slow)
{
	char dir[] = "/dev/shm/krsi-unit-hold.XXXXXX", f[256], g[256], path[] = "/file";
	char *exec_rules[] = { path };
	struct profile p = { .name = "t" };
	struct identity_root root = { -1, -1, "", NULL };
	struct identity_view v = { .slot = 1 };
	struct krsi_err err = { "" };
	struct krsi_inode_key *keys;
	struct identity_hold *holds;
	struct stat st;
	uint64_t ino;
	size_t n;
	int fd;

	/* tmpfs: it gives file handles, as ext4, xfs and btrfs do. */
	if (!mkdtemp(dir)) {
		CHECK(0, "mkdtemp: %s", strerror(errno));
		return;
	}
	snprintf(f, sizeof(f), "%s/file", dir);
	snprintf(g, sizeof(g), "%s/renamed", dir);
	fd = open(f, O_CREAT | O_WRONLY, 0600);
	close(fd);
	stat(f, &st);
	ino = st.st_ino;
	p.paths[PROFILE_EXEC] = exec_rules;
	p.n_paths[PROFILE_EXEC] = 1;
	identity_root_open_path(dir, &root, &err);
	root.slow = slow;
	CHECK(identity_view_keys(&p, 1, &root, NULL, &keys, &holds, &n) == 0 && n == 1 &&
		      keys[0].ino == ino && keys[0].kind == KRSI_PATH_EXEC && keys[0].slot == 1 &&
		      holds[0].has_handle && (slow ? holds[0].mount_point[0] : !holds[0].mount_point[0]),
	      "the rule's file resolves, with a file handle (%s)",
	      slow ? "by /proc, its mount point read" : "by statx, its mount point left for later");
	v.keys = keys;
	v.holds = holds;
	v.n = n;
	rename(f, g);
	CHECK(identity_view_keys(&p, 2, &root, &v, &keys, &holds, &n) == 0 && n == 1 &&
		      keys[0].ino == ino && keys[0].slot == 2,
	      "renamed away from the rule's path, it stays (under the new slot)");
	{
		char other[] = "/elsewhere", *other_rules[] = { other };
		struct profile q = { .name = "t", .paths[PROFILE_EXEC] = other_rules,
				     .n_paths[PROFILE_EXEC] = 1 };
		struct krsi_inode_key *k2;
		struct identity_hold *h2;
		size_t n2;

		CHECK(identity_view_keys(&q, 3, &root, &v, &k2, &h2, &n2) == 0 && n2 == 0,
		      "a version without the rule does not carry the renamed file's identity");
		free(k2);
		free(h2);
	}
	free(v.keys);
	free(v.holds);
	v.keys = keys;
	v.holds = holds;
	v.n = n;
	fd = open(f, O_CREAT | O_WRONLY, 0600);
	close(fd);
	stat(f, &st);
	CHECK(identity_view_keys(&p, 2, &root, &v, &keys, &holds, &n) == 0 && n == 2 &&
		      keys[0].ino == st.st_ino && keys[1].ino == ino,
	      "a new file at the rule's path is added; the renamed one stays");
	free(keys);
	free(holds);
	unlink(g);
	if (geteuid() == 0) {
		CHECK(identity_view_keys(&p, 2, &root, &v, &keys, &holds, &n) == 0 && n == 1 &&
			      keys[0].ino == st.st_ino,
		      "deleted, the renamed file's identity goes: its handle no longer opens");
	} else {
		CHECK(identity_view_keys(&p, 2, &root, &v, &keys, &holds, &n) == 0 && n == 2,
		      "without CAP_DAC_READ_SEARCH a handle cannot be tried: the identity stays");
	}
	free(keys);
	free(holds);
	free(v.keys);
	free(v.holds);
	v.holds = NULL;
	identity_root_close(&root);
	unlink(f);
	rmdir(dir);
}

static void test_table(void)
{
	struct fake_map m = { .cap = 64 };
	struct identity_table t = { .write = fake_write, .ctx = &m };
	struct krsi_err err = { "" };
	uint64_t a[] = { 10, 11, 12 }, b[] = { 11, 13 }, c[] = { 20, 21, 22, 23, 24 };

	CHECK(identity_view_set(&t, "p", IDENTITY_HOST, 1, keys_of(1, a, 3), NULL, 3, &err) == 0 &&
		      m.n == 3,
	      "a host view writes its three keys");
	CHECK(identity_view_set(&t, "c1", IDENTITY_LIVE, 1, keys_of(1, b, 2), NULL, 2, &err) == 0 &&
		      m.n == 4 && m.writes == 4,
	      "a container view sharing key 11 writes only key 13");
	CHECK(identity_view_set(&t, "p", IDENTITY_HOST, 1, keys_of(1, b, 1), NULL, 0, &err) == 0 &&
		      m.n == 2 && in_map(&m, 1, 11) && in_map(&m, 1, 13) && !in_map(&m, 1, 10),
	      "emptying the host view deletes 10 and 12, keeps 11 (held by c1)");
	identity_view_drop(&t, "c1", -1, -1);
	CHECK(m.n == 0 && t.n_refs == 0, "dropping c1 deletes the rest");

	/* A reload: the new slot's keys go in before the old slot's go. */
	identity_view_set(&t, "p", IDENTITY_HOST, 1, keys_of(1, a, 3), NULL, 3, &err);
	identity_view_set(&t, "p", IDENTITY_HOST, 2, keys_of(2, a, 3), NULL, 3, &err);
	CHECK(m.n == 6, "slots 1 and 2 side by side during the grace period");
	identity_drop_slot(&t, 1);
	CHECK(m.n == 3 && in_map(&m, 2, 10) && !in_map(&m, 1, 10), "collecting slot 1 leaves slot 2");

	/* The map runs out: nothing half applied, the old view stays. */
	m.cap = 5;
	CHECK(identity_view_set(&t, "c2", IDENTITY_BUNDLE, 2, keys_of(2, c, 5), NULL, 5, &err) == -E2BIG &&
		      strstr(err.msg, "inode_rules map is full"),
	      "a view that does not fit fails with an error naming the map (%s)", err.msg);
	CHECK(m.n == 3 && !identity_view_find(&t, "c2", IDENTITY_BUNDLE, 2),
	      "and takes back the keys it wrote: the map is as before");
	CHECK(identity_view_set(&t, "p", IDENTITY_HOST, 2, keys_of(2, c, 5), NULL, 5, &err) == -E2BIG &&
		      m.n == 3 && in_map(&m, 2, 10) && in_map(&m, 2, 12),
	      "replacing a view that does not fit keeps the old one");
	m.cap = 64;

	/* Many keys, freed and taken again: the buckets' tombstones never fill the table. */
	for (int round = 0; round < 50; round++) {
		struct krsi_inode_key *k = calloc(40, sizeof(*k));

		for (int i = 0; i < 40; i++)
			k[i] = (struct krsi_inode_key){ .slot = 9, .kind = 1, .dev = 1,
							.ino = (uint64_t)round * 1000 + i };
		m.cap = 64;
		identity_view_set(&t, "churn", IDENTITY_LIVE, 9, k, NULL, 40, &err);
	}
	CHECK(t.n_refs == 43 && m.n == 43 && t.n_used * 2 <= t.cap_refs,
	      "after 2000 keys came and went: 43 held, %zu of %zu buckets used", t.n_used,
	      t.cap_refs);
	identity_table_clear(&t);
}

void test_identity(void)
{
	test_parsers();
	test_resolve();
	test_resolve_ways();
	test_inode_bit();
	test_bundle();
	test_bundle_scan();
	test_holds(false);
	test_holds(true);
	test_table();
}
