/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A refcounted bit filter: how many keys of a map hash to each bit, so that the bit is set
 * while one does. krsid keeps two, mirrored into BPF maps that the programs test before a
 * hash lookup (bpf/krsi.h): the registered-cgroup filter and the identity filter. A bit is
 * set before the first key under it is written and cleared after its last key is deleted,
 * so a key in the map never has a clear bit. A count that reaches its maximum saturates and
 * the bit stays set for good: a lookup too many, never a verdict missed.
 *
 * Pure state: the caller writes the words that change into its map.
 */
#ifndef KRSI_BITFILTER_H
#define KRSI_BITFILTER_H

#include <stdbool.h>
#include <stdint.h>

#define BITFILTER_SATURATED UINT8_MAX

struct bitfilter {
	uint8_t *counts; /* calloc'd: only the pages of bits in use are touched */
	uint32_t bits;	  /* a multiple of 64 */
};

/* An empty filter of BITS bits (a multiple of 64). 0 or -ENOMEM; F is unchanged on failure. */
int bitfilter_init(struct bitfilter *f, uint32_t bits);
void bitfilter_free(struct bitfilter *f);

/* One more key at bit B. True when the bit was clear: its word must be written. */
bool bitfilter_add(struct bitfilter *f, uint32_t b);
/* One key fewer at bit B. True when the bit is now clear: its word must be written. */
bool bitfilter_del(struct bitfilter *f, uint32_t b);
bool bitfilter_test(const struct bitfilter *f, uint32_t b);
/* Word W of the filter as counted (bits 64 * W to 64 * W + 63). */
uint64_t bitfilter_word(const struct bitfilter *f, uint32_t w);

#endif /* KRSI_BITFILTER_H */
