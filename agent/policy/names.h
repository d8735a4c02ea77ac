/* SPDX-License-Identifier: GPL-2.0 */
/* Names of capabilities, socket families and types, hooks: profiles and events use them. */
#ifndef KRSI_NAMES_H
#define KRSI_NAMES_H

/* Each returns the number, or -ENOENT. Names match case-insensitively, prefix optional
 * ("CAP_SYS_ADMIN", "sys_admin"; "AF_PACKET", "packet"; "SOCK_RAW", "raw"). */
int names_cap(const char *name);
int names_family(const char *name);
int names_socktype(const char *name);
int names_hook(const char *name);

/* Each returns the canonical name, or NULL for an unknown number. */
const char *names_cap_str(int cap);
const char *names_family_str(int family);
const char *names_socktype_str(int type);
const char *names_hook_str(int hook);
const char *names_mount_call_str(int call);

#endif
