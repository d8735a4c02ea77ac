// SPDX-License-Identifier: GPL-2.0
/* The client's connect and send, apart from the JSON code of protocol.c: krsi-oci-hook links
 * them alone. */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>

#include "lib/request.h"

static int set_timeouts(int fd, int timeout_ms)
{
	struct timeval tv = { .tv_sec = timeout_ms / 1000, .tv_usec = (timeout_ms % 1000) * 1000 };

	if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) < 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)) < 0)
		return -errno;
	return 0;
}

int proto_connect(const char *path, int timeout_ms, struct krsi_err *err)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	_cleanup_close_ int fd = -1;

	if (strlen(path) >= sizeof(sa.sun_path))
		return err_set(err, -ENAMETOOLONG, "socket path %s: too long", path);
	strcpy(sa.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return err_set(err, -errno, "socket: %s", strerror(errno));
	if (timeout_ms > 0 && set_timeouts(fd, timeout_ms) < 0)
		return err_set(err, -errno, "socket timeouts: %s", strerror(errno));
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		return err_set(err, -errno, "connect to %s: %s (is krsid running?)", path,
			       strerror(errno));
	return TAKE_FD(fd);
}

int proto_send_line(int fd, const char *buf, size_t len)
{
	size_t off = 0;

	while (off < len) {
		ssize_t n = send(fd, buf + off, len - off, MSG_NOSIGNAL);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		off += n;
	}
	return 0;
}
