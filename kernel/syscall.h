/* Kernel side of system calls: fetching arguments and moving data to and from user memory.
 * Every user pointer goes through these functions, which check it lies below USER_TOP
 * and is mapped, and return -EFAULT otherwise. */
#ifndef KERNEL_SYSCALL_H
#define KERNEL_SYSCALL_H
#include "types.h"
#include "uapi/syscall.h"
#include "uapi/errno.h"

/* The n-th (0-based) argument of the current system call. */
uint32_t argraw(int n);
int argint(int n);
/* Fetches argument n as a user pointer to size bytes; 0 or -EFAULT. */
int argptr(int n, void **pp, uint32_t size);
/* Copies the NUL-terminated user string at argument n into buf (max bytes incl. NUL);
 * returns its length, -EFAULT, or -ENAMETOOLONG. */
int argstr(int n, char *buf, uint32_t max);

int copy_to_user(uint32_t udst, const void *src, uint32_t n);
int copy_from_user(void *dst, uint32_t usrc, uint32_t n);
int copy_str_from_user(char *dst, uint32_t usrc, uint32_t max);

/* Handlers return a value >= 0 or a negative errno. */
typedef int (*syscall_fn)(void);
void syscall_dispatch(void);


/* For code that serves both the kernel and user programs (file reads and writes):
 * user selects whether addr is a user address (checked) or a kernel pointer. */
int either_copyout(bool user, uint32_t dst, const void *src, uint32_t n);
int either_copyin(bool user, void *dst, uint32_t src, uint32_t n);
#endif
