/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Network rules: the report of socket_create's denial, and the address rules of connect, bind
 * and sendmsg, looked up in the net_rules trie (with the address's port, then with any), with
 * allow lists and learning; sockaddr.h reads the address as the kernel does. Depends on
 * kdefs.bpf.h, maps.bpf.h, cgroup.bpf.h, verdict.bpf.h and sockaddr.h.
 */
#ifndef KRSI_BPF_NET_H
#define KRSI_BPF_NET_H

/*
 * The report of socket_create's denial. Apart from the program, so that the zeroing of its
 * locals comes after the policy check: a host task, or a policy without socket rules, stores
 * nothing (the net programs' locals took a dozen stores before the check in each).
 */
static __always_inline int socket_deny(struct ctx *c, int family, __u32 t, int protocol)
{
	struct krsi_event_net net = { .family = family, .type = t };
	struct report r = { .hook = KRSI_HOOK_SOCKET, .net = &net };

	r.arg = protocol;
	r.object = (__u64)family << 8 | t;
	return decide(c, &r);
}

/*
 * What the rules of K's op say about K: KRSI_NET_RULE_DENY when a deny rule matches, else
 * KRSI_NET_RULE_ALLOW when an allow rule does, else 0. Two lookups at most, with K's port and
 * with any port; K's port is kept. The agent stores an allow rule that a deny rule covers as a
 * deny (krsi.h), so a deny found by either lookup is the answer, whatever the other finds.
 */
static __always_inline __u8 net_match(struct krsi_net_key *k)
{
	__u16 port = k->port;
	__u8 *v, hit = 0;

	v = bpf_map_lookup_elem(&net_rules, k);
	if (v) {
		if (*v == KRSI_NET_RULE_DENY)
			return KRSI_NET_RULE_DENY;
		hit = *v;
	}
	k->port = 0; /* rules for any port */
	v = bpf_map_lookup_elem(&net_rules, k);
	k->port = port;
	return v && *v == KRSI_NET_RULE_DENY ? KRSI_NET_RULE_DENY : v ? *v : hit;
}

/* SA against the network rules of C's policy; its locals zeroed only past the check. */
static __always_inline int net_decide(struct ctx *c, struct krsi_sa *sa, __u8 op, __u32 hook)
{
	struct krsi_event_net net = {};
	struct report r = { .hook = hook, .net = &net };
	struct krsi_net_key k = {};
	__u8 v;

	k.family = sa->family;
	k.port = sa->port;
	__builtin_memcpy(k.addr, sa->addr, 16);
	k.prefixlen = (sizeof(k) - sizeof(k.prefixlen)) * 8;
	k.slot = c->pol->slot;
	k.op = op;
	v = net_match(&k);
	if (v != KRSI_NET_RULE_DENY) {
		/* No deny rule: with an allow list, what it does not admit is denied. */
		if (c->learn & KRSI_DENY(hook))
			r.arg = -1; /* learned, below */
		else if (!(c->pol->allow & KRSI_DENY(hook)) || v == KRSI_NET_RULE_ALLOW)
			return 0;
		else
			r.arg = KRSI_MATCH_NOT_ALLOWED << 8;
	}
	net.family = k.family == 4 ? AF_INET : AF_INET6;
	net.port = k.port;
	__builtin_memcpy(net.addr, k.addr, 16);
	{
		__u64 a, b;

		__builtin_memcpy(&a, &k.addr[0], 8);
		__builtin_memcpy(&b, &k.addr[8], 8);
		r.object = ((__u64)k.port << 48) ^ a ^ b ^ (__u64)r.arg << 32;
	}
	if (r.arg == -1) {
		r.arg = 0;
		return learn(c, &r);
	}
	return decide(c, &r);
}

/*
 * ADDRESS (ADDRLEN bytes, the kernel's copy) given to a connect, bind or sendmsg (SA_OP) on
 * SOCK: the address it reaches, by the kernel's reading of every form (bpf/sockaddr.h).
 */
static __always_inline int net_check(struct socket *sock, struct sockaddr *address, int addrlen,
				     int sa_op, __u8 op, __u32 hook)
{
	__u64 b[(KRSI_SA_BYTES + 7) / 8]; /* 8-byte aligned: the parser loads words */
	struct krsi_sa sa;
	struct ctx c;

	if (!policy_get(&c) || !((c.pol->deny | c.learn) & KRSI_DENY(hook)))
		return 0;
	if (addrlen < 2)
		return 0;
	/* The kernel's sockaddr_storage: 128 bytes; only the first ADDRLEN are looked at. */
	if (bpf_probe_read_kernel(b, KRSI_SA_BYTES, address) < 0)
		return 0;
	krsi_sa_parse((const __u8 *)b, addrlen, BPF_CORE_READ(sock, sk, __sk_common.skc_family),
		      sa_op, &sa);
	if (!sa.family)
		return 0;
	return net_decide(&c, &sa, op, hook);
}

#endif /* KRSI_BPF_NET_H */
