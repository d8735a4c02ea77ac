/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which LSM programs the loaded profiles need. A program that no loaded profile's deny bits
 * can make decide anything is not attached: an attached program costs every task a trampoline
 * call and a config lookup per hook call, registered or not.
 *
 * Pure logic (no BPF): the unit tests link it.
 */
#ifndef KRSI_HOOKSET_H
#define KRSI_HOOKSET_H

#include <stdbool.h>
#include <stdint.h>

/*
 * The krsi_policy.deny bits (KRSI_DENY(hook)) that make program NAME decide something; 0 for
 * a program that must stay attached whatever the profiles say: bprm_check_security arms
 * until_exec registrations, bpf_map and bpf_prog keep confined tasks away from krsi's own
 * objects, and a program this table does not know stays attached too.
 */
uint64_t hookset_deny_bits(const char *prog);
/* Whether program NAME must be attached while the loaded profiles' deny bits are DENY. */
bool hookset_needed(const char *prog, uint64_t deny);
/* Whether program NAME is one of those attached whatever the profiles say. */
bool hookset_always(const char *prog);
/* Whether the table names program NAME (a program it does not know is always attached). */
bool hookset_known(const char *prog);
/*
 * What goes unseen where the kernel has no hook for program NAME (the kernel series' hooks,
 * on a stock kernel): "open_tree(2) with OPEN_TREE_CLONE", or NULL for any other program.
 */
const char *hookset_route(const char *prog);

#endif
