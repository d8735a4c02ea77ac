// SPDX-License-Identifier: GPL-2.0
#include "lib/cgroup.h"
#include "policy/registry.h"
#include "unit.h"

/* An entry to add: its strings are the caller's, registry_add() copies them. */
static struct registry_entry entry(const char *c, const char *cg, uint64_t id, const char *p)
{
	return (struct registry_entry){
		.container = c, .cgroup = cg, .cgroup_id = id, .profile = p
	};
}

/* Container I of many: a container id, a cgroup path and a cgroup id of its own. */
struct many {
	char c[KRSI_CONTAINER_MAX], cg[KRSI_CGROUP_PATH_MAX];
	struct registry_entry e;
};

static struct registry_entry *many_entry(struct many *m, size_t i, const char *profile)
{
	snprintf(m->c, sizeof(m->c), "ctr-%zu", i);
	snprintf(m->cg, sizeof(m->cg), "/pods/pod-%zu/ctr-%zu", i / 4, i);
	m->e = entry(m->c, m->cg, 1000 + 3 * i, profile);
	return &m->e;
}

/* Every entry of R sits where its position says and both indices find it. */
static bool consistent(struct registry *r)
{
	for (size_t i = 0; i < r->n; i++) {
		struct registry_entry *e = r->v[i];

		if (e->pos != i || registry_find(r, e->container) != e ||
		    registry_find_cgroup(r, e->cgroup_id) != e)
			return false;
	}
	return true;
}

/*
 * KRSI_MAX_CGROUPS entries, half of them removed from the middle and added again: the entries
 * are found by both keys, and a pointer to one stays valid across the others' adds and removes.
 */
static void test_registry_many(void)
{
	const size_t n = KRSI_MAX_CGROUPS;
	struct registry r = { 0 };
	struct krsi_err err = { "" };
	struct registry_entry **p = calloc(n, sizeof(*p));
	struct many m;
	size_t bad = 0, found = 0;

	if (!p) {
		CHECK(false, "%zu entries: out of memory", n);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		if (registry_add(&r, many_entry(&m, i, i % 2 ? "odd" : "even"), &err) != 0)
			bad++;
		p[i] = registry_find(&r, m.c);
	}
	CHECK(!bad && r.n == n, "%zu entries added", n);
	CHECK(consistent(&r), "each of them found by container and by cgroup id");
	CHECK(registry_count_profile(&r, "odd") == n / 2 && registry_count_profile(&r, "none") == 0,
	      "profile counts among %zu entries", n);
	CHECK(registry_add(&r, many_entry(&m, n, "odd"), &err) == -ENOSPC, "entry %zu: -ENOSPC",
	      n + 1);
	CHECK_STR(err.msg, "container ctr-16384: registry full (16384 entries)", "its message");
	CHECK(!registry_find(&r, "ctr-16384") && !registry_find_cgroup(&r, 1000 + 3 * n),
	      "the refused entry is not found");

	/* Every other one of the middle half out: the last entries move into their places. */
	for (size_t i = n / 4; i < 3 * n / 4; i += 2) {
		snprintf(m.c, sizeof(m.c), "ctr-%zu", i);
		bad += registry_remove(&r, m.c) != 0;
		p[i] = NULL;
	}
	for (size_t i = 0; i < n; i++) {
		struct registry_entry *e;

		snprintf(m.c, sizeof(m.c), "ctr-%zu", i);
		e = registry_find(&r, m.c);
		if (p[i]) {
			found++;
			bad += e != p[i] || registry_find_cgroup(&r, 1000 + 3 * i) != p[i] ||
			       strcmp(p[i]->container, m.c) || p[i]->cgroup_id != 1000 + 3 * i;
		} else {
			bad += e || registry_find_cgroup(&r, 1000 + 3 * i);
		}
	}
	CHECK(!bad && r.n == found && found < n && consistent(&r),
	      "%zu removed from the middle: the others found at the same address, the removed not",
	      n - found);
	CHECK(registry_remove(&r, registry_find(&r, "ctr-0")->container) == 0 &&
		      !registry_find(&r, "ctr-0") && !registry_find_cgroup(&r, 1000),
	      "removing an entry by its own container string");
	p[0] = NULL;

	for (size_t i = 0; i < n; i++) {
		if (p[i])
			continue;
		bad += registry_add(&r, many_entry(&m, i, "even"), &err) != 0;
		p[i] = registry_find(&r, m.c);
	}
	for (size_t i = 0; i < n; i++) {
		snprintf(m.c, sizeof(m.c), "ctr-%zu", i);
		bad += registry_find(&r, m.c) != p[i] ||
		       registry_find_cgroup(&r, 1000 + 3 * i) != p[i];
	}
	CHECK(!bad && r.n == n && consistent(&r), "the removed ones added again: all %zu found", n);
	CHECK(registry_count_profile(&r, "odd") + registry_count_profile(&r, "even") == n,
	      "profile counts after the churn");
	registry_clear(&r);
	CHECK(r.n == 0 && !registry_find(&r, "ctr-1") && !registry_find_cgroup(&r, 1003) &&
		      registry_level_mask(&r) == 0 && registry_count_profile(&r, "even") == 0,
	      "cleared: nothing found");
	free(p);
}

