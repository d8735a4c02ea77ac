// SPDX-License-Identifier: GPL-2.0
/* A refcounted bit filter (bitfilter.h). */
#include <errno.h>
#include <stdlib.h>

#include "policy/bitfilter.h"

int bitfilter_init(struct bitfilter *f, uint32_t bits)
{
	uint8_t *c = calloc(bits, sizeof(*c));

	if (!c)
		return -ENOMEM;
	free(f->counts);
	f->counts = c;
	f->bits = bits;
	return 0;
}

void bitfilter_free(struct bitfilter *f)
{
	free(f->counts);
	f->counts = NULL;
	f->bits = 0;
}

bool bitfilter_add(struct bitfilter *f, uint32_t b)
{
	b %= f->bits;
	if (f->counts[b] == BITFILTER_SATURATED)
		return false;
	return f->counts[b]++ == 0;
}

bool bitfilter_del(struct bitfilter *f, uint32_t b)
{
	b %= f->bits;
	if (f->counts[b] == 0 || f->counts[b] == BITFILTER_SATURATED)
		return false;
	return --f->counts[b] == 0;
}

bool bitfilter_test(const struct bitfilter *f, uint32_t b)
{
	return f->counts[b % f->bits] != 0;
}

uint64_t bitfilter_word(const struct bitfilter *f, uint32_t w)
{
	uint64_t v = 0;

	for (uint32_t i = 0; i < 64; i++)
		v |= (uint64_t)(f->counts[w * 64 + i] != 0) << i;
	return v;
}
