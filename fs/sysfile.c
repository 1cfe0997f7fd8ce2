/* The file-descriptor system calls: open, close, read, write, lseek, stat, dup, pipe, fsync,
 * sync and reading a directory. The name-space ones (mkdir, unlink, rename, chdir, ...) are
 * in fs/sysdir.c. Arguments come through kernel/syscall.h; every user pointer is used only
 * through copy_to_user / copy_from_user / either_copy*, which give -EFAULT. */
#include "fs/fs.h"
#include "fs/file.h"
#include "fs/internal.h"
#include "fs/cache.h"
#include "kernel/klib.h"
#include "kernel/proc.h"
#include "kernel/syscall.h"
#include "kernel/memlayout.h"
#include "kernel/uapi/fcntl.h"
#include "kernel/mem/coremap.h"

/* --- helpers ----------------------------------------------------------------------------- */

static int argfd(int n, int *pfd, struct file **pf)
{
  int fd = argint(n);
  struct proc *p = myproc();
  if (fd < 0 || fd >= NOFILE || !p->ofile[fd])
    return -EBADF;
  if (pfd)
    *pfd = fd;
  *pf = p->ofile[fd];
  return 0;
}

static int fdalloc(struct file *f)
{
  struct proc *p = myproc();
  for (int fd = 0; fd < NOFILE; fd++) {
    if (!p->ofile[fd]) {
      p->ofile[fd] = f;
      return fd;
    }
  }
  return -EMFILE;
}


/* --- descriptors ------------------------------------------------------------------------- */

int sys_open(void)
{
  char path[FS_MAXPATH];
  int err = argstr(0, path, sizeof(path));
  if (err < 0)
    return err;
  int flags = argint(1);
  int acc = flags & O_ACCMODE;
  if (acc == O_ACCMODE)
    return -EINVAL;
  bool writable = acc != O_RDONLY;
  struct inode *ip;
  if (flags & O_CREAT) {
    if (!(ip = create_retry(path, T_FILE, flags & O_EXCL, &err)))
      return err;
  } else {
    bool change = writable || (flags & O_TRUNC);
    if (!(ip = namei_for(path, change ? LOOKUP_CHANGE : LOOKUP_READ, &err)))
      return err;
    ilock(ip);
  }
  if (ip->err) {
    err = ip->err;
    goto bad;
  }
  if (ip->d.type == T_DIR && (writable || (flags & (O_TRUNC | O_CREAT)))) {
    err = -EISDIR;
    goto bad;
  }
  if (writable && (err = inode_write_get(ip)) < 0)
    goto bad;                 /* ETXTBSY: it is being run */
  if (writable)
    cache_set_name(ip->inum, path);     /* a failed write-back names it */
  struct file *f = filealloc();
  int fd = f ? fdalloc(f) : -ENFILE;
  if (fd < 0) {
    if (f)
      fileclose(f);
    if (writable)
      inode_write_put(ip);
    err = fd;
    goto bad;
  }
  f->type = FD_INODE;
  f->ip = ip;
  f->off = 0;
  f->readable = acc != O_WRONLY;
  f->writable = writable;
  f->append = (flags & O_APPEND) != 0;
  if ((flags & O_TRUNC) && writable && ip->d.size > 0 && (err = itrunc(ip)) < 0) {
    iunlock(ip);
    myproc()->ofile[fd] = 0;
    fileclose(f);
    return err;
  }
  iunlock(ip);
  return fd;

bad:
  iunlockput(ip);
  return err;
}

int sys_close(void)
{
  int fd;
  struct file *f;
  int err = argfd(0, &fd, &f);
  if (err < 0)
    return err;
  myproc()->ofile[fd] = 0;
  /* A delayed write of this file that failed is reported here (thesis 3.5.1). */
  err = f->type == FD_INODE && f->writable ? cache_take_error(f->ip->inum) : 0;
  fileclose(f);
  return err;
}

int sys_read(void)
{
  struct file *f;
  int err = argfd(0, 0, &f);
  if (err < 0)
    return err;
  int n = argint(2);
  if (n < 0)
    return -EINVAL;
  return fileread(f, argraw(1), (uint32_t)n);
}

int sys_write(void)
{
  struct file *f;
  int err = argfd(0, 0, &f);
  if (err < 0)
    return err;
  int n = argint(2);
  if (n < 0)
    return -EINVAL;
  int r = filewrite(f, argraw(1), (uint32_t)n);
  /* asap: the blocks were scheduled; give the cleaners the CPU now, or on one CPU they would
   * wait for the writer's time slice to end and asap would be no different from delay. */
  if (cache_policy == WP_ASAP)
    yield();
  return r;
}

int sys_lseek(void)
{
  struct file *f;
  int err = argfd(0, 0, &f);
  if (err < 0)
    return err;
  int off = argint(1), whence = argint(2);
  if (f->type != FD_INODE)
    return -ESPIPE;
  ilock(f->ip);
  int64_t base;
  switch (whence) {
  case SEEK_SET: base = 0; break;
  case SEEK_CUR: base = f->off; break;
  case SEEK_END: base = f->ip->d.size; break;
  default: base = -1; break;
  }
  int64_t pos = base + off;
  int r;
  if (base < 0 || pos < 0 || pos > (int64_t)FS_MAXFILE) {
    r = -EINVAL;
  } else {
    f->off = (uint32_t)pos;
    r = (int)pos;
  }
  iunlock(f->ip);
  return r;
}