/*
 * Random adds and removes over a small key space, checked against a plain array after each:
 * probe sequences that wrap around the end of the indices, and holes shifted back into them.
 */
static void test_registry_churn(void)
{
	enum { KEYS = 600, OPS = 100000 };
	struct registry_entry *model[KEYS] = { 0 };
	struct registry r = { 0 };
	struct krsi_err err = { "" };
	uint64_t seed = 42;
	size_t bad = 0, n = 0, max = 0;
	struct many m;

	for (int op = 0; op < OPS; op++) {
		size_t k;

		seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
		k = (seed >> 33) % KEYS;
		if (model[k]) {
			snprintf(m.c, sizeof(m.c), "ctr-%zu", k);
			bad += registry_remove(&r, m.c) != 0;
			model[k] = NULL;
			n--;
		} else {
			bad += registry_add(&r, many_entry(&m, k, "p"), &err) != 0;
			model[k] = registry_find(&r, m.c);
			n++;
		}
		if (n > max)
			max = n;
		if (op % 97)
			continue;
		for (k = 0; k < KEYS; k++) {
			snprintf(m.c, sizeof(m.c), "ctr-%zu", k);
			bad += registry_find(&r, m.c) != model[k] ||
			       registry_find_cgroup(&r, 1000 + 3 * k) != model[k];
		}
		bad += r.n != n || !consistent(&r);
	}
	CHECK(!bad && consistent(&r) && registry_count_profile(&r, "p") == n,
	      "%d random adds and removes (up to %zu entries): both indices agree with a model",
	      OPS, max);
	registry_clear(&r);
}

