/* Write ordering for power cuts: see fs/ordering.c. */
#ifndef FS_ORDERING_H
#define FS_ORDERING_H
#include "kernel/types.h"

struct fs_super;
void order_init(const struct fs_super *sb);     /* at mount */
void order_new(uint32_t diskaddr);              /* allocated for a file: not durable yet */
void order_forget(uint32_t diskaddr);           /* freed */
void order_written(uint32_t diskaddr);          /* a write of it completed */
void order_flush_begin(void);                   /* a flush is about to be issued ... */
void order_flush_end(bool ok);                  /* ... and has completed (or failed) */
/* A device block that holds block pointers (a descriptor or an indirect block). */
bool order_holds_pointers(uint32_t diskaddr);
/* For a device block about to be written from data: when some pointer in it names a block
 * that is not yet durable, fills copy with what may be written instead and returns true. */
bool order_filter(uint32_t diskaddr, const uint8_t *data, uint8_t *copy);
#endif
