/* The file cache's audit (the audit program, SYS_vmaudit, through the pool's operations):
 * every block header, its frame, the lists and the core map's cache frames agree, and the
 * dirty lists (fs/writeback.c, dirty_audit) with them. Each problem found is named unless
 * quiet; the count is returned. It reads the cache's structures as fs/cache.c keeps them. */
#include "fs/cache_internal.h"
#include "kernel/klib.h"
#include "kernel/audit.h"

/* Ties every block header, its frame and the lists together (the audit program; cache_lock
 * taken). A cache frame owned by nobody is on its way between a pool and its new owner (a
 * negotiation's frame not yet attached): counted apart, not a problem. */
int cache_audit(bool quiet)
{
  int bad = 0;
  acquire(&cache_lock);
  uint32_t with_frame = 0, hashed = 0, dirty = 0, headers = 0;
  FOR_EACH_HEADER(hp, b) {
    headers++;
    struct frame *f = b->frame;
    if (f) {
      with_frame++;
      if (f < coremap || f >= coremap + nframes || f->pool != POOL_CACHE || f->owner != b ||
          b->data != frame_va(f))
        AUDIT_BAD("cache: block %u of file %u holds frame %d, which is not its own\n", b->blockno, b->fileid,
            (int)(f - coremap));
    }
    if (b->hashed) {
      hashed++;
      if (!f || cache_lookup(b->fileid, b->blockno) != b)
        AUDIT_BAD("cache: block %u of file %u is hashed without a frame or cannot be found\n", b->blockno, b->fileid);
    }
    if (b->flags & CB_DIRTY) {
      dirty++;
      if (!b->hashed || !b->cf || b->cf->fileid != b->fileid)
        AUDIT_BAD("cache: dirty block %u of file %u has no identity or no file entry\n", b->blockno, b->fileid);
    } else if (b->flags & CB_SCHED) {
      AUDIT_BAD("cache: block %u of file %u is scheduled but clean\n", b->blockno, b->fileid);
    }
    if (b->refcnt < 0)
      AUDIT_BAD("cache: block %u of file %u has %d references\n", b->blockno, b->fileid, b->refcnt);
  }
  uint32_t onlru = 0, onfree = 0, onspare = 0;
  for (struct cblock *b = lru.next; b != &lru && onlru <= headers; b = b->next, onlru++)
    if (!b->hashed || b->next->prev != b)
      AUDIT_BAD("cache: block %u of file %u on the LRU list has no identity\n", b->blockno, b->fileid);
  for (struct cblock *b = freelist.next; b != &freelist && onfree <= headers; b = b->next, onfree++)
    if (b->hashed || !b->frame || b->refcnt != 0)
      AUDIT_BAD("cache: a block on the free list has an identity, no frame, or holders\n");
  for (struct cblock *b = spare.next; b != &spare && onspare <= headers; b = b->next, onspare++)
    if (b->frame)
      AUDIT_BAD("cache: a spare header holds a frame\n");
  if (onlru != hashed)
    AUDIT_BAD("cache: %u blocks on the LRU list, %u with an identity\n", onlru, hashed);
  if (onspare != headers - with_frame)
    AUDIT_BAD("cache: %u spare headers, %u without a frame\n", onspare, headers - with_frame);
  if (with_frame != nframes_held)
    AUDIT_BAD("cache: %u blocks hold a frame, the cache counts %u\n", with_frame, nframes_held);
  if (dirty != st_dirty)
    AUDIT_BAD("cache: %u dirty blocks, the cache counts %u\n", dirty, st_dirty);
  bad += dirty_audit(quiet, headers);
  /* Every cache frame of the core map is a block's, or in hand. */
  uint32_t inhand = 0;
  for (uint32_t i = 0; i < nframes; i++) {
    struct frame *f = &coremap[i];
    if (f->pool != POOL_CACHE)
      continue;
    struct cblock *b = f->owner;
    if (!b)
      inhand++;
    else if (b->frame != f)
      AUDIT_BAD("cache: cache frame %u names a block that does not hold it\n", i);
  }
  if (frame_count(POOL_CACHE) != nframes_held + inhand)
    AUDIT_BAD("cache: the core map has %u cache frames, the cache holds %u (and %u in hand)\n",
        frame_count(POOL_CACHE), nframes_held, inhand);
  release(&cache_lock);
  return bad;
}
