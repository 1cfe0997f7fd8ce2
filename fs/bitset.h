/* A bit per disk block (or descriptor), in kernel pages allocated at mount: for the write
 * ordering (fs/ordering.c) and the pending frees (fs/alloc.c). */
#ifndef FS_BITSET_H
#define FS_BITSET_H
#include "kernel/types.h"
#include "kernel/mem/coremap.h"

#define BITSET_PAGE_BITS (4096u * 8)
#define BITSET_MAXPAGES  64u        /* 2M bits: the blocks of an 8 GB disk */

struct bitset {
  uint32_t nbits;
  uint32_t *pg[BITSET_MAXPAGES];
};

/* Room for n bits (at most BITSET_MAXPAGES pages): false when memory is short. */
static inline bool bitset_init(struct bitset *s, uint32_t n)
{
  s->nbits = n < BITSET_MAXPAGES * BITSET_PAGE_BITS ? n : BITSET_MAXPAGES * BITSET_PAGE_BITS;
  for (uint32_t i = 0; i * BITSET_PAGE_BITS < s->nbits; i++)
    if (!s->pg[i] && !(s->pg[i] = kalloc_page()))
      return false;
  return s->nbits == n;
}

static inline uint32_t bitset_words(const struct bitset *s) { return (s->nbits + 31) / 32; }

static inline uint32_t *bitset_word(struct bitset *s, uint32_t w)
{
  return &s->pg[w / (BITSET_PAGE_BITS / 32)][w % (BITSET_PAGE_BITS / 32)];
}

static inline bool bitset_get(struct bitset *s, uint32_t b)
{
  return b < s->nbits && (*bitset_word(s, b / 32) >> (b % 32)) & 1;
}

static inline void bitset_set(struct bitset *s, uint32_t b, bool v)
{
  if (b >= s->nbits)
    return;
  uint32_t *w = bitset_word(s, b / 32);
  *w = v ? *w | (1u << (b % 32)) : *w & ~(1u << (b % 32));
}
/* dst |= src, and src emptied (both the same size). */
static inline void bitset_move(struct bitset *dst, struct bitset *src)
{
  for (uint32_t w = 0; w < bitset_words(src); w++) {
    *bitset_word(dst, w) |= *bitset_word(src, w);
    *bitset_word(src, w) = 0;
  }
}
#endif
