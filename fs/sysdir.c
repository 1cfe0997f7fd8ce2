/* The name-space system calls: mkdir, unlink, rmdir, rename, chdir and getcwd, and create(),
 * which open and the VM's backing files (fs/backing.c) use too. Arguments come through
 * kernel/syscall.h; every user pointer is used only through copy_to_user / copy_from_user,
 * which give -EFAULT. Name-space changes hold ns_lock (see fs/internal.h), so that they never
 * race each other; rename is atomic across a crash (do_rename says how). */
#include "fs/fs.h"
#include "fs/internal.h"
#include "kernel/klib.h"
#include "kernel/proc.h"
#include "kernel/syscall.h"
#include "kernel/memlayout.h"
#include "kernel/mem/coremap.h"

static bool isdot(const char *name)
{
  return strcmp(name, ".") == 0 || strcmp(name, "..") == 0;
}

/* Creates path (ns_lock held) and returns it locked; an existing file is returned as it is
 * unless excl (O_EXCL, mkdir): then -EEXIST. Also makes the VM's backing files (backing.c). */
struct inode *create(const char *path, int type, bool excl, enum lookup_for how, int *err)
{
  char name[FS_NAME_MAX + 1];
  struct inode *dp = nameiparent(path, how, name, err);
  if (!dp) {
    if (*err == -EBUSY)
      *err = -EEXIST;         /* "/" */
    return 0;
  }
  ilock(dp);
  struct inode *ip = dirlookup(dp, name, 0, err);
  if (ip) {
    iunlockput(dp);
    if (excl || type == T_DIR) {
      iput(ip);
      *err = -EEXIST;
      return 0;
    }
    ilock(ip);
    return ip;
  }
  if (*err != -ENOENT || dp->err || dp->d.nlink == 0) {
    /* a real error, or the directory was removed (dirlookup says ENOENT for both) */
    if (dp->err)
      *err = dp->err;
    iunlockput(dp);
    return 0;
  }
  if (!(ip = ialloc(type, dp->inum, err))) {
    iunlockput(dp);
    return 0;
  }
  ilock(ip);
  ip->parent = dp->inum;      /* fsync also writes the new entry */
  if (type == T_DIR) {
    ip->d.nlink = 2;                      /* "." and the parent's entry */
    if ((*err = dirlink(ip, ".", ip->inum)) < 0 || (*err = dirlink(ip, "..", dp->inum)) < 0)
      goto undo;
    dp->d.nlink++;                        /* the new ".." */
    if ((*err = iupdate(dp)) < 0) {
      dp->d.nlink--;
      goto undo;
    }
  } else {
    ip->d.nlink = 1;
    if ((*err = iupdate(ip)) < 0)
      goto undo;
  }
  if ((*err = dirlink(dp, name, ip->inum)) < 0) {
    if (type == T_DIR) {
      dp->d.nlink--;
      iupdate(dp);
    }
    goto undo;
  }
  iunlockput(dp);
  return ip;

undo:
  ip->d.nlink = 0;            /* iput frees it */
  iunlockput(ip);
  iunlockput(dp);
  return 0;
}

/* create() under ns_lock; when the disk is full only because of blocks and descriptors
 * freed lately (they wait to be reusable: fs/alloc.c, pending frees), a sync makes them
 * reusable and it tries once more. */
struct inode *create_retry(const char *path, int type, bool excl, int *err)
{
  for (int tries = 0; ; tries++) {
    acquiresleep(&ns_lock);
    struct inode *ip = create(path, type, excl, LOOKUP_CHANGE, err);
    releasesleep(&ns_lock);
    if (ip || *err != -ENOSPC || tries > 0 || fs_pending_blocks() + fs_pending_descs() == 0)
      return ip;
    fs_sync();
  }
}

/* --- directories ------------------------------------------------------------------------- */

