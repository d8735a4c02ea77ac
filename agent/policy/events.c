// SPDX-License-Identifier: GPL-2.0
#include <arpa/inet.h>
#include <string.h>
#include <time.h>

#include "policy/events.h"
#include "policy/names.h"
#include "lib/util.h"

static void add_str(json_object *o, const char *k, const char *v)
{
	if (v)
		json_object_object_add(o, k, json_object_new_string(v));
}

static void add_int(json_object *o, const char *k, int64_t v)
{
	json_object_object_add(o, k, json_object_new_int64(v));
}

static const char *call_str(int call)
{
	switch (call) {
	case KRSI_CALL_EXECVE: return "execve";
	case KRSI_CALL_MMAP: return "mmap";
	case KRSI_CALL_MPROTECT: return "mprotect";
	case KRSI_CALL_PERSONALITY: return "personality";
	case KRSI_CALL_OPEN: return "open";
	case KRSI_CALL_PTRACE: return "ptrace";
	}
	return NULL;
}

/* How a path hook matched: the path (or, for pathless code, why it has none) or the inode. */
static const char *match_str(int m)
{
	switch (m) {
	case KRSI_MATCH_PATH: return "path";
	case KRSI_MATCH_INODE: return "inode";
	case KRSI_MATCH_MEMFD: return "memfd";
	case KRSI_MATCH_UNLINKED: return "unlinked";
	case KRSI_MATCH_NOT_ALLOWED: return "not allowed";
	case KRSI_MATCH_EXEC_ALLOWED: return "allowed for exec";
	case KRSI_MATCH_DIR: return "directory";
	case KRSI_MATCH_CUT_OFF: return "cut off";
	case KRSI_MATCH_DETACHED: return "detached";
	case KRSI_MATCH_ABOVE: return "above";
	}
	return NULL;
}

static const char *replace_str(int call)
{
	switch (call) {
	case KRSI_REPLACE_WRITE: return "write";
	case KRSI_REPLACE_RENAME: return "rename";
	case KRSI_REPLACE_LINK: return "link";
	case KRSI_REPLACE_UNLINK: return "unlink";
	case KRSI_REPLACE_RMDIR: return "rmdir";
	case KRSI_REPLACE_TRUNCATE: return "truncate";
	case KRSI_REPLACE_CREATE: return "create";
	case KRSI_REPLACE_MKDIR: return "mkdir";
	case KRSI_REPLACE_MKNOD: return "mknod";
	case KRSI_REPLACE_SYMLINK: return "symlink";
	case KRSI_REPLACE_MOUNT: return "mount";
	}
	return NULL;
}

/* A write event's call: opening for writing is "open" (replace events say "write"). */
static const char *write_call_str(int call)
{
	return call == KRSI_REPLACE_WRITE ? "open" : replace_str(call);
}

static const char *cap_route_str(uint64_t route)
{
	switch (route) {
	case KRSI_CAP_CAPABLE: return "capable";
	case KRSI_CAP_SYSLOG: return "syslog";
	case KRSI_CAP_PERF: return "perf_event_open";
	case KRSI_CAP_BPF: return "bpf";
	}
	return NULL;
}

static const char *wx_str(int why)
{
	switch (why) {
	case KRSI_WX_ANON: return "anonymous";
	case KRSI_WX_WRITE_EXEC: return "write+exec";
	case KRSI_WX_WRITTEN: return "written";
	case KRSI_WX_WRITERS: return "open for writing";
	case KRSI_WX_EXEC_STACK: return "executable stack";
	case KRSI_WX_READ_IMPLIES_EXEC: return "read implies exec";
	case KRSI_WX_SEGMENT: return "write+exec segment";
	case KRSI_WX_KERNEL_WRITE: return "write through the kernel";
	case KRSI_WX_MAPPED_EXEC: return "mapped executable";
	}
	return NULL;
}

