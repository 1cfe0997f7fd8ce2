/* A first-fit allocator over sbrk, after K&R: a circular free list sorted by address,
 * neighbouring free blocks merged on free. Memory is never given back to the kernel. A
 * malloc that fails sets errno to ENOMEM, or to sbrk's ENOSWAP when the heap could not grow
 * for want of backing store (the disk is full): perror then says which ran out. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <errno.h>

typedef union header {
  struct {
    union header *next;   /* next free block (only while free) */
    size_t units;         /* size of this block in header units, header included */
  } s;
  long long align;        /* every block is 8-byte aligned */
} Header;

static Header base;
static Header *freep;

/* Grows the heap by at least nu units; returns the free list or 0. */
static Header *morecore(size_t nu)
{
  if (nu < 4096 / sizeof(Header))
    nu = 4096 / sizeof(Header);   /* one page at a time at least: fewer system calls */
  if (nu > 0x7fffffff / sizeof(Header))
    return 0;
  char *p = sbrk(nu * sizeof(Header));
  if (p == (char *)-1)
    return 0;
  Header *h = (Header *)p;
  h->s.units = nu;
  free(h + 1);
  return freep;
}

void *malloc(size_t n)
{
  if (n == 0)
    n = 1;
  if (n > 0x7fffffff - sizeof(Header)) {
    errno = ENOMEM;
    return 0;
  }
  size_t nunits = (n + sizeof(Header) - 1) / sizeof(Header) + 1;
  if (!freep) {
    base.s.next = freep = &base;
    base.s.units = 0;
  }
  Header *prev = freep;
  for (Header *p = prev->s.next;; prev = p, p = p->s.next) {
    if (p->s.units >= nunits) {
      if (p->s.units == nunits) {
        prev->s.next = p->s.next;
      } else {
        /* Hand out the tail so the free-list link stays where it is. */
        p->s.units -= nunits;
        p += p->s.units;
        p->s.units = nunits;
      }
      freep = prev;
      return p + 1;
    }
    if (p == freep && (p = morecore(nunits)) == 0) {
      if (errno != ENOSWAP)
        errno = ENOMEM;
      return 0;
    }
  }
}

void free(void *ap)
{
  if (!ap)
    return;
  Header *b = (Header *)ap - 1, *p;
  for (p = freep; !(b > p && b < p->s.next); p = p->s.next)
    if (p >= p->s.next && (b > p || b < p->s.next))
      break;   /* b lies at one end of the arena */
  if (b + b->s.units == p->s.next) {
    b->s.units += p->s.next->s.units;
    b->s.next = p->s.next->s.next;
  } else {
    b->s.next = p->s.next;
  }
  if (p + p->s.units == b) {
    p->s.units += b->s.units;
    p->s.next = b->s.next;
  } else {
    p->s.next = b;
  }
  freep = p;
}

void *calloc(size_t count, size_t size)
{
  if (size && count > 0x7fffffff / size) {
    errno = ENOMEM;
    return 0;
  }
  void *p = malloc(count * size);
  if (p)
    memset(p, 0, count * size);
  return p;
}

void *realloc(void *ap, size_t n)
{
  if (!ap)
    return malloc(n);
  if (n == 0) {
    free(ap);
    return 0;
  }
  Header *h = (Header *)ap - 1;
  size_t have = (h->s.units - 1) * sizeof(Header);
  if (have >= n)
    return ap;
  void *p = malloc(n);
  if (!p)
    return 0;
  memcpy(p, ap, have);
  free(ap);
  return p;
}
