/* The VM's interface to the file system, all of it: vm/ includes no other fs/ header and
 * calls nothing of the file system that is not declared here (the file cache least of all:
 * the VM and the cache meet only in kernel/mem/coremap.h and kernel/mem/negotiate.h). Implemented by
 * fs/backing.c, and for the executables by the inodes and directories (fs/inode.c, fs/dir.c);
 * fs/fs.h, the file system as the rest of the kernel sees it, includes it.
 *
 *   executables     exec looks a program up, reads its headers and marks it in use as text;
 *                   a segment keeps a reference to the executable its code and initialised
 *                   data come from, and demand-loads them block by block (backing_read_file)
 *   backing files   heap and stack pages go to files in /swap, created and removed by name,
 *                   with their blocks reserved when a segment grows; reserving tells the VM
 *                   each block's disk address, and backing_rw reads and writes a page there
 *                   without the block cache or a block map (fs/backing.c says why);
 *                   backing_rwv writes several, side by side on the disk in one request
 */
#ifndef FS_BACKING_H
#define FS_BACKING_H
#include "kernel/types.h"

struct inode;

/* Executables. namei: looks a path up for a user program to run; a referenced, unlocked
 * inode, or 0 with *err set (-EACCES for anything in /swap). readi (ip locked): n bytes at
 * off into dst, a kernel address unless user; bytes read or -errno. inode_type (ip locked):
 * T_FILE, T_DIR, T_DEV. An executable in use cannot be opened for writing, and one open for
 * writing cannot be run: inode_text_get returns 0 or -ETXTBSY; inode_text_put undoes it. */
struct inode *namei(const char *path, int *err);
struct inode *idup(struct inode *ip);
void ilock(struct inode *ip);
void iunlock(struct inode *ip);
void iput(struct inode *ip);
int readi(struct inode *ip, bool user, uint32_t dst, uint32_t off, uint32_t n);
int inode_type(struct inode *ip);
int inode_text_get(struct inode *ip);
void inode_text_put(struct inode *ip);

/* Demand loading: block lbn of an executable into buf (4 KB): from the cache if it holds it
 * (that block then goes first), else straight from disk. 0 or -errno. */
int backing_read_file(struct inode *ip, uint32_t lbn, void *buf);

/* Backing files. create: a new, empty /swap/name (referenced, unlocked), or 0 with *err set.
 * remove: unlinks it and drops the reference (its blocks are freed). may_reserve: 0 when
 * blocks [from, to) fit on the disk now (a sync first if lately freed blocks would make them
 * fit), else -ENOSPC: checked before taking any of them. reserve: allocates blocks [from, to),
 * addr[k] getting the disk address of block from + k; 0, or -ENOSPC when the disk is full (the
 * VM tells its user ENOSWAP). rw: one 4 KB block straight to or from disk address addr (0 or
 * -EIO). */
struct inode *backing_create(const char *name, int *err);
void backing_remove(struct inode *ip, const char *name);
int backing_may_reserve(uint32_t from, uint32_t to);
int backing_reserve_range(struct inode *ip, uint32_t from, uint32_t to, uint32_t *addr);
int backing_rw(uint32_t addr, void *buf, bool write);
/* rwv: n 4 KB blocks (n at most BACKING_RUN), block i at disk address addr[i] from or into
 * buf[i], those side by side on the disk in one request (fs/cluster.c); the number of
 * requests it took, or -EIO when any failed. run_limit: how many blocks one request may carry now (fs.cluster_max: 1 is a
 * request a block). */
#define BACKING_RUN 16
int backing_rwv(const uint32_t *addr, void *const *buf, int n, bool write);
uint32_t backing_run_limit(void);
extern uint32_t backing_swap_blocks;     /* disk blocks held by backing files (vm.swap.blocks) */
#endif
