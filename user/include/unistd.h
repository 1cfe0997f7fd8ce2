/* Wrappers for the system calls (kernel/uapi/syscall.h). Each returns -1 and sets errno on
 * failure. */
#ifndef _UNISTD_H
#define _UNISTD_H
#include <stddef.h>
#include "uapi/fcntl.h"   /* SEEK_SET ... */

int fork(void);
/* Ends the process at once, without flushing stdio (exit() in stdlib.h flushes). */
void _exit(int status) __attribute__((noreturn));
/* Waits for any child to exit; stores its exit status in *status if status != 0.
 * Returns the child's pid. */
int wait(int *status);
/* Replaces the program; argv ends with a null pointer. Returns only on failure. */
int exec(const char *path, char **argv);
int execv(const char *path, char **argv);  /* the same, under its POSIX name */
int getpid(void);
/* pid > 0: that process; pid < 0: every process of group -pid. */
int kill(int pid);
/* Moves process pid (0: the caller; else a child) into group pgid (0: a new group named
 * after pid; else a group that exists). */
int setpgid(int pid, int pgid);
void *sbrk(int increment);   /* old break, or (void *)-1 on failure */
int sleep_ms(unsigned ms);
unsigned sleep(unsigned seconds);
unsigned uptime_ms(void);

int close(int fd);
int read(int fd, void *buf, unsigned n);
int write(int fd, const void *buf, unsigned n);
int lseek(int fd, int offset, int whence);
int unlink(const char *path);
int rmdir(const char *path);
int rename(const char *from, const char *to);
int dup(int fd);
int dup2(int fd, int newfd);
int pipe(int fds[2]);
int chdir(const char *path);
int fsync(int fd);
void sync(void);
/* Returns buf, or 0 on failure. */
char *getcwd(char *buf, unsigned len);

/* Writes all n bytes unless an error occurs: n, or -1. */
int write_all(int fd, const void *buf, unsigned n);
/* Reads until n bytes or end of file: the count, or -1. */
int read_full(int fd, void *buf, unsigned n);
#endif
