/* errno: set by every system-call wrapper that fails (the wrapper then returns -1). */
#ifndef _ERRNO_H
#define _ERRNO_H
#include "uapi/errno.h"
extern int errno;
#endif
