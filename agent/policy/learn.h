/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Learned profiles (krsictl profile learn) and dry runs (krsictl profile diff): pure logic on
 * krsid's event objects and parsed profiles, no socket and no BPF; the unit tests link it.
 *
 * Learning takes the "learn" events of a container (everything it executed or mapped for
 * execution, opened for writing, connected or bound to that no deny rule denied), keeps each
 * distinct path or address once, folds the files of one directory into a directory rule where
 * at least FOLD of them were seen, and writes a schema 2 profile: the base profile's document
 * with allow lists of what was seen.
 */
#ifndef KRSI_LEARN_H
#define KRSI_LEARN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <json-c/json.h>

#include "policy/profile.h"
#include "lib/util.h"

enum learn_kind {
	LEARN_EXEC,
	LEARN_WRITE,
	LEARN_CONNECT,
	LEARN_BIND,
	LEARN_KINDS,
};

/* Distinct items kept per kind: a bound on what a busy container can make krsictl hold. */
#define LEARN_MAX_ITEMS 4096
#define LEARN_FOLD_DEFAULT 3

struct learn {
	char **v[LEARN_KINDS]; /* paths, or connect/bind rules "ADDR:PORT" / "[ADDR]:PORT" */
	size_t n[LEARN_KINDS];
	uint64_t events;   /* learn events taken */
	uint64_t repeats;  /* of items already kept */
	uint64_t dropped;  /* distinct items not kept: their kind held LEARN_MAX_ITEMS */
	uint64_t pathless; /* learn events without an absolute path (nothing a rule could name) */
	uint64_t throttled; /* repeats the kernel suppressed ("suppressed" fields): not lost */
};

/* Add one item of KIND; 1 = new, 0 = seen before, -ENOSPC = dropped (counted). */
int learn_add(struct learn *l, enum learn_kind kind, const char *item);

/*
 * Take one event object as krsid sends it: a learn event of CONTAINER (NULL: any) is kept;
 * others are ignored. Returns 1 if taken, 0 if not.
 */
int learn_event(struct learn *l, json_object *ev, const char *container);

void learn_clear(struct learn *l);

/*
 * The exact paths of PATHS (sorted, distinct) folded: a directory holding at least FOLD of
 * them (0: never) becomes one directory rule, and what a directory rule covers is dropped.
 * Fills *files and *dirs with newly allocated strings (directories without their "/").
 */
int learn_fold(char *const *paths, size_t n, unsigned int fold, char ***files, size_t *n_files,
	       char ***dirs, size_t *n_dirs);
void learn_strv_free(char **v, size_t n);

/*
 * The learned profile: a copy of BASE_DOC (a profile document) named NAME, version 1, schema 2,
 * mode enforce, with DESCRIPTION, and allow lists exec, exec_dirs, write, write_dirs, connect,
 * bind of what L saw, folded by FOLD; every other field of the base (its deny lists, and its
 * read allow lists) is kept. The result is checked by profile_parse(): a document that would
 * not load is an error, never an output.
 */
json_object *learn_profile(const struct learn *l, json_object *base_doc, const char *name,
			   const char *description, unsigned int fold, struct krsi_err *err);

/*
 * Dry run: whether profile P would deny what event EV reports, judged by path and address
 * (file identities, which the kernel adds, are not seen here). Returns 1 (deny) with the
 * reason in WHY, 0 (allow), or -1 when the event's kind cannot be judged from the event
 * (no path, a kind the evaluator does not know); WHY says why then too.
 */
int learn_would_deny(const struct profile *p, json_object *ev, char *why, size_t size);

#endif
