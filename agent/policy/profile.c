// SPDX-License-Identifier: GPL-2.0
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <string.h>
#include <sys/stat.h>

#include "policy/names.h"
#include "policy/profile.h"

struct ctx {
	const char *label;
	struct profile *p;
	struct krsi_err *err;
};

#define FIELD_ERR(c, field, ...) field_err(c, field, __VA_ARGS__)

__attribute__((format(printf, 3, 4))) static int field_err(struct ctx *c, const char *field,
							   const char *fmt, ...)
{
	char reason[384];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(reason, sizeof(reason), fmt, ap);
	va_end(ap);
	return err_set(c->err, -EINVAL, "profile %s: field \"%s\": %s", c->label, field, reason);
}

int profile_normalize_path(const char *s, bool dir, char *buf, size_t size, const char **ret_reason)
{
	size_t n = strlen(s);
	const char *c;

	if (s[0] != '/') {
		*ret_reason = "not an absolute path";
		return -EINVAL;
	}
	if (!dir && n > 1 && s[n - 1] == '/') {
		*ret_reason = "ends in \"/\": a directory belongs in the *_dirs list";
		return -EINVAL;
	}
	if (!dir && n == 1) {
		*ret_reason = "\"/\" is a directory: it belongs in the *_dirs list";
		return -EINVAL;
	}
	for (c = s; *c; c++) {
		if (c[0] == '/' && c[1] == '/') {
			*ret_reason = "contains \"//\"";
			return -EINVAL;
		}
		if (c[0] == '/' && c[1] == '.' && (c[2] == '/' || !c[2] ||
						   (c[2] == '.' && (c[3] == '/' || !c[3])))) {
			*ret_reason = "contains a \".\" or \"..\" component";
			return -EINVAL;
		}
		if ((unsigned char)*c < 0x20) {
			*ret_reason = "contains a control character";
			return -EINVAL;
		}
	}
	/* An exact rule stores the path and its NUL; a directory rule "/dir/" without NUL. */
	if (dir && n > 1 && s[n - 1] != '/') {
		if (n + 2 > size || n + 1 > KRSI_PATH_MAX) {
			*ret_reason = "longer than the 243 bytes a rule can hold";
			return -ENAMETOOLONG;
		}
		memcpy(buf, s, n);
		buf[n] = '/';
		buf[n + 1] = 0;
		return 0;
	}
	if (n + 1 > size || n + 1 > KRSI_PATH_MAX) {
		*ret_reason = "longer than the 243 bytes a rule can hold";
		return -ENAMETOOLONG;
	}
	memcpy(buf, s, n + 1);
	return 0;
}

static int parse_port(const char *s, uint16_t *ret)
{
	uint64_t v = 0;

	if (parse_u64(s, &v) < 0 || v == 0 || v > 65535)
		return -EINVAL;
	*ret = v;
	return 0;
}

int profile_parse_net(const char *s, struct profile_net_rule *ret, const char **ret_reason)
{
	char buf[128], *addr, *prefix = NULL, *port = NULL;
	struct profile_net_rule r = { 0 };
	unsigned int max;

	if (strlen(s) >= sizeof(buf)) {
		*ret_reason = "too long for an address";
		return -EINVAL;
	}
	strcpy(buf, s);
	addr = buf;
	if (buf[0] == '[') {
		char *end = strchr(buf, ']');

		if (!end) {
			*ret_reason = "\"[\" without \"]\"";
			return -EINVAL;
		}
		*end = 0;
		addr = buf + 1;
		if (end[1] == ':')
			port = end + 2;
		else if (end[1]) {
			*ret_reason = "expected \":PORT\" after \"]\"";
			return -EINVAL;
		}
		r.family = 6;
	} else if (strchr(buf, ':') && strchr(buf, ':') != strrchr(buf, ':')) {
		r.family = 6; /* bare IPv6, no port */
	} else {
		r.family = 4;
		port = strchr(buf, ':');
		if (port)
			*port++ = 0;
	}
	prefix = strchr(addr, '/');
	if (prefix)
		*prefix++ = 0;
	if (inet_pton(r.family == 4 ? AF_INET : AF_INET6, addr, r.addr) != 1) {
		*ret_reason = r.family == 4 ? "not an IPv4 address" : "not an IPv6 address";
		return -EINVAL;
	}
	max = r.family == 4 ? 32 : 128;
	r.prefix = max;
	if (prefix) {
		uint64_t v = 0;

		if (parse_u64(prefix, &v) < 0 || v > max) {
			*ret_reason = "bad prefix length";
			return -EINVAL;
		}
		r.prefix = v;
	}
	for (unsigned int bit = r.prefix; bit < max; bit++) {
		if (r.addr[bit / 8] & (0x80 >> (bit % 8))) {
			*ret_reason = "address has bits set past its prefix length";
			return -EINVAL;
		}
	}
	if (port && parse_port(port, &r.port) < 0) {
		*ret_reason = "bad port (expected 1..65535)";
		return -EINVAL;
	}
	*ret = r;
	return 0;
}