int sys_mkdir(void)
{
  char path[FS_MAXPATH];
  int err = argstr(0, path, sizeof(path));
  if (err < 0)
    return err;
  struct inode *ip = create_retry(path, T_DIR, true, &err);
  if (!ip)
    return err;
  iunlockput(ip);
  return 0;
}

/* unlink and rmdir: removes the entry for path, which must (dir) or must not be a directory. */
static int remove_entry(const char *path, bool dir)
{
  char name[FS_NAME_MAX + 1];
  int err;
  uint32_t off;
  acquiresleep(&ns_lock);
  struct inode *dp = nameiparent(path, LOOKUP_CHANGE, name, &err), *ip = 0;
  if (!dp) {
    if (err == -EBUSY && !dir)
      err = -EISDIR;          /* unlink("/") */
    goto out;
  }
  if (isdot(name)) {
    err = !dir ? -EISDIR : strcmp(name, ".") == 0 ? -EINVAL : -ENOTEMPTY;
    goto out;
  }
  ilock(dp);
  ip = dirlookup(dp, name, &off, &err);
  if (!ip) {
    iunlock(dp);
    goto out;
  }
  ilock(ip);
  if (ip->err)
    err = ip->err;
  else if (!dir && ip->d.type == T_DIR)
    err = -EISDIR;
  else if (dir && ip->d.type != T_DIR)
    err = -ENOTDIR;
  else if (dir && ip->inum == FS_ROOT_DESC)
    err = -EBUSY;
  else if (dir && (err = dir_isempty(ip)) >= 0)
    err = err ? 0 : -ENOTEMPTY;
  if (err == 0)
    err = dirset(dp, off, 0, 0);
  if (err == 0 && dir) {
    dp->d.nlink--;            /* its ".." is gone */
    iupdate(dp);
    ip->d.nlink = 0;          /* its "." and its name */
    iupdate(ip);
  } else if (err == 0) {
    ip->d.nlink--;
    iupdate(ip);
  }
  iunlock(ip);
  iunlock(dp);
out:
  releasesleep(&ns_lock);
  /* The last reference frees the file: outside ns_lock, it may take a while. */
  if (ip)
    iput(ip);
  if (dp)
    iput(dp);
  return err;
}

int sys_unlink(void)
{
  char path[FS_MAXPATH];
  int err = argstr(0, path, sizeof(path));
  return err < 0 ? err : remove_entry(path, false);
}

int sys_rmdir(void)
{
  char path[FS_MAXPATH];
  int err = argstr(0, path, sizeof(path));
  return err < 0 ? err : remove_entry(path, true);
}

/* -EINVAL when dir is ip or lies inside it (moving ip there would cut it off the tree). */
static int check_not_inside(struct inode *ip, struct inode *dir)
{
  struct inode *cur = idup(dir);
  for (int depth = 0; depth < 4096; depth++) {
    if (cur->inum == ip->inum) {
      iput(cur);
      return -EINVAL;
    }
    if (cur->inum == FS_ROOT_DESC) {
      iput(cur);
      return 0;
    }
    int err;
    ilock(cur);
    struct inode *up = dirlookup(cur, "..", 0, &err);
    iunlockput(cur);
    if (!up)
      return err;
    cur = up;
  }
  iput(cur);
  return -EIO;                /* a loop of ".." entries: the tree is damaged */
}

/* rename with ns_lock held. The new name is made to point at the file before the old name
 * goes, and an existing target is replaced by rewriting its one entry: at every moment the
 * disk holds the old file or the new one under the target name, never neither. */
