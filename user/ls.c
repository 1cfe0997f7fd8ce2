/* ls [-l] [-a] [PATH...]: lists directories (a file argument lists itself).
 * -l shows type (d directory, - file, c console), size in bytes, descriptor number, name,
 * under a header line naming those columns (T SIZE DESC NAME) at the top of each directory
 * listed (a file argument's line alone has none, so `ls -l FILE` is one line to read).
 * -a also shows names starting with a dot. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <errno.h>
#include <dirent.h>
#include <sys/stat.h>

static int longfmt, all;

static char typechar(int type)
{
  return type == T_DIR ? 'd' : type == T_DEV ? 'c' : '-';
}

static void show(const char *name, struct stat *st)
{
  if (longfmt)
    printf("%c %9u %5u %s\n", typechar(st->type), st->size, st->ino, name);
  else
    printf("%s\n", name);
}

static int list_dir(const char *path)
{
  int fd = open(path, O_RDONLY);
  if (fd < 0) {
    fprintf(stderr, "ls: %s: %s\n", path, strerror(errno));
    return 1;
  }
  struct dirent de;
  int r, status = 0;
  if (longfmt)
    printf("T %9s %5s %s\n", "SIZE", "DESC", "NAME");
  while ((r = readdir(fd, &de)) > 0) {
    if (de.name[0] == 0 || (!all && de.name[0] == '.'))
      continue;
    if (!longfmt) {
      printf("%s\n", de.name);
      continue;
    }
    char full[512];
    snprintf(full, sizeof(full), "%s/%s", path, de.name);
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
      else {
        fprintf(stderr, "usage: ls [-la] [PATH...]\n");
        return 1;
      }
    }
  }
  if (i == argc)
    return list_dir(".");

  int status = 0, many = argc - i > 1;
  for (int first = i; i < argc; i++) {
    struct stat st;
    if (stat(argv[i], &st) < 0) {
      fprintf(stderr, "ls: %s: %s\n", argv[i], strerror(errno));
      status = 1;
      continue;
    }
    if (st.type != T_DIR) {
      show(argv[i], &st);
      continue;
    }
    if (many)
      printf(i > first ? "\n%s:\n" : "%s:\n", argv[i]);
    status |= list_dir(argv[i]);
  }
  return status;
}