/* A rule cut at the NUL would be another rule than the one written: "4.0.0.0\u0000/0:2" would
 * deny 4.0.0.0 on every port. */
static int nul_err(struct ctx *c, const char *field, json_object *v)
{
	return FIELD_ERR(c, field, "\"%.64s\\u0000...\": a NUL character in the string",
			 json_object_get_string(v));
}

static int expect_string_array(struct ctx *c, const char *field, json_object *v)
{
	size_t n;

	if (!json_object_is_type(v, json_type_array))
		return FIELD_ERR(c, field, "expected array of strings");
	n = json_object_array_length(v);
	if (n > KRSI_LIST_MAX)
		return FIELD_ERR(c, field, "%zu entries, at most %d allowed", n, KRSI_LIST_MAX);
	for (size_t i = 0; i < n; i++) {
		json_object *e = json_object_array_get_idx(v, i);

		if (!json_object_is_type(e, json_type_string))
			return FIELD_ERR(c, field, "expected array of strings");
		if (json_string_has_nul(e))
			return nul_err(c, field, e);
	}
	return 0;
}

static int parse_paths(struct ctx *c, const char *field, json_object *v, int list)
{
	bool dir = profile_list_is_dir(list);
	size_t n;
	int r;

	r = expect_string_array(c, field, v);
	if (r < 0)
		return r;
	n = json_object_array_length(v);
	c->p->paths[list] = calloc(n + 1, sizeof(char *));
	if (!c->p->paths[list])
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		const char *s = json_object_get_string(json_object_array_get_idx(v, i));
		const char *reason = NULL;
		char buf[KRSI_PATH_MAX + 2];

		r = profile_normalize_path(s, dir, buf, sizeof(buf), &reason);
		if (r < 0)
			return FIELD_ERR(c, field, "\"%s\": %s", s, reason);
		c->p->paths[list][i] = strdup(buf);
		if (!c->p->paths[list][i])
			return -ENOMEM;
		c->p->n_paths[list]++;
	}
	return 0;
}

static int parse_socket(struct ctx *c, const char *field, json_object *v)
{
	int r = expect_string_array(c, field, v);

	if (r < 0)
		return r;
	for (size_t i = 0; i < json_object_array_length(v); i++) {
		const char *s = json_object_get_string(json_object_array_get_idx(v, i));
		char buf[64], *type;
		int fam, t;

		if (strlen(s) >= sizeof(buf))
			return FIELD_ERR(c, field, "\"%s\": unknown socket family", s);
		strcpy(buf, s);
		type = strchr(buf, ':');
		if (type)
			*type++ = 0;
		fam = names_family(buf);
		if (fam < 0 || fam >= KRSI_AF_MAX)
			return FIELD_ERR(c, field, "\"%s\": unknown socket family \"%s\"", s, buf);
		if (!type) {
			c->p->families |= 1ULL << fam;
			continue;
		}
		t = names_socktype(type);
		if (t < 0 || t >= 16)
			return FIELD_ERR(c, field, "\"%s\": unknown socket type \"%s\"", s, type);
		c->p->types[fam] |= 1u << t;
	}
	return 0;
}

static int parse_net(struct ctx *c, const char *field, json_object *v, int op)
{
	int r = expect_string_array(c, field, v);
	size_t n;

	if (r < 0)
		return r;
	n = json_object_array_length(v);
	c->p->net[op] = calloc(n + 1, sizeof(struct profile_net_rule));
	if (!c->p->net[op])
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		const char *s = json_object_get_string(json_object_array_get_idx(v, i));
		const char *reason = NULL;

		if (profile_parse_net(s, &c->p->net[op][i], &reason) < 0)
			return FIELD_ERR(c, field, "\"%s\": bad CIDR: %s", s, reason);
		c->p->n_net[op]++;
	}
	return 0;
}

