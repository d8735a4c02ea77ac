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
};

struct bpfobj {
	struct krsi_maps maps;
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
/* Attach program I and pin its link; a no-op when attached. */
int bpfobj_attach(struct bpfobj *o, int i, struct krsi_err *err);
/* Unpin program I's link: the kernel detaches it once no fd holds it. */
int bpfobj_detach(struct bpfobj *o, int i, struct krsi_err *err);
void bpfobj_close(struct bpfobj *o);
/* Remove every pin (krsid --unload): enforcement stops once no fd holds the links. */
int bpfobj_unpin_all(struct krsi_err *err);

#endif
