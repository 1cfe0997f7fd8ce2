/* The repairing mount's table of the names seen in one directory (fs/repair.c, pass B): the
 * second of two equal names in a directory is cleared, since a lookup only ever finds the
 * first. An open-addressed hash of (name hash, slot + 1) pairs in a sparse page array, as
 * large as the directory; an entry whose hash matches is compared by name, read back from
 * its block through the cache. */
#include "fs/internal.h"
#include "fs/parray.h"
#include "fs/repair.h"

static struct parray names;         /* the directory being walked: (name hash, slot + 1) pairs */
static uint32_t names_mask;         /* pairs in the table - 1; 0: no table (too big) */

static uint32_t name_hash(const struct fs_dirent *e)
{
  uint32_t h = 2166136261u;
  for (size_t i = 0; i < sizeof(e->name) && e->name[i]; i++)
    h = (h ^ (uint8_t)e->name[i]) * 16777619u;
  return h;
}

void repair_names_start(uint32_t entries)
{
  uint32_t n = 64;
  while (n < 2 * entries && n < MAXPAGES * PAGE / 8)
    n *= 2;
  /* A directory too large for the table keeps any duplicate names: lookups find the first. */
  names_mask = n >= 2 * entries ? n - 1 : 0;
}

static bool same_name(const struct fs_dirent *a, const struct fs_dirent *b)
{
  for (size_t i = 0; i < sizeof(a->name); i++) {
    if (a->name[i] != b->name[i])
      return false;
    if (!a->name[i])
      return true;
  }
  return true;
}

/* Whether an entry kept earlier in directory dir (whose block lbn, held as cur, holds e at
 * slot) has e's name; if not, e's name is noted. */
bool repair_seen_name(uint32_t dir, const struct fs_desc *d, uint32_t lbn, struct cblock *cur,
                      const struct fs_dirent *e, uint32_t slot)
{
  if (!names_mask)
    return false;
  uint32_t h = name_hash(e);
  for (uint32_t i = h & names_mask;; i = (i + 1) & names_mask) {
    uint32_t *pair = (uint32_t *)pa_at(&names, 8 * i);
    if (!pair)
      return false;
    if (!pair[1]) {
      pair[0] = h;
      pair[1] = slot + 1;
      return false;
    }
    if (pair[0] != h)
      continue;
    uint32_t other = pair[1] - 1, olbn = other / FS_DIRENTS_PER_BLOCK;
    uint32_t off = other % FS_DIRENTS_PER_BLOCK * FS_DIRENT_SIZE;
    if (olbn == lbn) {
      if (same_name(e, (const struct fs_dirent *)(cur->data + off)))
        return true;
      continue;
    }
    struct cblock *b = cache_get(dir, olbn);
    bool same = ((b->flags & CB_VALID) || cache_fill(b, repair_map(d, olbn)) == 0) &&
                same_name(e, (const struct fs_dirent *)(b->data + off));
    cache_release(b);
    if (same)
      return true;
  }
}

void repair_names_end(void)
{
  pa_free(&names);
  names.oom = false;
}
