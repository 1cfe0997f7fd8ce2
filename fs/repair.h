/* The parts of the repairing mount (fs/repair.c) that live apart from it. */
#ifndef FS_REPAIR_H
#define FS_REPAIR_H
#include "fs/internal.h"

/* The disk block of file block lbn of descriptor d (its pointers already checked), or 0. */
uint32_t repair_map(const struct fs_desc *d, uint32_t lbn);

/* fs/repair_names.c: the names seen in the directory being walked. start: a table for a
 * directory of entries slots (none when too large: its duplicates stay). seen_name: whether
 * an entry kept earlier in directory dir (block lbn of descriptor d, held as cur, holds e at
 * slot) has e's name; if not, e's name is noted. end: the table's pages back. */
void repair_names_start(uint32_t entries);
bool repair_seen_name(uint32_t dir, const struct fs_desc *d, uint32_t lbn, struct cblock *cur,
                      const struct fs_dirent *e, uint32_t slot);
void repair_names_end(void);
#endif
