#ifndef _FCNTL_H
#define _FCNTL_H
#include "uapi/fcntl.h"
/* There are no permissions: open takes no mode argument. */
int open(const char *path, int flags);
#endif
