// SPDX-License-Identifier: GPL-2.0
/* systemd's notify and journal-stream protocols (sdnotify.h). */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "lib/sdnotify.h"

int sd_notify_to(const char *socket_path, const char *state)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	size_t n = socket_path ? strlen(socket_path) : 0;
	socklen_t len;
	ssize_t sent;
	int fd, r;

	if (!n)
		return 0;
	/* a path, or "@name" in the abstract namespace; nothing else (no vsock here) */
	if ((socket_path[0] != '/' && socket_path[0] != '@') || n >= sizeof(sa.sun_path))
		return -EINVAL;
	memcpy(sa.sun_path, socket_path, n);
	if (sa.sun_path[0] == '@')
		sa.sun_path[0] = 0;
	len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n + (socket_path[0] == '/'));
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	sent = sendto(fd, state, strlen(state), MSG_NOSIGNAL, (struct sockaddr *)&sa, len);
	r = sent < 0 ? -errno : 1;
	close(fd);
	return r;
}

int sd_notify_state(const char *state)
{
	return sd_notify_to(getenv("NOTIFY_SOCKET"), state);
}

bool journal_stream_is(int fd, const char *journal_stream)
{
	unsigned long long dev, ino;
	struct stat st;
	char end;

	if (!journal_stream || sscanf(journal_stream, "%llu:%llu%c", &dev, &ino, &end) != 2)
		return false;
	return fstat(fd, &st) == 0 && (unsigned long long)st.st_dev == dev &&
	       (unsigned long long)st.st_ino == ino;
}