void event_time_str(int64_t real_ns, char *buf, size_t size)
{
	time_t sec = real_ns / 1000000000;
	struct tm tm;

	gmtime_r(&sec, &tm);
	strftime(buf, size, "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf + strlen(buf), size - strlen(buf), ".%06lldZ",
		 (long long)(real_ns % 1000000000) / 1000);
}

static const char *knob_str(int kind)
{
	switch (kind) {
	case KRSI_KNOB_SYSCTL: return "sysctl";
	case KRSI_KNOB_PROC: return "procfs";
	case KRSI_KNOB_SYSFS: return "sysfs";
	case KRSI_KNOB_FS: return "kernel file system";
	case KRSI_KNOB_RELEASE_AGENT: return "release_agent";
	}
	return "unknown";
}

/* The fields of the writes that reach beyond the container (bpf/knob.bpf.h). */
static void add_beyond(json_object *o, const struct krsi_event *e, const char *path)
{
	char dev[32];

	switch (e->hook) {
	case KRSI_HOOK_KNOB:
		add_str(o, "path", path);
		add_str(o, "kind", knob_str(e->arg));
		add_int(o, "inode", e->value);
		break;
	case KRSI_HOOK_BLOCKDEV:
		add_str(o, "path", path);
		snprintf(dev, sizeof(dev), "%u:%u", (unsigned)(e->value >> 20),
			 (unsigned)(e->value & 0xfffff));
		add_str(o, "device", dev);
		break;
	case KRSI_HOOK_CGROUP:
		add_str(o, "call", e->arg == KRSI_CGROUP_CLONE ? "clone3" : "write");
		if (e->arg != KRSI_CGROUP_CLONE) {
			add_str(o, "path", path);
			add_int(o, "target_cgroup_id", e->value);
		}
		break;
	}
}

