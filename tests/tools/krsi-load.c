// SPDX-License-Identifier: GPL-2.0
/*
 * krsi-load: load for krsid that a shell cannot make, for the faults guest suite. Each mode
 * prints one line of counts.
 *
 *   krsi-load clients SOCKET N        N connections at once, each sends a status request; every
 *                                     reply awaited (10 s): "ok=N error=N unanswered=N
 *                                     refused=N slowest_ms=N"
 *   krsi-load slow SOCKET N SECONDS   N connections that send half a request and nothing more;
 *                                     after SECONDS: "answered=N timed_out=N open=N"
 *   krsi-load open-each DIR           open every file of DIR once: "ok=N EPERM=N other=N"
 *   krsi-load register SOCKET CGROUP_DIR N PROFILE
 *                                     make N cgroups CGROUP_DIR/r0..r<N-1> and register each
 *                                     as container load-<i>: "ok=N refused=N" and the first
 *                                     refusal's reply
 *   krsi-load unregister SOCKET CGROUP_DIR N
 *                                     unregister load-<i> and remove their cgroups
 *
 * Requests are written by agent/lib/request.c, as krsictl and the OCI hook write theirs.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "lib/request.h"

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

static int connect_to(const char *path, int flags)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | flags, 0);

	if (fd < 0)
		return -1;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* R as its line in REQ of SIZE: 0, or -1 when it does not fit. */
static int request(const struct krsi_request *r, char *req, size_t size)
{
	return krsi_request_write(r, req, size) < 0 ? -1 : 0;
}

/* One request, one reply (blocking, 10 s); the reply in BUF. */
static int call(const char *path, const char *req, char *buf, size_t size)
{
	struct timeval tv = { .tv_sec = 10 };
	size_t got = 0;
	int fd = connect_to(path, 0);

	if (fd < 0)
		return -1;
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (write(fd, req, strlen(req)) != (ssize_t)strlen(req)) {
		close(fd);
		return -1;
	}
	while (got < size - 1) {
		ssize_t n = read(fd, buf + got, size - 1 - got);

		if (n <= 0)
			break;
		got += n;
		if (memchr(buf + got - n, '\n', n))
			break;
	}
	buf[got] = 0;
	close(fd);
	return got ? 0 : -1;
}

static int mode_clients(const char *path, int n)
{
	const struct krsi_request status = { .op = PROTO_STATUS };
	struct pollfd *p = calloc(n, sizeof(*p));
	long long start = now_ms(), slowest = 0;
	int ok = 0, error = 0, refused = 0, pending = 0;
	char req[64];
	int len = krsi_request_write(&status, req, sizeof(req));

	if (!p || len < 0)
		return 1;
	for (int i = 0; i < n; i++) {
		p[i].fd = connect_to(path, SOCK_NONBLOCK);
		p[i].events = POLLIN;
		if (p[i].fd < 0 || write(p[i].fd, req, len) != len) {
			if (p[i].fd >= 0)
				close(p[i].fd);
			p[i].fd = -1;
			refused++;
			continue;
		}
		pending++;
	}
	while (pending && now_ms() - start < 10000) {
		if (poll(p, n, 100) < 0)
			break;
		for (int i = 0; i < n; i++) {
			char buf[8192];
			ssize_t r;

			if (p[i].fd < 0 || !p[i].revents)
				continue;
			/* A status reply is one short line: the first read has all or enough of it. */
			r = read(p[i].fd, buf, sizeof(buf) - 1);
			if (r < 0 && errno == EAGAIN)
				continue;
			buf[r > 0 ? r : 0] = 0;
			if (r > 0 && strstr(buf, "\"ok\":true"))
				ok++;
			else
				error++;
			if (now_ms() - start > slowest)
				slowest = now_ms() - start;
			close(p[i].fd);
			p[i].fd = -1;
			pending--;
		}
	}
	printf("ok=%d error=%d unanswered=%d refused=%d slowest_ms=%lld\n", ok, error, pending,
	       refused, slowest);
	return 0;
}

