/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A container's rules resolved in its root by a child process, within a deadline. A root is
 * the container's to shape: an automount, a FUSE or network file system that never answers,
 * a FIFO, a huge directory or a chain of symlinks at a rule's path must not stall krsid. The
 * child does every file system call (identity_view_keys()); krsid waits at most TIMEOUT_MS
 * for its answer, and a child that does not answer is killed and reaped later.
 */
#ifndef KRSI_RESOLVE_H
#define KRSI_RESOLVE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "policy/identity.h"
#include "policy/profile.h"

/* Children not reaped yet: killed at their deadline, or still exiting after their answer. */
struct resolve_children {
	pid_t *pids;
	size_t n, cap;
};

/*
 * identity_view_keys() in a child: its result, or -ETIMEDOUT when the child gave no full
 * answer within TIMEOUT_MS (the child is killed), or -errno of fork() or the pipe.
 */
int resolve_view_keys(struct resolve_children *c, const struct profile *p, uint32_t slot,
		      struct identity_root *root, const struct identity_view *old, int timeout_ms,
		      struct krsi_inode_key **ret, struct identity_hold **ret_holds, size_t *ret_n);

/* Reap the children that were killed and have exited since (never blocks). */
void resolve_reap(struct resolve_children *c);

/* Children killed and not yet reaped (a child stuck in an uninterruptible wait stays). */
size_t resolve_pending(const struct resolve_children *c);

#endif
