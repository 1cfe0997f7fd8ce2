/* Messages for the errno values of kernel/uapi/errno.h, worded as Linux does (ENOSWAP, the
 * one of this system's own, as Linux would if it had it). */
#include <string.h>
#include <stdio.h>
#include <errno.h>

static const char *const messages[] = {
  [0] = "Success",
  [EPERM] = "Operation not permitted",
  [ENOENT] = "No such file or directory",
  [ESRCH] = "No such process",
  [EINTR] = "Interrupted system call",
  [EIO] = "Input/output error",
  [E2BIG] = "Argument list too long",
  [ENOEXEC] = "Exec format error",
  [EBADF] = "Bad file descriptor",
  [ECHILD] = "No child processes",
  [EAGAIN] = "Resource temporarily unavailable",
  [ENOMEM] = "Cannot allocate memory",
  [EACCES] = "Permission denied",
  [EFAULT] = "Bad address",
  [EBUSY] = "Device or resource busy",
  [EEXIST] = "File exists",
  [EXDEV] = "Invalid cross-device link",
  [ENOTDIR] = "Not a directory",
  [EISDIR] = "Is a directory",
  [EINVAL] = "Invalid argument",
  [ENFILE] = "Too many open files in system",
  [EMFILE] = "Too many open files",
  [ENOTTY] = "Inappropriate ioctl for device",
  [ETXTBSY] = "Text file busy",
  [EFBIG] = "File too large",
  [ENOSPC] = "No space left on device",
  [ESPIPE] = "Illegal seek",
  [EROFS] = "Read-only file system",
  [EMLINK] = "Too many links",
  [EPIPE] = "Broken pipe",
  [ERANGE] = "Numerical result out of range",
  [ENAMETOOLONG] = "File name too long",
  [ENOSYS] = "Function not implemented",
  [ENOTEMPTY] = "Directory not empty",
  [ELOOP] = "Too many levels of symbolic links",
  [ENOSWAP] = "No space left for the backing store (disk full)",
};

char *strerror(int err)
{
  static char unknown[32];
  if (err >= 0 && err < (int)(sizeof(messages) / sizeof(messages[0])) && messages[err])
    return (char *)messages[err];
  snprintf(unknown, sizeof(unknown), "Unknown error %d", err);
  return unknown;
}

void perror(const char *msg)
{
  if (msg && *msg)
    fprintf(stderr, "%s: %s\n", msg, strerror(errno));
  else
    fprintf(stderr, "%s\n", strerror(errno));
}
