/* The file system as the rest of the kernel sees it: inodes by path, reading files
 * (exec), file descriptors (fork, exit), and the file-related system calls. */
#ifndef FS_FS_H
#define FS_FS_H
#include "../kernel/types.h"

struct inode;
struct file;

/* Mounts the disk: reads and checks the superblock. A missing, foreign or corrupt image makes
 * the kernel say why and power off with a failure status (never fault or hang). */
void fs_init(void);
/* Writes every dirty block and the clean mark; used by sync and poweroff. */
void fs_sync(void);

/* Looks up a path (relative to the current process's cwd, or the root when there is no process
 * yet) for a user program to read or run; returns a referenced, unlocked inode, or 0 with
 * *err set to a negative errno (-EACCES for anything in /swap: fs/protect.c). */
struct inode *namei(const char *path, int *err);
struct inode *idup(struct inode *ip);
void ilock(struct inode *ip);
void iunlock(struct inode *ip);
void iput(struct inode *ip);
void iunlockput(struct inode *ip);
/* With ip locked: reads n bytes at off into dst (user or kernel address); returns bytes or -errno. */
int readi(struct inode *ip, bool user, uint32_t dst, uint32_t off, uint32_t n);
uint32_t inode_size(struct inode *ip);      /* ip locked */
int inode_type(struct inode *ip);           /* T_FILE, T_DIR, T_DEV; ip locked */
uint32_t inode_num(struct inode *ip);

/* An executable in use cannot be opened for writing (ETXTBSY), and one open for writing
 * cannot be executed. text_get returns 0 or -ETXTBSY; text_put undoes it. */
int inode_text_get(struct inode *ip);
void inode_text_put(struct inode *ip);

/* For the VM (fs/bypass.c): backing files in /swap and direct block I/O, never through the
 * block cache. create: a new, empty /swap/name (referenced, unlocked) or 0 with *err set;
 * remove: unlinks it and drops the reference (its blocks are freed). reserve: allocates
 * blocks [from, to), addr[k] getting the disk address of block from + k (0, or -ENOSPC when
 * the disk is full: the VM tells its user ENOSWAP). rw: one 4 KB block straight to or from disk address addr (0 or -EIO).
 * read_file: block lbn of an executable for demand loading: from the cache if it holds it
 * (that block then goes first), else straight from disk. */
struct inode *bypass_create(const char *name, int *err);
void bypass_remove(struct inode *ip, const char *name);
/* 0 when [from, to) of a backing file fits on the disk now (a sync first if lately freed
 * blocks would make it fit), else -ENOSPC: checked before taking any of it. */
int bypass_may_reserve(uint32_t from, uint32_t to);
int bypass_reserve(struct inode *ip, uint32_t from, uint32_t to, uint32_t *addr);
int bypass_rw(uint32_t addr, void *buf, bool write);
int bypass_read_file(struct inode *ip, uint32_t lbn, void *buf);
extern uint32_t bypass_swap_blocks;     /* disk blocks held by backing files */

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
