/* SPDX-License-Identifier: GPL-2.0 */
/*
 * krsictl oci-inject: add krsi-oci-hook to an OCI bundle's config.json, for plain crun and runc
 * (podman and CRI-O read the hooks.d file instead).
 */
#ifndef KRSI_OCI_INJECT_H
#define KRSI_OCI_INJECT_H

#include <json-c/json.h>

#include "lib/jsonc.h"
#include "lib/util.h"

#define OCI_HOOK_PATH "/usr/libexec/krsi/krsi-oci-hook"
/* The runtime kills the hook after this; the hook gives up on krsid before (5 s). */
#define OCI_HOOK_TIMEOUT_S 10
#ifndef OCI_CONFIG_MAX
#define OCI_CONFIG_MAX (4 * 1024 * 1024) /* a bundle's config.json; oci_state.h has the same */
#endif

struct oci_inject_opts {
	const char *hook_path; /* NULL: OCI_HOOK_PATH */
	const char *stage;     /* "prestart" (NULL) or "createRuntime": where it registers */
	const char *profile;   /* NULL, or the annotation org.krsi.profile to set */
	bool profile_default;  /* set PROFILE only where the bundle names no profile itself */
	bool poststop;	       /* also unregister at poststop (--poststop) */
	bool fail_open;	       /* the hook entry gets --fail-open */
};

/*
 * Edit a config.json document: remove any hook entry with the hook's path from every stage,
 * then add it to the registering stage, and to poststop when asked; set the profile annotation.
 * Pure. Which stages end up with the hook depends on the options alone, not on an earlier
 * injection: injecting again without poststop drops the poststop entry of an older one. krsid
 * unregisters a container when its cgroup is removed, so the poststop run is only for a
 * runtime that keeps the cgroup.
 */
int oci_inject_config(json_object *config, const struct oci_inject_opts *o, struct krsi_err *err);
/* The same on the text of a config.json (NUL-terminated): *ret_text is the edited document, as
 * oci_inject_bundle() writes it, for the caller to free. Pure; fuzzed by tests/fuzz. */
int oci_inject_text(const char *text, const struct oci_inject_opts *o, char **ret_text,
		    struct krsi_err *err);
/* The same on BUNDLE/config.json, replaced atomically. */
int oci_inject_bundle(const char *bundle, const struct oci_inject_opts *o, struct krsi_err *err);
/* krsictl's command: prints the error, returns an exit status (0, 1, or 2 for usage). */
int oci_inject_cmd(const char *bundle, const char *stage, const char *profile, bool poststop);

#endif
