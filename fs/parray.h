/* A sparse byte array of kernel pages, each allocated (zeroed) when first touched: the
 * repairing mount's tables (fs/repair.c), sized by the disk's blocks and descriptors rather
 * than by what the kernel could allocate at once. A touch past MAXPAGES pages, or with no page
 * left, sets oom and gives 0: the repair then leaves the disk as it is and says so. */
#ifndef FS_PARRAY_H
#define FS_PARRAY_H
#include "kernel/types.h"

#define PAGE 4096u
#define MAXPAGES 1024

struct parray {
  uint8_t *pg[MAXPAGES];
  bool oom;
};

uint8_t *pa_at(struct parray *a, uint32_t byte);   /* the byte's place, or 0 (oom set) */
void pa_free(struct parray *a);                     /* every page back; the array empty again */
bool bit_get(struct parray *a, uint32_t i);         /* the array as bits */
void bit_set(struct parray *a, uint32_t i, bool v);
#endif
