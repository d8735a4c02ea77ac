// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>

#include "lib/oci_inject.h"

static json_object *hook_entry(const char *path, const char *stage, bool fail_open)
{
	json_object *h = json_object_new_object(), *args = json_object_new_array();

	json_object_array_add(args, json_object_new_string("krsi-oci-hook"));
	if (fail_open)
		json_object_array_add(args, json_object_new_string("--fail-open"));
	json_object_array_add(args, json_object_new_string(stage));
	json_object_object_add(h, "path", json_object_new_string(path));
	json_object_object_add(h, "args", args);
	json_object_object_add(h, "timeout", json_object_new_int(OCI_HOOK_TIMEOUT_S));
	return h;
}

/* CONFIG.hooks.STAGE as an array, created when missing. */
static int stage_array(json_object *hooks, const char *stage, json_object **ret,
		       struct krsi_err *err)
{
	json_object *a;

	if (!json_object_object_get_ex(hooks, stage, &a) || json_object_is_type(a, json_type_null)) {
		a = json_object_new_array();
		json_object_object_add(hooks, stage, a);
	}
	if (!json_object_is_type(a, json_type_array))
		return err_set(err, -EINVAL, "hooks.%s: expected an array", stage);
	*ret = a;
	return 0;
}

int oci_inject_config(json_object *config, const struct oci_inject_opts *o, struct krsi_err *err)
{
	static const char *const stages[] = { "prestart",      "createRuntime", "createContainer",
					      "startContainer", "poststart",	  "poststop" };
	const char *path = o->hook_path ? o->hook_path : OCI_HOOK_PATH;
	const char *stage = o->stage ? o->stage : "prestart";
	json_object *hooks, *a, *ann;
	int r;

	if (strcmp(stage, "prestart") && strcmp(stage, "createRuntime"))
		return err_set(err, -EINVAL, "stage %s: expected prestart or createRuntime", stage);
	if (!json_object_is_type(config, json_type_object))
		return err_set(err, -EINVAL, "not a JSON object");
	if (!json_object_object_get_ex(config, "hooks", &hooks) ||
	    json_object_is_type(hooks, json_type_null)) {
		hooks = json_object_new_object();
		json_object_object_add(config, "hooks", hooks);
	}
	if (!json_object_is_type(hooks, json_type_object))
		return err_set(err, -EINVAL, "\"hooks\": expected an object");
	/* Injecting twice, or with another stage, leaves one registering entry; injecting without
	 * poststop takes back the poststop entry of an older injection, so that one run of
	 * oci-inject says what the bundle ends up with. */
	for (size_t i = 0; i < ARRAY_SIZE(stages); i++) {
		if (!json_object_object_get_ex(hooks, stages[i], &a) ||
		    !json_object_is_type(a, json_type_array))
			continue;
		for (size_t j = json_object_array_length(a); j-- > 0;) {
			json_object *p, *h = json_object_array_get_idx(a, j);

			if (json_object_object_get_ex(h, "path", &p) &&
			    json_object_is_type(p, json_type_string) &&
			    !strcmp(json_object_get_string(p), path))
				json_object_array_del_idx(a, j, 1);
		}
	}
	r = stage_array(hooks, stage, &a, err);
	if (r < 0)
		return r;
	json_object_array_add(a, hook_entry(path, stage, o->fail_open));
	/* Off by default: the runtime removes the container's cgroup on delete and krsid
	 * unregisters it then, so a second run of the hook per container is only cost (make
	 * bench: +22.9% on a crun run of /bin/true with it, +8.6% without). */
	if (o->poststop) {
		r = stage_array(hooks, "poststop", &a, err);
		if (r < 0)
			return r;
		json_object_array_add(a, hook_entry(path, "poststop", o->fail_open));
	}
	if (!json_object_object_get_ex(config, "annotations", &ann) ||
	    json_object_is_type(ann, json_type_null)) {
		ann = json_object_new_object();
		json_object_object_add(config, "annotations", ann);
	}
	if (!json_object_is_type(ann, json_type_object))
		return err_set(err, -EINVAL, "\"annotations\": expected an object");
	if (o->profile &&
	    !(o->profile_default && json_object_object_get_ex(ann, "org.krsi.profile", NULL)))
		json_object_object_add(ann, "org.krsi.profile", json_object_new_string(o->profile));
	/* crun sends a hook's stderr nowhere unless told: without this, "krsid is not running"
	 * would not appear in crun's error. (runc ignores it and shows a failing hook's stderr.) */
	if (!json_object_object_get_ex(ann, "run.oci.hooks.stderr", NULL))
		json_object_object_add(ann, "run.oci.hooks.stderr", json_object_new_string("/dev/stderr"));
	return 0;
}

