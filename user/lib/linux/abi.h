/* Linux's i386 system-call interface, as far as the user library uses it
 * (linux/syscall.c): the numbers of arch/x86/entry/syscalls/syscall_32.tbl and the layouts
 * of the structures those calls fill. int 0x80, number in eax, arguments in ebx, ecx, edx,
 * esi, edi, a result of -4095..-1 is -errno: the same convention as this kernel's. */
#ifndef LINUX_ABI_H
#define LINUX_ABI_H

#define LNX_read            3
#define LNX_write           4
#define LNX_open            5
#define LNX_close           6
#define LNX_unlink         10
#define LNX_execve         11
#define LNX_chdir          12
#define LNX_lseek          19
#define LNX_getpid         20
#define LNX_sync           36
#define LNX_kill           37
#define LNX_rename         38
#define LNX_mkdir          39
#define LNX_rmdir          40
#define LNX_dup            41
#define LNX_pipe           42
#define LNX_brk            45
#define LNX_setpgid        57
#define LNX_dup2           63
#define LNX_reboot         88
#define LNX_wait4         114
#define LNX_fsync         118
#define LNX_nanosleep     162
#define LNX_getcwd        183
#define LNX_stat64        195
#define LNX_fstat64       197
#define LNX_getdents64    220
#define LNX_exit_group    252
#define LNX_clock_gettime 265
#define LNX_fork            2

#define LNX_O_LARGEFILE 0100000
#define LNX_SIGKILL 9
#define LNX_CLOCK_BOOTTIME 7
#define LNX_REBOOT_MAGIC1 0xfee1dead
#define LNX_REBOOT_MAGIC2 672274793
#define LNX_REBOOT_POWER_OFF 0x4321fedc

#define LNX_S_IFMT  0170000
#define LNX_S_IFDIR 0040000
#define LNX_S_IFREG 0100000

struct lnx_timespec {
  long tv_sec;
  long tv_nsec;
};

/* struct stat64 of arch/x86/include/uapi/asm/stat.h (i386): 96 bytes. */
struct lnx_stat64 {
  unsigned long long st_dev;
  unsigned char __pad0[4];
  unsigned long __st_ino;
  unsigned int st_mode;
  unsigned int st_nlink;
  unsigned long st_uid;
  unsigned long st_gid;
  unsigned long long st_rdev;
  unsigned char __pad3[4];
  long long st_size;
  unsigned long st_blksize;
  unsigned long long st_blocks;     /* 512-byte units */
  unsigned long st_atime;
  unsigned long st_atime_nsec;
  unsigned long st_mtime;
  unsigned int st_mtime_nsec;
  unsigned long st_ctime;
  unsigned long st_ctime_nsec;
  unsigned long long st_ino;
} __attribute__((packed));

struct lnx_dirent64 {
  unsigned long long d_ino;
  long long d_off;
  unsigned short d_reclen;
  unsigned char d_type;
  char d_name[];
};

struct procinfo;
struct stat;
/* The pure conversions, apart so that a host test can hold them against Linux's own. */
int linux_wait_status(int st);
void linux_stat_convert(const struct lnx_stat64 *l, struct stat *st);
int linux_parse_stat(const char *text, struct procinfo *p);
#endif
