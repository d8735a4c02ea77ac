// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "bpf/krsi.h"
#include "lib/jsonr.h"
#include "oci-hooks/oci_state.h"
#include "lib/request.h"

static const char *const stage_names[] = {
	[OCI_STAGE_AUTO] = "auto",
	[OCI_STAGE_PRESTART] = "prestart",
	[OCI_STAGE_CREATE_RUNTIME] = "createRuntime",
	[OCI_STAGE_POSTSTOP] = "poststop",
};

int oci_stage_parse(const char *s, enum oci_stage *ret)
{
	for (size_t i = 0; i < ARRAY_SIZE(stage_names); i++) {
		if (!strcmp(s, stage_names[i])) {
			*ret = i;
			return 0;
		}
	}
	return -EINVAL;
}

const char *oci_stage_name(enum oci_stage stage)
{
	return stage < ARRAY_SIZE(stage_names) ? stage_names[stage] : "?";
}

int oci_state_read(int fd, size_t max, char **ret_buf, size_t *ret_len, struct krsi_err *err)
{
	_cleanup_free_ char *buf = malloc(max + 1);
	size_t len = 0;

	if (!buf)
		return err_set(err, -ENOMEM, "out of memory");
	/* One byte more than allowed tells "exactly MAX" from "too much". */
	while (len < max + 1) {
		ssize_t n = read(fd, buf + len, max + 1 - len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return err_set(err, -errno, "read: %s", strerror(errno));
		if (n == 0)
			break;
		len += n;
	}
	if (len > max)
		return err_set(err, -EMSGSIZE, "more than %zu bytes of input, refusing", max);
	buf[len] = 0;
	*ret_buf = TAKE_PTR(buf);
	*ret_len = len;
	return 0;
}

/*
 * V's text as the runtime wrote it, for a message: at most 64 bytes, a control character (which
 * json-c's strict mode lets into a string raw) shown as '?', so that the message stays one line.
 */
struct echo {
	char s[65];
};

static const char *echo(const struct jsonr_value *v, struct echo *e)
{
	size_t n = v->len < sizeof(e->s) - 1 ? v->len : sizeof(e->s) - 1;

	for (size_t i = 0; i < n; i++)
		e->s[i] = (unsigned char)v->text[i] < 0x20 ? '?' : v->text[i];
	e->s[n] = 0;
	return e->s;
}
#define ECHO(v) echo(v, &(struct echo){ "" })

/* String member V named KEY into *RET (NULL when absent or null unless REQUIRED). */
static int get_string(const struct jsonr_value *v, const char *key, bool required, char **ret,
		      struct krsi_err *err)
{
	size_t len;

	*ret = NULL;
	if (v->type == JSONR_NONE || v->type == JSONR_NULL) {
		if (required)
			return err_set(err, -EINVAL, "no \"%s\" field", key);
		return 0;
	}
	if (v->type != JSONR_STRING)
		return err_set(err, -EINVAL, "field \"%s\": expected a string, got %s", key,
			       ECHO(v));
	if (jsonr_string(v, ret, &len) < 0)
		return err_set(err, -ENOMEM, "out of memory");
	if (strlen(*ret) != len) {
		err_set(err, -EINVAL, "field \"%s\": \"%.64s\\u0000...\": a NUL character in the string",
			key, *ret);
		free(*ret);
		*ret = NULL;
		return -EINVAL;
	}
	return 0;
}

static int parse_annotations(const struct jsonr_value *a, struct oci_state *s,
			     struct krsi_err *err)
{
	static const char *const keys[] = { OCI_ANNOTATION_PROFILE, OCI_ANNOTATION_FAIL_OPEN };
	struct jsonr_value v[ARRAY_SIZE(keys)];
	size_t len;

	if (a->type == JSONR_NONE || a->type == JSONR_NULL)
		return 0;
	if (a->type != JSONR_OBJECT)
		return err_set(err, -EINVAL, "field \"annotations\": expected an object");
	jsonr_fields(a, keys, v, ARRAY_SIZE(keys));
	if (v[0].type != JSONR_NONE) {
		if (v[0].type == JSONR_STRING && jsonr_string(&v[0], &s->profile, &len) < 0)
			return err_set(err, -ENOMEM, "out of memory");
		if (v[0].type != JSONR_STRING || !len || strlen(s->profile) != len)
			return err_set(err, -EINVAL,
				       "annotation %s: expected a profile name, got %s",
				       OCI_ANNOTATION_PROFILE, ECHO(&v[0]));
	}
	if (v[1].type != JSONR_NONE) {
		if (jsonr_string_is(&v[1], "true"))
			s->fail_open = true;
		else if (!jsonr_string_is(&v[1], "false"))
			return err_set(err, -EINVAL, "annotation %s: expected \"true\" or \"false\", got %s",
				       OCI_ANNOTATION_FAIL_OPEN, ECHO(&v[1]));
	}
	return 0;
}

enum { F_ID, F_STATUS, F_BUNDLE, F_PID, F_ANNOTATIONS, F_COUNT };

int oci_state_parse(const char *buf, size_t len, struct oci_state *ret, struct krsi_err *err)
{
	static const char *const keys[F_COUNT] = { "id", "status", "bundle", "pid", "annotations" };
	struct jsonr_value doc, f[F_COUNT];
	struct oci_state s = { 0 };
	char why[128];
	size_t i;
	int r;

	for (i = 0; i < len && isspace((unsigned char)buf[i]); i++)
		;
	if (i == len)
		return err_set(err, -ENODATA, "empty input, expected the container's state JSON");
	if (len > OCI_STATE_MAX)
		return err_set(err, -EMSGSIZE, "more than %d bytes of input, refusing", OCI_STATE_MAX);
	if (memchr(buf, 0, len))
		return err_set(err, -EINVAL, "not JSON: a NUL byte in the input");
	r = jsonr_parse(buf, len, &doc, why, sizeof(why));
	if (r == -EBADMSG)
		return err_set(err, -EINVAL, "not JSON: data after the state object");
	if (r < 0)
		return err_set(err, -EINVAL, "not JSON: %s", why);
	if (doc.type != JSONR_OBJECT)
		return err_set(err, -EINVAL, "not a JSON object");
	jsonr_fields(&doc, keys, f, F_COUNT);
	r = get_string(&f[F_ID], "id", true, &s.id, err);
	if (r < 0)
		goto fail;
	if (!proto_container_valid(s.id)) {
		r = err_set(err, -EINVAL,
			    "container id \"%.64s\": expected 1 to %d characters of [A-Za-z0-9_.-]",
			    s.id, KRSI_CONTAINER_MAX - 1);
		goto fail;
	}
	r = get_string(&f[F_STATUS], "status", false, &s.status, err);
	if (r < 0)
		goto fail;
	r = get_string(&f[F_BUNDLE], "bundle", false, &s.bundle, err);
	if (r < 0)
		goto fail;
	if (f[F_PID].type != JSONR_NONE && f[F_PID].type != JSONR_NULL) {
		/* 1e3 and 12.0 are not process ids: only a plain integer is. */
		if (!jsonr_int64(&f[F_PID], &s.pid) || s.pid < 0 || s.pid > INT32_MAX) {
			r = err_set(err, -EINVAL, "container %s: field \"pid\": expected a process id, got %s",
				    s.id, ECHO(&f[F_PID]));
			goto fail;
		}
	}
	r = parse_annotations(&f[F_ANNOTATIONS], &s, err);
	if (r < 0) {
		char msg[sizeof(err->msg)];

		/* Name the container: the reader of the runtime's error needs to know which. */
		if (err) {
			snprintf(msg, sizeof(msg), "%s", err->msg);
			err_set(err, r, "container %s: %s", s.id, msg);
		}
		goto fail;
	}
	*ret = s;
	return 0;
fail:
	oci_state_clear(&s);
	return r;
}

void oci_state_clear(struct oci_state *s)
{
	free(s->id);
	free(s->status);
	free(s->bundle);
	free(s->profile);
	s->id = s->status = s->bundle = s->profile = NULL;
}

bool oci_config_is_podman_infra(const char *text, size_t len)
{
	static const char *const top_keys[] = { "annotations", "process" };
	static const char *const ann_keys[] = { "io.container.manager",
						"io.kubernetes.cri-o.ContainerType",
						"io.kubernetes.cri.container-type" };
	static const char *const args_key[] = { "args" };
	static const char *const pause[] = { "/catatonit", "-P" };
	struct jsonr_value doc, top[2], ann[3], args, v;
	char why[128];

	if (len > OCI_CONFIG_MAX || memchr(text, 0, len) ||
	    jsonr_parse(text, len, &doc, why, sizeof(why)) < 0)
		return false;
	jsonr_fields(&doc, top_keys, top, ARRAY_SIZE(top));
	jsonr_fields(&top[0], ann_keys, ann, ARRAY_SIZE(ann));
	if (top[0].type != JSONR_OBJECT || !jsonr_string_is(&ann[0], "libpod") ||
	    ann[1].type != JSONR_NONE || ann[2].type != JSONR_NONE)
		return false;
	jsonr_fields(&top[1], args_key, &args, 1);
	if (jsonr_length(&args) != 2)
		return false;
	for (size_t i = 0; i < 2; i++)
		if (!jsonr_index(&args, i, &v) || !jsonr_string_is(&v, pause[i]))
			return false;
	return true;
}

enum oci_stage oci_state_stage(const struct oci_state *s)
{
	return s->status && !strcmp(s->status, "stopped") ? OCI_STAGE_POSTSTOP : OCI_STAGE_PRESTART;
}
