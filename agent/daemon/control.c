// SPDX-License-Identifier: GPL-2.0
/*
 * The control socket: clients read up to a deadline, each request served by its
 * handler in the table, one reply.
 */
#include <malloc.h>
#include <signal.h>
#include <time.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include "daemon/krsid.h"

/* Reply REP (consumed) to FD, blocking for at most 2 s, and close it. */
static void reply_close(int fd, json_object *rep)
{
	struct timeval tv = { .tv_sec = 2 };

	char buf[4096];

	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	proto_send(fd, rep);
	json_object_put(rep);
	/* Unread input would reset the connection at close, and the client could lose the reply
	 * (an oversized request): what has arrived is read and dropped first. */
	shutdown(fd, SHUT_WR);
	for (int i = 0; i < 256 && recv(fd, buf, sizeof(buf), MSG_DONTWAIT) > 0; i++)
		;
	close(fd);
}

/*
 * The handlers, one per op (lib/protocol.h): each returns the reply. EVENTS may keep the
 * connection as a subscriber (*KEEP).
 */
struct handler_ctx {
	struct krsid *d;
	struct proto_request *q;
	int fd;
	bool *keep;
};

static json_object *h_status(struct handler_ctx *h)
{
	return op_status(h->d);
}

static json_object *h_ps(struct handler_ctx *h)
{
	return op_ps(h->d);
}

static json_object *h_profile_list(struct handler_ctx *h)
{
	return op_profile_list(h->d);
}

static json_object *h_profile_show(struct handler_ctx *h)
{
	struct installed *ip = prof_find(h->d, h->q->name);
	json_object *rep;

	if (!ip)
		return proto_reply_error("profile %s: no such profile", h->q->name);
	rep = proto_reply_ok();
	json_object_object_add(rep, "profile", prof_json(h->d, ip, true));
	return rep;
}

static json_object *h_reload(struct handler_ctx *h)
{
	return reload_run(h->d, "request");
}

static json_object *h_register(struct handler_ctx *h)
{
	json_object *rep = op_register(h->d, h->q, false), *ok;

	if (json_object_object_get_ex(rep, "ok", &ok) && json_object_get_boolean(ok))
		h->d->n.registrations++;
	else
		h->d->n.refusals++;
	return rep;
}

static json_object *h_assign(struct handler_ctx *h)
{
	json_object *rep = op_register(h->d, h->q, true);

	prof_collect(h->d); /* the removed profile it had may have no container left */
	return rep;
}

static json_object *h_unregister(struct handler_ctx *h)
{
	const char *c = h->q->container;
	int r;

	if (!registry_find(&h->d->reg, c))
		return proto_reply_error("container %s: not registered", c);
	r = reg_delete(h->d, c, "on request");
	if (r < 0)
		return proto_reply_error("container %s: deleting its cgroups entry: %s; still "
					 "registered", c, strerror(-r));
	prof_collect(h->d);
	return proto_reply_ok();
}

static json_object *h_events(struct handler_ctx *h)
{
	return op_events(h->d, h->q, h->fd, h->keep);
}

static json_object *h_learn(struct handler_ctx *h)
{
	return op_learn(h->d, h->q);
}

static json_object *h_metrics(struct handler_ctx *h)
{
	struct metrics_buf b = { 0 };
	json_object *rep;

	metrics_text(h->d, &b);
	if (b.oom) {
		rep = proto_reply_error("metrics: out of memory");
	} else {
		rep = proto_reply_ok();
		json_object_object_add(rep, "text", json_object_new_string(b.s ? b.s : ""));
	}
	metrics_buf_free(&b);
	return rep;
}

static json_object *(*const handlers[PROTO_OP_COUNT])(struct handler_ctx *h) = {
	[PROTO_STATUS] = h_status,
	[PROTO_PS] = h_ps,
	[PROTO_PROFILE_LIST] = h_profile_list,
	[PROTO_PROFILE_SHOW] = h_profile_show,
	[PROTO_RELOAD] = h_reload,
	[PROTO_REGISTER] = h_register,
	[PROTO_UNREGISTER] = h_unregister,
	[PROTO_ASSIGN] = h_assign,
	[PROTO_EVENTS] = h_events,
	[PROTO_METRICS] = h_metrics,
	[PROTO_LEARN] = h_learn,
};

/* After the reply: a subscriber is kept, non-blocking (one that cannot keep up is dropped,
 * never waited for); any other client is closed. */
static void serve_done(struct krsid *d, int fd, bool keep, int sent)
{
	if (keep && sent == 0) {
		fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
		return;
	}
	if (keep) {
		for (size_t i = 0; i < d->n_subs; i++)
			if (d->subs[i].fd == fd) {
				sub_remove(d, i);
				return;
			}
	}
	close(fd);
}

/* Serve the whole request REQ (consumed) that FD sent; FD is closed, or kept as a subscriber. */
static void serve(struct krsid *d, int fd, json_object *req)
{
	struct proto_request q;
	struct krsi_err err = { "" };
	json_object *rep = NULL;
	struct timeval tv = { .tv_sec = 2 };
	bool keep = false, trim = false;
	struct handler_ctx h = { d, &q, fd, &keep };
	int r;

	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	r = proto_request_from_doc(req, &q, &err);
	if (r < 0) {
		rep = proto_reply_error("%s", err.msg);
	} else {
		rep = handlers[q.op] ? handlers[q.op](&h) : proto_reply_error("op not implemented");
		/*
		 * A listing of every container is a json-c object per field: at 10,000 containers
		 * some 20 MB, freed in the middle of the heap, where glibc keeps it. Give it back.
		 */
		trim = q.op == PROTO_PS && d->reg.n >= 1000;
		proto_request_clear(&q);
	}
	r = proto_send(fd, rep);
	json_object_put(rep);
	json_object_put(req);
	if (trim)
		malloc_trim(0);
	serve_done(d, fd, keep, r);
}

