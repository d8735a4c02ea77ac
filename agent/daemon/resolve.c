// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "daemon/resolve.h"

struct answer {
	int32_t r;
	uint32_t _pad;
	uint64_t n;
};

static int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t w = write(fd, p, len);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		len -= (size_t)w;
	}
	return 0;
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* LEN bytes from FD into BUF by DEADLINE (CLOCK_MONOTONIC ms): 0, -ETIMEDOUT or -EIO. */
static int read_by(int fd, void *buf, size_t len, int64_t deadline)
{
	char *p = buf;

	while (len) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		int64_t left = deadline - now_ms();
		ssize_t r;

		if (left <= 0)
			return -ETIMEDOUT;
		r = poll(&pfd, 1, (int)left);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (r == 0)
			return -ETIMEDOUT;
		r = read(fd, p, len);
		if (r < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (r <= 0)
			return -EIO; /* the child died without a full answer */
		p += r;
		len -= (size_t)r;
	}
	return 0;
}

static void child(const struct profile *p, uint32_t slot, struct identity_root *root,
		  const struct identity_view *old, int fd)
{
	struct krsi_inode_key *keys = NULL;
	struct identity_hold *holds = NULL;
	struct answer a = { 0 };
	size_t n = 0;

	a.r = identity_view_keys(p, slot, root, old, &keys, &holds, &n);
	a.n = a.r < 0 ? 0 : n;
	if (write_all(fd, &a, sizeof(a)) < 0 ||
	    (a.n && (write_all(fd, keys, n * sizeof(*keys)) < 0 ||
		     write_all(fd, holds, n * sizeof(*holds)) < 0)))
		_exit(1);
	_exit(0);
}

static void killed_add(struct resolve_children *c, pid_t pid)
{
	if (c->n == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 8;
		pid_t *v = realloc(c->pids, cap * sizeof(*v));

		if (!v)
			return; /* a zombie until krsid exits: only a pid lost */
		c->pids = v;
		c->cap = cap;
	}
	c->pids[c->n++] = pid;
}

void resolve_reap(struct resolve_children *c)
{
	for (size_t i = 0; i < c->n;) {
		if (waitpid(c->pids[i], NULL, WNOHANG) != 0) {
			c->pids[i] = c->pids[--c->n];
			continue;
		}
		i++;
	}
}

size_t resolve_pending(const struct resolve_children *c)
{
	return c->n;
}

int resolve_view_keys(struct resolve_children *c, const struct profile *p, uint32_t slot,
		      struct identity_root *root, const struct identity_view *old, int timeout_ms,
		      struct krsi_inode_key **ret, struct identity_hold **ret_holds, size_t *ret_n)
{
	int64_t deadline = now_ms() + timeout_ms;
	struct krsi_inode_key *keys = NULL;
	struct identity_hold *holds = NULL;
	struct answer a;
	int fds[2], r;
	pid_t pid;

	if (pipe2(fds, O_CLOEXEC) < 0)
		return -errno;
	pid = fork();
	if (pid < 0) {
		r = -errno;
		close(fds[0]);
		close(fds[1]);
		return r;
	}
	if (pid == 0) {
		close(fds[0]);
		child(p, slot, root, old, fds[1]);
	}
	close(fds[1]);
	r = read_by(fds[0], &a, sizeof(a), deadline);
	if (r == 0 && a.r < 0)
		r = a.r;
	if (r == 0 && a.n > SIZE_MAX / sizeof(*holds))
		r = -EIO;
	if (r == 0) {
		keys = calloc(a.n + 1, sizeof(*keys));
		holds = calloc(a.n + 1, sizeof(*holds));
		if (!keys || !holds)
			r = -ENOMEM;
	}
	if (r == 0 && a.n)
		r = read_by(fds[0], keys, a.n * sizeof(*keys), deadline);
	if (r == 0 && a.n)
		r = read_by(fds[0], holds, a.n * sizeof(*holds), deadline);
	close(fds[0]);
	if (r == -ETIMEDOUT || r == -EIO || r == -ENOMEM)
		kill(pid, SIGKILL);
	/* Done writing, it exits at once; killed, it may wait for its file system a while. */
	if (waitpid(pid, NULL, WNOHANG) == 0)
		killed_add(c, pid);
	if (r < 0) {
		free(keys);
		free(holds);
		return r;
	}
	*ret = keys;
	*ret_holds = holds;
	*ret_n = a.n;
	return 0;
}