static int do_rename(const char *from, const char *to)
{
  char fname[FS_NAME_MAX + 1], tname[FS_NAME_MAX + 1];
  struct inode *fdp = 0, *tdp = 0, *ip = 0, *target = 0;
  uint32_t foff = 0, toff = 0;
  int err;
  bool isdir = false, tisdir = false;

  if (!(fdp = nameiparent(from, LOOKUP_CHANGE, fname, &err)) ||
      !(tdp = nameiparent(to, LOOKUP_CHANGE, tname, &err)))
    goto out;
  if (isdot(fname) || isdot(tname)) {
    err = -EINVAL;
    goto out;
  }
  ilock(fdp);
  ip = dirlookup(fdp, fname, &foff, &err);
  iunlock(fdp);
  if (!ip)
    goto out;
  ilock(ip);
  err = ip->err;
  isdir = ip->d.type == T_DIR;
  iunlock(ip);
  if (err)
    goto out;

  ilock(tdp);
  if (tdp->err || tdp->d.type != T_DIR || tdp->d.nlink == 0)
    err = tdp->err ? tdp->err : tdp->d.type != T_DIR ? -ENOTDIR : -ENOENT;
  else if (!(target = dirlookup(tdp, tname, &toff, &err)) && err == -ENOENT)
    err = 0;
  iunlock(tdp);
  if (err)
    goto out;
  if (target == ip)
    goto out;                 /* two names of one file: nothing to do */
  if (isdir && fdp != tdp && (err = check_not_inside(ip, tdp)) < 0)
    goto out;
  if (target) {
    ilock(target);
    err = target->err;
    tisdir = target->d.type == T_DIR;
    if (!err && tisdir && !isdir)
      err = -EISDIR;
    else if (!err && !tisdir && isdir)
      err = -ENOTDIR;
    else if (!err && tisdir && (err = dir_isempty(target)) >= 0)
      err = err ? 0 : -ENOTEMPTY;
    iunlock(target);
    if (err)
      goto out;
  }

  /* 1. One more link while both names exist, so a crash leaves two names, never none. */
  ilock(ip);
  ip->d.nlink++;
  if ((err = iupdate(ip)) < 0)
    ip->d.nlink--;
  iunlock(ip);
  if (err)
    goto out;

  /* Atomic across a crash: the file (data, descriptor, indirect blocks, bitmap) is on
   * stable storage before the entry that names it under the new name, and that entry is
   * before anything of the replaced file is freed. Whatever else a crash leaves (two names,
   * an orphan, a stale link count) the repairing mount fixes. */
  if ((err = fs_fsync(ip)) < 0)
    goto undo_link;

  /* 2. The new name. */
  ilock(tdp);
  err = target ? dirset(tdp, toff, tname, ip->inum) : dirlink(tdp, tname, ip->inum);
  if (!err && isdir && fdp != tdp) {
    tdp->d.nlink++;           /* ip's ".." will name tdp */
    iupdate(tdp);
  }
  iunlock(tdp);
  if (err) {
undo_link:
    ilock(ip);
    ip->d.nlink--;
    iupdate(ip);
    iunlock(ip);
    goto out;
  }
  if (fs_fsync(tdp) < 0)
    kprintf("fs: rename: the new entry is not on disk yet (kept to retry)\n");
  ilock(ip);
  ip->parent = tdp->inum;
  iunlock(ip);

  /* 3. The old name. */
  ilock(fdp);
  dirset(fdp, foff, 0, 0);
  if (isdir && fdp != tdp) {
    fdp->d.nlink--;
    iupdate(fdp);
  }
  iunlock(fdp);

  /* 4. The file itself: back to its link count, and a moved directory's "..". */
  struct inode *oldparent = 0;
  ilock(ip);
  ip->d.nlink--;
  if (isdir && fdp != tdp) {
    uint32_t off;
    int e;
    if ((oldparent = dirlookup(ip, "..", &off, &e)) != 0)
      dirset(ip, off, "..", tdp->inum);
  }
  iupdate(ip);
  iunlock(ip);
  if (oldparent)
    iput(oldparent);          /* after iunlock: never lock a parent while holding a child */

  /* 5. The replaced file loses its name (and a directory its "." and its ".."). */
  if (target) {
    ilock(target);
    target->d.nlink = tisdir ? 0 : target->d.nlink - 1;
    iupdate(target);
    iunlock(target);
    if (tisdir) {
      ilock(tdp);
      tdp->d.nlink--;
      iupdate(tdp);
      iunlock(tdp);
    }
  }
  err = 0;

out:
  if (target)
    iput(target);
  if (ip)
    iput(ip);
  if (tdp)
    iput(tdp);
  if (fdp)
    iput(fdp);
  return err;
}

