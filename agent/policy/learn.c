// SPDX-License-Identifier: GPL-2.0
#include <arpa/inet.h>
#include <string.h>

#include "policy/learn.h"
#include "policy/names.h"

static const char *str_of(json_object *o, const char *key)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

static int64_t int_of(json_object *o, const char *key, int64_t dflt)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_int))
		return dflt;
	return json_object_get_int64(v);
}

/* Binary search in a sorted vector: the index of S, or where it goes (*found false). */
static size_t find(char *const *v, size_t n, const char *s, bool *found)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(v[mid], s);

		if (c == 0) {
			*found = true;
			return mid;
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	*found = false;
	return lo;
}

int learn_add(struct learn *l, enum learn_kind kind, const char *item)
{
	bool found;
	size_t at = find(l->v[kind], l->n[kind], item, &found);
	char **v, *s;

	if (found) {
		l->repeats++;
		return 0;
	}
	if (l->n[kind] >= LEARN_MAX_ITEMS) {
		l->dropped++;
		return -ENOSPC;
	}
	s = strdup(item);
	v = realloc(l->v[kind], (l->n[kind] + 1) * sizeof(*v));
	if (!s || !v) {
		free(s);
		if (v)
			l->v[kind] = v;
		l->dropped++;
		return -ENOSPC;
	}
	memmove(v + at + 1, v + at, (l->n[kind] - at) * sizeof(*v));
	v[at] = s;
	l->v[kind] = v;
	l->n[kind]++;
	return 1;
}

/* "ADDR:PORT" or "[ADDR]:PORT", as a connect or bind rule is written. */
static int net_item(json_object *ev, char *buf, size_t size)
{
	const char *addr = str_of(ev, "address");
	int64_t port = int_of(ev, "port", -1);
	unsigned char bin[16];

	if (!addr || port < 1 || port > 65535)
		return -EINVAL;
	if (inet_pton(AF_INET, addr, bin) == 1)
		snprintf(buf, size, "%s:%lld", addr, (long long)port);
	else if (inet_pton(AF_INET6, addr, bin) == 1)
		snprintf(buf, size, "[%s]:%lld", addr, (long long)port);
	else
		return -EINVAL;
	return 0;
}

int learn_event(struct learn *l, json_object *ev, const char *container)
{
	const char *verdict = str_of(ev, "verdict"), *hook = str_of(ev, "hook"), *c, *path;
	char buf[128];
	int h;

	if (!verdict || strcmp(verdict, "learn") || !hook)
		return 0;
	c = str_of(ev, "container");
	if (container && (!c || strcmp(c, container)))
		return 0;
	l->events++;
	if (int_of(ev, "suppressed", 0) > 0)
		l->throttled += int_of(ev, "suppressed", 0);
	h = names_hook(hook);
	switch (h) {
	case KRSI_HOOK_EXEC:
	case KRSI_HOOK_OPEN_WRITE:
		path = str_of(ev, "path");
		if (!path || path[0] != '/' || strlen(path) >= KRSI_PATH_MAX) {
			l->pathless++;
			return 1;
		}
		learn_add(l, h == KRSI_HOOK_EXEC ? LEARN_EXEC : LEARN_WRITE, path);
		return 1;
	case KRSI_HOOK_CONNECT:
	case KRSI_HOOK_BIND:
		if (net_item(ev, buf, sizeof(buf)) < 0) {
			l->pathless++;
			return 1;
		}
		learn_add(l, h == KRSI_HOOK_CONNECT ? LEARN_CONNECT : LEARN_BIND, buf);
		return 1;
	}
	l->events--;
	return 0;
}

