/* The system-wide table of open files. */
#include "fs/file.h"
#include "fs/fs.h"
#include "fs/internal.h"
#include "kernel/klib.h"
#include "kernel/spinlock.h"
#include "kernel/console.h"
#include "kernel/stats.h"
#include "kernel/uapi/errno.h"

static struct {
  struct spinlock lock;
  struct file file[NFILE];
} ftable;

/* Entries in use: exhaustion tests check that all come back when their holders are gone. */
static uint32_t files_open(void)
{
  uint32_t n = 0;
  acquire(&ftable.lock);
  for (int i = 0; i < NFILE; i++)
    n += ftable.file[i].ref > 0;
  release(&ftable.lock);
  return n;
}

static const struct counter counters[] = {
  COUNTER_FN("fs.files.open", files_open),
};

void fileinit(void)
{
  initlock(&ftable.lock, "ftable");
  stat_register_table(counters, NELEM(counters));
}

struct file *filealloc(void)
{
  acquire(&ftable.lock);
  for (int i = 0; i < NFILE; i++) {
    struct file *f = &ftable.file[i];
    if (f->ref == 0) {
      memset(f, 0, sizeof(*f));
      f->ref = 1;
      release(&ftable.lock);
      return f;
    }
  }
  release(&ftable.lock);
  return 0;
}

struct file *filedup(struct file *f)
{
  acquire(&ftable.lock);
  KASSERT(f->ref > 0);
  f->ref++;
  release(&ftable.lock);
  return f;
}

void fileclose(struct file *f)
{
  acquire(&ftable.lock);
  KASSERT(f->ref > 0);
  if (--f->ref > 0) {
    release(&ftable.lock);
    return;
  }
  struct file copy = *f;
  f->type = FD_NONE;
  release(&ftable.lock);

  if (copy.type == FD_PIPE) {
    pipeclose(copy.pipe, copy.writable);
  } else if (copy.type == FD_INODE) {
    if (copy.writable)
      inode_write_put(copy.ip);
    iput(copy.ip);
  }
}

struct file *file_console_open(void)
{
  struct file *f = filealloc();
  if (!f)
    return 0;
  f->type = FD_CONSOLE;
  f->readable = f->writable = true;
  return f;
}

int filestat(struct file *f, struct stat *st)
{
  if (f->type == FD_INODE) {
    ilock(f->ip);
    int err = f->ip->err;
    if (!err)
      istat(f->ip, st);
    iunlock(f->ip);
    return err;
  }
  /* The console and pipes are devices without a descriptor. */
  memset(st, 0, sizeof(*st));
  st->type = T_DEV;
  st->nlink = 1;
  return 0;
}

int fileread(struct file *f, uint32_t addr, uint32_t n)
{
  if (!f->readable)
    return -EBADF;
  switch (f->type) {
  case FD_CONSOLE:
    return console_read(addr, n);
  case FD_PIPE:
    return piperead(f->pipe, addr, n);
  case FD_INODE: {
    ilock(f->ip);
    int r;
    if (f->ip->err)
      r = f->ip->err;
    else if (f->ip->d.type == FS_T_DIR)
      r = -EISDIR;            /* directories are read with readdir */
    else
      r = readi(f->ip, true, addr, f->off, n);
    if (r > 0)
      f->off += (uint32_t)r;
    iunlock(f->ip);
    return r;
  }
  default:
    return -EBADF;
  }
}

int filewrite(struct file *f, uint32_t addr, uint32_t n)
{
  if (!f->writable)
    return -EBADF;
  switch (f->type) {
  case FD_CONSOLE:
    return console_write(addr, n);
  case FD_PIPE:
    return pipewrite(f->pipe, addr, n);
  case FD_INODE: {
    int r;
    for (int tries = 0; ; tries++) {
      ilock(f->ip);
      if (f->append)
        f->off = f->ip->d.size;
      r = writei(f->ip, true, addr, f->off, n);
      if (r > 0)
        f->off += (uint32_t)r;
      iunlock(f->ip);
      /* Full, but blocks freed lately wait to be reusable (fs/alloc.c, pending frees): a
       * sync makes them so at once. */
      if (r != -ENOSPC || tries > 0 || fs_pending_blocks() == 0)
        return r;
      fs_sync();
    }
  }
  default:
    return -EBADF;
  }
}
