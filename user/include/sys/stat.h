#ifndef _SYS_STAT_H
#define _SYS_STAT_H
#include "uapi/stat.h"
int stat(const char *path, struct stat *st);
int fstat(int fd, struct stat *st);
/* There are no permissions: mkdir takes no mode argument. */
int mkdir(const char *path);
#endif