void learn_strv_free(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

void learn_clear(struct learn *l)
{
	for (int k = 0; k < LEARN_KINDS; k++)
		learn_strv_free(l->v[k], l->n[k]);
	memset(l, 0, sizeof(*l));
}

/* The length of P's directory part ("/a/b" of "/a/b/c"); 0 for a file in "/". */
static size_t dir_len(const char *p)
{
	const char *slash = strrchr(p, '/');

	return slash ? (size_t)(slash - p) : 0;
}

/* Whether P lies below directory D (given without its "/", DN bytes). */
static bool below(const char *p, const char *d, size_t dn)
{
	return !strncmp(p, d, dn) && p[dn] == '/';
}

static int strv_push(char ***v, size_t *n, const char *s, size_t len)
{
	char **nv = realloc(*v, (*n + 1) * sizeof(**v));

	if (!nv)
		return -ENOMEM;
	*v = nv;
	nv[*n] = strndup(s, len);
	if (!nv[*n])
		return -ENOMEM;
	(*n)++;
	return 0;
}

int learn_fold(char *const *paths, size_t n, unsigned int fold, char ***files, size_t *n_files,
	       char ***dirs, size_t *n_dirs)
{
	char **f = NULL, **dv = NULL;
	size_t nf = 0, nd = 0;

	/* The directories holding FOLD or more of the paths (a file in "/" folds into nothing). */
	for (size_t i = 0; fold && i < n; i++) {
		size_t dn = dir_len(paths[i]), count = 0;
		bool dup = false;

		if (dn == 0)
			continue;
		for (size_t j = 0; j < nd && !dup; j++)
			dup = strlen(dv[j]) == dn && !strncmp(dv[j], paths[i], dn);
		if (dup)
			continue;
		for (size_t j = 0; j < n; j++)
			if (dir_len(paths[j]) == dn && !strncmp(paths[j], paths[i], dn))
				count++;
		if (count >= fold && strv_push(&dv, &nd, paths[i], dn) < 0)
			goto oom;
	}
	/* A directory below another directory rule is covered by it. */
	for (size_t i = 0; i < nd;) {
		bool covered = false;

		for (size_t j = 0; j < nd && !covered; j++)
			covered = j != i && below(dv[i], dv[j], strlen(dv[j]));
		if (covered) {
			free(dv[i]);
			dv[i] = dv[--nd];
		} else {
			i++;
		}
	}
	for (size_t i = 0; i < n; i++) {
		bool covered = false;

		for (size_t j = 0; j < nd && !covered; j++)
			covered = below(paths[i], dv[j], strlen(dv[j]));
		if (!covered && strv_push(&f, &nf, paths[i], strlen(paths[i])) < 0)
			goto oom;
	}
	/* Sorted, for a stable document. */
	for (size_t i = 1; i < nd; i++)
		for (size_t j = i; j > 0 && strcmp(dv[j - 1], dv[j]) > 0; j--) {
			char *t = dv[j];

			dv[j] = dv[j - 1];
			dv[j - 1] = t;
		}
	*files = f;
	*n_files = nf;
	*dirs = dv;
	*n_dirs = nd;
	return 0;
oom:
	learn_strv_free(f, nf);
	learn_strv_free(dv, nd);
	return -ENOMEM;
}

static json_object *strv_json(char *const *v, size_t n)
{
	json_object *a = json_object_new_array();

	for (size_t i = 0; i < n; i++)
		json_object_array_add(a, json_object_new_string(v[i]));
	return a;
}

json_object *learn_profile(const struct learn *l, json_object *base_doc, const char *name,
			   const char *description, unsigned int fold, struct krsi_err *err)
{
	static const struct {
		enum learn_kind kind;
		const char *files, *dirs; /* dirs NULL: network rules, never folded */
	} lists[] = {
		{ LEARN_EXEC, "exec", "exec_dirs" },
		{ LEARN_WRITE, "write", "write_dirs" },
		{ LEARN_CONNECT, "connect", NULL },
		{ LEARN_BIND, "bind", NULL },
	};
	json_object *doc = NULL, *allow, *old;
	struct profile *p = NULL;
	const char *text;
	int r;

	if (!json_object_is_type(base_doc, json_type_object)) {
		err_set(err, -EINVAL, "the base profile's document is not a JSON object");
		return NULL;
	}
	if (json_object_deep_copy(base_doc, &doc, NULL) < 0) {
		err_set(err, -ENOMEM, "out of memory");
		return NULL;
	}
	json_object_object_add(doc, "name", json_object_new_string(name));
	json_object_object_add(doc, "version", json_object_new_int(1));
	json_object_object_add(doc, "schema", json_object_new_int(2));
	json_object_object_add(doc, "mode", json_object_new_string("enforce"));
	json_object_object_del(doc, "description");
	if (description)
		json_object_object_add(doc, "description", json_object_new_string(description));
	/* The base's read allow lists stay: learning does not see reads. */
	allow = json_object_new_object();
	if (json_object_object_get_ex(doc, "allow", &old) &&
	    json_object_is_type(old, json_type_object)) {
		json_object_object_foreach(old, key, val)
			if (!strcmp(key, "read") || !strcmp(key, "read_dirs"))
				json_object_object_add(allow, key, json_object_get(val));
	}
	for (size_t i = 0; i < ARRAY_SIZE(lists); i++) {
		enum learn_kind k = lists[i].kind;
		char **files, **dirs;
		size_t nf, nd;

		if (!lists[i].dirs) {
			json_object_object_add(allow, lists[i].files, strv_json(l->v[k], l->n[k]));
			continue;
		}
		if (learn_fold(l->v[k], l->n[k], fold, &files, &nf, &dirs, &nd) < 0) {
			json_object_put(allow);
			json_object_put(doc);
			err_set(err, -ENOMEM, "out of memory");
			return NULL;
		}
		json_object_object_add(allow, lists[i].files, strv_json(files, nf));
		json_object_object_add(allow, lists[i].dirs, strv_json(dirs, nd));
		learn_strv_free(files, nf);
		learn_strv_free(dirs, nd);
	}
	json_object_object_add(doc, "allow", allow);
	text = json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PRETTY |
							   JSON_C_TO_STRING_NOSLASHESCAPE);
	r = profile_parse(name, text, strlen(text), &p, err);
	if (r < 0) {
		json_object_put(doc);
		return NULL;
	}
	profile_free(p);
	return doc;
}