/* New control clients: root only, at most MAX_CLIENTS reading at once. */
void clients_accept(struct krsid *d)
{
	for (;;) {
		int fd = accept4(d->listen_fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
		struct epoll_event ev = { .events = EPOLLIN };
		socklen_t len = sizeof(struct ucred);
		struct ucred cred = { 0 };
		struct client *c;

		if (fd < 0 && (errno == EMFILE || errno == ENFILE) && d->spare_fd >= 0) {
			/* Out of fds: the spare one lets the client hear why, not hang in the backlog
			 * while the listening socket wakes the loop again and again. */
			close(d->spare_fd);
			fd = accept4(d->listen_fd, NULL, NULL, SOCK_CLOEXEC);
			if (fd >= 0) {
				d->n.clients_busy++;
				reply_close(fd, proto_reply_error("busy: krsid is out of file descriptors"));
			}
			d->spare_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
			continue;
		}
		if (fd < 0)
			return;
		if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0 || cred.uid != 0) {
			d->n.clients_refused++;
			log_warn("refused a client with uid %d, pid %d", (int)cred.uid, (int)cred.pid);
			reply_close(fd, proto_reply_error("permission denied: krsid serves root only "
							  "(uid %d)", (int)cred.uid));
			continue;
		}
		if (d->n_clients == MAX_CLIENTS) {
			d->n.clients_busy++;
			reply_close(fd, proto_reply_error("busy: %d clients are sending requests at once; "
							  "try again", MAX_CLIENTS));
			continue;
		}
		c = &d->clients[d->n_clients];
		if (proto_reader_init(&c->rd, PROTO_REQUEST_MAX) < 0) {
			reply_close(fd, proto_reply_error("out of memory"));
			continue;
		}
		c->fd = fd;
		c->deadline_ns = now_ns(CLOCK_MONOTONIC) + REQUEST_DEADLINE_MS * 1000000ULL;
		ev.data.fd = fd;
		if (epoll_ctl(d->epfd, EPOLL_CTL_ADD, fd, &ev) < 0) {
			proto_reader_free(&c->rd);
			reply_close(fd, proto_reply_error("epoll: %s", strerror(errno)));
			continue;
		}
		d->n_clients++;
	}
}

/* Forget client I (its fd stays open: the caller replies on it or serves it). */
static int client_take(struct krsid *d, size_t i)
{
	int fd = d->clients[i].fd;

	epoll_ctl(d->epfd, EPOLL_CTL_DEL, fd, NULL);
	proto_reader_free(&d->clients[i].rd);
	d->clients[i] = d->clients[--d->n_clients];
	return fd;
}

/* FD is readable: if it is a client, read what is there and serve a whole request. */
bool client_read(struct krsid *d, int fd)
{
	struct krsi_err err = { "" };
	json_object *req = NULL;
	char buf[4096];
	size_t i;
	int r = 0;

	for (i = 0; i < d->n_clients && d->clients[i].fd != fd; i++)
		;
	if (i == d->n_clients)
		return false;
	while (r == 0) {
		ssize_t n = recv(fd, buf, sizeof(buf), 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return true; /* the rest later, before its deadline */
		if (n < 0) {
			r = err_set(&err, -errno, "receive: %s", strerror(errno));
			break;
		}
		r = proto_reader_feed(&d->clients[i].rd, buf, n, &req, &err);
	}
	fd = client_take(d, i);
	if (r < 0)
		reply_close(fd, proto_reply_error("%s", err.msg));
	else
		serve(d, fd, req);
	return true;
}

/* Turn away the clients past their deadline; the milliseconds until the next one (-1: none). */
int clients_expire(struct krsid *d)
{
	uint64_t now = now_ns(CLOCK_MONOTONIC), next = UINT64_MAX;

	for (size_t i = 0; i < d->n_clients;) {
		if (d->clients[i].deadline_ns <= now) {
			d->n.clients_timed_out++;
			reply_close(client_take(d, i), proto_reply_error("timed out waiting for a message "
								      "(%d ms)", REQUEST_DEADLINE_MS));
			continue;
		}
		if (d->clients[i].deadline_ns < next)
			next = d->clients[i].deadline_ns;
		i++;
	}
	return next == UINT64_MAX ? -1 : (int)((next - now) / 1000000 + 1);
}

/* A listening unix socket at PATH (replacing a stale one), of mode MODE. */
int unix_listen(const char *path, int flags, int backlog, mode_t mode)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd;

	mkdir("/run/krsi", 0755);
	if (strlen(path) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	strcpy(sa.sun_path, path);
	unlink(path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | flags, 0);
	if (fd < 0)
		return -errno;
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(fd, backlog) < 0) {
		int r = -errno;

		close(fd);
		return r;
	}
	chmod(path, mode);
	return fd;
}