int oci_inject_text(const char *text, const struct oci_inject_opts *o, char **ret_text,
		    struct krsi_err *err)
{
	_cleanup_json_ json_object *config = NULL;
	char *s;
	int r;

	r = json_parse_strict("config", text, strlen(text), &config, err);
	if (r < 0)
		return r;
	r = oci_inject_config(config, o, err);
	if (r < 0)
		return r;
	s = strdup(json_object_to_json_string_ext(config, JSON_C_TO_STRING_PRETTY |
								  JSON_C_TO_STRING_NOSLASHESCAPE));
	if (!s)
		return err_set(err, -ENOMEM, "out of memory");
	*ret_text = s;
	return 0;
}

int oci_inject_bundle(const char *bundle, const struct oci_inject_opts *o, struct krsi_err *err)
{
	_cleanup_free_ char *buf = NULL;
	_cleanup_free_ char *s = NULL;
	_cleanup_close_ int fd = -1;
	char path[4096], tmp[4096 + 8];
	struct stat st;
	size_t len = 0;
	int r;

	if (snprintf(path, sizeof(path), "%s/config.json", bundle) >= (int)sizeof(path))
		return err_set(err, -ENAMETOOLONG, "%s: path too long", bundle);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0)
		return err_set(err, -errno, "%s: %s", path, strerror(errno));
	if (st.st_size > OCI_CONFIG_MAX)
		return err_set(err, -EFBIG, "%s: larger than %d bytes", path, OCI_CONFIG_MAX);
	buf = malloc(st.st_size + 1);
	if (!buf)
		return err_set(err, -ENOMEM, "%s: out of memory", path);
	while (len < (size_t)st.st_size) {
		ssize_t n = read(fd, buf + len, st.st_size - len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return err_set(err, -errno, "%s: %s", path, strerror(errno));
		if (n == 0)
			break;
		len += n;
	}
	buf[len] = 0;
	r = oci_inject_text(buf, o, &s, err);
	if (r < 0)
		return err_wrap(err, r, "%s", path);
	snprintf(tmp, sizeof(tmp), "%s.krsi~", path);
	closep(&fd);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, st.st_mode & 07777);
	if (fd < 0)
		return err_set(err, -errno, "%s: %s", tmp, strerror(errno));
	len = strlen(s);
	for (size_t off = 0; off < len;) {
		ssize_t n = write(fd, s + off, len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			r = -errno;
			unlink(tmp);
			return err_set(err, r, "%s: %s", tmp, strerror(-r));
		}
		off += n;
	}
	if (write(fd, "\n", 1) != 1 || fsync(fd) < 0 || rename(tmp, path) < 0) {
		r = -errno;
		unlink(tmp);
		return err_set(err, r, "%s: %s", path, strerror(-r));
	}
	return 0;
}

int oci_inject_cmd(const char *bundle, const char *stage, const char *profile, bool poststop)
{
	struct oci_inject_opts o = { .stage = stage, .profile = profile, .poststop = poststop };
	struct krsi_err err = { "" };

	if (stage && strcmp(stage, "prestart") && strcmp(stage, "createRuntime")) {
		fprintf(stderr, "krsictl: oci-inject: stage %s: expected prestart or createRuntime\n",
			stage);
		return 2;
	}
	if (oci_inject_bundle(bundle, &o, &err) < 0) {
		fprintf(stderr, "krsictl: oci-inject: %s\n", err.msg);
		return 1;
	}
	return 0;
}