static int mode_slow(const char *path, int n, int seconds)
{
	const struct krsi_request status = { .op = PROTO_STATUS };
	int *fd = calloc(n, sizeof(*fd)), answered = 0, timed_out = 0, open_ = 0;
	char req[64];
	int len = krsi_request_write(&status, req, sizeof(req));

	if (!fd || len < 0)
		return 1;
	for (int i = 0; i < n; i++) {
		fd[i] = connect_to(path, 0);
		/* The first half of the line: never a whole JSON object. */
		if (fd[i] >= 0 && write(fd[i], req, len / 2) < 0) {
			close(fd[i]);
			fd[i] = -1;
		}
	}
	sleep(seconds);
	for (int i = 0; i < n; i++) {
		char buf[1024];
		ssize_t r;

		if (fd[i] < 0)
			continue;
		r = recv(fd[i], buf, sizeof(buf) - 1, MSG_DONTWAIT);
		if (r > 0) {
			buf[r] = 0;
			answered++;
			timed_out += !!strstr(buf, "timed out waiting for a message");
		} else {
			open_++;
		}
		close(fd[i]);
	}
	printf("answered=%d timed_out=%d open=%d\n", answered, timed_out, open_);
	return 0;
}

static int mode_open_each(const char *dir)
{
	long ok = 0, eperm = 0, other = 0;
	struct dirent *de;
	DIR *d = opendir(dir);
	int dfd;

	if (!d)
		return 1;
	dfd = dirfd(d);
	while ((de = readdir(d))) {
		int fd;

		if (de->d_name[0] == '.')
			continue;
		fd = openat(dfd, de->d_name, O_RDONLY | O_CLOEXEC);
		if (fd >= 0) {
			ok++;
			close(fd);
		} else if (errno == EPERM) {
			eperm++;
		} else {
			other++;
		}
	}
	closedir(d);
	printf("ok=%ld EPERM=%ld other=%ld\n", ok, eperm, other);
	return 0;
}

static int mode_register(const char *path, const char *dir, int n, const char *profile)
{
	char first[4096] = "", buf[4096], req[1024], cg[512], cgroup[512], container[32];
	struct krsi_request r = { .op = PROTO_REGISTER, .container = container, .cgroup = cgroup,
				  .profile = profile };
	const char *rel;
	int ok = 0, refused = 0;

	/* The cgroup path as krsid names it: relative to the cgroup2 mount at /sys/fs/cgroup. */
	if (strncmp(dir, "/sys/fs/cgroup/", 15))
		return 2;
	rel = dir + 14;
	mkdir(dir, 0755);
	for (int i = 0; i < n; i++) {
		snprintf(cg, sizeof(cg), "%s/r%d", dir, i);
		if (mkdir(cg, 0755) < 0 && errno != EEXIST) {
			refused++;
			continue;
		}
		snprintf(container, sizeof(container), "load-%d", i);
		snprintf(cgroup, sizeof(cgroup), "%s/r%d", rel, i);
		buf[0] = 0;
		if (request(&r, req, sizeof(req)) == 0 && call(path, req, buf, sizeof(buf)) == 0 &&
		    strstr(buf, "\"ok\":true")) {
			ok++;
		} else {
			refused++;
			if (!first[0])
				snprintf(first, sizeof(first), "%s", buf);
		}
	}
	printf("ok=%d refused=%d\n", ok, refused);
	if (first[0])
		printf("first refusal: %s", first);
	return 0;
}

static int mode_unregister(const char *path, const char *dir, int n)
{
	char buf[4096], req[512], cg[512], container[32];
	struct krsi_request r = { .op = PROTO_UNREGISTER, .container = container };
	int ok = 0;

	for (int i = 0; i < n; i++) {
		snprintf(container, sizeof(container), "load-%d", i);
		if (request(&r, req, sizeof(req)) == 0 && call(path, req, buf, sizeof(buf)) == 0 &&
		    strstr(buf, "\"ok\":true"))
			ok++;
		snprintf(cg, sizeof(cg), "%s/r%d", dir, i);
		rmdir(cg);
	}
	rmdir(dir);
	printf("unregistered=%d\n", ok);
	return 0;
}

int main(int argc, char **argv)
{
	struct rlimit rl;

	setvbuf(stdout, NULL, _IONBF, 0);
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0) { /* N connections at once */
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	if (argc == 4 && !strcmp(argv[1], "clients"))
		return mode_clients(argv[2], atoi(argv[3]));
	if (argc == 5 && !strcmp(argv[1], "slow"))
		return mode_slow(argv[2], atoi(argv[3]), atoi(argv[4]));
	if (argc == 3 && !strcmp(argv[1], "open-each"))
		return mode_open_each(argv[2]);
	if (argc == 6 && !strcmp(argv[1], "register"))
		return mode_register(argv[2], argv[3], atoi(argv[4]), argv[5]);
	if (argc == 5 && !strcmp(argv[1], "unregister"))
		return mode_unregister(argv[2], argv[3], atoi(argv[4]));
	fprintf(stderr, "usage: see the comment at the top of tests/tools/krsi-load.c\n");
	return 2;
}
