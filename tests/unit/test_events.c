// SPDX-License-Identifier: GPL-2.0
#include "policy/events.h"
#include "unit.h"

static const char *field(json_object *o, const char *k)
{
	json_object *v;

	return json_object_object_get_ex(o, k, &v) ? json_object_get_string(v) : NULL;
}

void test_events(void)
{
	struct krsi_event e = { 0 };
	struct event_names n = { .container = "c1", .profile = "default", .cgroup = "/c1" };
	struct event_ring ring = { 0 };
	json_object *o;

	e.time_ns = 1000000000ULL;
	e.hook = KRSI_HOOK_EXEC;
	e.verdict = KRSI_VERDICT_DENY;
	e.pid = 42;
	memcpy(e.comm, "0123456789abcdef", 16); /* no NUL: comm fills its 16 bytes */
	strcpy(e.path, "/usr/bin/nc");
	o = event_to_json(&e, &n, 1700000000LL * 1000000000LL);
	CHECK_STR(field(o, "time"), "2023-11-14T22:13:21.000000Z", "boot time converted to UTC");
	CHECK_STR(field(o, "hook"), "exec", "hook name");
	CHECK_STR(field(o, "verdict"), "deny", "verdict");
	CHECK_STR(field(o, "container"), "c1", "container");
	CHECK_STR(field(o, "path"), "/usr/bin/nc", "path for exec");
	CHECK_STR(field(o, "comm"), "0123456789abcdef", "a 16-byte comm without NUL is cut safely");
	json_object_put(o);

	memset(&e, 0, sizeof(e));
	e.hook = KRSI_HOOK_CONNECT;
	e.verdict = KRSI_VERDICT_AUDIT;
	e.net.family = 10;
	e.net.port = 443;
	e.net.addr[15] = 1;
	e.suppressed = 3;
	n.container = NULL;
	o = event_to_json(&e, &n, 0);
	CHECK_STR(field(o, "address"), "::1", "IPv6 address");
	CHECK_STR(field(o, "port"), "443", "port");
	CHECK_STR(field(o, "verdict"), "audit", "audit verdict");
	CHECK_STR(field(o, "suppressed"), "3", "suppressed repeats reported");
	CHECK(field(o, "container") == NULL, "no container for an unregistered cgroup");
	json_object_put(o);

	e.hook = KRSI_HOOK_MOUNT;
	e.arg = KRSI_MOUNT_CLONE;
	e.value = 1;
	strcpy(e.path, "tmpfs");
	o = event_to_json(&e, &n, 0);
	CHECK_STR(field(o, "call"), "open_tree_clone", "mount event: the call by its hook");
	CHECK_STR(field(o, "fstype"), "tmpfs", "mount event: the file system type");
	CHECK_STR(field(o, "flags"), "1", "mount event: the call's flags");
	json_object_put(o);
	e.arg = 99;
	o = event_to_json(&e, &n, 0);
	CHECK_STR(field(o, "call"), "unknown", "mount event: an unknown call is named so");
	json_object_put(o);
	e.path[0] = 0;
	e.value = 0;

	e.hook = KRSI_HOOK_KNOB;
	e.arg = KRSI_KNOB_SYSCTL;
	e.value = 77;
	strcpy(e.path, "/proc/sys/kernel/panic");
	o = event_to_json(&e, &n, 0);
	CHECK_STR(field(o, "hook"), "knob", "knob event: its hook");
	CHECK_STR(field(o, "path"), "/proc/sys/kernel/panic", "knob event: the file in its tree");
	CHECK_STR(field(o, "kind"), "sysctl", "knob event: the kind of knob");
	json_object_put(o);
	e.arg = KRSI_KNOB_RELEASE_AGENT;
	o = event_to_json(&e, &n, 0);
	CHECK_STR(field(o, "kind"), "release_agent", "knob event: a cgroup v1 release_agent");
	json_object_put(o);
	e.hook = KRSI_HOOK_BLOCKDEV;
	e.value = 254 << 20 | 0;
	strcpy(e.path, "/dev/vda");
	o = event_to_json(&e, &n, 0);
	CHECK_STR(field(o, "device"), "254:0", "blockdev event: the device's numbers");
	json_object_put(o);
	e.hook = KRSI_HOOK_CGROUP;
	e.arg = KRSI_CGROUP_CLONE;
	e.value = 0;
	e.path[0] = 0;
	o = event_to_json(&e, &n, 0);
	CHECK_STR(field(o, "call"), "clone3", "cgroup event: clone3(CLONE_INTO_CGROUP)");
	CHECK(field(o, "path") == NULL, "cgroup event: no path for a clone");
	json_object_put(o);
	e.arg = KRSI_CGROUP_WRITE;
	e.value = 1;
	strcpy(e.path, "/sys/fs/cgroup/cgroup.procs");
	o = event_to_json(&e, &n, 0);
	CHECK_STR(field(o, "call"), "write", "cgroup event: a write to another cgroup's file");
	CHECK_STR(field(o, "target_cgroup_id"), "1", "cgroup event: the other cgroup");
	json_object_put(o);
	e.path[0] = 0;
	e.value = 0;

	e.hook = KRSI_HOOK_CAPABLE;
	e.arg = 21;
	o = event_to_json(&e, &n, 0);
	CHECK_STR(field(o, "capability"), "CAP_SYS_ADMIN", "capability name");
	json_object_put(o);

	memset(&e, 0, sizeof(e));
	e.hook = KRSI_HOOK_EXEC;
	e.arg = KRSI_CALL_MMAP | KRSI_MATCH_INODE << 8;
	e.dev = 8 << 20 | 3;
	e.value = 1234;
	strcpy(e.path, "/tmp/hl");
	o = event_to_json(&e, &n, 0);
	CHECK_STR(field(o, "call"), "mmap", "exec event: how the code was reached");
	CHECK_STR(field(o, "match"), "inode", "exec event: matched by the file's identity");
	CHECK_STR(field(o, "dev"), "8:3", "exec event: the device as major:minor");
	CHECK_STR(field(o, "inode"), "1234", "exec event: the inode");
	json_object_put(o);

	e.hook = KRSI_HOOK_PATHLESS;
	e.arg = KRSI_CALL_EXECVE | KRSI_MATCH_MEMFD << 8;
	o = event_to_json(&e, &n, 0);
	CHECK_STR(field(o, "hook"), "pathless_exec", "pathless event: hook name");
	CHECK_STR(field(o, "match"), "memfd", "pathless event: a memory file");
	CHECK_STR(field(o, "call"), "execve", "pathless event: by execve");
	json_object_put(o);

	e.hook = KRSI_HOOK_OPEN_READ;
	e.arg = KRSI_MATCH_PATH << 8;
	o = event_to_json(&e, &n, 0);
	CHECK(field(o, "call") == NULL, "read event: no call");
	CHECK_STR(field(o, "match"), "path", "read event: matched by path");
	json_object_put(o);

	e.hook = KRSI_HOOK_WX;
	e.arg = KRSI_CALL_MPROTECT | KRSI_WX_WRITTEN << 8;
	e.value = 0x7f0000001000ULL;
	o = event_to_json(&e, &n, 0);
	CHECK_STR(field(o, "call"), "mprotect", "wx event: the call");
	CHECK_STR(field(o, "reason"), "written", "wx event: why");
	json_object_put(o);

	for (int i = 0; i < EVENTS_RECENT + 5; i++)
		event_ring_push(&ring, json_object_new_int(i));
	CHECK(ring.n == EVENTS_RECENT && json_object_get_int(ring.v[ring.next]) == 5,
	      "the recent-events ring keeps the last %d", EVENTS_RECENT);
	event_ring_clear(&ring);
}
