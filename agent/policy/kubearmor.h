/* SPDX-License-Identifier: GPL-2.0 */
/*
 * `krsictl profile import kubearmor FILE`: a KubeArmorPolicy (security.kubearmor.com/v1, YAML,
 * read with libyaml) as a krsi profile. Pure: text in, a profile document and notes out.
 *
 *   process.matchPaths / matchDirectories       exec / exec_dirs
 *   file.matchPaths / matchDirectories           read and write / read_dirs and write_dirs
 *     readOnly: true                             Block: write only; Allow: read only
 *   network.matchProtocols  tcp, udp, raw, icmp  socket ("AF_INET:SOCK_STREAM", ...)
 *   capabilities.matchCapabilities               capabilities ("CAP_NET_RAW")
 *   action Block                                 deny lists, mode enforce
 *   action Audit                                 deny lists, mode audit (a policy of Audit rules)
 *   action Allow                                 allow lists (schema 2)
 *
 * What krsi cannot enforce as written becomes a note starting "dropped:" (matchPatterns,
 * fromSource, ownerOnly, non-recursive directories, Allow for protocols and capabilities,
 * Audit rules beside Block rules, syscalls, unknown fields); what does not change what is
 * enforced (selector, severity, tags, message, namespace) a note starting "ignored:".
 */
#ifndef KRSI_KUBEARMOR_H
#define KRSI_KUBEARMOR_H

#include <json-c/json.h>

#include "lib/util.h"

#define KUBEARMOR_FILE_MAX (1024 * 1024)

struct kubearmor_import {
	json_object *profile; /* the krsi profile document */
	char **notes;	      /* one line each, "dropped: ..." or "ignored: ..." */
	size_t n_notes;
	size_t n_dropped; /* notes that start "dropped:" */
};

/*
 * Import TEXT (LEN bytes; LABEL names it in errors). NAME, when not NULL, is the profile's
 * name; else the policy's metadata.name. 0, or -EINVAL with ERR naming the field and reason
 * (not YAML, not one KubeArmorPolicy, a field of the wrong type, a rule without its path).
 */
int kubearmor_import(const char *label, const char *text, size_t len, const char *name,
		     struct kubearmor_import *ret, struct krsi_err *err);
void kubearmor_import_clear(struct kubearmor_import *r);

#endif