json_object *event_to_json(const struct krsi_event *e, const struct event_names *n,
			   int64_t boot_to_real_ns)
{
	json_object *o = json_object_new_object();
	char buf[64], comm[KRSI_COMM_MAX + 1], path[KRSI_PATH_MAX + 1];

	event_time_str((int64_t)e->time_ns + boot_to_real_ns, buf, sizeof(buf));
	add_str(o, "time", buf);
	add_str(o, "hook", names_hook_str(e->hook) ?: "unknown");
	add_str(o, "verdict", e->verdict == KRSI_VERDICT_DENY    ? "deny"
			      : e->verdict == KRSI_VERDICT_AUDIT ? "audit"
								 : "learn");
	add_str(o, "container", n->container);
	add_str(o, "profile", n->profile);
	add_str(o, "cgroup", n->cgroup);
	add_int(o, "cgroup_id", e->cgroup_id);
	add_int(o, "policy_cgroup_id", e->policy_cgroup_id);
	add_int(o, "pid", e->pid);
	add_int(o, "tid", e->tid);
	memcpy(comm, e->comm, KRSI_COMM_MAX);
	comm[KRSI_COMM_MAX] = 0;
	add_str(o, "comm", comm);
	memcpy(path, e->path, KRSI_PATH_MAX);
	path[KRSI_PATH_MAX] = 0;

	switch (e->hook) {
	case KRSI_HOOK_EXEC:
	case KRSI_HOOK_PATHLESS:
	case KRSI_HOOK_OPEN_READ:
	case KRSI_HOOK_OPEN_WRITE:
		add_str(o, "path", path);
		if (e->hook == KRSI_HOOK_EXEC || e->hook == KRSI_HOOK_PATHLESS)
			add_str(o, "call", call_str(e->arg & 0xff));
		if (e->verdict != KRSI_VERDICT_LEARN) /* learned: no rule was looked at */
			add_str(o, "match", match_str((e->arg >> 8) & 0xff));
		if (e->hook == KRSI_HOOK_OPEN_WRITE) /* after the match, as it was before calls */
			add_str(o, "call", write_call_str(e->arg & 0xff));
		if (e->dev) {
			snprintf(buf, sizeof(buf), "%u:%u", e->dev >> 20, e->dev & 0xfffff);
			add_str(o, "dev", buf);
		}
		add_int(o, "inode", e->value);
		break;
	case KRSI_HOOK_REPLACE:
		add_str(o, "path", path);
		add_str(o, "call", replace_str(e->arg & 0xff));
		add_str(o, "match", match_str((e->arg >> 8) & 0xff));
		add_int(o, "inode", e->value);
		break;
	case KRSI_HOOK_SOCKET:
		add_str(o, "family", names_family_str(e->net.family) ?: "unknown");
		add_str(o, "type", names_socktype_str(e->net.type) ?: "unknown");
		add_int(o, "protocol", e->arg);
		break;
	case KRSI_HOOK_CONNECT:
	case KRSI_HOOK_BIND: {
		char addr[INET6_ADDRSTRLEN] = "";

		inet_ntop(e->net.family == 2 ? AF_INET : AF_INET6, e->net.addr, addr, sizeof(addr));
		add_str(o, "address", addr);
		add_int(o, "port", e->net.port);
		if (e->verdict != KRSI_VERDICT_LEARN)
			add_str(o, "match",
				(e->arg >> 8) == KRSI_MATCH_NOT_ALLOWED ? "not allowed" : "rule");
		break;
	}
	case KRSI_HOOK_MOUNT:
		add_str(o, "fstype", path);
		add_str(o, "call", names_mount_call_str(e->arg) ?: "unknown");
		add_int(o, "flags", (int64_t)e->value);
		break;
	case KRSI_HOOK_PTRACE:
		add_int(o, "target_pid", e->value);
		break;
	case KRSI_HOOK_MODULE:
		if (e->arg == -1)
			add_str(o, "module", path);
		else if (e->arg >= 100)
			add_int(o, "load_data_id", e->arg - 100);
		else
			add_int(o, "read_file_id", e->arg);
		break;
	case KRSI_HOOK_BPF:
		add_int(o, "cmd", e->arg);
		break;
	case KRSI_HOOK_WX:
		snprintf(buf, sizeof(buf), "0x%llx", (unsigned long long)e->value);
		if ((e->arg & 0xff) == KRSI_CALL_MPROTECT)
			add_str(o, "address", buf);
		else if ((e->arg & 0xff) == KRSI_CALL_PERSONALITY)
			add_str(o, "personality", buf);
		else if ((e->arg & 0xff) == KRSI_CALL_PTRACE)
			add_int(o, "target_pid", e->value);
		else if ((e->arg & 0xff) == KRSI_CALL_EXECVE && e->value)
			add_str(o, "flags", buf);
		if (path[0])
			add_str(o, "path", path);
		add_str(o, "call", call_str(e->arg & 0xff));
		add_str(o, "reason", wx_str((e->arg >> 8) & 0xff));
		break;
	case KRSI_HOOK_CAPABLE:
		add_str(o, "capability", names_cap_str(e->arg) ?: "unknown");
		add_str(o, "call", cap_route_str(e->value) ?: "unknown");
		break;
	case KRSI_HOOK_SELF:
		add_str(o, "object", e->arg ? "program" : "map");
		add_int(o, "id", e->value);
		break;
	case KRSI_HOOK_KNOB:
	case KRSI_HOOK_BLOCKDEV:
	case KRSI_HOOK_CGROUP:
		add_beyond(o, e, path);
		break;
	}
	if (e->suppressed)
		add_int(o, "suppressed", e->suppressed);
	return o;
}

void event_ring_push(struct event_ring *r, json_object *o)
{
	json_object_put(r->v[r->next]);
	r->v[r->next] = o;
	r->next = (r->next + 1) % EVENTS_RECENT;
	if (r->n < EVENTS_RECENT)
		r->n++;
}

void event_ring_clear(struct event_ring *r)
{
	for (size_t i = 0; i < EVENTS_RECENT; i++) {
		json_object_put(r->v[i]);
		r->v[i] = NULL;
	}
	r->next = r->n = 0;
}
