// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "../bpf/krsi.h"
#include "oci_state.h"
#include "protocol.h"

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

static int get_string(json_object *doc, const char *key, bool required, const char **ret,
		      struct krsi_err *err)
{
	json_object *v;

	if (!json_object_object_get_ex(doc, key, &v) || json_object_is_type(v, json_type_null)) {
		if (required)
			return err_set(err, -EINVAL, "no \"%s\" field", key);
		*ret = NULL;
		return 0;
	}
	if (!json_object_is_type(v, json_type_string))
		return err_set(err, -EINVAL, "field \"%s\": expected a string, got %s", key,
			       json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN));
	if (json_string_has_nul(v))
		return err_set(err, -EINVAL, "field \"%s\": \"%.64s\\u0000...\": a NUL character in the string",
			       key, json_object_get_string(v));
	*ret = json_object_get_string(v);
	return 0;
}

static int parse_annotations(json_object *doc, struct oci_state *s, struct krsi_err *err)
{
	json_object *a, *v;
	const char *fo;

	if (!json_object_object_get_ex(doc, "annotations", &a) ||
	    json_object_is_type(a, json_type_null))
		return 0;
	if (!json_object_is_type(a, json_type_object))
		return err_set(err, -EINVAL, "field \"annotations\": expected an object");
	if (json_object_object_get_ex(a, OCI_ANNOTATION_PROFILE, &v)) {
		if (!json_object_is_type(v, json_type_string) || !json_object_get_string_len(v) ||
		    json_string_has_nul(v))
			return err_set(err, -EINVAL,
				       "annotation %s: expected a profile name, got %.64s",
				       OCI_ANNOTATION_PROFILE,
				       json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN));
		s->profile = json_object_get_string(v);
	}
	if (json_object_object_get_ex(a, OCI_ANNOTATION_FAIL_OPEN, &v)) {
		fo = json_object_is_type(v, json_type_string) && !json_string_has_nul(v)
			     ? json_object_get_string(v)
			     : "";
		if (!strcmp(fo, "true"))
			s->fail_open = true;
		else if (strcmp(fo, "false"))
			return err_set(err, -EINVAL, "annotation %s: expected \"true\" or \"false\", got %.64s",
				       OCI_ANNOTATION_FAIL_OPEN,
				       json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN));
	}
	return 0;
}

int oci_state_parse(const char *buf, size_t len, struct oci_state *ret, struct krsi_err *err)
{
	struct oci_state s = { 0 };
	enum json_tokener_error jerr;
	struct json_tokener *tok;
	json_object *v;
	size_t used, i;
	int r;

	for (i = 0; i < len && isspace((unsigned char)buf[i]); i++)
		;
	if (i == len)
		return err_set(err, -ENODATA, "empty input, expected the container's state JSON");
	if (len > OCI_STATE_MAX)
		return err_set(err, -EMSGSIZE, "more than %d bytes of input, refusing", OCI_STATE_MAX);
	if (memchr(buf, 0, len))
		return err_set(err, -EINVAL, "not JSON: a NUL byte in the input");
	tok = json_tokener_new();
	if (!tok)
		return err_set(err, -ENOMEM, "out of memory");
	s.doc = json_tokener_parse_ex(tok, buf, len);
	jerr = json_tokener_get_error(tok);
	used = json_tokener_get_parse_end(tok);
	json_tokener_free(tok);
	if (!s.doc || jerr != json_tokener_success) {
		json_object_put(s.doc);
		return err_set(err, -EINVAL, "not JSON: %s",
			       jerr == json_tokener_continue || jerr == json_tokener_success
				       ? "unexpected end of input"
				       : json_tokener_error_desc(jerr));
	}
	for (i = used; i < len && isspace((unsigned char)buf[i]); i++)
		;
	if (i < len) {
		r = err_set(err, -EINVAL, "not JSON: data after the state object");
		goto fail;
	}
	if (!json_object_is_type(s.doc, json_type_object)) {
		r = err_set(err, -EINVAL, "not a JSON object");
		goto fail;
	}
	r = get_string(s.doc, "id", true, &s.id, err);
	if (r < 0)
		goto fail;
	if (!proto_container_valid(s.id)) {
		r = err_set(err, -EINVAL,
			    "container id \"%.64s\": expected 1 to %d characters of [A-Za-z0-9_.-]",
			    s.id, KRSI_CONTAINER_MAX - 1);
		goto fail;
	}
	r = get_string(s.doc, "status", false, &s.status, err);
	if (r < 0)
		goto fail;
	r = get_string(s.doc, "bundle", false, &s.bundle, err);
	if (r < 0)
		goto fail;
	if (json_object_object_get_ex(s.doc, "pid", &v) && !json_object_is_type(v, json_type_null)) {
		/* json-c reads 1e3 and 12.0 as doubles: only a plain integer is a pid. */
		if (!json_object_is_type(v, json_type_int) || json_object_get_int64(v) < 0 ||
		    json_object_get_int64(v) > INT32_MAX) {
			r = err_set(err, -EINVAL, "container %s: field \"pid\": expected a process id, got %.64s",
				    s.id, json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN));
			goto fail;
		}
		s.pid = json_object_get_int64(v);
	}
	r = parse_annotations(s.doc, &s, err);
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
	json_object_put(s.doc);
	return r;
}

void oci_state_clear(struct oci_state *s)
{
	json_object_put(s->doc);
	s->doc = NULL;
}

bool oci_config_is_podman_infra(const char *text, size_t len)
{
	static const char *const pause[] = { "/catatonit", "-P" };
	json_object *doc, *a, *v, *proc, *args;
	struct json_tokener *tok;
	bool infra = false;

	if (len > OCI_CONFIG_MAX || memchr(text, 0, len))
		return false;
	tok = json_tokener_new();
	if (!tok)
		return false;
	doc = json_tokener_parse_ex(tok, text, len);
	if (json_tokener_get_error(tok) != json_tokener_success)
		goto out;
	for (size_t i = json_tokener_get_parse_end(tok); i < len; i++)
		if (!isspace((unsigned char)text[i]))
			goto out;
	if (!json_object_is_type(doc, json_type_object) ||
	    !json_object_object_get_ex(doc, "annotations", &a) ||
	    !json_object_is_type(a, json_type_object) ||
	    !json_object_object_get_ex(a, "io.container.manager", &v) ||
	    !json_object_is_type(v, json_type_string) || strcmp(json_object_get_string(v), "libpod") ||
	    json_object_object_get_ex(a, "io.kubernetes.cri-o.ContainerType", NULL) ||
	    json_object_object_get_ex(a, "io.kubernetes.cri.container-type", NULL))
		goto out;
	if (!json_object_object_get_ex(doc, "process", &proc) ||
	    !json_object_is_type(proc, json_type_object) ||
	    !json_object_object_get_ex(proc, "args", &args) ||
	    !json_object_is_type(args, json_type_array) || json_object_array_length(args) != 2)
		goto out;
	infra = true;
	for (size_t i = 0; i < 2; i++) {
		v = json_object_array_get_idx(args, i);
		if (!json_object_is_type(v, json_type_string) || json_string_has_nul(v) ||
		    strcmp(json_object_get_string(v), pause[i]))
			infra = false;
	}
out:
	json_tokener_free(tok);
	json_object_put(doc);
	return infra;
}

enum oci_stage oci_state_stage(const struct oci_state *s)
{
	return s->status && !strcmp(s->status, "stopped") ? OCI_STAGE_POSTSTOP : OCI_STAGE_PRESTART;
}
