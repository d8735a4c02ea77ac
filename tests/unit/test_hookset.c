// SPDX-License-Identifier: GPL-2.0
#include <stdlib.h>

#include "bpf/krsi.h"
#include "policy/hookset.h"
#include "policy/profile.h"
#include "unit.h"

#ifndef KRSI_SRC
#define KRSI_SRC "."
#endif

/* The deny bits of profile TEXT as compiled, or ~0 when it does not parse. */
static uint64_t deny_of(const char *text)
{
	struct krsi_err err = { "" };
	struct profile_compiled c = { 0 };
	struct profile *p = NULL;
	uint64_t deny = ~0ULL;

	if (profile_parse("t.json", text, strlen(text), &p, &err) < 0)
		return deny;
	if (profile_compile(p, 1, 1, &c) == 0)
		deny = c.policy.deny;
	profile_compiled_clear(&c);
	profile_free(p);
	return deny;
}

/* Every SEC("lsm/NAME") program of bpf/krsi.bpf.c is in the table. */
static void test_every_program_known(void)
{
	FILE *f = fopen(KRSI_SRC "/bpf/krsi.bpf.c", "r");
	char line[512], name[128];
	int n = 0, unknown = 0;

	CHECK(f != NULL, "hookset: bpf/krsi.bpf.c readable");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "SEC(\"lsm/%127[a-z_]\")", name) == 1 ||
		    sscanf(line, "SEC(\"tp_btf/%127[a-z_]\")", name) == 1) {
			n++;
			if (!hookset_known(name)) {
				unknown++;
				printf("#   program %s is not in agent/policy/hookset.c\n", name);
			}
		}
	fclose(f);
	CHECK(n >= 20 && unknown == 0, "hookset: all %d programs of krsi.bpf.c are mapped", n);
}

