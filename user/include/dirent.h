/* Directory reading: open() the directory, then readdir() until it returns 0. */
#ifndef _DIRENT_H
#define _DIRENT_H
#include "uapi/stat.h"   /* struct dirent, DIRNAME_MAX */
/* Reads the next entry of the open directory fd: 1 = got one, 0 = end, -1 = error. */
int readdir(int fd, struct dirent *de);
#endif
