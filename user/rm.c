/* rm [-r] [-f] PATH...: removes files; -r removes directories and their contents;
 * -f keeps quiet about missing files. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <errno.h>
#include <dirent.h>
#include <sys/stat.h>

static int recursive, force;

static int remove_path(const char *path);

/* Collects the names first and removes them afterwards, so that removing entries does not
 * disturb the directory being read. */
static int remove_tree(const char *path)
{
  int fd = open(path, O_RDONLY);
  if (fd < 0) {
    fprintf(stderr, "rm: %s: %s\n", path, strerror(errno));
    return 1;
  }
  int n = 0, cap = 16, status = 0;
  char (*names)[DIRNAME_MAX + 1] = malloc(cap * sizeof(*names));
  struct dirent de;
  int r;
  while (names && (r = readdir(fd, &de)) > 0) {
    if (de.name[0] == 0 || strcmp(de.name, ".") == 0 || strcmp(de.name, "..") == 0)
      continue;
    if (n == cap) {
      cap *= 2;
      names = realloc(names, cap * sizeof(*names));
      if (!names)
        break;
    }
    strcpy(names[n++], de.name);
  }
  close(fd);
  if (!names) {
    fprintf(stderr, "rm: %s: %s\n", path, strerror(ENOMEM));
    return 1;
  }
  for (int i = 0; i < n; i++) {
    char child[512];
    snprintf(child, sizeof(child), "%s/%s", path, names[i]);
    status |= remove_path(child);
  }
  free(names);
  if (rmdir(path) < 0) {
    fprintf(stderr, "rm: %s: %s\n", path, strerror(errno));
    status = 1;
  }
  return status;
}

static int remove_path(const char *path)
{
  struct stat st;
  if (stat(path, &st) < 0) {
    if (force && errno == ENOENT)
      return 0;
    fprintf(stderr, "rm: %s: %s\n", path, strerror(errno));
    return 1;
  }
  if (st.type == T_DIR) {
    if (recursive)
      return remove_tree(path);
    fprintf(stderr, "rm: %s: %s\n", path, strerror(EISDIR));
    return 1;
  }
  if (unlink(path) < 0) {
    fprintf(stderr, "rm: %s: %s\n", path, strerror(errno));
    return 1;
  }
  return 0;
}

int main(int argc, char **argv)
{
  int i = 1;
  for (; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
    for (char *o = argv[i] + 1; *o; o++) {
      if (*o == 'r' || *o == 'R')
        recursive = 1;
      else if (*o == 'f')
        force = 1;
      else {
        fprintf(stderr, "usage: rm [-rf] PATH...\n");
        return 1;
      }
    }
  }
  if (i == argc) {
    if (force)
      return 0;
    fprintf(stderr, "usage: rm [-rf] PATH...\n");
    return 1;
  }
  int status = 0;
  for (; i < argc; i++)
    status |= remove_path(argv[i]);
  return status;
}
