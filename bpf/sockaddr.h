/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The address a connect(2), bind(2) or sendmsg(2) reaches, read from the sockaddr the kernel
 * was given the way the kernel reads it (Linux 6.1, net/ipv4 and net/ipv6). One pure function,
 * compiled into the BPF programs (bpf/krsi.bpf.c) and into the host unit tests, which walk
 * every form the kernel accepts (tests/unit/test_sockaddr.c).
 *
 * What the kernel accepts, and so what a rule has to see through:
 * - AF_INET needs 16 bytes or more; AF_INET6 needs 24 (SIN6_LEN_RFC2133: sin6_scope_id is
 *   optional), not sizeof(struct sockaddr_in6).
 * - An AF_INET6 socket connects and sends to an AF_INET sockaddr (UDP: ip6_datagram_connect,
 *   udpv6_sendmsg) and to an IPv4-mapped address ::ffff:a.b.c.d (TCP and UDP): both reach the
 *   IPv4 host.
 * - On an AF_INET socket, AF_UNSPEC is AF_INET for sendmsg (udp_sendmsg, raw_sendmsg) and for
 *   bind to INADDR_ANY (inet_bind); for connect it is a disconnect, which reaches nothing.
 * - The unspecified address reaches the loopback address when connected or sent to (0.0.0.0
 *   and ::ffff:0.0.0.0 reach 127.0.0.1, :: reaches ::1); bound to, it means every address.
 */
#ifndef KRSI_SOCKADDR_H
#define KRSI_SOCKADDR_H

#define KRSI_SA_BYTES 28 /* bytes read: a struct sockaddr_in6 */

#define KRSI_SA_UNSPEC 0
#define KRSI_SA_INET 2
#define KRSI_SA_INET6 10

enum krsi_sa_op {
	KRSI_SA_CONNECT = 1,
	KRSI_SA_BIND = 2,
	KRSI_SA_SENDMSG = 3,
};

struct krsi_sa {
	__u8 addr[16] __attribute__((aligned(8))); /* IPv4 in the first 4 bytes */
	__u16 port;  /* host byte order */
	__u8 family; /* 4 or 6; 0: the call reaches no address, or the kernel refuses it */
	__u8 _pad[5];
};

/*
 * B: the first KRSI_SA_BYTES bytes of the sockaddr (8-byte aligned; what lies past LEN is never
 * looked at); LEN: the length the caller gave; SK_FAMILY: the socket's family; OP: enum
 * krsi_sa_op. Word loads and stores only: the programs run it on every connect and sendto.
 */
static __always_inline void krsi_sa_parse(const __u8 *b, int len, int sk_family, int op,
					  struct krsi_sa *out)
{
	__u64 a0 = 0, a1 = 0;
	__u32 v4;
	int fam;

	out->family = 0;
	out->port = 0;
	if (len < 2)
		goto done;
	fam = b[0] | b[1] << 8; /* sa_family_t, host byte order (x86: little endian) */
	if (fam == KRSI_SA_UNSPEC && sk_family == KRSI_SA_INET) {
		if (op == KRSI_SA_CONNECT)
			goto done;
		fam = KRSI_SA_INET;
	}
	if (fam == KRSI_SA_INET) {
		if (len < 16)
			goto done;
		__builtin_memcpy(&v4, b + 4, 4);
		a0 = v4;
		out->family = 4;
	} else if (fam == KRSI_SA_INET6) {
		if (len < 24)
			goto done;
		__builtin_memcpy(&a0, b + 8, 8);
		__builtin_memcpy(&a1, b + 16, 8);
		/* ::ffff:a.b.c.d: ten zero bytes, two 0xff, the IPv4 address */
		if (!a0 && b[16] == 0 && b[17] == 0 && b[18] == 0xff && b[19] == 0xff) {
			__builtin_memcpy(&v4, b + 20, 4);
			a0 = v4;
			a1 = 0;
			out->family = 4;
		} else {
			out->family = 6;
		}
	} else {
		goto done;
	}
	out->port = (__u16)(b[2] << 8 | b[3]);
	/* The unspecified address, connected or sent to, reaches the loopback address. */
	if (op != KRSI_SA_BIND && !a0 && !a1) {
		__u8 lo[16] = { 0 };

		if (out->family == 4) {
			lo[0] = 127;
			lo[3] = 1;
		} else {
			lo[15] = 1;
		}
		__builtin_memcpy(&a0, lo, 8);
		__builtin_memcpy(&a1, lo + 8, 8);
	}
done:
	__builtin_memcpy(out->addr, &a0, 8);
	__builtin_memcpy(out->addr + 8, &a1, 8);
}

#endif /* KRSI_SOCKADDR_H */
