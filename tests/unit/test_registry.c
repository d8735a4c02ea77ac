// SPDX-License-Identifier: GPL-2.0
#include "../../agent/cgroup.h"
#include "../../agent/registry.h"
#include "unit.h"

static struct registry_entry entry(const char *c, const char *cg, uint64_t id, const char *p)
{
	struct registry_entry e = { .cgroup_id = id };

	snprintf(e.container, sizeof(e.container), "%s", c);
	snprintf(e.cgroup, sizeof(e.cgroup), "%s", cg);
	snprintf(e.profile, sizeof(e.profile), "%s", p);
	return e;
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
	registry_clear(&r);

	CHECK(cgroup_parse_proc("0::/c1\n", buf, sizeof(buf)) == 0 && !strcmp(buf, "/c1"),
	      "cgroup2 line parsed");
	CHECK(cgroup_parse_proc("12:cpu:/x\n0::/a/b\n", buf, sizeof(buf)) == 0 &&
		      !strcmp(buf, "/a/b"),
	      "cgroup2 line found among v1 lines");
	CHECK(cgroup_parse_proc("12:cpu:/x\n", buf, sizeof(buf)) == -ENODATA, "no cgroup2 line");
	CHECK(cgroup_parse_proc("0::/gone (deleted)\n", buf, sizeof(buf)) == -ENOENT,
	      "a deleted cgroup");
}
