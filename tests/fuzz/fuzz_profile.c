// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: a profile document, as krsid reads one from /etc/krsi/profiles, through
 * profile_parse() and profile_compile(). Everything is freed, so LeakSanitizer sees a leak on
 * any path; a refusal must say why, and an accepted profile must hold what the schema says.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "policy/profile.h"

/* An accepted profile holds no string with a NUL ("\u0000"): a rule would stop at it. */
static void check_strings(json_object *o)
{
	switch (json_object_get_type(o)) {
	case json_type_string:
		if (strlen(json_object_get_string(o)) != (size_t)json_object_get_string_len(o))
			abort();
		break;
	case json_type_array:
		for (size_t i = 0; i < json_object_array_length(o); i++)
			check_strings(json_object_array_get_idx(o, i));
		break;
	case json_type_object: {
		json_object_object_foreach(o, key, val)
		{
			(void)key;
			check_strings(val);
		}
		break;
	}
	default:
		break;
	}
}

static void check_compiled(const struct profile *p, const struct profile_compiled *c)
{
	size_t n = 0, nn = 0, deny = 0;

	for (int l = 0; l < PROFILE_PATH_LISTS; l++)
		n += p->n_paths[l];
	for (int l = 0; l < PROFILE_NET_LISTS; l++)
		nn += p->n_net[l];
	for (int l = 0; l < PROFILE_ALLOW_CONNECT; l++)
		deny += p->n_net[l];
	/* Every deny rule is a key; an allow rule whose key is there already (a deny rule's, or a
	 * repeated allow rule's) adds none (profile_compile()). */
	if (c->n_paths != n || c->n_net < deny || c->n_net > nn)
		abort();
	/* Allow lists only in schema 2; each allow kind is checked by its hook. */
	if ((p->allow && p->schema != 2) || c->policy.allow != p->allow ||
	    (c->policy.deny & p->allow) != p->allow)
		abort();
	for (size_t i = 0; i < c->n_paths; i++)
		if (c->paths[i].prefixlen > 8 * (sizeof(c->paths[i]) - 4) ||
		    c->paths[i].path[0] != '/')
			abort();
	for (size_t i = 0; i < c->n_net; i++)
		if (c->net[i].family != 4 && c->net[i].family != 6)
			abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct krsi_err err = { "" };
	struct profile_compiled c;
	struct profile *p = NULL;

	if (profile_parse("fuzz.json", (const char *)data, size, &p, &err) < 0) {
		if (!err.msg[0])
			abort(); /* a refusal without a reason */
		return 0;
	}
	if (!profile_name_valid(p->name))
		abort();
	check_strings(p->doc);
	/* What profile_compile() copies into a key: a file rule with its NUL, a directory
	 * rule ("/dir/") without. */
	for (int l = 0; l < PROFILE_PATH_LISTS; l++) {
		bool dir = profile_list_is_dir(l);

		for (size_t i = 0; i < p->n_paths[l]; i++)
			if (p->paths[l][i][0] != '/' ||
			    strlen(p->paths[l][i]) + !dir > KRSI_PATH_MAX)
				abort();
	}
	if (profile_compile(p, 1, 1, &c) == 0) {
		check_compiled(p, &c);
		profile_compiled_clear(&c);
	}
	profile_free(p);
	return 0;
}
