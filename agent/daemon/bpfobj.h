/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The BPF side of krsid: load the skeleton and pin its maps and programs under KRSI_PIN_DIR,
 * or adopt what a previous krsid pinned, so that a restart never leaves a gap in enforcement.
 * Programs are attached one by one (bpfobj_attach), each through a link pinned under
 * KRSI_PIN_DIR/links: a pinned link is an attached hook, and survives krsid. Only krsid links
 * this (and libbpf).
 */
#ifndef KRSI_BPFOBJ_H
#define KRSI_BPFOBJ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <linux/bpf.h> /* BPF_ANY, BPF_NOEXIST: the uapi, not libbpf */

#include "lib/util.h"

#define KRSI_PIN_DIR "/sys/fs/bpf/krsi"

struct krsi_maps {
	int config, cgroups, cgroup_filter, profile_policy, policies, path_rules, net_rules,
		inode_rules, inode_filter, name_rules, registry, self_ids, stats, verdicts, throttle,
		events;
};

#define BPFOBJ_MAX_PROGS 64

struct bpfobj_prog {
	char name[64];
	int fd;
	bool attached; /* KRSI_PIN_DIR/links/<name> is pinned */
	/*
	 * The running kernel has no hook for it (one of the kernel series' on a stock kernel):
	 * not loaded, never attached, and named by krsictl status and profile check.
	 */
	bool absent;
};

struct ring_buffer;

struct bpfobj {
	struct krsi_maps maps;
	struct ring_buffer *rb; /* the events map's reader (bpfobj_events_open) */
	bool adopted;	    /* found pinned, nothing loaded */
	int n_programs;
	struct bpfobj_prog progs[BPFOBJ_MAX_PROGS];
};

/* What the kernel offers, for the start-up report. */
struct kernel_features {
	bool bpf_lsm;		/* "bpf" in /sys/kernel/security/lsm */
	char lsm[256];
	bool audit_switch;	/* /sys/kernel/security/bpf/enforce exists */
	int enforcing;		/* its value, -1 when absent */
	bool btf;		/* /sys/kernel/btf/vmlinux */
};

void kernel_features_probe(struct kernel_features *f);

/*
 * RESET: unpin whatever is pinned and load afresh. A fresh load attaches nothing; an adopted
 * set keeps the links it finds pinned (progs[].attached).
 */
int bpfobj_open(struct bpfobj *o, bool reset, bool verbose, struct krsi_err *err);
/* Attach program I and pin its link; a no-op when attached, or absent from this kernel. */
int bpfobj_attach(struct bpfobj *o, int i, struct krsi_err *err);
/* Unpin program I's link: the kernel detaches it once no fd holds it. */
int bpfobj_detach(struct bpfobj *o, int i, struct krsi_err *err);
void bpfobj_close(struct bpfobj *o);
/* Remove every pin (krsid --unload): enforcement stops once no fd holds the links. */
int bpfobj_unpin_all(struct krsi_err *err);

/* libbpf's messages into krsid's log (daemon/log.h), its debug ones only with -v. */
void bpfobj_log_init(void);

/* The events ring buffer: FN(CTX, record, size) for each record. Returns its epoll fd. */
int bpfobj_events_open(struct bpfobj *o, int (*fn)(void *ctx, void *data, size_t size),
		       void *ctx);
/* Read what is in the ring buffer now. */
void bpfobj_events_consume(struct bpfobj *o);

/*
 * Map access for the rest of krsid, which never includes libbpf: libbpf's calls, returning 0
 * or a negative value with errno set.
 */
int map_lookup(int fd, const void *key, void *value);
int map_update(int fd, const void *key, const void *value, uint64_t flags);
int map_delete(int fd, const void *key);
/* The key after KEY (the first when KEY is NULL) into NEXT. */
int map_next_key(int fd, const void *key, void *next);
int map_possible_cpus(void);

/*
 * Every key of map FD in turn, into KEY; PREV, of the same type, holds the one before. A key
 * deleted during the walk can restart it: collect, then delete.
 */
#define map_for_each_key(fd, key, prev)                                                           \
	for (bool _first = true;                                                                   \
	     map_next_key((fd), _first ? NULL : &(prev), &(key)) == 0 &&                          \
	     (memcpy(&(prev), &(key), sizeof(key)), _first = false, true);)

#endif
