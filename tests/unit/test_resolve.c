// SPDX-License-Identifier: GPL-2.0
/*
 * agent/daemon/resolve.c: a container's rules resolved by a child process give what resolving them
 * in krsid gives, key for key and hold for hold, and the child is reaped. (A root that does not
 * answer is the guest's to show: core.sh, "a hostile root".)
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "policy/identity.h"
#include "daemon/resolve.h"
#include "unit.h"

void test_resolve_child(void)
{
	char dir[] = "/dev/shm/krsi-unit-resolve.XXXXXX", f[300];
	char r1[] = "/bin/a", r2[] = "/bin/b", r3[] = "/missing", w1[] = "/etc/app.conf";
	char *exec_rules[] = { r1, r2, r3 }, *write_rules[] = { w1 };
	struct profile p = { .name = "t" };
	struct identity_root root = { -1, -1, "", NULL };
	struct resolve_children kids = { 0 };
	struct krsi_err err = { "" };
	struct krsi_inode_key *k1 = NULL, *k2 = NULL;
	struct identity_hold *h1 = NULL, *h2 = NULL;
	size_t n1 = 0, n2 = 0;
	bool same;

	if (!mkdtemp(dir)) {
		CHECK(0, "mkdtemp: %s", strerror(errno));
		return;
	}
	snprintf(f, sizeof(f), "%s/bin", dir);
	mkdir(f, 0755);
	snprintf(f, sizeof(f), "%s/etc", dir);
	mkdir(f, 0755);
	for (const char *const *r = (const char *const[]){ r1, r2, w1, NULL }; *r; r++) {
		snprintf(f, sizeof(f), "%s%s", dir, *r);
		close(open(f, O_CREAT | O_WRONLY, 0600));
	}
	p.paths[PROFILE_EXEC] = exec_rules;
	p.n_paths[PROFILE_EXEC] = 3;
	p.paths[PROFILE_WRITE] = write_rules;
	p.n_paths[PROFILE_WRITE] = 1;
	CHECK(identity_root_open_path(dir, &root, &err) == 0, "resolve: the root opens: %s", err.msg);
	CHECK(identity_view_keys(&p, 7, &root, NULL, &k1, &h1, &n1) == 0,
	      "resolve: the rules resolve in krsid");
	CHECK(resolve_view_keys(&kids, &p, 7, &root, NULL, 5000, &k2, &h2, &n2) == 0,
	      "resolve: the rules resolve in a child");
	/* Two exec files, the write rule's file, "/" and "/etc" above it. */
	same = n1 == 5 && n2 == n1 && !memcmp(k1, k2, n1 * sizeof(*k1));
	for (size_t i = 0; same && i < n1; i++)
		same = !memcmp(&h1[i].key, &h2[i].key, sizeof(h1[i].key)) &&
		       h1[i].has_handle == h2[i].has_handle &&
		       h1[i].handle_bytes == h2[i].handle_bytes &&
		       !memcmp(h1[i].handle, h2[i].handle, h1[i].handle_bytes) &&
		       !strcmp(h1[i].rule, h2[i].rule);
	CHECK(same, "resolve: the child's keys and holds are krsid's (%zu and %zu)", n1, n2);
	for (int i = 0; i < 500 && resolve_pending(&kids); i++) {
		struct timespec ts = { 0, 2000000 };

		nanosleep(&ts, NULL);
		resolve_reap(&kids);
	}
	CHECK(resolve_pending(&kids) == 0, "resolve: the child is reaped");
	free(kids.pids);
	free(k1);
	free(h1);
	free(k2);
	free(h2);
	identity_root_close(&root);
	for (const char *const *r = (const char *const[]){ r1, r2, w1, NULL }; *r; r++) {
		snprintf(f, sizeof(f), "%s%s", dir, *r);
		unlink(f);
	}
	snprintf(f, sizeof(f), "%s/bin", dir);
	rmdir(f);
	snprintf(f, sizeof(f), "%s/etc", dir);
	rmdir(f);
	rmdir(dir);
}