static int parse_caps(struct ctx *c, const char *field, json_object *v)
{
	int r = expect_string_array(c, field, v);

	if (r < 0)
		return r;
	for (size_t i = 0; i < json_object_array_length(v); i++) {
		const char *s = json_object_get_string(json_object_array_get_idx(v, i));
		int cap = names_cap(s);

		if (cap < 0 || cap >= KRSI_CAP_MAX)
			return FIELD_ERR(c, field, "\"%s\": unknown capability", s);
		c->p->caps |= 1ULL << cap;
	}
	return 0;
}

static int parse_bool(struct ctx *c, const char *field, json_object *v, bool *ret)
{
	if (!json_object_is_type(v, json_type_boolean))
		return FIELD_ERR(c, field, "expected true or false");
	*ret = json_object_get_boolean(v);
	return 0;
}

enum field_kind {
	F_NAME,
	F_VERSION,
	F_MODE,
	F_DESC,
	F_PATHS,
	F_SOCKET,
	F_NET,
	F_CAPS,
	F_BOOL,
	F_SCHEMA,
	F_ALLOW,
};

static const struct field {
	const char *name;
	enum field_kind kind;
	int arg;
	size_t bool_off;
} fields[] = {
	{ "name", F_NAME },
	{ "version", F_VERSION },
	{ "mode", F_MODE },
	{ "description", F_DESC },
	{ "exec", F_PATHS, PROFILE_EXEC },
	{ "exec_dirs", F_PATHS, PROFILE_EXEC_DIRS },
	{ "read", F_PATHS, PROFILE_READ },
	{ "read_dirs", F_PATHS, PROFILE_READ_DIRS },
	{ "write", F_PATHS, PROFILE_WRITE },
	{ "write_dirs", F_PATHS, PROFILE_WRITE_DIRS },
	{ "socket", F_SOCKET },
	{ "connect", F_NET, PROFILE_CONNECT },
	{ "bind", F_NET, PROFILE_BIND },
	{ "capabilities", F_CAPS },
	{ "mount", F_BOOL, 0, offsetof(struct profile, mount) },
	{ "ptrace", F_BOOL, 0, offsetof(struct profile, ptrace) },
	{ "module", F_BOOL, 0, offsetof(struct profile, module) },
	{ "bpf", F_BOOL, 0, offsetof(struct profile, bpf) },
	{ "userns", F_BOOL, 0, offsetof(struct profile, userns) },
	{ "wx", F_BOOL, 0, offsetof(struct profile, wx) },
	{ "pathless_exec", F_BOOL, 0, offsetof(struct profile, pathless_exec) },
	{ "kernel_knobs", F_BOOL, 0, offsetof(struct profile, kernel_knobs) },
	{ "block_write", F_BOOL, 0, offsetof(struct profile, block_write) },
	{ "schema", F_SCHEMA },
	{ "allow", F_ALLOW },
};

/* The fields of "allow": the deny list's field, its list here, and the kind's hook. */
static const struct allow_field {
	const char *name;
	bool net;
	int list;
	uint32_t hook;
} allow_fields[] = {
	{ "exec", false, PROFILE_ALLOW_EXEC, KRSI_HOOK_EXEC },
	{ "exec_dirs", false, PROFILE_ALLOW_EXEC_DIRS, KRSI_HOOK_EXEC },
	{ "read", false, PROFILE_ALLOW_READ, KRSI_HOOK_OPEN_READ },
	{ "read_dirs", false, PROFILE_ALLOW_READ_DIRS, KRSI_HOOK_OPEN_READ },
	{ "write", false, PROFILE_ALLOW_WRITE, KRSI_HOOK_OPEN_WRITE },
	{ "write_dirs", false, PROFILE_ALLOW_WRITE_DIRS, KRSI_HOOK_OPEN_WRITE },
	{ "connect", true, PROFILE_ALLOW_CONNECT, KRSI_HOOK_CONNECT },
	{ "bind", true, PROFILE_ALLOW_BIND, KRSI_HOOK_BIND },
};

