// SPDX-License-Identifier: GPL-2.0
/*
 * A parsed profile compiled into what the maps hold (profile.h): the policy, its path, name
 * and network keys under one slot. Pure: krsid writes the result (daemon/policies.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "policy/profile.h"

/*
 * Whether a deny rule already in C covers K, an allow rule's key: same op and family, K's port
 * or any port, a prefix no longer than K's that K's address starts with. Such an allow rule is
 * stored as a deny, so that the longest prefix a lookup finds never hides a deny (krsi.h).
 */
static bool net_covered(const struct profile_compiled *c, const struct krsi_net_key *k)
{
	for (size_t j = 0; j < c->n_net; j++) {
		const struct krsi_net_key *d = &c->net[j];
		unsigned int bits;

		if (c->net_val[j] != KRSI_NET_RULE_DENY || d->op != k->op || d->family != k->family ||
		    (d->port && d->port != k->port) || d->prefixlen > k->prefixlen)
			continue;
		bits = d->prefixlen - KRSI_NET_KEY_FIXED_BITS;
		if (memcmp(d->addr, k->addr, bits / 8))
			continue;
		if (bits % 8 && (d->addr[bits / 8] ^ k->addr[bits / 8]) & (0xff00 >> (bits % 8) & 0xff))
			continue;
		return true;
	}
	return false;
}

/* C's path keys and name keys for P's path lists, in SLOT; the kinds with a directory rule. */
static void compile_paths(const struct profile *p, uint32_t slot, struct profile_compiled *c)
{
	struct krsi_policy *pol = &c->policy;

	for (int l = 0; l < PROFILE_PATH_LISTS; l++) {
		bool dir = profile_list_is_dir(l);
		uint32_t kind = profile_list_kind(l);

		for (size_t i = 0; i < p->n_paths[l]; i++) {
			struct krsi_path_key *k = &c->paths[c->n_paths++];
			size_t len = strlen(p->paths[l][i]);

			k->slot = slot;
			k->kind = kind;
			memcpy(k->path, p->paths[l][i], len);
			k->prefixlen = (8 + len + (dir ? 0 : 1)) * 8;
			if (dir) {
				pol->dirs |= 1u << kind;
			} else {
				struct krsi_name_key *nk = &c->names[c->n_names++];

				nk->slot = slot;
				nk->kind = kind;
				profile_basename(p->paths[l][i], nk->name, sizeof(nk->name));
			}
		}
	}
}

/*
 * Under a write allow list, a directory may be made where a rule's path goes through it
 * ("/data" and "/data/out" for "/data/out/" or "/data/out/file"): each component but an
 * exact rule's last, as a name under KRSI_KIND_ABOVE (write_name_guarded in the programs).
 */
static void compile_write_components(const struct profile *p, uint32_t slot,
				     struct profile_compiled *c)
{
	for (int l = PROFILE_ALLOW_WRITE; l <= PROFILE_ALLOW_WRITE_DIRS; l++) {
		for (size_t i = 0; i < p->n_paths[l]; i++) {
			const char *q = p->paths[l][i];

			for (;;) {
				const char *e;
				size_t len;
				struct krsi_name_key *nk;

				while (*q == '/')
					q++;
				if (!*q)
					break;
				e = strchr(q, '/');
				len = e ? (size_t)(e - q) : strlen(q);
				/* An exact rule's last component is its file, not a directory. */
				if (l == PROFILE_ALLOW_WRITE && (!e || !e[1]))
					break;
				nk = &c->names[c->n_names++];
				nk->slot = slot;
				nk->kind = KRSI_PATH_ALLOW_WRITE | KRSI_KIND_ABOVE;
				memcpy(nk->name, q, len < sizeof(nk->name) - 1 ? len : sizeof(nk->name) - 1);
				if (!e)
					break;
				q = e;
			}
		}
	}
}

/* C's network keys for P's lists in SLOT: deny lists first, so that an allow rule is stored
 * knowing every deny rule (krsi.h). */
static void compile_net(const struct profile *p, uint32_t slot, struct profile_compiled *c)
{
	struct krsi_policy *pol = &c->policy;

	for (int op = 0; op < PROFILE_NET_LISTS; op++) {
		bool allow = op >= PROFILE_ALLOW_CONNECT;
		uint8_t kop = (op == PROFILE_CONNECT || op == PROFILE_ALLOW_CONNECT) ? KRSI_NET_CONNECT
										     : KRSI_NET_BIND;

		for (size_t i = 0; i < p->n_net[op]; i++) {
			const struct profile_net_rule *r = &p->net[op][i];
			struct krsi_net_key k = { 0 };
			uint8_t v = KRSI_NET_RULE_DENY;

			k.slot = slot;
			k.op = kop;
			k.family = r->family;
			k.port = r->port;
			memcpy(k.addr, r->addr, sizeof(k.addr));
			k.prefixlen = KRSI_NET_KEY_FIXED_BITS + r->prefix;
			if (allow) {
				size_t j;

				for (j = 0; j < c->n_net; j++)
					if (!memcmp(&c->net[j], &k, sizeof(k)))
						break;
				if (j < c->n_net)
					continue; /* a deny rule's key stays a deny; a repeated allow rule */
				v = net_covered(c, &k) ? KRSI_NET_RULE_DENY : KRSI_NET_RULE_ALLOW;
			}
			c->net_val[c->n_net] = v;
			c->net[c->n_net++] = k;
		}
		if (p->n_net[op] && !allow)
			pol->deny |= KRSI_DENY(op == PROFILE_CONNECT ? KRSI_HOOK_CONNECT : KRSI_HOOK_BIND);
	}
}