int sys_fstat(void)
{
  struct file *f;
  struct stat st;
  int err = argfd(0, 0, &f);
  if (err < 0)
    return err;
  if ((err = filestat(f, &st)) < 0)
    return err;
  return copy_to_user(argraw(1), &st, sizeof(st));
}

int sys_stat(void)
{
  char path[FS_MAXPATH];
  struct stat st;
  int err = argstr(0, path, sizeof(path));
  if (err < 0)
    return err;
  struct inode *ip = namei_for(path, LOOKUP_STAT, &err);
  if (!ip)
    return err;
  ilock(ip);
  err = ip->err;
  if (!err)
    istat(ip, &st);
  iunlockput(ip);
  if (err)
    return err;
  return copy_to_user(argraw(1), &st, sizeof(st));
}

int sys_dup(void)
{
  struct file *f;
  int err = argfd(0, 0, &f);
  if (err < 0)
    return err;
  int fd = fdalloc(f);
  if (fd >= 0)
    filedup(f);
  return fd;
}

int sys_dup2(void)
{
  struct file *f;
  int fd;
  int err = argfd(0, &fd, &f);
  if (err < 0)
    return err;
  int nfd = argint(1);
  if (nfd < 0 || nfd >= NOFILE)
    return -EBADF;
  if (nfd == fd)
    return nfd;
  struct proc *p = myproc();
  struct file *old = p->ofile[nfd];
  p->ofile[nfd] = filedup(f);
  if (old)
    fileclose(old);
  return nfd;
}

int sys_pipe(void)
{
  struct file *rf, *wf;
  int err = pipealloc(&rf, &wf);
  if (err < 0)
    return err;
  int fds[2];
  fds[0] = fdalloc(rf);
  fds[1] = fds[0] >= 0 ? fdalloc(wf) : -EMFILE;
  if (fds[1] >= 0 && (err = copy_to_user(argraw(0), fds, sizeof(fds))) == 0)
    return 0;
  if (fds[1] < 0)
    err = fds[1];
  struct proc *p = myproc();
  if (fds[0] >= 0)
    p->ofile[fds[0]] = 0;
  if (fds[1] >= 0)
    p->ofile[fds[1]] = 0;
  fileclose(rf);
  fileclose(wf);
  return err;
}

/* Argument n as an open file that is an inode (not a pipe or the console): 0, or -EBADF or
 * -EINVAL. */
static int arginodefd(int n, struct file **f)
{
  int err = argfd(n, 0, f);
  if (err < 0)
    return err;
  return (*f)->type == FD_INODE ? 0 : -EINVAL;
}

int sys_fsync(void)
{
  struct file *f;
  int err = arginodefd(0, &f);
  if (err < 0)
    return err;
  return fs_fsync(f->ip);
}

/* Which blocks of an open file the cache holds (the incore program, like Linux's fincore):
 * by descriptor, since a path's lookup would itself bring directory blocks into the cache. */
int sys_incore(void)
{
  struct file *f;
  int err = arginodefd(0, &f);
  if (err < 0)
    return err;
  uint32_t vec = argraw(1), n = argraw(2);
  ilock(f->ip);
  uint32_t nblocks = (inode_size(f->ip) + FS_BSIZE - 1) / FS_BSIZE;
  uint32_t inum = inode_num(f->ip);
  iunlock(f->ip);
  uint8_t chunk[256];
  for (uint32_t i = 0; i < MIN(n, nblocks); i += sizeof chunk) {
    uint32_t m = MIN(MIN(n, nblocks) - i, sizeof chunk);
    cache_incore(inum, i, m, chunk);
    if ((err = copy_to_user(vec + i, chunk, m)) < 0)
      return err;
  }
  return (int)nblocks;
}

int sys_sync(void)
{
  fs_sync();
  return 0;
}

int sys_readdir(void)
{
  struct file *f;
  int err = argfd(0, 0, &f);
  if (err < 0)
    return err;
  if (f->type != FD_INODE || !f->readable)
    return f->type != FD_INODE ? -ENOTDIR : -EBADF;
  struct fs_dirent e;
  int r;
  ilock(f->ip);
  if (f->ip->err) {
    r = f->ip->err;
  } else if (f->ip->d.type != T_DIR) {
    r = -ENOTDIR;
  } else {
    /* Skip empty slots; 0 at the end. */
    for (;;) {
      r = readi(f->ip, false, (uint32_t)&e, f->off, sizeof(e));
      if (r < (int)sizeof(e)) {
        r = r < 0 ? r : 0;
        break;
      }
      f->off += sizeof(e);
      if (e.ino) {
        r = 1;
        break;
      }
    }
  }
  iunlock(f->ip);
  if (r != 1)
    return r;
  struct dirent de;
  de.ino = e.ino;
  memcpy(de.name, e.name, sizeof(de.name));
  de.name[DIRNAME_MAX] = 0;
  if ((err = copy_to_user(argraw(1), &de, sizeof(de))) < 0) {
    f->off -= sizeof(e);      /* not delivered: the next call sees it again */
    return err;
  }
  return 1;
}
