#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "tools/lab/tracefile.h"

FILE *tracefile_open(const char *path, bool *gz)
{
  size_t len = strlen(path);
  *gz = len > 3 && !strcmp(path + len - 3, ".gz");
  if (!*gz)
    return fopen(path, "r");
  if (strchr(path, '\'') || access(path, R_OK) != 0)
    return 0;
  char cmd[4200];
  snprintf(cmd, sizeof cmd, "gzip -dc -- '%s'", path);
  return popen(cmd, "r");
}

int tracefile_close(FILE *f, bool gz)
{
  return gz ? pclose(f) : fclose(f);
}
