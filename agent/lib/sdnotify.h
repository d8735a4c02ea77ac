/* SPDX-License-Identifier: GPL-2.0 */
/*
 * systemd's service protocols without libsystemd (sd_notify(3), sd-daemon(3)): readiness and
 * reloads told to the service manager as one datagram to $NOTIFY_SOCKET, and whether stderr is
 * the journal's stream ($JOURNAL_STREAM), where a line carries its priority as "<N>".
 */
#ifndef KRSI_SDNOTIFY_H
#define KRSI_SDNOTIFY_H

#include <stdbool.h>

/*
 * Send STATE ("READY=1", "RELOADING=1", "STOPPING=1", "STATUS=...", newline-separated) to
 * SOCKET: a path, or "@name" for the abstract namespace. 1: sent; 0: SOCKET is NULL or empty
 * (no service manager asked); -errno: the socket is malformed or the send failed.
 */
int sd_notify_to(const char *socket, const char *state);

/* sd_notify_to($NOTIFY_SOCKET, STATE). */
int sd_notify_state(const char *state);

/* FD is the stream $JOURNAL_STREAM ("DEVICE:INODE") names: systemd connected it to journald. */
bool journal_stream_is(int fd, const char *journal_stream);

#endif /* KRSI_SDNOTIFY_H */
