/* ls [-l] [-a] [-d] [-i] [PATH...]: lists directories (a file argument lists itself).
 *
 * -l shows what a UNIX user reads there, in the usual order, under a "total" line (the KB of
 * disk blocks the entries listed hold, data and indirect, as GNU ls counts them):
 *
 *   total 6156
 *   d  2      4096    12s bin
 *   -  1   6291456   140s in
 *
 * type (d directory, - file, c console), link count (the directory entries that name it; a
 * directory's own "." and its children's ".." count too), size in bytes, when it last changed
 * and the name. There is no mode column, nor owner nor group: this file system has no
 * permission bits and no users (the two rules it keeps, /swap the kernel's and /bin read-only,
 * are the kernel's, fs/protect.c). Nor is there a wall clock: the time is seconds after the boot
 * that last changed the file, as the kernel stamps it (fs/inode.c, fs_now).
 *
 * A file argument's line comes alone, with no total, so `ls -l FILE` is one line to read; -d
 * lists a directory argument the same way, itself and not its entries: `ls -ld /swap` shows
 * the kernel's directory, whose entries no user may see, with the row `ls -l /` shows for it.
 * -a also shows names starting with a dot; -i puts each entry's descriptor number (its inode
 * number) first, as UNIX's ls -i does, with or without -l. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <errno.h>
#include <dirent.h>
#include <sys/stat.h>

static int longfmt, all, dirself, inum;

static char typechar(int type)
{
  return type == T_DIR ? 'd' : type == T_DEV ? 'c' : '-';
}

static void show(const char *name, struct stat *st)
{
  if (inum)
    printf("%5u ", st->ino);
  if (longfmt)
    printf("%c %2u %9u %6us %s\n", typechar(st->type), (unsigned)st->nlink, st->size, st->mtime, name);
  else
    printf("%s\n", name);
}

static void usage(FILE *f)
{
  fprintf(f, "usage: ls [-ladi] [PATH...]\n");
  if (f == stdout)
    fprintf(f, "Lists each directory's names (a file's own name); -a with those starting with a dot.\n"
               "-l: a total line (KB of disk blocks), then type (d, - file, c console), links,\n"
               "size in bytes, seconds after the boot that last changed it, name. No mode, owner\n"
               "or group column: the file system has no permission bits and no users.\n"
               "-d: a directory argument itself, not its entries (ls -ld /swap).\n"
               "-i: each entry's descriptor (inode) number first.\n");
}

/* One entry's full path in full (dir/name). */
static void join(char *full, int len, const char *dir, const char *name)
{
  snprintf(full, len, "%s%s%s", dir, dir[strlen(dir) - 1] == '/' ? "" : "/", name);
}

static int shown(struct dirent *de)
{
  return de->name[0] != 0 && (all || de->name[0] != '.');
}

/* The total line: the directory is read twice, once to sum, once to list, rather than its
 * entries held in memory (a directory may have hundreds). */
static void total(int fd, const char *path)
{
  struct dirent de;
  unsigned blocks = 0;
  while (readdir(fd, &de) > 0) {
    char full[512];
    struct stat st;
    join(full, sizeof full, path, de.name);
    if (shown(&de) && stat(full, &st) == 0)
      blocks += st.blocks;
  }
  printf("total %u\n", blocks * 4);
}

static int list_dir(const char *path)
{
  int fd = open(path, O_RDONLY);
  if (fd >= 0 && longfmt) {
    total(fd, path);
    close(fd);
    fd = open(path, O_RDONLY);
  }
  if (fd < 0) {
    if (errno == EACCES)
      fprintf(stderr, "ls: %s: %s (ls -ld %s shows the directory itself)\n", path, strerror(errno), path);
    else
      fprintf(stderr, "ls: %s: %s\n", path, strerror(errno));
    return 1;
  }
  struct dirent de;
  int r, status = 0;
  while ((r = readdir(fd, &de)) > 0) {
    if (!shown(&de))
      continue;
    if (!longfmt && !inum) {
      printf("%s\n", de.name);
      continue;
    }
    char full[512];
    join(full, sizeof full, path, de.name);
    struct stat st;
    if (stat(full, &st) < 0) {
      fprintf(stderr, "ls: %s: %s\n", full, strerror(errno));
      status = 1;
      continue;
    }
    show(de.name, &st);
  }
  if (r < 0) {
    fprintf(stderr, "ls: %s: %s\n", path, strerror(errno));
    status = 1;
  }
  close(fd);
  return status;
}

int main(int argc, char **argv)
{
  int i = 1;
  for (; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
    for (char *o = argv[i] + 1; *o; o++) {
      if (*o == 'l')
        longfmt = 1;
      else if (*o == 'a')
        all = 1;
      else if (*o == 'd')
        dirself = 1;
      else if (*o == 'i')
        inum = 1;
      else if (*o == 'h') {
        usage(stdout);
        return 0;
      } else {
        usage(stderr);
        return 1;
      }
    }
  }
  static char *dot[] = { ".", 0 };
  if (i == argc) {
    argv = dot;
    argc = 1;
    i = 0;
  }

  int status = 0, many = argc - i > 1;
  for (int first = i; i < argc; i++) {
    struct stat st;
    if (stat(argv[i], &st) < 0) {
      fprintf(stderr, "ls: %s: %s\n", argv[i], strerror(errno));
      status = 1;
      continue;
    }
    if (st.type != T_DIR || dirself) {
      show(argv[i], &st);
      continue;
    }
    if (many)
      printf(i > first ? "\n%s:\n" : "%s:\n", argv[i]);
    status |= list_dir(argv[i]);
  }
  return status;
}
