/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Profiles: parse and validate a profile document, and compile it into what the BPF maps hold.
 * Pure logic: no BPF, no root; the unit tests link it as is.
 *
 * Schema (the top-level lists are deny lists; a field left out denies nothing of its kind):
 *   name         string, [a-z0-9._-], 1..63 chars; equals the file name without ".json"
 *   version      integer >= 0
 *   schema       1 (the default) or 2; "allow" needs 2
 *   mode         "enforce" | "audit"
 *   description  string (optional)
 *   exec, read, write                  arrays of absolute paths (exact files)
 *   exec_dirs, read_dirs, write_dirs   arrays of absolute directories (everything below)
 *   socket       array of "AF_FAMILY" or "AF_FAMILY:SOCK_TYPE" (e.g. "AF_PACKET", "AF_INET:SOCK_RAW")
 *   connect, bind  arrays of "ADDR[/PREFIX][:PORT]" or "[ADDR6[/PREFIX]]:PORT" or "ADDR6[/PREFIX]"
 *   mount, ptrace, module, bpf, userns, wx, pathless_exec, kernel_knobs, block_write   booleans
 *
 * Exact rules (exec, read, write) name a file: its path, and its identity (device and inode)
 * as resolved in each container's root and the host's (agent/identity.h), so another name of
 * the same file is denied too. pathless_exec denies running code from a file that lives on no
 * real directory (memfd_create, deleted files, O_TMPFILE), by execve or PROT_EXEC mapping.
 *   capabilities array of capability names ("CAP_SYS_ADMIN" or "sys_admin")
 *   allow        (schema 2) object of allow lists: exec, exec_dirs, read, read_dirs, write,
 *                write_dirs, connect, bind, in the forms above. A kind with an allow list
 *                (exec, read, write, connect, bind; either of its two path fields) is allowed
 *                only what the list names, after its deny list: a deny rule still denies.
 *
 * An allow list admits a file by path (exact or directory) or, for an exact rule, by identity:
 * another name of an allowed file is allowed. A path allowed for exec may not be opened for
 * writing by the container (the file that runs there is the one that was there).
 */
#ifndef KRSI_PROFILE_H
#define KRSI_PROFILE_H

#include <stdbool.h>
#include <stdint.h>
#include <json-c/json.h>

#include "bpf/krsi.h"
#include "lib/jsonc.h"
#include "lib/request.h"
#include "lib/util.h"

#define PROFILE_FILE_MAX (256 * 1024)

enum profile_path_list {
	PROFILE_EXEC,
	PROFILE_EXEC_DIRS,
	PROFILE_READ,
	PROFILE_READ_DIRS,
	PROFILE_WRITE,
	PROFILE_WRITE_DIRS,
	PROFILE_ALLOW_EXEC, /* allow lists: PROFILE_ALLOW + the deny list's index */
	PROFILE_ALLOW_EXEC_DIRS,
	PROFILE_ALLOW_READ,
	PROFILE_ALLOW_READ_DIRS,
	PROFILE_ALLOW_WRITE,
	PROFILE_ALLOW_WRITE_DIRS,
	PROFILE_PATH_LISTS,
};
#define PROFILE_ALLOW PROFILE_ALLOW_EXEC

/* net[] lists */
enum profile_net_list {
	PROFILE_CONNECT,
	PROFILE_BIND,
	PROFILE_ALLOW_CONNECT,
	PROFILE_ALLOW_BIND,
	PROFILE_NET_LISTS,
};

static inline bool profile_list_is_dir(int list)
{
	return list % 2 == 1;
}

/* The path rule kind of a list (enum krsi_path_kind; allow lists have the allow kinds). */
static inline uint32_t profile_list_kind(int list)
{
	static const uint32_t kinds[3] = { KRSI_PATH_EXEC, KRSI_PATH_READ, KRSI_PATH_WRITE };

	return kinds[(list % PROFILE_ALLOW) / 2] + (list >= PROFILE_ALLOW ? KRSI_PATH_ALLOW : 0);
}

struct profile_net_rule {
	uint8_t family; /* 4 or 6 */
	uint8_t prefix; /* bits */
	uint16_t port;	/* 0 = any */
	uint8_t addr[16];
};

struct profile {
	char name[KRSI_NAME_MAX];
	uint64_t version;
	uint32_t schema; /* 1 or 2 */
	uint32_t mode;
	uint64_t allow; /* KRSI_DENY(hook) of the kinds with an allow list */
	char *description;
	char **paths[PROFILE_PATH_LISTS]; /* directories end in "/" */
	size_t n_paths[PROFILE_PATH_LISTS];
	uint64_t families;
	uint16_t types[KRSI_AF_MAX];
	struct profile_net_rule *net[PROFILE_NET_LISTS]; /* enum profile_net_list */
	size_t n_net[PROFILE_NET_LISTS];
	bool mount, ptrace, module, bpf, userns, wx, pathless_exec, kernel_knobs, block_write;
	uint64_t caps;
	uint64_t digest; /* of the document's text */
	json_object *doc; /* the parsed document, for `profile show` */
};

/* Parse TEXT; LABEL names it in errors ("web.json"). */
int profile_parse(const char *label, const char *text, size_t len, struct profile **ret,
		  struct krsi_err *err);
/* Read and parse a file; when EXPECT_NAME, the name field must equal the file's stem. */
int profile_load_file(const char *path, bool expect_name, struct profile **ret,
		      struct krsi_err *err);
void profile_free(struct profile *p);

/* A profile compiled for the maps, under one slot. */
struct profile_compiled {
	struct krsi_policy policy;
	struct krsi_path_key *paths;
	size_t n_paths;
	struct krsi_net_key *net;
	uint8_t *net_val; /* per net[] entry: KRSI_NET_RULE_DENY or _ALLOW */
	size_t n_net;
	struct krsi_name_key *names; /* last components of the exact rules */
	size_t n_names;
};

int profile_compile(const struct profile *p, uint32_t profile_id, uint32_t slot,
		    struct profile_compiled *ret);
void profile_compiled_clear(struct profile_compiled *c);

/*
 * One line per kind with rules (exec, read, write, socket, connect, bind, and the switches),
 * saying what the profile does with it: "exec: deny 2 paths, 1 directory; allow only 3
 * paths, 2 directories". Written to F; the kinds without rules are named on one last line.
 */
#include <stdio.h>
void profile_explain(const struct profile *p, FILE *f);

/* Parse one connect/bind entry; exposed for the tests. */
int profile_parse_net(const char *s, struct profile_net_rule *ret, const char **ret_reason);
/* Check and normalise an absolute path; DIR appends "/". Exposed for the tests. */
int profile_normalize_path(const char *s, bool dir, char *buf, size_t size,
			   const char **ret_reason);
/* The last component of PATH as a name key holds it: zero-padded, cut to SIZE - 1 bytes. */
void profile_basename(const char *path, char *buf, size_t size);

#endif
