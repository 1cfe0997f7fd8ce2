/* Pipes: a ring buffer in one kernel page, the struct pipe at its start.
 *
 * Readers sleep while it is empty, writers while it is full. Bytes move between the ring and
 * user memory with the spinlock released (a user copy may fault and sleep), which is safe
 * because one reader and one writer at a time hold the pipe (rlock, wlock), and a writer
 * only touches free space while a reader only touches filled space.
 */
#include "fs/file.h"
#include "fs/fs.h"
#include "kernel/klib.h"
#include "kernel/spinlock.h"
#include "kernel/sleeplock.h"
#include "kernel/proc.h"
#include "kernel/syscall.h"
#include "kernel/memlayout.h"
#include "kernel/mem/coremap.h"

struct pipe {
  struct spinlock lock;     /* rpos, count, the open flags */
  struct sleeplock rlock;   /* one reader at a time */
  struct sleeplock wlock;   /* one writer at a time */
  uint32_t rpos;            /* next byte to read */
  uint32_t count;           /* bytes in the ring */
  bool readopen, writeopen;
  uint8_t data[];
};

#define PIPESIZE (PGSIZE - sizeof(struct pipe))

int pipealloc(struct file **rf, struct file **wf)
{
  struct pipe *p = kalloc_page();
  if (!p)
    return -ENOMEM;
  *rf = filealloc();
  *wf = *rf ? filealloc() : 0;
  if (!*wf) {
    if (*rf)
      fileclose(*rf);
    kfree_page(p);
    return -ENFILE;
  }
  initlock(&p->lock, "pipe");
  initsleeplock(&p->rlock, "piperead");
  initsleeplock(&p->wlock, "pipewrite");
  p->rpos = p->count = 0;
  p->readopen = p->writeopen = true;
  (*rf)->type = FD_PIPE;
  (*rf)->readable = true;
  (*rf)->pipe = p;
  (*wf)->type = FD_PIPE;
  (*wf)->writable = true;
  (*wf)->pipe = p;
  return 0;
}

void pipeclose(struct pipe *p, bool writable)
{
  acquire(&p->lock);
  if (writable) {
    p->writeopen = false;
    wakeup(&p->count);        /* readers see end of file */
  } else {
    p->readopen = false;
    wakeup(&p->rpos);         /* writers see EPIPE */
  }
  bool last = !p->readopen && !p->writeopen;
  release(&p->lock);
  if (last)
    kfree_page(p);
}

/* Readers sleep on &p->count, writers on &p->rpos. */
int piperead(struct pipe *p, uint32_t addr, uint32_t n)
{
  struct proc *me = myproc();
  int got = 0;
  acquiresleep(&p->rlock);
  acquire(&p->lock);
  while (p->count == 0 && p->writeopen) {
    if (me->killed) {
      release(&p->lock);
      releasesleep(&p->rlock);
      return -EINTR;
    }
    sleep(&p->count, &p->lock);
  }
  while ((uint32_t)got < n && p->count > 0) {
    uint32_t start = p->rpos;
    uint32_t m = MIN(n - (uint32_t)got, MIN(p->count, PIPESIZE - start));
    release(&p->lock);
    int r = copy_to_user(addr + (uint32_t)got, p->data + start, m);
    acquire(&p->lock);
    if (r < 0) {
      if (got == 0)
        got = r;
      break;
    }
    p->rpos = (start + m) % PIPESIZE;
    p->count -= m;
    got += (int)m;
    wakeup(&p->rpos);
  }
  release(&p->lock);
  releasesleep(&p->rlock);
  return got;
}

int pipewrite(struct pipe *p, uint32_t addr, uint32_t n)
{
  struct proc *me = myproc();
  uint32_t done = 0;
  int err = 0;
  acquiresleep(&p->wlock);
  acquire(&p->lock);
  while (done < n) {
    if (!p->readopen) {
      err = -EPIPE;
      break;
    }
    if (me->killed) {
      err = -EINTR;
      break;
    }
    if (p->count == PIPESIZE) {
      wakeup(&p->count);
      sleep(&p->rpos, &p->lock);
      continue;
    }
    /* The free space starts at rpos + count; a reader only moves both ends of the filled
     * part, so that position stays put while we copy. */
    uint32_t wpos = (p->rpos + p->count) % PIPESIZE;
    uint32_t m = MIN(n - done, MIN(PIPESIZE - p->count, PIPESIZE - wpos));
    release(&p->lock);
    int r = copy_from_user(p->data + wpos, addr + done, m);
    acquire(&p->lock);
    if (r < 0) {
      err = r;
      break;
    }
    p->count += m;
    done += m;
    wakeup(&p->count);
  }
  release(&p->lock);
  releasesleep(&p->wlock);
  return done > 0 ? (int)done : err;
}
