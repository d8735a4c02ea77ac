// SPDX-License-Identifier: GPL-2.0
/*
 * bpf/sockaddr.h, the parser the network programs run: every sockaddr form and length that
 * Linux 6.1 accepts for connect(2), bind(2) and sendmsg(2) on IPv4 and IPv6 sockets, and what
 * each reaches. A rule on an address holds for every row that reaches it.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <linux/types.h>

#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif
#include "bpf/sockaddr.h"
#include "unit.h"

struct row {
	const char *what;
	int sk_family, op;
	int sa_family; /* as given */
	const char *addr; /* as given: IPv4 or IPv6 text */
	int len;
	int want_family; /* 0: reaches no address (or the kernel refuses it) */
	const char *want; /* the address reached */
};

static const struct row rows[] = {
	/* IPv4 sockets */
	{ "v4 connect", AF_INET, KRSI_SA_CONNECT, AF_INET, "10.1.2.3", 16, 4, "10.1.2.3" },
	{ "v4 connect, long sockaddr", AF_INET, KRSI_SA_CONNECT, AF_INET, "10.1.2.3", 128, 4,
	  "10.1.2.3" },
	{ "v4 connect, 15 bytes (EINVAL)", AF_INET, KRSI_SA_CONNECT, AF_INET, "10.1.2.3", 15, 0,
	  NULL },
	{ "v4 connect to 0.0.0.0 reaches loopback", AF_INET, KRSI_SA_CONNECT, AF_INET, "0.0.0.0",
	  16, 4, "127.0.0.1" },
	{ "v4 connect AF_UNSPEC is a disconnect", AF_INET, KRSI_SA_CONNECT, AF_UNSPEC, "10.1.2.3",
	  16, 0, NULL },
	{ "v4 sendmsg AF_UNSPEC is AF_INET", AF_INET, KRSI_SA_SENDMSG, AF_UNSPEC, "10.1.2.3", 16,
	  4, "10.1.2.3" },
	{ "v4 sendmsg to 0.0.0.0 reaches loopback", AF_INET, KRSI_SA_SENDMSG, AF_INET, "0.0.0.0",
	  16, 4, "127.0.0.1" },
	{ "v4 bind", AF_INET, KRSI_SA_BIND, AF_INET, "10.1.2.3", 16, 4, "10.1.2.3" },
	{ "v4 bind 0.0.0.0 stays any", AF_INET, KRSI_SA_BIND, AF_INET, "0.0.0.0", 16, 4,
	  "0.0.0.0" },
	{ "v4 bind AF_UNSPEC to any is AF_INET", AF_INET, KRSI_SA_BIND, AF_UNSPEC, "0.0.0.0", 16,
	  4, "0.0.0.0" },
	{ "v4 sockaddr of 1 byte", AF_INET, KRSI_SA_SENDMSG, AF_INET, "10.1.2.3", 1, 0, NULL },
	{ "AF_UNIX reaches no address", AF_INET, KRSI_SA_CONNECT, AF_UNIX, "10.1.2.3", 16, 0,
	  NULL },
	/* IPv6 sockets */
	{ "v6 connect", AF_INET6, KRSI_SA_CONNECT, AF_INET6, "2001:db8::7", 28, 6, "2001:db8::7" },
	{ "v6 connect, 24 bytes (RFC 2133)", AF_INET6, KRSI_SA_CONNECT, AF_INET6, "2001:db8::7",
	  24, 6, "2001:db8::7" },
	{ "v6 connect, 23 bytes (EINVAL)", AF_INET6, KRSI_SA_CONNECT, AF_INET6, "2001:db8::7", 23,
	  0, NULL },
	{ "v6 connect to ::ffff:10.1.2.3 reaches IPv4", AF_INET6, KRSI_SA_CONNECT, AF_INET6,
	  "::ffff:10.1.2.3", 28, 4, "10.1.2.3" },
	{ "v6 connect mapped, 24 bytes", AF_INET6, KRSI_SA_CONNECT, AF_INET6, "::ffff:10.1.2.3",
	  24, 4, "10.1.2.3" },
	{ "v6 connect to :: reaches ::1", AF_INET6, KRSI_SA_CONNECT, AF_INET6, "::", 28, 6, "::1" },
	{ "v6 connect to ::ffff:0.0.0.0 reaches 127.0.0.1", AF_INET6, KRSI_SA_CONNECT, AF_INET6,
	  "::ffff:0.0.0.0", 28, 4, "127.0.0.1" },
	{ "v6 UDP connect with an AF_INET sockaddr", AF_INET6, KRSI_SA_CONNECT, AF_INET,
	  "10.1.2.3", 16, 4, "10.1.2.3" },
	{ "v6 UDP sendmsg with an AF_INET sockaddr", AF_INET6, KRSI_SA_SENDMSG, AF_INET,
	  "10.1.2.3", 16, 4, "10.1.2.3" },
	{ "v6 sendmsg AF_UNSPEC names no address", AF_INET6, KRSI_SA_SENDMSG, AF_UNSPEC, "::", 28,
	  0, NULL },
	{ "v6 sendmsg to mapped", AF_INET6, KRSI_SA_SENDMSG, AF_INET6, "::ffff:10.1.2.3", 28, 4,
	  "10.1.2.3" },
	{ "v6 ::10.1.2.3 (compatible, not mapped) is IPv6", AF_INET6, KRSI_SA_CONNECT, AF_INET6,
	  "::10.1.2.3", 28, 6, "::10.1.2.3" },
	{ "v6 bind :: stays any", AF_INET6, KRSI_SA_BIND, AF_INET6, "::", 28, 6, "::" },
	{ "v6 bind mapped", AF_INET6, KRSI_SA_BIND, AF_INET6, "::ffff:10.1.2.3", 24, 4,
	  "10.1.2.3" },
};

/* The sockaddr bytes of ROW, as a caller would pass them (port 8080). */
static void encode(const struct row *r, __u8 *b)
{
	memset(b, 0xa5, KRSI_SA_BYTES); /* past the caller's length: whatever was there */
	if (r->sa_family == AF_INET6) {
		struct sockaddr_in6 sin6 = { .sin6_family = AF_INET6, .sin6_port = htons(8080) };

		inet_pton(AF_INET6, r->addr, &sin6.sin6_addr);
		memcpy(b, &sin6, sizeof(sin6));
	} else {
		struct sockaddr_in sin = { .sin_family = r->sa_family, .sin_port = htons(8080) };

		inet_pton(AF_INET, r->addr, &sin.sin_addr);
		memcpy(b, &sin, sizeof(sin));
	}
}

void test_sockaddr(void)
{
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const struct row *r = &rows[i];
		__u64 b64[(KRSI_SA_BYTES + 7) / 8];
		__u8 *b = (__u8 *)b64;
		struct krsi_sa sa;
		char got[INET6_ADDRSTRLEN] = "";
		bool ok;

		encode(r, b);
		krsi_sa_parse(b, r->len, r->sk_family, r->op, &sa);
		if (sa.family)
			inet_ntop(sa.family == 4 ? AF_INET : AF_INET6, sa.addr, got, sizeof(got));
		ok = sa.family == r->want_family &&
		     (!r->want_family || (!strcmp(got, r->want) && sa.port == 8080));
		CHECK(ok, "sockaddr: %s", r->what);
		if (!ok)
			printf("#   got family %d %s port %u, want %d %s\n", sa.family, got, sa.port,
			       r->want_family, r->want ? r->want : "-");
	}
}