static int parse_allow(struct ctx *c, json_object *v)
{
	char field[32];
	int r;

	if (!json_object_is_type(v, json_type_object))
		return FIELD_ERR(c, "allow", "expected an object of allow lists (exec, exec_dirs, "
				 "read, read_dirs, write, write_dirs, connect, bind)");
	json_object_object_foreach(v, key, val)
	{
		size_t i;

		for (i = 0; i < ARRAY_SIZE(allow_fields); i++)
			if (!strcmp(allow_fields[i].name, key))
				break;
		if (i == ARRAY_SIZE(allow_fields)) {
			snprintf(field, sizeof(field), "allow.%.20s", key);
			return FIELD_ERR(c, field, "unknown allow list (expected exec, exec_dirs, "
					 "read, read_dirs, write, write_dirs, connect or bind)");
		}
		snprintf(field, sizeof(field), "allow.%s", key);
		if (allow_fields[i].net)
			r = parse_net(c, field, val, allow_fields[i].list);
		else
			r = parse_paths(c, field, val, allow_fields[i].list);
		if (r < 0)
			return r;
		c->p->allow |= KRSI_DENY(allow_fields[i].hook);
	}
	return 0;
}

static int parse_field(struct ctx *c, const struct field *f, json_object *v)
{
	struct profile *p = c->p;

	switch (f->kind) {
	case F_NAME:
		if (!json_object_is_type(v, json_type_string))
			return FIELD_ERR(c, f->name, "expected a string");
		if (json_string_has_nul(v))
			return nul_err(c, f->name, v);
		if (!profile_name_valid(json_object_get_string(v)))
			return FIELD_ERR(c, f->name,
					 "\"%s\": expected 1 to %d characters of [a-z0-9._-]",
					 json_object_get_string(v), KRSI_NAME_MAX - 1);
		strcpy(p->name, json_object_get_string(v));
		return 0;
	case F_VERSION:
		if (!json_object_is_type(v, json_type_int) || json_object_get_int64(v) < 0)
			return FIELD_ERR(c, f->name, "expected a non-negative integer");
		p->version = json_object_get_int64(v);
		return 0;
	case F_MODE:
		if (!json_object_is_type(v, json_type_string))
			return FIELD_ERR(c, f->name, "expected \"enforce\" or \"audit\"");
		if (json_string_has_nul(v))
			return nul_err(c, f->name, v);
		if (!strcmp(json_object_get_string(v), "enforce"))
			p->mode = KRSI_MODE_ENFORCE;
		else if (!strcmp(json_object_get_string(v), "audit"))
			p->mode = KRSI_MODE_AUDIT;
		else
			return FIELD_ERR(c, f->name, "\"%s\": expected \"enforce\" or \"audit\"",
					 json_object_get_string(v));
		return 0;
	case F_DESC:
		if (!json_object_is_type(v, json_type_string))
			return FIELD_ERR(c, f->name, "expected a string");
		if (json_string_has_nul(v))
			return nul_err(c, f->name, v);
		p->description = strdup(json_object_get_string(v));
		return p->description ? 0 : -ENOMEM;
	case F_PATHS:
		return parse_paths(c, f->name, v, f->arg);
	case F_SOCKET:
		return parse_socket(c, f->name, v);
	case F_NET:
		return parse_net(c, f->name, v, f->arg);
	case F_CAPS:
		return parse_caps(c, f->name, v);
	case F_BOOL:
		return parse_bool(c, f->name, v, (bool *)((char *)p + f->bool_off));
	case F_SCHEMA:
		if (!json_object_is_type(v, json_type_int) ||
		    (json_object_get_int64(v) != 1 && json_object_get_int64(v) != 2))
			return FIELD_ERR(c, f->name, "expected 1 or 2 (this krsi knows schemas 1 and 2)");
		p->schema = json_object_get_int64(v);
		return 0;
	case F_ALLOW:
		return parse_allow(c, v);
	}
	return -EINVAL;
}

int profile_parse(const char *label, const char *text, size_t len, struct profile **ret,
		  struct krsi_err *err)
{
	struct json_tokener *tok;
	json_object *doc;
	struct profile *p;
	enum json_tokener_error jerr;
	bool seen[ARRAY_SIZE(fields)] = { 0 };
	struct ctx c = { .label = label, .err = err };
	int r;