/* The hooks P's rules need: the policy's deny bits. */
static uint64_t compile_deny(const struct profile *p)
{
	uint64_t deny = 0;

	if (p->n_paths[PROFILE_EXEC] || p->n_paths[PROFILE_EXEC_DIRS])
		deny |= KRSI_DENY(KRSI_HOOK_EXEC);
	if (p->n_paths[PROFILE_READ] || p->n_paths[PROFILE_READ_DIRS])
		deny |= KRSI_DENY(KRSI_HOOK_OPEN_READ);
	if (p->n_paths[PROFILE_WRITE] || p->n_paths[PROFILE_WRITE_DIRS])
		deny |= KRSI_DENY(KRSI_HOOK_OPEN_WRITE);
	/* A kind with an allow list is checked even when its deny list is empty. */
	deny |= p->allow;
	if (p->allow & KRSI_DENY(KRSI_HOOK_EXEC))
		deny |= KRSI_DENY(KRSI_HOOK_REPLACE);
	if (p->families)
		deny |= KRSI_DENY(KRSI_HOOK_SOCKET);
	for (int f = 0; f < KRSI_AF_MAX; f++)
		if (p->types[f])
			deny |= KRSI_DENY(KRSI_HOOK_SOCKET);
	if (p->mount)
		deny |= KRSI_DENY(KRSI_HOOK_MOUNT);
	if (p->ptrace)
		deny |= KRSI_DENY(KRSI_HOOK_PTRACE);
	if (p->module)
		deny |= KRSI_DENY(KRSI_HOOK_MODULE);
	if (p->bpf)
		deny |= KRSI_DENY(KRSI_HOOK_BPF);
	if (p->userns)
		deny |= KRSI_DENY(KRSI_HOOK_USERNS);
	if (p->wx)
		deny |= KRSI_DENY(KRSI_HOOK_WX);
	if (p->pathless_exec)
		deny |= KRSI_DENY(KRSI_HOOK_PATHLESS);
	if (p->kernel_knobs)
		deny |= KRSI_DENY(KRSI_HOOK_KNOB);
	if (p->block_write)
		deny |= KRSI_DENY(KRSI_HOOK_BLOCKDEV);
	/* Whatever the profile: the container's cgroup is its identity (bpf/knob.bpf.h). */
	deny |= KRSI_DENY(KRSI_HOOK_CGROUP);
	if (p->caps)
		deny |= KRSI_DENY(KRSI_HOOK_CAPABLE);
	return deny;
}

int profile_compile(const struct profile *p, uint32_t profile_id, uint32_t slot,
		    struct profile_compiled *ret)
{
	struct profile_compiled c = { 0 };
	struct krsi_policy *pol = &c.policy;
	size_t n = 0, n_names = 0;

	pol->slot = slot;
	pol->mode = p->mode;
	pol->caps = p->caps;
	pol->families = p->families;
	memcpy(pol->types, p->types, sizeof(pol->types));
	pol->digest = p->digest;
	pol->version = p->version;
	pol->profile_id = profile_id;
	snprintf(pol->name, sizeof(pol->name), "%s", p->name);

	for (int l = 0; l < PROFILE_PATH_LISTS; l++)
		n += p->n_paths[l];
	/* And the components of write allow rules, for the directories made on the way. */
	for (int l = PROFILE_ALLOW_WRITE; l <= PROFILE_ALLOW_WRITE_DIRS; l++)
		for (size_t i = 0; i < p->n_paths[l]; i++)
			for (const char *q = p->paths[l][i]; *q; q++)
				n_names += *q == '/';
	c.paths = calloc(n + 1, sizeof(*c.paths));
	c.names = calloc(n + n_names + 1, sizeof(*c.names));
	n = 0;
	for (int l = 0; l < PROFILE_NET_LISTS; l++)
		n += p->n_net[l];
	c.net = calloc(n + 1, sizeof(*c.net));
	c.net_val = calloc(n + 1, sizeof(*c.net_val));
	if (!c.paths || !c.net || !c.net_val || !c.names) {
		profile_compiled_clear(&c);
		return -ENOMEM;
	}
	compile_paths(p, slot, &c);
	compile_write_components(p, slot, &c);
	compile_net(p, slot, &c);
	pol->allow = p->allow;
	pol->deny |= compile_deny(p);
	*ret = c;
	return 0;
}

void profile_compiled_clear(struct profile_compiled *c)
{
	free(c->paths);
	free(c->net);
	free(c->net_val);
	free(c->names);
	c->paths = NULL;
	c->net = NULL;
	c->net_val = NULL;
	c->names = NULL;
	c->n_paths = c->n_net = c->n_names = 0;
}
