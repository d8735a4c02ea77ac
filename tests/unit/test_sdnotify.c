// SPDX-License-Identifier: GPL-2.0
/* lib/sdnotify.c: the notify datagram (path and abstract sockets) and the journal stream. */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "lib/sdnotify.h"
#include "unit.h"

/* A datagram socket bound at PATH ("@name": abstract), as the service manager's. */
static int manager(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	size_t n = strlen(path);
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);

	memcpy(sa.sun_path, path, n);
	if (path[0] == '@')
		sa.sun_path[0] = 0;
	else
		unlink(path);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa,
			   (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n + (path[0] == '/'))) < 0)
		return -1;
	return fd;
}

static ssize_t received(int fd, char *buf, size_t size)
{
	ssize_t n = recv(fd, buf, size - 1, 0);

	buf[n > 0 ? n : 0] = 0;
	return n;
}

void test_sdnotify(void)
{
	char path[64], abs[64], buf[256], js[64];
	struct stat st;
	int fd, r;

	snprintf(path, sizeof(path), "/tmp/krsi-unit-notify.%d", getpid());
	snprintf(abs, sizeof(abs), "@krsi-unit-notify.%d", getpid());
	fd = manager(path);
	CHECK(fd >= 0, "sdnotify: a test manager socket is bound");
	r = sd_notify_to(path, "READY=1\nSTATUS=enforcing");
	CHECK(r == 1, "sdnotify: sent to a socket path");
	CHECK(received(fd, buf, sizeof(buf)) > 0 && !strcmp(buf, "READY=1\nSTATUS=enforcing"),
	      "sdnotify: the manager gets the state, byte for byte, in one datagram");
	close(fd);
	unlink(path);
	r = sd_notify_to(path, "READY=1");
	CHECK(r == -ENOENT || r == -ECONNREFUSED,
	      "sdnotify: a socket that is gone is an error, not a silent success");

	fd = manager(abs);
	CHECK(fd >= 0, "sdnotify: an abstract test manager socket is bound");
	CHECK(sd_notify_to(abs, "RELOADING=1") == 1 && received(fd, buf, sizeof(buf)) > 0 &&
		      !strcmp(buf, "RELOADING=1"),
	      "sdnotify: \"@name\" reaches the abstract namespace");
	close(fd);

	CHECK(sd_notify_to(NULL, "READY=1") == 0 && sd_notify_to("", "READY=1") == 0,
	      "sdnotify: no NOTIFY_SOCKET: nothing sent, no error (not run by systemd)");
	CHECK(sd_notify_to("relative/sock", "READY=1") == -EINVAL,
	      "sdnotify: a relative socket path is refused");
	memset(buf, 'a', 200);
	buf[0] = '/';
	buf[200] = 0;
	CHECK(sd_notify_to(buf, "READY=1") == -EINVAL, "sdnotify: a path longer than sun_path is refused");

	fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
	CHECK(fd >= 0 && fstat(fd, &st) == 0, "journal: /dev/null opened for the stream checks");
	snprintf(js, sizeof(js), "%llu:%llu", (unsigned long long)st.st_dev,
		 (unsigned long long)st.st_ino);
	CHECK(journal_stream_is(fd, js), "journal: the fd JOURNAL_STREAM names is the journal's");
	snprintf(js, sizeof(js), "%llu:%llu", (unsigned long long)st.st_dev,
		 (unsigned long long)st.st_ino + 1);
	CHECK(!journal_stream_is(fd, js), "journal: another inode is not (stderr redirected elsewhere)");
	CHECK(!journal_stream_is(fd, NULL) && !journal_stream_is(fd, "") &&
		      !journal_stream_is(fd, "12") && !journal_stream_is(fd, "1:2x"),
	      "journal: unset or malformed JOURNAL_STREAM is not the journal");
	close(fd);
}