/* Strings past the pinned map's field sizes are refused, with the input named. */
static void test_registry_limits(void)
{
	struct registry r = { 0 };
	struct krsi_err err = { "" };
	struct registry_entry e, *cur;
	char long_c[KRSI_CONTAINER_MAX + 1], long_cg[KRSI_CGROUP_PATH_MAX + 1];
	char long_fs[KRSI_ROOTFS_MAX + 1], long_p[KRSI_NAME_MAX + 1];
	char cg[KRSI_CGROUP_PATH_MAX], fs[] = "/bundles/c1/rootfs";
	size_t users;

	memset(long_c, 'c', sizeof(long_c) - 1);
	long_c[sizeof(long_c) - 1] = 0;
	long_cg[0] = '/';
	memset(long_cg + 1, 'g', sizeof(long_cg) - 2);
	long_cg[sizeof(long_cg) - 1] = 0;
	long_fs[0] = '/';
	memset(long_fs + 1, 'f', sizeof(long_fs) - 2);
	long_fs[sizeof(long_fs) - 1] = 0;
	memset(long_p, 'p', sizeof(long_p) - 1);
	long_p[sizeof(long_p) - 1] = 0;

	e = entry(long_c, "/c1", 100, "default");
	CHECK(registry_add(&r, &e, &err) == -ENAMETOOLONG, "a 128-byte container id is refused");
	CHECK_STR(err.msg,
		  "container cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc...: "
		  "128 bytes long, longer than the 127 krsi keeps",
		  "its message names it");
	e = entry("c1", long_cg, 100, "default");
	CHECK(registry_add(&r, &e, &err) == -ENAMETOOLONG, "a 512-byte cgroup path is refused");
	CHECK_STR(err.msg,
		  "cgroup /ggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggg...: "
		  "512 bytes long, longer than the 511 krsi keeps",
		  "its message names it");
	e = entry("c1", "/c1", 100, "default");
	e.rootfs = long_fs;
	CHECK(registry_add(&r, &e, &err) == -ENAMETOOLONG && strstr(err.msg, "rootfs /fff") &&
		      strstr(err.msg, "512 bytes long"),
	      "a 512-byte rootfs is refused: %s", err.msg);
	e = entry("c1", "/c1", 100, long_p);
	CHECK(registry_add(&r, &e, &err) == -ENAMETOOLONG && strstr(err.msg, "profile ppp"),
	      "a 64-byte profile name is refused: %s", err.msg);
	CHECK(r.n == 0 && registry_bytes(&r) == 0, "nothing added, nothing allocated");

	/* The longest strings accepted are kept whole. */
	long_cg[KRSI_CGROUP_PATH_MAX - 1] = 0;
	long_fs[KRSI_ROOTFS_MAX - 1] = 0;
	e = entry("c1", long_cg, 100, "default");
	e.rootfs = long_fs;
	CHECK(registry_add(&r, &e, &err) == 0 && (cur = registry_find(&r, "c1")) &&
		      strlen(cur->cgroup) == KRSI_CGROUP_PATH_MAX - 1 &&
		      strlen(cur->rootfs) == KRSI_ROOTFS_MAX - 1,
	      "a 511-byte cgroup path and rootfs are kept whole");
	CHECK(registry_remove(&r, "c1") == 0, "and removed");

	/* The entry holds copies: the caller's buffers may change or go. */
	snprintf(cg, sizeof(cg), "/c1");
	e = entry("c1", cg, 100, "default");
	e.rootfs = fs;
	CHECK(registry_add(&r, &e, &err) == 0, "add c1 with a rootfs");
	cg[1] = 'x';
	fs[1] = 'x';
	cur = registry_find(&r, "c1");
	CHECK_STR(cur->cgroup, "/c1", "its cgroup is a copy");
	CHECK_STR(cur->rootfs, "/bundles/c1/rootfs", "its rootfs is a copy");

	CHECK(registry_entry_set_rootfs(cur, long_fs, &err) == 0, "a 511-byte rootfs set");
	long_fs[KRSI_ROOTFS_MAX - 1] = 'f';
	CHECK(registry_entry_set_rootfs(cur, long_fs, &err) == -ENAMETOOLONG &&
		      strstr(err.msg, "rootfs /fff") &&
		      strlen(cur->rootfs) == KRSI_ROOTFS_MAX - 1,
	      "a 512-byte one refused, the old one kept: %s", err.msg);
	CHECK(registry_entry_set_rootfs(cur, cur->rootfs, &err) == 0 &&
		      strlen(cur->rootfs) == KRSI_ROOTFS_MAX - 1,
	      "setting the rootfs it has");
	CHECK(registry_entry_set_rootfs(cur, NULL, &err) == 0 && !strcmp(cur->rootfs, ""),
	      "a NULL rootfs is \"\"");
	CHECK(registry_set_profile(&r, cur, "audit", &err) == 0 && !strcmp(cur->profile, "audit") &&
		      registry_count_profile(&r, "audit") == 1 &&
		      registry_count_profile(&r, "default") == 0,
	      "profile set: the counts follow");
	users = registry_count_profile(&r, "audit");
	CHECK(registry_set_profile(&r, cur, long_p, &err) == -ENAMETOOLONG &&
		      !strcmp(cur->profile, "audit") &&
		      registry_count_profile(&r, "audit") == users,
	      "a 64-byte profile name refused, the old one kept: %s", err.msg);
	CHECK(registry_set_profile(&r, cur, cur->profile, &err) == 0 &&
		      registry_count_profile(&r, "audit") == 1,
	      "setting the profile it has");

	/* Registered again in its cgroup: the new profile and rootfs. */
	e = entry("c1", "/c1", 100, "web");
	e.rootfs = "/bundles/c1b/rootfs";
	CHECK(registry_add(&r, &e, &err) == 1 && !strcmp(cur->profile, "web") &&
		      !strcmp(cur->rootfs, "/bundles/c1b/rootfs") && registry_find(&r, "c1") == cur,
	      "re-registering c1 sets its profile and rootfs in the same entry");
	registry_clear(&r);
}

