/* sysctl                 lists every run-time setting with its value and description
 * sysctl NAME            prints a setting as "NAME = VALUE"
 * sysctl NAME VALUE      sets it (also NAME=VALUE) and prints the new value */
#include <stdio.h>
#include <string.h>
#include <errno.h>
#include <sys.h>

/* The kernel names the N-th setting "#N" and answers "name=value description". */
static int list_all(void)
{
  for (int i = 0;; i++) {
    char name[16], out[256];
    snprintf(name, sizeof(name), "#%d", i);
    if (sysctl(name, 0, out, sizeof(out)) < 0) {
      if (errno == ENOENT)
        return 0;   /* past the last one (or there are none) */
      fprintf(stderr, "sysctl: %s\n", strerror(errno));
      return 1;
    }
    out[sizeof(out) - 1] = 0;
    char *eq = strchr(out, '=');
    char *space = eq ? strchr(eq, ' ') : 0;
    if (!eq) {
      printf("%s\n", out);
      continue;
    }
    *eq = 0;
    if (space)
      *space = 0;
    printf("%s = %s%s%s\n", out, eq + 1, space ? "    # " : "", space ? space + 1 : "");
  }
}

int main(int argc, char **argv)
{
  if (argc == 1 || (argc == 2 && strcmp(argv[1], "-a") == 0))
    return list_all();
  if (argc > 3 || argv[1][0] == '-') {
    fprintf(stderr, "usage: sysctl [NAME [VALUE] | NAME=VALUE]\n");
    return 1;
  }
  char name[128];
  const char *value = argc == 3 ? argv[2] : 0;
  snprintf(name, sizeof(name), "%s", argv[1]);
  char *eq = strchr(name, '=');
  if (eq && !value) {
    *eq = 0;
    value = argv[1] + (eq - name) + 1;
  }
  char out[256];
  out[0] = 0;
  if (sysctl(name, value, out, sizeof(out)) < 0) {
    if (errno == ENOENT)
      fprintf(stderr, "sysctl: %s: no such setting\n", name);
    else if (errno == EINVAL && value)
      fprintf(stderr, "sysctl: %s: bad value %s\n", name, value);
    else
      fprintf(stderr, "sysctl: %s: %s\n", name, strerror(errno));
    return 1;
  }
  out[sizeof(out) - 1] = 0;
  printf("%s = %s\n", name, out);
  return 0;
}
