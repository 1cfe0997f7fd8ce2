/* mv SRC... DST: renames; with DST an existing directory, moves the sources into it. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <errno.h>
#include <sys/stat.h>

static const char *basename_of(const char *path)
{
  const char *slash = strrchr(path, '/');
  return slash ? slash + 1 : path;
}

int main(int argc, char **argv)
{
  if (argc < 3) {
    fprintf(stderr, "usage: mv SRC... DST\n");
    return 1;
  }
  const char *target = argv[argc - 1];
  struct stat st;
  int todir = stat(target, &st) == 0 && st.type == T_DIR;
  if (argc > 3 && !todir) {
    fprintf(stderr, "mv: %s: %s\n", target, strerror(ENOTDIR));
    return 1;
  }
  int status = 0;
  for (int i = 1; i < argc - 1; i++) {
    char dst[512];
    if (todir)
      snprintf(dst, sizeof(dst), "%s/%s", target, basename_of(argv[i]));
    else
      snprintf(dst, sizeof(dst), "%s", target);
    if (rename(argv[i], dst) < 0) {
      fprintf(stderr, "mv: %s -> %s: %s\n", argv[i], dst, strerror(errno));
      status = 1;
    }
  }
  return status;
}