/* The level mask follows the entries at each depth as they come and go. */
static void test_registry_levels(void)
{
	struct registry r = { 0 };
	struct krsi_err err = { "" };
	struct registry_entry e;

	e = entry("a", "/a", 1, "p");
	registry_add(&r, &e, &err);
	e = entry("b", "/b", 2, "p");
	registry_add(&r, &e, &err);
	e = entry("c", "/x/y/c", 3, "p");
	registry_add(&r, &e, &err);
	CHECK(registry_level_mask(&r) == 0xa && r.levels[1] == 2 && r.levels[3] == 1,
	      "levels 1 (twice) and 3 in the mask");
	registry_remove(&r, "a");
	CHECK(registry_level_mask(&r) == 0xa, "one of two at level 1 gone: level 1 stays");
	registry_remove(&r, "b");
	CHECK(registry_level_mask(&r) == 0x8, "the last at level 1 gone: level 1 goes");
	e = entry("a", "/a", 1, "p");
	CHECK(registry_add(&r, &e, &err) == 0 && registry_level_mask(&r) == 0xa,
	      "added again: level 1 back");
	e = entry("a", "/a", 1, "q");
	CHECK(registry_add(&r, &e, &err) == 1 && r.levels[1] == 1,
	      "registered again: counted once");
	registry_remove(&r, "a");
	registry_remove(&r, "c");
	CHECK(registry_level_mask(&r) == 0, "all gone: an empty mask");
	registry_clear(&r);
}

/*
 * What an entry costs at 10,000 containers (issue 12: krsid within 20 MB): a 64-byte container
 * id, a 60-byte cgroup path and a 60-byte rootfs. Fixed 512-byte buffers in a doubling array
 * cost about 2 KB.
 */
static void test_registry_memory(void)
{
	const size_t n = 10000;
	struct registry r = { 0 };
	struct krsi_err err = { "" };
	char c[65], cg[61], fs[61];
	struct registry_entry e;
	size_t bad = 0, per;

	for (size_t i = 0; i < n; i++) {
		snprintf(c, sizeof(c), "%064zx", i);
		snprintf(cg, sizeof(cg), "/kubepods.slice/kubepods-burstable.slice/crio-%014zx", i);
		snprintf(fs, sizeof(fs), "/var/lib/containers/storage/overlay/%024zx", i);
		e = entry(c, cg, 5000 + i, i % 3 ? "default" : "web");
		e.rootfs = fs;
		bad += registry_add(&r, &e, &err) != 0;
	}
	per = registry_bytes(&r) / n;
	CHECK(!bad && strlen(cg) == 60 && strlen(fs) == 60 && per < 400,
	      "%zu bytes an entry at %zu containers (60-byte cgroup and rootfs), under 400", per,
	      n);
	registry_clear(&r);
	CHECK(registry_bytes(&r) == 0, "cleared: no bytes held");
}

