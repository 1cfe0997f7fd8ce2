/* System-call numbers: the whole contract between user programs and the kernel.
 * ABI: int 0x80, eax = number, arguments in ebx, ecx, edx, esi, edi;
 * the result comes back in eax, a negative errno (uapi/errno.h) on failure. */
#ifndef UAPI_SYSCALL_H
#define UAPI_SYSCALL_H

#define SYS_fork      1
#define SYS_exit      2   /* (int status) */
#define SYS_wait      3   /* (int *status) -> pid */
#define SYS_exec      4   /* (const char *path, char **argv) */
#define SYS_getpid    5
#define SYS_kill      6   /* (int pid): pid < 0 kills every process of group -pid */
#define SYS_sbrk      7   /* (int increment) -> old break */
#define SYS_sleep     8   /* (unsigned ms) */
#define SYS_uptime    9   /* () -> ms since boot */
#define SYS_open     10   /* (const char *path, int flags) -> fd */
#define SYS_close    11   /* (int fd) */
#define SYS_read     12   /* (int fd, void *buf, unsigned n) */
#define SYS_write    13   /* (int fd, const void *buf, unsigned n) */
#define SYS_lseek    14   /* (int fd, int offset, int whence) -> new offset */
#define SYS_fstat    15   /* (int fd, struct stat *st) */
#define SYS_stat     16   /* (const char *path, struct stat *st) */
#define SYS_unlink   17   /* (const char *path) */
#define SYS_mkdir    18   /* (const char *path) */
#define SYS_rmdir    19   /* (const char *path) */
#define SYS_readdir  20   /* (int fd, struct dirent *de) -> 1 entry, 0 at end */
#define SYS_rename   21   /* (const char *from, const char *to) */
#define SYS_dup      22   /* (int fd) -> new fd */
#define SYS_pipe     23   /* (int fds[2]) */
#define SYS_chdir    24   /* (const char *path) */
#define SYS_fsync    25   /* (int fd) */
#define SYS_kstat    26   /* (char *buf, unsigned len) -> bytes: "name value\n" lines */
#define SYS_shutdown 27   /* () : sync and power off */
#define SYS_ps       28   /* (struct procinfo *buf, int max) -> count */
#define SYS_sync     29   /* () */
#define SYS_getcwd   30   /* (char *buf, unsigned len) */
#define SYS_dup2     31   /* (int fd, int newfd) */
#define SYS_sysctl   32   /* (const char *name, const char *value or 0, char *out, unsigned outlen):
                             out gets the value, or why a value was refused */
#define SYS_setpgid  33   /* (int pid, int pgid): pid 0 = the caller, pgid 0 = pid's own */
#define SYS_setfg    34   /* (int pgid): the console's foreground group, killed by ^C; 0 = none */
#define SYS_incore   35   /* (int fd, unsigned char *vec, unsigned n) -> the file's blocks;
                             vec[i] for its first n blocks: INCORE_* bits */
#define SYS_consmode 36   /* (int fd, int mode) -> the console's mode before: CONS_* below;
                             -ENOTTY if fd is not the console, -EINVAL for another mode */

/* SYS_incore: block i of the file is in the block cache; and changed there, not yet written. */
#define INCORE_CACHED 1
#define INCORE_DIRTY  2

/* SYS_consmode: the console's input discipline. Cooked (the default) edits lines in the
 * kernel (erase, ^U, ^C kills the foreground group, ^D ends the input), echoes them and hands
 * over whole lines. Raw hands over every byte as it comes (^C, ^D, erase and escape
 * sequences too; \r still becomes \n), echoes nothing, and a read returns what is there,
 * ending after a newline, as soon as there is one byte: the shell edits its own command
 * line in raw mode (history, arrows) and is back in cooked mode while a command runs.
 * ^P is never input in either mode. */
#define CONS_COOKED 0
#define CONS_RAW    1

/* The VM: 50 upward. */
#define SYS_vmaudit  50   /* (int quiet) -> problems found (printed on the console unless quiet) */
#define SYS_vmcorrupt 51  /* (struct vmcorrupt *): test-only damage (uapi/vmcorrupt.h); -EPERM
                             unless debug.corrupt=1 */
#define SYS_negtrace 52   /* (struct negrecord *buf, int max) -> the last negotiations, oldest first */
#define SYS_vmtrace  53   /* (struct vmtrace_info *info, struct vmtrace_rec *buf, unsigned first,
                             unsigned max) -> records first.. copied (uapi/vmtrace.h) */
#define SYS_vmpages  55   /* (int pid, struct vmpages_info *info, struct vmpage *buf, int max) ->
                             records copied: the process's resident pages (uapi/vmpages.h) */

#define NSYSCALL     64
#endif
