// SPDX-License-Identifier: GPL-2.0
/*
 * The profile directory, watched with inotify: a burst of changes is one reload.
 */
#include <sys/epoll.h>
#include <sys/inotify.h>
#include <sys/timerfd.h>

#include "daemon/krsid.h"

/*
 * Watch the directory itself: a file written, renamed in or out, removed, or a new ..data
 * (a ConfigMap update). The timer tick calls this again while the directory is missing.
 */
void watch_start(struct krsid *d)
{
	struct epoll_event ev = { .events = EPOLLIN };

	if (!d->watch)
		return;
	if (d->watch_fd < 0) {
		d->watch_fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
		if (d->watch_fd < 0) {
			log_info("profile directory %s: inotify: %s; not watched (reload by request)",
				 d->profile_dir, strerror(errno));
			d->watch = false;
			return;
		}
		ev.data.fd = d->watch_fd;
		epoll_ctl(d->epfd, EPOLL_CTL_ADD, d->watch_fd, &ev);
	}
	if (inotify_add_watch(d->watch_fd, d->profile_dir,
			      IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_CLOSE_WRITE |
				      IN_ATTRIB | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR) < 0) {
		if (!d->watch_gone)
			log_info("profile directory %s: not watched yet: %s; trying again every %d s",
				 d->profile_dir, strerror(errno), GC_INTERVAL_S);
		d->watch_gone = true;
		close(d->watch_fd); /* one fd, one watch: a new one next time */
		d->watch_fd = -1;
		return;
	}
	if (d->watch_gone) {
		struct itimerspec its = { .it_value.tv_nsec = WATCH_SETTLE_MS * 1000000L };

		log_info("profile directory %s: watched again; reloading it", d->profile_dir);
		timerfd_settime(d->settle_fd, 0, &its, NULL);
	}
	d->watch_gone = false;
}

static bool watch_relevant(const struct inotify_event *e)
{
	size_t len;

	if (e->mask & (IN_Q_OVERFLOW | IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED))
		return true;
	if (!e->len)
		return false;
	if (!strcmp(e->name, "..data"))
		return true;
	len = strlen(e->name);
	return e->name[0] != '.' && len > 5 && !strcmp(e->name + len - 5, ".json");
}

/* Changes come in bursts (an editor, a ConfigMap update): reload once they settle. */
void watch_read(struct krsid *d)
{
	char buf[8192] __attribute__((aligned(__alignof__(struct inotify_event))));
	bool any = false, lost = false;
	ssize_t n;

	while ((n = read(d->watch_fd, buf, sizeof(buf))) > 0)
		for (char *p = buf; p < buf + n;) {
			const struct inotify_event *e = (const struct inotify_event *)p;

			any |= watch_relevant(e);
			lost |= !!(e->mask & (IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED));
			p += sizeof(*e) + e->len;
		}
	if (lost) {
		log_info("profile directory %s: removed or moved; the running policy stays",
			 d->profile_dir);
		epoll_ctl(d->epfd, EPOLL_CTL_DEL, d->watch_fd, NULL);
		close(d->watch_fd);
		d->watch_fd = -1;
		d->watch_gone = true;
	}
	if (any) {
		struct itimerspec its = { .it_value.tv_nsec = WATCH_SETTLE_MS * 1000000L };

		timerfd_settime(d->settle_fd, 0, &its, NULL);
	}
}