int sys_rename(void)
{
  char from[FS_MAXPATH], to[FS_MAXPATH];
  int err;
  if ((err = argstr(0, from, sizeof(from))) < 0 || (err = argstr(1, to, sizeof(to))) < 0)
    return err;
  acquiresleep(&ns_lock);
  err = do_rename(from, to);
  releasesleep(&ns_lock);
  return err;
}

int sys_chdir(void)
{
  char path[FS_MAXPATH];
  int err = argstr(0, path, sizeof(path));
  if (err < 0)
    return err;
  struct inode *ip = namei(path, &err);
  if (!ip)
    return err;
  ilock(ip);
  err = ip->err ? ip->err : ip->d.type != T_DIR ? -ENOTDIR : 0;
  iunlock(ip);
  if (err) {
    iput(ip);
    return err;
  }
  struct proc *p = myproc();
  struct inode *old = p->cwd;
  p->cwd = ip;
  if (old)
    iput(old);
  return 0;
}

/* The name under which directory dp lists inum (not "." or ".."): 0, or -ENOENT. */
static int name_in(struct inode *dp, uint32_t inum, char *name)
{
  struct fs_dirent des[16];
  for (uint32_t off = 0; off < dp->d.size; off += sizeof(des)) {
    int n = readi(dp, false, (uint32_t)des, off, sizeof(des));
    if (n < 0)
      return n;
    for (int i = 0; i < n / (int)sizeof(des[0]); i++) {
      if (des[i].ino == inum && !fs_dirent_is(&des[i], ".") && !fs_dirent_is(&des[i], "..")) {
        memcpy(name, des[i].name, FS_NAME_MAX);
        name[FS_NAME_MAX] = 0;
        return 0;
      }
    }
  }
  return -ENOENT;
}

/* Builds the path by walking ".." up to the root, naming each step in its parent. Returns the
 * path's length (without the NUL), -ERANGE when buf is too small, -ENOENT when the current
 * directory has been removed. */
int sys_getcwd(void)
{
  uint32_t ubuf = argraw(0), len = argraw(1);
  char *path = kalloc_page();
  if (!path)
    return -ENOMEM;
  int pos = PGSIZE - 1, err = 0;
  path[pos] = 0;
  struct proc *p = myproc();
  struct inode *ip = p->cwd ? idup(p->cwd) : iget(FS_ROOT_DESC);
  char name[FS_NAME_MAX + 1];
  while (ip && ip->inum != FS_ROOT_DESC) {
    ilock(ip);
    struct inode *up = 0;
    if (ip->err || ip->d.nlink == 0)
      err = ip->err ? ip->err : -ENOENT;
    else
      up = dirlookup(ip, "..", 0, &err);
    iunlock(ip);
    if (!up)
      break;
    ilock(up);
    err = name_in(up, ip->inum, name);
    iunlock(up);
    int n = (int)strlen(name);
    if (!err && pos < n + 1)
      err = -ERANGE;
    if (err) {
      iput(up);
      break;
    }
    pos -= n;
    memcpy(path + pos, name, (size_t)n);
    path[--pos] = '/';
    iput(ip);
    ip = up;
  }
  if (ip)
    iput(ip);
  else
    err = -ENFILE;
  int n = 0;
  if (!err) {
    if (path[pos] == 0)
      path[--pos] = '/';
    n = PGSIZE - 1 - pos;
    if ((uint32_t)n + 1 > len)
      err = -ERANGE;
    else
      err = copy_to_user(ubuf, path + pos, (uint32_t)n + 1);
  }
  kfree_page(path);
  return err < 0 ? err : n;
}
