/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The OCI state that a runtime writes on a hook's stdin, read and checked: pure logic, tested on
 * the host (tests/unit/test_hook.c).
 */
#ifndef KRSI_OCI_STATE_H
#define KRSI_OCI_STATE_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/util.h"

/* More than this on stdin is an error: a state is a few hundred bytes plus annotations. */
#define OCI_STATE_MAX (64 * 1024)
/* A bundle's config.json (read by the hook only when krsid cannot be reached) is at most this. */
#ifndef OCI_CONFIG_MAX
#define OCI_CONFIG_MAX (4 * 1024 * 1024)
#endif

#define OCI_ANNOTATION_PROFILE "org.krsi.profile"
#define OCI_ANNOTATION_FAIL_OPEN "org.krsi.fail-open"

enum oci_stage {
	OCI_STAGE_AUTO, /* from the state's "status": for hooks.d files that list several stages */
	OCI_STAGE_PRESTART,
	OCI_STAGE_CREATE_RUNTIME,
	OCI_STAGE_POSTSTOP,
};

struct oci_state {
	char *id; /* owned: oci_state_clear() frees them */
	char *status, *bundle;
	char *profile;	/* annotation org.krsi.profile, or NULL: the agent's default */
	bool fail_open; /* annotation org.krsi.fail-open=true */
	int64_t pid;	/* 0: none given (runc at poststop) or 0 (crun at poststop) */
};

/* "prestart", "createRuntime", "poststop" or "auto"; -EINVAL for anything else. */
int oci_stage_parse(const char *s, enum oci_stage *ret);
const char *oci_stage_name(enum oci_stage stage);

/* Read all of FD (at most MAX bytes: more is -EMSGSIZE). *ret_buf is NUL-terminated. */
int oci_state_read(int fd, size_t max, char **ret_buf, size_t *ret_len, struct krsi_err *err);

/* Parse and check a state (agent/lib/jsonr.h: no JSON library); on success RET owns its strings
 * (oci_state_clear). Error messages name the field and the reason, not the input as a whole. */
int oci_state_parse(const char *buf, size_t len, struct oci_state *ret, struct krsi_err *err);
void oci_state_clear(struct oci_state *s);

/*
 * Is TEXT (LEN bytes of a bundle's config.json) the infra container of a podman pod? podman
 * gives it none of the pod's annotations, so the hook cannot see the pod's fail-open there.
 * Recognised by what podman writes: "io.container.manager": "libpod", no container-type
 * annotation (podman marks a pod's other containers "io.kubernetes.cri-o.ContainerType":
 * "container"; CRI-O and containerd mark theirs too), and podman's pause process
 * ["/catatonit", "-P"] as process.args. Anything else, malformed JSON included, is not.
 */
bool oci_config_is_podman_infra(const char *text, size_t len);

/* The stage a state belongs to when the hook was given none: "stopped" is poststop, any other
 * status (creating, created) is prestart. */
enum oci_stage oci_state_stage(const struct oci_state *s);

#endif