	if (len > PROFILE_FILE_MAX)
		return err_set(err, -EFBIG, "profile %s: %zu bytes, at most %d allowed", label, len,
			       PROFILE_FILE_MAX);
	tok = json_tokener_new();
	if (!tok)
		return -ENOMEM;
	doc = json_tokener_parse_ex(tok, text, len);
	jerr = json_tokener_get_error(tok);
	if (!doc || jerr != json_tokener_success) {
		r = err_set(err, -EINVAL, "profile %s: not valid JSON at byte %zu: %s", label,
			    json_tokener_get_parse_end(tok),
			    jerr == json_tokener_continue ? "unexpected end of input"
							 : json_tokener_error_desc(jerr));
		json_tokener_free(tok);
		json_object_put(doc);
		return r;
	}
	/* Trailing garbage after the document. */
	for (size_t i = json_tokener_get_parse_end(tok); i < len; i++) {
		if (!isspace((unsigned char)text[i])) {
			r = err_set(err, -EINVAL, "profile %s: not valid JSON: data after the document at byte %zu",
				    label, i);
			json_tokener_free(tok);
			json_object_put(doc);
			return r;
		}
	}
	json_tokener_free(tok);
	if (!json_object_is_type(doc, json_type_object)) {
		json_object_put(doc);
		return err_set(err, -EINVAL, "profile %s: expected a JSON object", label);
	}
	p = calloc(1, sizeof(*p));
	if (!p) {
		json_object_put(doc);
		return -ENOMEM;
	}
	p->doc = doc;
	c.p = p;
	json_object_object_foreach(doc, key, val)
	{
		size_t i;

		for (i = 0; i < ARRAY_SIZE(fields); i++)
			if (!strcmp(fields[i].name, key))
				break;
		if (i == ARRAY_SIZE(fields)) {
			r = FIELD_ERR(&c, key, "unknown field");
			goto fail;
		}
		seen[i] = true;
		r = parse_field(&c, &fields[i], val);
		if (r < 0)
			goto fail;
	}
	for (size_t i = 0; i < 3; i++) { /* name, version, mode */
		if (!seen[i]) {
			r = FIELD_ERR(&c, fields[i].name, "missing");
			goto fail;
		}
	}
	if (!p->schema)
		p->schema = 1;
	if (json_object_object_get_ex(doc, "allow", NULL) && p->schema < 2) {
		r = FIELD_ERR(&c, "allow", "allow lists need \"schema\": 2");
		goto fail;
	}
	p->digest = fnv1a64(text, len, FNV1A64_INIT);
	*ret = p;
	return 0;
fail:
	if (r == -ENOMEM)
		err_set(err, r, "profile %s: out of memory", label);
	profile_free(p);
	return r;
}

int profile_load_file(const char *path, bool expect_name, struct profile **ret,
		      struct krsi_err *err)
{
	_cleanup_close_ int fd = -1;
	_cleanup_free_ char *buf = NULL;
	_cleanup_free_ char *pathcopy = NULL;
	const char *label;
	struct profile *p;
	struct stat st;
	size_t len = 0;
	ssize_t n;
	int r;

	pathcopy = strdup(path);
	if (!pathcopy)
		return -ENOMEM;
	label = basename(pathcopy);
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return err_set(err, -errno, "profile %s: %s", path, strerror(errno));
	if (fstat(fd, &st) < 0)
		return err_set(err, -errno, "profile %s: %s", path, strerror(errno));
	if (!S_ISREG(st.st_mode))
		return err_set(err, -EINVAL, "profile %s: not a regular file", path);
	buf = malloc(PROFILE_FILE_MAX + 1);
	if (!buf)
		return -ENOMEM;
	while ((n = read(fd, buf + len, PROFILE_FILE_MAX + 1 - len)) > 0) {
		len += n;
		if (len > PROFILE_FILE_MAX)
			return err_set(err, -EFBIG, "profile %s: more than %d bytes", label,
				       PROFILE_FILE_MAX);
	}
	if (n < 0)
		return err_set(err, -errno, "profile %s: %s", path, strerror(errno));
	r = profile_parse(label, buf, len, &p, err);
	if (r < 0)
		return r;
	if (expect_name) {
		size_t ln = strlen(label);

		if (ln < 6 || strcmp(label + ln - 5, ".json") ||
		    strncmp(label, p->name, ln - 5) || strlen(p->name) != ln - 5) {
			r = err_set(err, -EINVAL,
				    "profile %s: field \"name\": \"%s\" does not match the file name",
				    label, p->name);
			profile_free(p);
			return r;
		}
	}
	*ret = p;
	return 0;
}

