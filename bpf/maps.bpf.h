/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The maps, in the order of the object's .maps section: the config, the registered cgroups and
 * their filter, the profiles' policies, the rule tries, the identities and last components of
 * exact rules with their filter, the agent's registry, the ids of krsi's own maps and programs,
 * the counters, the event ring buffer, the per-CPU scratch key, wx's exec_mapped inode storage,
 * and ktree_buf, the per-CPU buffer of file.bpf.h's path walk, with the sizes its masks use.
 * Depends on vmlinux.h, bpf_helpers.h and krsi.h (the keys, values and limits).
 */
#ifndef KRSI_BPF_MAPS_H
#define KRSI_BPF_MAPS_H

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct krsi_config);
} config SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, KRSI_MAX_CGROUPS);
	__type(key, __u64);
	__type(value, struct krsi_cgroup);
} cgroups SEC(".maps");

/*
 * A profile's policy: profile_policy[profile id] is the index of its entry in policies (0: none).
 * Both are arrays, whose lookups the verifier inlines (a hash lookup costs about a hundred
 * instructions more, on every hook call of a confined task). The agent writes a new policy to
 * an entry that nothing points at, then stores its index with one atomic 64-bit store through
 * the mmap'd profile_policy: a program sees the old policy or the new, never a mix. A replaced
 * entry is written again only after the grace period that retires its rules.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, KRSI_MAX_PROFILES);
	__uint(map_flags, BPF_F_MMAPABLE);
	__type(key, __u32);
	__type(value, __u64); /* an mmap'd array's elements are 8 bytes apart whatever their size */
} profile_policy SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, KRSI_POLICY_SLOTS);
	__type(key, __u32);
	__type(value, struct krsi_policy);
} policies SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LPM_TRIE);
	__uint(max_entries, KRSI_MAX_PATH_RULES);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct krsi_path_key);
	__type(value, __u8);
} path_rules SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LPM_TRIE);
	__uint(max_entries, KRSI_MAX_NET_RULES);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct krsi_net_key);
	__type(value, __u8);
} net_rules SEC(".maps");

/* File identities of exact rules (struct krsi_inode_key): another name of a denied file. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, KRSI_MAX_INODE_RULES);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct krsi_inode_key);
	__type(value, __u8);
} inode_rules SEC(".maps");

/* Which identities inode_rules may hold (krsi.h, krsi_inode_bit()): mmap'ed by the agent. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, KRSI_INODE_FILTER_WORDS);
	__uint(map_flags, BPF_F_MMAPABLE);
	__type(key, __u32);
	__type(value, __u64);
} inode_filter SEC(".maps");

/* Last components of exact rules: a path is resolved only when its name could match. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, KRSI_MAX_NAME_RULES);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct krsi_name_key);
	__type(value, __u8);
} name_rules SEC(".maps");

/* Registered cgroups by the low bits of their ids (krsi.h, KRSI_FILTER_WORD): an array, so
 * that a host task's miss is an inlined load, not a hash lookup. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, KRSI_FILTER_WORDS);
	__type(key, __u32);
	__type(value, __u64);
} cgroup_filter SEC(".maps");

/* The agent's bookkeeping, pinned with the rest so that a restart recovers it; unused here. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, KRSI_MAX_CGROUPS);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, __u64);
	__type(value, struct krsi_registry_entry);
} registry SEC(".maps");

/* Ids of krsi's own maps (key high bit clear) and programs (high bit set). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 64);
	__type(key, __u32);
	__type(value, __u8);
} self_ids SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct krsi_stats);
} stats SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, KRSI_MAX_VERDICT_KEYS);
	__type(key, struct krsi_verdict_key);
	__type(value, __u64);
} verdicts SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, struct krsi_throttle_key);
	__type(value, struct krsi_throttle_val);
} throttle SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 256 * 1024);
} events SEC(".maps");

/* Per-CPU buffer for a path and its LPM key: too big for the 512-byte stack. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct krsi_path_key);
} scratch SEC(".maps");

/*
 * wx: files a confined task mapped executable. While such a file is still mapped, no confined
 * task opens it for writing or maps it shared and writable: the pages it runs would change
 * under it. The mark goes with the inode; the first write that finds the file mapped no more
 * clears it.
 */
struct {
	__uint(type, BPF_MAP_TYPE_INODE_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, __u8);
} exec_mapped SEC(".maps");

/* Built from the last component back, in a buffer that every masked offset and size fits. */
#define KTREE_BUF 1024
#define KTREE_OFF (KTREE_BUF / 2 - 1)
#define KTREE_NAME (KTREE_BUF / 4 - 1)
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, char[KTREE_BUF]);
} ktree_buf SEC(".maps");

/* knob.bpf.h: the path a report of a knob, a block device or a cgroup file names. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, char[KRSI_PATH_MAX]);
} knob_buf SEC(".maps");

#endif /* KRSI_BPF_MAPS_H */