/* ---- dry run ---- */

static bool path_in(const struct profile *p, int list, const char *path)
{
	for (size_t i = 0; i < p->n_paths[list]; i++) {
		const char *rule = p->paths[list][i];

		if (profile_list_is_dir(list) ? !strncmp(path, rule, strlen(rule))
					      : !strcmp(path, rule))
			return true;
	}
	return false;
}

static bool net_in(const struct profile *p, int list, int family, const unsigned char *addr,
		   int port)
{
	for (size_t i = 0; i < p->n_net[list]; i++) {
		const struct profile_net_rule *r = &p->net[list][i];
		unsigned int full = r->prefix / 8, rest = r->prefix % 8;

		if (r->family != family || (r->port && r->port != port))
			continue;
		if (memcmp(r->addr, addr, full))
			continue;
		if (rest && (r->addr[full] ^ addr[full]) & (0xff00 >> rest))
			continue;
		return true;
	}
	return false;
}

int learn_would_deny(const struct profile *p, json_object *ev, char *why, size_t size)
{
	const char *hook = str_of(ev, "hook"), *path = str_of(ev, "path");
	int h = hook ? names_hook(hook) : -1;
	int list, net, family;
	unsigned char addr[16] = { 0 };
	const char *a;

	switch (h) {
	case KRSI_HOOK_EXEC:
	case KRSI_HOOK_OPEN_READ:
	case KRSI_HOOK_OPEN_WRITE:
		if (!path || path[0] != '/') {
			snprintf(why, size, "no path to judge by");
			return -1;
		}
		list = h == KRSI_HOOK_EXEC ? PROFILE_EXEC
		       : h == KRSI_HOOK_OPEN_READ ? PROFILE_READ : PROFILE_WRITE;
		if (path_in(p, list, path) || path_in(p, list + 1, path)) {
			snprintf(why, size, "%s deny rule", hook);
			return 1;
		}
		if (!(p->allow & KRSI_DENY(h)))
			return 0;
		if (path_in(p, PROFILE_ALLOW + list, path) || path_in(p, PROFILE_ALLOW + list + 1, path))
			return 0;
		snprintf(why, size, "not in allow.%s or allow.%s_dirs", hook, hook);
		return 1;
	case KRSI_HOOK_CONNECT:
	case KRSI_HOOK_BIND:
		a = str_of(ev, "address");
		if (a && inet_pton(AF_INET, a, addr) == 1) {
			family = 4;
		} else if (a && inet_pton(AF_INET6, a, addr) == 1) {
			family = 6;
		} else {
			snprintf(why, size, "no address to judge by");
			return -1;
		}
		net = h == KRSI_HOOK_CONNECT ? PROFILE_CONNECT : PROFILE_BIND;
		if (net_in(p, net, family, addr, int_of(ev, "port", 0))) {
			snprintf(why, size, "%s deny rule", hook);
			return 1;
		}
		if (!(p->allow & KRSI_DENY(h)) ||
		    net_in(p, net + PROFILE_ALLOW_CONNECT, family, addr, int_of(ev, "port", 0)))
			return 0;
		snprintf(why, size, "not in allow.%s", hook);
		return 1;
	case KRSI_HOOK_SOCKET: {
		int fam = names_family(str_of(ev, "family")), type = names_socktype(str_of(ev, "type"));

		if (fam < 0 || type < 0 || fam >= KRSI_AF_MAX) {
			snprintf(why, size, "unknown socket family or type");
			return -1;
		}
		if (p->families & (1ULL << fam) || p->types[fam] & (1u << type)) {
			snprintf(why, size, "socket rule");
			return 1;
		}
		return 0;
	}
	case KRSI_HOOK_CAPABLE: {
		int cap = names_cap(str_of(ev, "capability"));

		if (cap < 0) {
			snprintf(why, size, "unknown capability");
			return -1;
		}
		if (p->caps & (1ULL << cap)) {
			snprintf(why, size, "capabilities rule");
			return 1;
		}
		return 0;
	}
	case KRSI_HOOK_CGROUP:
		snprintf(why, size, "every profile keeps a container in its cgroup");
		return 1;
	}
	{
		static const struct {
			int hook;
			size_t off;
			const char *key;
		} flags[] = {
			{ KRSI_HOOK_MOUNT, offsetof(struct profile, mount), "mount" },
			{ KRSI_HOOK_PTRACE, offsetof(struct profile, ptrace), "ptrace" },
			{ KRSI_HOOK_MODULE, offsetof(struct profile, module), "module" },
			{ KRSI_HOOK_BPF, offsetof(struct profile, bpf), "bpf" },
			{ KRSI_HOOK_USERNS, offsetof(struct profile, userns), "userns" },
			{ KRSI_HOOK_WX, offsetof(struct profile, wx), "wx" },
			{ KRSI_HOOK_PATHLESS, offsetof(struct profile, pathless_exec), "pathless_exec" },
			{ KRSI_HOOK_KNOB, offsetof(struct profile, kernel_knobs), "kernel_knobs" },
			{ KRSI_HOOK_BLOCKDEV, offsetof(struct profile, block_write), "block_write" },
		};

		for (size_t i = 0; i < ARRAY_SIZE(flags); i++) {
			if (flags[i].hook != h)
				continue;
			if (*(const bool *)((const char *)p + flags[i].off)) {
				snprintf(why, size, "\"%s\": true", flags[i].key);
				return 1;
			}
			return 0;
		}
	}
	snprintf(why, size, "hook %s: not judged by a dry run", hook ? hook : "(none)");
	return -1;
}
