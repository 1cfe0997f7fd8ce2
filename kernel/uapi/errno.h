/* Error numbers, Linux values so that messages read as students expect. */
#ifndef UAPI_ERRNO_H
#define UAPI_ERRNO_H
#define EPERM    1
#define ENOENT   2
#define ESRCH    3
#define EINTR    4
#define EIO      5
#define ENOEXEC  8
#define EBADF    9
#define ECHILD  10
#define EAGAIN  11
#define ENOMEM  12
#define EACCES  13
#define EFAULT  14
#define EBUSY   16
#define EEXIST  17
#define EXDEV   18
#define ENOTDIR 20
#define EISDIR  21
#define EINVAL  22
#define ENFILE  23
#define EMFILE  24
#define ENOTTY  25
#define ETXTBSY 26
#define EFBIG   27
#define ENOSPC  28
#define ESPIPE  29
#define EROFS   30
#define EMLINK  31
#define EPIPE   32
#define E2BIG    7
#define ERANGE  34
#define ENAMETOOLONG 36
#define ENOSYS  38
#define ENOTEMPTY 39
#define ELOOP   40
/* Not Linux's (the first number after its last, EHWPOISON 133): the heap or stack cannot grow,
 * or a program start, because the disk has no room left for the backing store (the swap
 * space a segment reserves as it grows). ENOMEM stays for memory and address space. */
#define ENOSWAP 134
#endif
