/* The file system as the rest of the kernel sees it: inodes by path, reading files
 * (exec), file descriptors (fork, exit), and the file-related system calls. */
#ifndef FS_FS_H
#define FS_FS_H
#include "../kernel/types.h"
#include "fs/backing.h"

struct inode;
struct file;

/* Mounts the disk: reads and checks the superblock. A missing, foreign or corrupt image makes
 * the kernel say why and power off with a failure status (never fault or hang). */
void fs_init(void);
/* Writes every dirty block and the clean mark; used by sync and poweroff. */
void fs_sync(void);

/* What the VM uses too (executables, backing files, direct block I/O): fs/backing.h, the VM's
 * whole interface to the file system. The rest of the kernel also has these. */
void iunlockput(struct inode *ip);
uint32_t inode_size(struct inode *ip);      /* ip locked */
uint32_t inode_num(struct inode *ip);
extern uint32_t backing_swap_blocks;     /* disk blocks held by backing files */

/* Open files. */
struct file *filedup(struct file *f);
void fileclose(struct file *f);
/* A file on the console device, for the first process's fds 0, 1 and 2. */
struct file *file_console_open(void);

/* System calls implemented by the file system (arguments via kernel/syscall.h). */
int sys_open(void);
int sys_close(void);
int sys_read(void);
int sys_write(void);
int sys_lseek(void);
int sys_fstat(void);
int sys_stat(void);
int sys_unlink(void);
int sys_mkdir(void);
int sys_rmdir(void);
int sys_readdir(void);
int sys_rename(void);
int sys_dup(void);
int sys_dup2(void);
int sys_pipe(void);
int sys_chdir(void);
int sys_fsync(void);
int sys_sync(void);
int sys_getcwd(void);
#endif