void test_registry(void)
{
	struct registry r = { 0 };
	struct krsi_err err = { "" };
	struct registry_entry e;
	char buf[256], deep[1024];
	size_t off = 0;

	CHECK(registry_cgroup_level("/") == 0 && registry_cgroup_level("/a") == 1 &&
		      registry_cgroup_level("/a/b") == 2 && registry_cgroup_level("/a/b/") == 2,
	      "cgroup depth");
	CHECK(registry_level_mask(&r) == 0, "empty registry: no level to look up");
	e = entry("c1", "/c1", 100, "default");
	CHECK(registry_add(&r, &e, &err) == 0, "add c1");
	e = entry("c2", "/pods/c2", 200, "audit");
	CHECK(registry_add(&r, &e, &err) == 0, "add c2");
	CHECK(registry_level_mask(&r) == 0x6, "levels 1 and 2 in the mask");
	CHECK(registry_find(&r, "c2") && registry_find(&r, "c2")->level == 2, "find by container");
	CHECK(registry_find_cgroup(&r, 100) && !strcmp(registry_find_cgroup(&r, 100)->container, "c1"),
	      "find by cgroup id");
	e = entry("c1", "/c1", 100, "audit");
	CHECK(registry_add(&r, &e, &err) == 1 && !strcmp(registry_find(&r, "c1")->profile, "audit"),
	      "re-registering c1 in its cgroup reassigns its profile");
	e = entry("c1", "/other", 101, "audit");
	CHECK(registry_add(&r, &e, &err) == -EEXIST, "c1 in another cgroup refused");
	CHECK_STR(err.msg, "container c1: already registered with cgroup /c1", "its message");
	e = entry("c3", "/c1", 100, "audit");
	CHECK(registry_add(&r, &e, &err) == -EEXIST, "another container in c1's cgroup refused");
	CHECK_STR(err.msg, "cgroup /c1: already registered for container c1", "its message");
	CHECK(registry_count_profile(&r, "audit") == 2, "two containers use audit");
	CHECK(registry_remove(&r, "c1") == 0 && !registry_find(&r, "c1"), "remove c1");
	CHECK(registry_remove(&r, "c1") == -ENOENT, "remove c1 again: -ENOENT");
	CHECK(registry_level_mask(&r) == 0x4, "level 1 gone from the mask");
	for (int i = 0; i < 64; i++)
		off += snprintf(deep + off, sizeof(deep) - off, "/d");
	e = entry("c4", deep, 400, "audit");
	CHECK(registry_add(&r, &e, &err) == -E2BIG, "a cgroup 64 levels deep is refused");
	CHECK(!registry_find(&r, "c4") && !registry_find_cgroup(&r, 400), "and not added");
	registry_clear(&r);
	test_registry_many();
	test_registry_churn();
	test_registry_limits();
	test_registry_levels();
	test_registry_memory();

	CHECK(cgroup_parse_proc("0::/c1\n", buf, sizeof(buf)) == 0 && !strcmp(buf, "/c1"),
	      "cgroup2 line parsed");
	CHECK(cgroup_parse_proc("12:cpu:/x\n0::/a/b\n", buf, sizeof(buf)) == 0 &&
		      !strcmp(buf, "/a/b"),
	      "cgroup2 line found among v1 lines");
	CHECK(cgroup_parse_proc("12:cpu:/x\n", buf, sizeof(buf)) == -ENODATA, "no cgroup2 line");
	CHECK(cgroup_parse_proc("0::/gone (deleted)\n", buf, sizeof(buf)) == -ENOENT,
	      "a deleted cgroup");
	CHECK(cgroup_parse_populated("populated 0\nfrozen 0\n") == 0 &&
		      cgroup_parse_populated("populated 1\nfrozen 0\n") == 1,
	      "cgroup.events: populated 0 and 1");
	CHECK(cgroup_parse_populated("frozen 0\npopulated 1") == 1,
	      "cgroup.events: populated on the last line, without a newline");
	CHECK(cgroup_parse_populated("frozen 0\n") == -EINVAL &&
		      cgroup_parse_populated("populated 2\n") == -EINVAL &&
		      cgroup_parse_populated("populated 10\n") == -EINVAL &&
		      cgroup_parse_populated("") == -EINVAL,
	      "cgroup.events: no populated line, or another value, is not a guess");
}
