/* What a user program may not do to the name space: the one rule, asked at every step of every
 * path lookup (fs/dir.c, namex).
 *
 *   /swap is the kernel's. The VM keeps its backing files there (fs/backing.c) and reads and
 *   writes their blocks by disk address, behind the file system's back: a program that
 *   overwrote one would corrupt another program's pages, one that unlinked a live one would
 *   keep the disk from ever being marked clean. So a user's path never goes through /swap:
 *   no open, exec, chdir, create, unlink, rename or mkdir there, and no rename, rmdir or
 *   mkdir of /swap itself (the name is reserved even when the directory is missing, since
 *   the kernel makes it on demand). The one exception is stat of /swap itself, so that
 *   `ls -l /` shows it; stat of anything inside it is refused like the rest. -EACCES.
 *
 *   /bin is read-only unless asked (fs.bin_writable=1): its programs are what every user
 *   runs. A change there is refused: opening an entry of /bin for writing or truncation,
 *   and adding, removing or renaming an entry of /bin (so /bin/ls cannot be unlinked nor
 *   replaced by a directory), and the same for /bin itself in the root. -EPERM, like an
 *   immutable file. Reading and running programs is unaffected.
 *
 * Why at each step of the lookup and nowhere else: every path a system call takes goes
 * through namex, and every way to name a file in /swap passes the step "swap" in the root
 * ("//swap", "/./swap/../swap/x", "/tmp/../swap" alike), since a user can never stand inside
 * /swap (chdir refused) nor hold a descriptor to it (open refused), and directories have one
 * name each. /bin, which a user may stand in (cd /bin; rm ls), is recognised by its inode
 * number when the step is a change. The kernel's own lookups (backing.c) say LOOKUP_KERNEL
 * and pass everywhere. */
#include "fs/internal.h"
#include "fs/fs.h"
#include "kernel/klib.h"
#include "kernel/sysctl.h"
#include "kernel/uapi/errno.h"

#define SWAP "swap"
#define BIN  "bin"

static uint32_t bin_writable;
static const struct setting bin_writable_setting = {
  "fs.bin_writable", "1: user programs may change /bin (install, remove, overwrite programs)",
  &bin_writable, 0, 1, 0, 0,
};

void protect_init(void)
{
  setting_register(&bin_writable_setting);
}

/* The descriptor /bin names now, or 0. Locks the root: called with no inode locked. */
static uint32_t bin_inum(void)
{
  struct inode *root = iget(FS_ROOT_DESC);
  if (!root)
    return 0;
  int err;
  ilock(root);
  struct inode *bin = dirlookup(root, BIN, 0, &err);
  iunlockput(root);
  if (!bin)
    return 0;
  uint32_t inum = bin->inum;
  iput(bin);
  return inum;
}

int protect_step(uint32_t dir, const char *name, bool last, enum lookup_for how)
{
  if (how == LOOKUP_KERNEL)
    return 0;
  if (dir == FS_ROOT_DESC && strcmp(name, SWAP) == 0 && !(last && how == LOOKUP_STAT))
    return -EACCES;
  if (how == LOOKUP_CHANGE && last && !bin_writable &&
      (dir == FS_ROOT_DESC ? strcmp(name, BIN) == 0 : dir == bin_inum()))
    return -EPERM;
  return 0;
}
