/* Directories: lookup, adding and changing entries, and path resolution. */
#include "fs/internal.h"
#include "fs/fs.h"
#include "kernel/klib.h"
#include "kernel/proc.h"
#include "kernel/uapi/errno.h"

#define CHUNK 16          /* entries read per readi: 512 bytes of kernel stack */

static bool is_dot(const char *name) { return name[0] == '.' && name[1] == 0; }

struct inode *dirlookup(struct inode *dp, const char *name, uint32_t *poff, int *err)
{
  if (dp->err) {
    *err = dp->err;
    return 0;
  }
  if (dp->d.type != FS_T_DIR) {
    *err = -ENOTDIR;
    return 0;
  }
  if (is_dot(name) && !poff)
    return idup(dp);          /* even a removed directory is itself */
  if (dp->d.nlink == 0) {
    *err = -ENOENT;           /* removed while someone still had it (a cwd) */
    return 0;
  }
  struct fs_dirent des[CHUNK];
  for (uint32_t off = 0; off < dp->d.size; off += sizeof(des)) {
    int n = readi(dp, false, (uint32_t)des, off, sizeof(des));
    if (n < 0) {
      *err = n;
      return 0;
    }
    for (int i = 0; i < n / (int)FS_DIRENT_SIZE; i++) {
      if (des[i].ino == 0 || !fs_dirent_is(&des[i], name))
        continue;
      if (des[i].ino >= fs_sb.ndesc) {
        kprintf("fs: directory %u: entry '%s' names descriptor %u, out of range\n", dp->inum,
                name, des[i].ino);
        *err = -EIO;
        return 0;
      }
      struct inode *ip = iget(des[i].ino);
      if (!ip) {
        *err = -ENFILE;
        return 0;
      }
      if (poff)
        *poff = off + (uint32_t)i * FS_DIRENT_SIZE;
      return ip;
    }
  }
  *err = -ENOENT;
  return 0;
}

static int put_entry(struct inode *dp, uint32_t off, const struct fs_dirent *de)
{
  int n = writei(dp, false, (uint32_t)de, off, sizeof(*de));
  return n == (int)sizeof(*de) ? 0 : n < 0 ? n : -EIO;
}

int dirset(struct inode *dp, uint32_t off, const char *name, uint32_t inum)
{
  struct fs_dirent de;
  memset(&de, 0, sizeof(de));
  if (inum) {
    int r = fs_dirent_set(&de, inum, name);
    if (r < 0)
      return r == -2 ? -ENAMETOOLONG : -EINVAL;
  }
  return put_entry(dp, off, &de);
}

int dirlink(struct inode *dp, const char *name, uint32_t inum)
{
  struct fs_dirent de;
  int r = fs_dirent_set(&de, inum, name);
  if (r < 0)
    return r == -2 ? -ENAMETOOLONG : -EINVAL;
  /* The first empty slot, else the end. */
  uint32_t off = dp->d.size;
  struct fs_dirent des[CHUNK];
  for (uint32_t o = 0; o < dp->d.size && off == dp->d.size; o += sizeof(des)) {
    int n = readi(dp, false, (uint32_t)des, o, sizeof(des));
    if (n < 0)
      return n;
    for (int i = 0; i < n / (int)FS_DIRENT_SIZE; i++) {
      if (des[i].ino == 0) {
        off = o + (uint32_t)i * FS_DIRENT_SIZE;
        break;
      }
    }
  }
  return put_entry(dp, off, &de);
}

int dir_isempty(struct inode *dp)
{
  struct fs_dirent des[CHUNK];
  for (uint32_t off = 0; off < dp->d.size; off += sizeof(des)) {
    int n = readi(dp, false, (uint32_t)des, off, sizeof(des));
    if (n < 0)
      return n;
    for (int i = 0; i < n / (int)FS_DIRENT_SIZE; i++)
      if (des[i].ino && !fs_dirent_is(&des[i], ".") && !fs_dirent_is(&des[i], ".."))
        return 0;
  }
  return 1;
}

/* Copies the next path element into name and returns what follows it (slashes skipped);
 * 0 when there is no element left, or when it is too long (*err = -ENAMETOOLONG). */
static const char *skipelem(const char *path, char *name, int *err)
{
  while (*path == '/')
    path++;
  if (*path == 0)
    return 0;
  const char *s = path;
  while (*path != '/' && *path != 0)
    path++;
  size_t len = (size_t)(path - s);
  if (len > FS_NAME_MAX) {
    *err = -ENAMETOOLONG;
    return 0;
  }
  memcpy(name, s, len);
  name[len] = 0;
  while (*path == '/')
    path++;
  return path;
}

/* Walks path one directory at a time, holding one inode lock at a time. With parent, stops
 * one level early and leaves the last element in name. Every step, the last one included
 * (whose directory a parent lookup returns), is first put to fs/protect.c: the one place a
 * user's path is refused. */
static struct inode *namex(const char *path, bool parent, char *name, enum lookup_for how, int *err)
{
  *err = 0;
  if (*path == 0) {
    *err = -ENOENT;
    return 0;
  }
  struct proc *p = myproc();
  struct inode *ip;
  if (*path == '/' || !p || !p->cwd)
    ip = iget(FS_ROOT_DESC);
  else
    ip = idup(p->cwd);
  if (!ip) {
    *err = -ENFILE;
    return 0;
  }
  const char *next;
  while ((next = skipelem(path, name, err)) != 0) {
    path = next;
    if ((*err = protect_step(ip->inum, name, *path == 0, how)) < 0) {
      iput(ip);
      return 0;
    }
    ilock(ip);
    if (ip->err || ip->d.type != FS_T_DIR) {
      *err = ip->err ? ip->err : -ENOTDIR;
      iunlockput(ip);
      return 0;
    }
    if (parent && *path == 0) {
      iunlock(ip);
      return ip;
    }
    struct inode *nx = dirlookup(ip, name, 0, err);
    iunlockput(ip);
    if (!nx)
      return 0;
    ip = nx;
  }
  if (*err == 0 && parent)
    *err = -EBUSY;            /* "/" has no last element */
  if (*err) {
    iput(ip);
    return 0;
  }
  return ip;
}

struct inode *namei_for(const char *path, enum lookup_for how, int *err)
{
  char name[FS_NAME_MAX + 1];
  return namex(path, false, name, how, err);
}

struct inode *namei(const char *path, int *err)
{
  return namei_for(path, LOOKUP_READ, err);
}

struct inode *nameiparent(const char *path, enum lookup_for how, char *name, int *err)
{
  return namex(path, true, name, how == LOOKUP_KERNEL ? how : LOOKUP_CHANGE, err);
}
