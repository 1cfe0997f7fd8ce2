/* The command line that head and tail share: PROG [-n N] [FILE...], each file (or stdin,
 * also named "-") handed to fn in turn, introduced by "==> FILE <==" when there are several,
 * as coreutils does. fn returns 0, or -1 after printing why. Returns main's exit status. */
#ifndef EACHFILE_H
#define EACHFILE_H
int each_file_n(int argc, char **argv, const char *prog, int (*fn)(int fd, const char *name, long n));
#endif