void test_hookset(void)
{
	static const char *always[] = { "bprm_check_security", "bpf_map", "bpf_prog",
					"cgroup_rmdir" };
	static const char *net[] = { "socket_create", "socket_connect", "socket_sendmsg",
				     "socket_bind" };
	uint64_t d;

	test_every_program_known();
	{
		/* The kernel series' hooks (kernel/patches 11 and 14), absent from stock kernels. */
		static const char *const series[] = { "mount_clone", "mount_setattr", "fs_context_open",
						      "fs_context_mount", "bprm_exec_memory",
						      "task_setpersonality" };

		for (size_t i = 0; i < sizeof(series) / sizeof(series[0]); i++)
			CHECK(hookset_known(series[i]) && hookset_route(series[i]),
			      "hookset: what goes unseen without %s is named", series[i]);
		CHECK(!hookset_route("file_open") && !hookset_route("sb_mount"),
		      "hookset: a hook every 6.1 kernel has names no route");
	}
	for (size_t i = 0; i < sizeof(always) / sizeof(always[0]); i++)
		CHECK(hookset_always(always[i]) && hookset_needed(always[i], 0),
		      "hookset: %s is attached with no profile loaded", always[i]);
	CHECK(hookset_needed("no_such_program", 0), "hookset: an unknown program stays attached");
	CHECK(!hookset_needed("file_mprotect", 0) && !hookset_needed("sb_mount", 0) &&
		      !hookset_needed("capable", 0) && !hookset_needed("file_open", 0),
	      "hookset: no profile, no deny bit: the deny-bit programs are detached");

	d = deny_of("{ \"name\": \"t\", \"version\": 1, \"mode\": \"enforce\", \"mount\": true }");
	{
		static const char *const mount[] = { "sb_mount",      "move_mount",    "sb_umount",
						     "sb_pivotroot",  "sb_remount",    "sb_kern_mount",
						     "mount_clone",   "mount_setattr", "fs_context_open",
						     "fs_context_mount", "inode_unlink", "inode_rmdir",
						     "inode_rename" };

		for (size_t i = 0; i < sizeof(mount) / sizeof(mount[0]); i++)
			CHECK(hookset_needed(mount[i], d) && !hookset_needed(mount[i], 0),
			      "hookset: mount: true attaches %s, and only it", mount[i]);
	}
	CHECK(!hookset_needed("file_mprotect", d) && !hookset_needed("mmap_file", d) &&
		      !hookset_needed("capable", d),
	      "hookset: mount: true attaches neither W^X nor capable");
	CHECK(d & KRSI_DENY(KRSI_HOOK_CGROUP) && hookset_needed("file_open", d) &&
		      hookset_needed("task_alloc", d) && !hookset_needed("task_alloc", 0),
	      "hookset: every profile keeps its containers in their cgroups: file_open and "
	      "task_alloc, detached with no profile");
	for (size_t i = 0; i < sizeof(net) / sizeof(net[0]); i++)
		CHECK(!hookset_needed(net[i], d), "hookset: mount: true leaves %s detached", net[i]);

	d = deny_of("{ \"name\": \"t\", \"version\": 1, \"mode\": \"audit\", \"mount\": false, "
		    "\"wx\": false, \"read\": [\"/etc/shadow\"] }");
	CHECK(hookset_needed("file_open", d) && !hookset_needed("sb_mount", d) &&
		      !hookset_needed("file_mprotect", d),
	      "hookset: an audit profile with a read rule needs file_open, not mount or W^X");
	d = deny_of("{ \"name\": \"t\", \"version\": 1, \"mode\": \"enforce\", "
		    "\"write_dirs\": [\"/tmp\"] }");
	CHECK(hookset_needed("file_open", d), "hookset: a write_dirs rule needs file_open");
	d = deny_of("{ \"name\": \"t\", \"version\": 1, \"mode\": \"enforce\", "
		    "\"exec\": [\"/bin/nc\"] }");
	CHECK(hookset_needed("bprm_check_security", d) &&
		      hookset_needed("mmap_file", d) && hookset_needed("file_mprotect", d) &&
		      !hookset_needed("capable", d),
	      "hookset: an exec rule needs bprm_check_security and the PROT_EXEC mapping hooks");
	d = deny_of("{ \"name\": \"t\", \"version\": 1, \"mode\": \"enforce\", "
		    "\"pathless_exec\": true }");
	CHECK(d == (KRSI_DENY(KRSI_HOOK_PATHLESS) | KRSI_DENY(KRSI_HOOK_CGROUP)) &&
		      hookset_needed("mmap_file", d) && hookset_needed("file_mprotect", d),
	      "hookset: pathless_exec sets its own bit and needs the mapping hooks");
	d = deny_of("{ \"name\": \"t\", \"version\": 1, \"mode\": \"enforce\", "
		    "\"kernel_knobs\": true, \"block_write\": true }");
	CHECK(d == (KRSI_DENY(KRSI_HOOK_KNOB) | KRSI_DENY(KRSI_HOOK_BLOCKDEV) |
		    KRSI_DENY(KRSI_HOOK_CGROUP)) &&
		      hookset_needed("file_open", d) && !hookset_needed("mmap_file", d),
	      "hookset: kernel_knobs and block_write set their bits and need file_open alone");
	d = deny_of("{ \"name\": \"t\", \"version\": 1, \"mode\": \"enforce\", "
		    "\"connect\": [\"10.0.0.0/8\"] }");
	CHECK(hookset_needed("socket_connect", d) && hookset_needed("socket_sendmsg", d) &&
		      !hookset_needed("socket_bind", d) && !hookset_needed("socket_create", d),
	      "hookset: a connect rule needs socket_connect and socket_sendmsg");
	d = deny_of("{ \"name\": \"t\", \"version\": 1, \"mode\": \"enforce\", "
		    "\"bind\": [\"0.0.0.0/0:80\"], \"socket\": [\"AF_PACKET\"] }");
	CHECK(hookset_needed("socket_bind", d) && hookset_needed("socket_create", d) &&
		      !hookset_needed("socket_connect", d),
	      "hookset: bind and socket rules need socket_bind and socket_create");
	d = deny_of("{ \"name\": \"t\", \"version\": 1, \"mode\": \"enforce\", \"ptrace\": true, "
		    "\"module\": true, \"bpf\": true, \"userns\": true, \"wx\": true, "
		    "\"capabilities\": [\"CAP_CHOWN\"] }");
	CHECK(hookset_needed("ptrace_access_check", d) && hookset_needed("ptrace_traceme", d) &&
		      hookset_needed("kernel_module_request", d) &&
		      hookset_needed("kernel_read_file", d) && hookset_needed("kernel_load_data", d) &&
		      hookset_needed("bpf", d) && hookset_needed("userns_create", d) &&
		      hookset_needed("file_mprotect", d) && hookset_needed("mmap_file", d) &&
		      hookset_needed("capable", d),
	      "hookset: ptrace, module, bpf, userns, wx and capabilities attach their programs");
	CHECK(hookset_needed("file_open", d) && hookset_needed("bprm_exec_memory", d) &&
		      hookset_needed("task_setpersonality", d),
	      "hookset: wx also needs file_open (/proc/PID/mem, mapped files) and the execve and "
	      "personality hooks");
	CHECK(!hookset_needed("sb_mount", d) && !hookset_needed("inode_create", d) &&
		      !hookset_needed("path_truncate", d),
	      "hookset: ... and nothing else");
	d = deny_of("{ \"name\": \"t\", \"version\": 1, \"mode\": \"enforce\", "
		    "\"write\": [\"/etc/app.conf\"] }");
	{
		static const char *const write[] = { "file_open",    "path_truncate", "inode_create",
						     "inode_mkdir",  "inode_mknod",   "inode_symlink",
						     "inode_link",   "inode_rename",  "inode_unlink",
						     "inode_rmdir",  "sb_mount",      "move_mount" };

		for (size_t i = 0; i < sizeof(write) / sizeof(write[0]); i++)
			CHECK(hookset_needed(write[i], d),
			      "hookset: a write rule attaches %s (every route to the content)",
			      write[i]);
	}
	CHECK(!hookset_needed("sb_umount", d) && !hookset_needed("file_mprotect", d),
	      "hookset: a write rule leaves the other mount programs and W^X detached");
	d = deny_of("{ \"name\": \"t\", \"version\": 1, \"mode\": \"enforce\", "
		    "\"capabilities\": [\"CAP_SYSLOG\"] }");
	CHECK(hookset_needed("syslog", d) && hookset_needed("perf_event_open", d) &&
		      hookset_needed("bpf", d),
	      "hookset: capabilities attach the hooks of the CAP_SYS_ADMIN fallbacks");
	d = deny_of("{ \"name\": \"t\", \"version\": 1, \"mode\": \"enforce\", "
		    "\"capabilities\": [] }");
	CHECK(!hookset_needed("capable", d), "hookset: an empty capability list needs no capable");
}