void profile_free(struct profile *p)
{
	if (!p)
		return;
	for (int l = 0; l < PROFILE_PATH_LISTS; l++) {
		for (size_t i = 0; i < p->n_paths[l]; i++)
			free(p->paths[l][i]);
		free(p->paths[l]);
	}
	for (int l = 0; l < PROFILE_NET_LISTS; l++)
		free(p->net[l]);
	free(p->description);
	json_object_put(p->doc);
	free(p);
}

void profile_basename(const char *path, char *buf, size_t size)
{
	const char *slash = strrchr(path, '/');
	const char *b = slash ? slash + 1 : path;

	memset(buf, 0, size);
	/* Cut as the BPF side's bpf_probe_read_kernel_str() of the dentry's name cuts. */
	memcpy(buf, b, strlen(b) < size - 1 ? strlen(b) : size - 1);
}

static void explain_count(FILE *f, size_t n, const char *one, const char *many)
{
	fprintf(f, "%zu %s", n, n == 1 ? one : many);
}

/* "deny 2 paths, 1 directory" for the lists EXACT and EXACT + 1 (its directories). */
static void explain_paths(FILE *f, const struct profile *p, int exact)
{
	size_t n = p->n_paths[exact], d = p->n_paths[exact + 1];

	if (n)
		explain_count(f, n, "path", "paths");
	if (n && d)
		fputs(", ", f);
	if (d)
		explain_count(f, d, "directory", "directories");
	if (!n && !d)
		fputs("nothing", f);
}

/*
 * Where the kernel takes CAP_SYS_ADMIN in place of a narrower capability (Linux 6.1): a denied
 * narrower capability either covers the operation through the operation's own hook
 * (bpf/krsi.bpf.c, cap_route), or is void while CAP_SYS_ADMIN is allowed.
 */
static const struct {
	int cap;
	const char *name, *covers; /* covers: NULL when no hook tells the fallback apart */
	const char *where;
} cap_fallbacks[] = {
	{ 34, "CAP_SYSLOG", "syslog(2) and reading /dev/kmsg", "check_syslog_permissions()" },
	{ 38, "CAP_PERFMON", "perf_event_open(2)", "perfmon_capable()" },
	{ 39, "CAP_BPF", "bpf(2)", "bpf_capable()" },
	{ 40, "CAP_CHECKPOINT_RESTORE", NULL,
	  "checkpoint_restore_ns_capable(): clone3() set_tid, prctl(PR_SET_MM_MAP), "
	  "/proc/PID/map_files" },
};
#define CAP_SYS_ADMIN_BIT 21

static void explain_cap_fallbacks(FILE *f, uint64_t caps)
{
	if (caps & 1ULL << CAP_SYS_ADMIN_BIT)
		return;
	for (size_t i = 0; i < ARRAY_SIZE(cap_fallbacks); i++) {
		if (!(caps & 1ULL << cap_fallbacks[i].cap))
			continue;
		if (cap_fallbacks[i].covers)
			fprintf(f, "capabilities: %s also denies %s, which the kernel allows with "
				   "CAP_SYS_ADMIN in its place (%s)\n",
				cap_fallbacks[i].name, cap_fallbacks[i].covers, cap_fallbacks[i].where);
		else
			fprintf(f, "warning: %s is void while CAP_SYS_ADMIN is allowed: the kernel "
				   "takes CAP_SYS_ADMIN in its place (%s), and no hook tells that use "
				   "apart; deny CAP_SYS_ADMIN too\n",
				cap_fallbacks[i].name, cap_fallbacks[i].where);
	}
}

