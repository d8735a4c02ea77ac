// SPDX-License-Identifier: GPL-2.0
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <linux/magic.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "bpf/krsi.h"
#include "daemon/bpfobj.h"
#include "daemon/log.h"
#include "krsi.skel.h"

/* read_small(), without the trailing newline and spaces. */
static int read_file(const char *path, char *buf, size_t size)
{
	int r = read_small(path, buf, size);
	size_t n = r < 0 ? 0 : strlen(buf);

	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = 0;
	return r;
}

void kernel_features_probe(struct kernel_features *f)
{
	char buf[32], *tok, *save, lsm[256];

	memset(f, 0, sizeof(*f));
	f->enforcing = -1;
	if (read_file("/sys/kernel/security/lsm", f->lsm, sizeof(f->lsm)) == 0) {
		strcpy(lsm, f->lsm);
		for (tok = strtok_r(lsm, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
			if (!strcmp(tok, "bpf"))
				f->bpf_lsm = true;
	}
	if (read_file("/sys/kernel/security/bpf/enforce", buf, sizeof(buf)) == 0) {
		f->audit_switch = true;
		f->enforcing = atoi(buf);
	}
	f->btf = access("/sys/kernel/btf/vmlinux", R_OK) == 0;
}

static int ensure_bpffs(struct krsi_err *err)
{
	struct statfs st;

	if (statfs("/sys/fs/bpf", &st) == 0 && st.f_type == BPF_FS_MAGIC)
		return 0;
	mkdir("/sys/fs/bpf", 0700);
	if (mount("bpf", "/sys/fs/bpf", "bpf", 0, "mode=0700") < 0)
		return err_set(err, -errno, "mount bpffs on /sys/fs/bpf: %s", strerror(errno));
	return 0;
}

static int rm_dir(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *de;
	char p[512];

	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		snprintf(p, sizeof(p), "%s/%s", path, de->d_name);
		if (de->d_type == DT_DIR)
			rm_dir(p);
		else
			unlink(p);
	}
	closedir(d);
	return rmdir(path) < 0 && errno != ENOENT ? -errno : 0;
}

int bpfobj_unpin_all(struct krsi_err *err)
{
	int r = rm_dir(KRSI_PIN_DIR);

	if (r < 0)
		return err_set(err, r, "remove %s: %s", KRSI_PIN_DIR, strerror(-r));
	return 0;
}

static int *map_slot(struct krsi_maps *m, const char *name)
{
	static const struct {
		const char *name;
		size_t off;
	} t[] = {
		{ "config", offsetof(struct krsi_maps, config) },
		{ "cgroups", offsetof(struct krsi_maps, cgroups) },
		{ "cgroup_filter", offsetof(struct krsi_maps, cgroup_filter) },
		{ "profile_policy", offsetof(struct krsi_maps, profile_policy) },
		{ "policies", offsetof(struct krsi_maps, policies) },
		{ "path_rules", offsetof(struct krsi_maps, path_rules) },
		{ "net_rules", offsetof(struct krsi_maps, net_rules) },
		{ "inode_rules", offsetof(struct krsi_maps, inode_rules) },
		{ "inode_filter", offsetof(struct krsi_maps, inode_filter) },
		{ "name_rules", offsetof(struct krsi_maps, name_rules) },
		{ "registry", offsetof(struct krsi_maps, registry) },
		{ "self_ids", offsetof(struct krsi_maps, self_ids) },
		{ "stats", offsetof(struct krsi_maps, stats) },
		{ "verdicts", offsetof(struct krsi_maps, verdicts) },
		{ "throttle", offsetof(struct krsi_maps, throttle) },
		{ "events", offsetof(struct krsi_maps, events) },
	};

	for (size_t i = 0; i < ARRAY_SIZE(t); i++)
		if (!strcmp(t[i].name, name))
			return (int *)((char *)m + t[i].off);
	return NULL;
}

static void maps_init(struct krsi_maps *m)
{
	int *p = (int *)m;

	for (size_t i = 0; i < sizeof(*m) / sizeof(int); i++)
		p[i] = -1;
}

static void progs_init(struct bpfobj *o)
{
	for (int i = 0; i < BPFOBJ_MAX_PROGS; i++)
		o->progs[i].fd = -1;
}

static int prog_add(struct bpfobj *o, const char *name, struct krsi_err *err)
{
	struct bpfobj_prog *p;

	if (o->n_programs >= BPFOBJ_MAX_PROGS)
		return err_set(err, -E2BIG, "more than %d programs", BPFOBJ_MAX_PROGS);
	p = &o->progs[o->n_programs++];
	snprintf(p->name, sizeof(p->name), "%s", name);
	p->fd = -1;
	p->attached = false;
	return 0;
}

/*
 * Whether the running kernel has the hook that program PROG attaches to (its section names
 * it): an LSM program's bpf_lsm_<hook>() function, a tp_btf program's btf_trace_<event>
 * type. A stock kernel lacks the kernel series' hooks; their programs are left out.
 */
static bool kernel_has_target(const struct btf *vmlinux, const struct bpf_program *prog)
{
	const char *sec = bpf_program__section_name(prog), *hook;
	char name[128];
	int kind;

	if (!vmlinux)
		return true; /* libbpf's load then says what is wrong */
	if ((hook = strchr(sec, '/')) && (!strncmp(sec, "lsm/", 4) || !strncmp(sec, "lsm.s/", 6))) {
		snprintf(name, sizeof(name), "bpf_lsm_%s", hook + 1);
		kind = BTF_KIND_FUNC;
	} else if (hook && !strncmp(sec, "tp_btf/", 7)) {
		snprintf(name, sizeof(name), "btf_trace_%s", hook + 1);
		kind = BTF_KIND_TYPEDEF;
	} else {
		return true;
	}
	return btf__find_by_name_kind(vmlinux, name, kind) >= 0;
}

static void link_path(const char *name, char *buf, size_t size)
{
	snprintf(buf, size, KRSI_PIN_DIR "/links/%s", name);
}

/*
 * Adopt a complete pinned set: every map and program of this build's skeleton. Links are
 * optional (a hook that no profile needs has none); the caller attaches what is missing.
 */
static int adopt(struct bpfobj *o, struct krsi *skel, const struct btf *vmlinux,
		 struct krsi_err *err)
{
	struct bpf_program *prog;
	struct bpf_map *map;
	char path[256];
	int r;

	bpf_object__for_each_program(prog, skel->obj)
	{
		struct bpfobj_prog *p;

		r = prog_add(o, bpf_program__name(prog), err);
		if (r < 0)
			return r;
		p = &o->progs[o->n_programs - 1];
		snprintf(path, sizeof(path), KRSI_PIN_DIR "/progs/%s", p->name);
		p->fd = bpf_obj_get(path);
		if (p->fd < 0 && errno == ENOENT && !kernel_has_target(vmlinux, prog)) {
			p->absent = true;
			continue;
		}
		if (p->fd < 0)
			return err_set(err, -errno, "%s: %s", path, strerror(errno));
		link_path(p->name, path, sizeof(path));
		p->attached = access(path, F_OK) == 0;
	}
	bpf_object__for_each_map(map, skel->obj)
	{
		int *slot = map_slot(&o->maps, bpf_map__name(map)), fd;

		if (!slot)
			continue; /* .rodata and friends */
		snprintf(path, sizeof(path), KRSI_PIN_DIR "/maps/%s", bpf_map__name(map));
		fd = bpf_obj_get(path);
		if (fd < 0)
			return err_set(err, -errno, "%s: %s", path, strerror(errno));
		*slot = fd;
	}
	{
		struct krsi_config cfg;
		__u32 zero = 0;

		if (bpf_map_lookup_elem(o->maps.config, &zero, &cfg) < 0)
			return err_set(err, -errno, "read pinned config: %s", strerror(errno));
		if (cfg.abi_version != KRSI_ABI_VERSION)
			return err_set(err, -EPROTO, "pinned objects speak ABI %u, this krsid %u",
				       cfg.abi_version, KRSI_ABI_VERSION);
	}
	o->adopted = true;
	return 0;
}

int bpfobj_attach(struct bpfobj *o, int i, struct krsi_err *err)
{
	struct bpfobj_prog *p = &o->progs[i];
	char path[256];
	int fd, r;

	if (p->attached || p->absent)
		return 0;
	/* An LSM program attaches through a tracing link: raw_tracepoint_open without a name. */
	fd = bpf_raw_tracepoint_open(NULL, p->fd);
	if (fd < 0)
		return err_set(err, -errno, "attach %s: %s", p->name, strerror(errno));
	link_path(p->name, path, sizeof(path));
	r = bpf_obj_pin(fd, path) < 0 ? -errno : 0;
	/* The pinned link keeps the attachment; unpinned, closing the fd detaches it. */
	close(fd);
	if (r < 0)
		return err_set(err, r, "pin %s: %s", path, strerror(-r));
	p->attached = true;
	return 0;
}

int bpfobj_detach(struct bpfobj *o, int i, struct krsi_err *err)
{
	struct bpfobj_prog *p = &o->progs[i];
	char path[256];

	if (!p->attached)
		return 0;
	link_path(p->name, path, sizeof(path));
	if (unlink(path) < 0 && errno != ENOENT)
		return err_set(err, -errno, "unpin %s: %s", path, strerror(errno));
	p->attached = false;
	return 0;
}

static int add_self_id(int self_fd, int fd, bool prog)
{
	struct bpf_prog_info pi = {};
	struct bpf_map_info mi = {};
	__u32 len, key;
	__u8 one = 1;

	if (prog) {
		len = sizeof(pi);
		if (bpf_obj_get_info_by_fd(fd, &pi, &len) < 0)
			return -errno;
		key = pi.id | 0x80000000;
	} else {
		len = sizeof(mi);
		if (bpf_obj_get_info_by_fd(fd, &mi, &len) < 0)
			return -errno;
		key = mi.id & 0x7fffffff;
	}
	return bpf_map_update_elem(self_fd, &key, &one, BPF_ANY) < 0 ? -errno : 0;
}

static int load_fresh(struct bpfobj *o, struct krsi *skel, const struct btf *vmlinux,
		      bool verbose, struct krsi_err *err)
{
	struct bpf_program *prog;
	struct bpf_map *map;
	struct krsi_config cfg = { .throttle_ns = 1000000000ULL, .abi_version = KRSI_ABI_VERSION };
	__u32 zero = 0;
	char path[256];
	int r;

	bpf_object__for_each_program(prog, skel->obj) {
		if (!kernel_has_target(vmlinux, prog))
			bpf_program__set_autoload(prog, false);
		/* -v: the verifier's statistics of every program (BPF_LOG_STATS), its headroom. */
		if (verbose)
			bpf_program__set_log_level(prog, 4);
	}
	r = krsi__load(skel);
	if (r < 0)
		return err_set(err, r, "load BPF programs: %s (run with -v for the verifier log)",
			       strerror(-r));
	if (bpf_map_update_elem(bpf_map__fd(skel->maps.config), &zero, &cfg, BPF_ANY) < 0)
		return err_set(err, -errno, "write config: %s", strerror(errno));
	mkdir(KRSI_PIN_DIR, 0700);
	mkdir(KRSI_PIN_DIR "/maps", 0700);
	mkdir(KRSI_PIN_DIR "/progs", 0700);
	mkdir(KRSI_PIN_DIR "/links", 0700);
	bpf_object__for_each_map(map, skel->obj)
	{
		int *slot = map_slot(&o->maps, bpf_map__name(map));

		if (!slot)
			continue;
		snprintf(path, sizeof(path), KRSI_PIN_DIR "/maps/%s", bpf_map__name(map));
		r = bpf_map__pin(map, path);
		if (r < 0)
			return err_set(err, r, "pin %s: %s", path, strerror(-r));
		*slot = dup(bpf_map__fd(map));
		add_self_id(bpf_map__fd(skel->maps.self_ids), bpf_map__fd(map), false);
	}
	bpf_object__for_each_program(prog, skel->obj)
	{
		r = prog_add(o, bpf_program__name(prog), err);
		if (r < 0)
			return r;
		if (!bpf_program__autoload(prog)) {
			o->progs[o->n_programs - 1].absent = true;
			continue;
		}
		snprintf(path, sizeof(path), KRSI_PIN_DIR "/progs/%s", bpf_program__name(prog));
		r = bpf_program__pin(prog, path);
		if (r < 0)
			return err_set(err, r, "pin %s: %s", path, strerror(-r));
		o->progs[o->n_programs - 1].fd = dup(bpf_program__fd(prog));
		add_self_id(bpf_map__fd(skel->maps.self_ids), bpf_program__fd(prog), true);
	}
	return 0;
}

int bpfobj_open(struct bpfobj *o, bool reset, bool verbose, struct krsi_err *err)
{
	struct krsi *skel;
	struct btf *vmlinux;
	struct krsi_err aerr = { "" };
	int r;

	memset(o, 0, sizeof(*o));
	maps_init(&o->maps);
	progs_init(o);
	r = ensure_bpffs(err);
	if (r < 0)
		return r;
	skel = krsi__open();
	if (!skel)
		return err_set(err, -errno, "open the BPF object: %s", strerror(errno));
	/* NULL without kernel BTF: every program is then loaded, and libbpf says what fails. */
	vmlinux = btf__load_vmlinux_btf();
	if (!reset && access(KRSI_PIN_DIR, F_OK) == 0) {
		r = adopt(o, skel, vmlinux, &aerr);
		if (r == 0) {
			btf__free(vmlinux);
			krsi__destroy(skel);
			return 0;
		}
		/* An incomplete or foreign set: start over, said loudly by the caller. */
		bpfobj_close(o);
		snprintf(err->msg, sizeof(err->msg), "pinned objects not adoptable (%s), reloading",
			 aerr.msg);
	}
	bpfobj_unpin_all(NULL);
	r = load_fresh(o, skel, vmlinux, verbose, err);
	btf__free(vmlinux);
	krsi__destroy(skel);
	if (r < 0) {
		bpfobj_close(o);
		bpfobj_unpin_all(NULL);
	}
	return r;
}

void bpfobj_close(struct bpfobj *o)
{
	int *p = (int *)&o->maps;

	for (size_t i = 0; i < sizeof(o->maps) / sizeof(int); i++) {
		if (p[i] >= 0)
			close(p[i]);
		p[i] = -1;
	}
	for (int i = 0; i < o->n_programs; i++) {
		if (o->progs[i].fd >= 0)
			close(o->progs[i].fd);
		o->progs[i].fd = -1;
	}
	o->n_programs = 0;
	o->adopted = false;
}

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	char *buf = NULL, *line, *save;

	if (level == LIBBPF_DEBUG && log_max_level() < LOG_DEBUG)
		return 0;
	/* Verifier logs come as one message of many lines: log each line. */
	if (vasprintf(&buf, fmt, ap) < 0)
		return 0;
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		log_at(level == LIBBPF_WARN ? LOG_WARNING : LOG_INFO, "libbpf: %s", line);
	free(buf);
	return 0;
}

void bpfobj_log_init(void)
{
	libbpf_set_print(libbpf_print);
}

int bpfobj_events_open(struct bpfobj *o, int (*fn)(void *ctx, void *data, size_t size),
		       void *ctx)
{
	o->rb = ring_buffer__new(o->maps.events, fn, ctx, NULL);
	if (!o->rb)
		return -errno;
	return ring_buffer__epoll_fd(o->rb);
}

void bpfobj_events_consume(struct bpfobj *o)
{
	if (o->rb)
		ring_buffer__consume(o->rb);
}

int map_lookup(int fd, const void *key, void *value)
{
	return bpf_map_lookup_elem(fd, key, value);
}

int map_update(int fd, const void *key, const void *value, uint64_t flags)
{
	return bpf_map_update_elem(fd, key, value, flags);
}

int map_delete(int fd, const void *key)
{
	return bpf_map_delete_elem(fd, key);
}

int map_next_key(int fd, const void *key, void *next)
{
	return bpf_map_get_next_key(fd, key, next);
}

int map_possible_cpus(void)
{
	return libbpf_num_possible_cpus();
}