void profile_explain(const struct profile *p, FILE *f)
{
	static const struct {
		const char *name;
		int list; /* exact paths, or a net list */
		bool net;
		uint32_t hook;
	} kinds[] = {
		{ "exec", PROFILE_EXEC, false, KRSI_HOOK_EXEC },
		{ "read", PROFILE_READ, false, KRSI_HOOK_OPEN_READ },
		{ "write", PROFILE_WRITE, false, KRSI_HOOK_OPEN_WRITE },
		{ "connect", PROFILE_CONNECT, true, KRSI_HOOK_CONNECT },
		{ "bind", PROFILE_BIND, true, KRSI_HOOK_BIND },
	};
	static const struct {
		const char *name;
		size_t off;
	} switches[] = {
		{ "mount", offsetof(struct profile, mount) },
		{ "ptrace", offsetof(struct profile, ptrace) },
		{ "module", offsetof(struct profile, module) },
		{ "bpf", offsetof(struct profile, bpf) },
		{ "userns", offsetof(struct profile, userns) },
		{ "wx", offsetof(struct profile, wx) },
		{ "pathless_exec", offsetof(struct profile, pathless_exec) },
		{ "kernel_knobs", offsetof(struct profile, kernel_knobs) },
		{ "block_write", offsetof(struct profile, block_write) },
	};
	char open_kinds[256] = "", denied[256] = "";
	size_t nfam = 0, ntypes = 0, ncaps = 0;

	for (size_t k = 0; k < ARRAY_SIZE(kinds); k++) {
		int l = kinds[k].list;
		bool allow = p->allow & KRSI_DENY(kinds[k].hook);
		bool deny = kinds[k].net ? p->n_net[l] : p->n_paths[l] || p->n_paths[l + 1];

		if (!allow && !deny) {
			snprintf(open_kinds + strlen(open_kinds), sizeof(open_kinds) - strlen(open_kinds),
				 "%s%s", *open_kinds ? ", " : "", kinds[k].name);
			continue;
		}
		fprintf(f, "%s: ", kinds[k].name);
		if (deny) {
			fputs("deny ", f);
			if (kinds[k].net)
				explain_count(f, p->n_net[l], "network", "networks");
			else
				explain_paths(f, p, l);
		}
		if (allow) {
			fputs(deny ? "; then " : "", f);
			fputs("allow only ", f);
			if (kinds[k].net) {
				size_t n = p->n_net[l + PROFILE_ALLOW_CONNECT];

				if (n)
					explain_count(f, n, "network", "networks");
				else
					fputs("nothing", f);
			} else {
				explain_paths(f, p, l + PROFILE_ALLOW);
			}
			fputs(", deny the rest", f);
		}
		fputc('\n', f);
	}
	for (int fam = 0; fam < KRSI_AF_MAX; fam++) {
		nfam += !!(p->families & 1ULL << fam);
		ntypes += __builtin_popcount(p->types[fam]);
	}
	if (nfam || ntypes) {
		fputs("socket: deny ", f);
		if (nfam)
			explain_count(f, nfam, "family", "families");
		if (nfam && ntypes)
			fputs(", ", f);
		if (ntypes)
			explain_count(f, ntypes, "family:type pair", "family:type pairs");
		fputc('\n', f);
	} else {
		snprintf(open_kinds + strlen(open_kinds), sizeof(open_kinds) - strlen(open_kinds),
			 "%ssocket", *open_kinds ? ", " : "");
	}
	ncaps = __builtin_popcountll(p->caps);
	if (ncaps) {
		fputs("capabilities: deny ", f);
		explain_count(f, ncaps, "capability", "capabilities");
		fputc('\n', f);
		explain_cap_fallbacks(f, p->caps);
	} else {
		snprintf(open_kinds + strlen(open_kinds), sizeof(open_kinds) - strlen(open_kinds),
			 "%scapabilities", *open_kinds ? ", " : "");
	}
	for (size_t i = 0; i < ARRAY_SIZE(switches); i++) {
		bool on = *(const bool *)((const char *)p + switches[i].off);
		char *buf = on ? denied : open_kinds;
		size_t size = on ? sizeof(denied) : sizeof(open_kinds);

		snprintf(buf + strlen(buf), size - strlen(buf), "%s%s", *buf ? ", " : "",
			 switches[i].name);
	}
	if (*denied)
		fprintf(f, "denied: %s\n", denied);
	if (*open_kinds)
		fprintf(f, "not restricted: %s\n", open_kinds);
}
