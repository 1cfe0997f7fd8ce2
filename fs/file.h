/* Open files (the objects file descriptors point at) and pipes. */
#ifndef FS_FILE_H
#define FS_FILE_H
#include "kernel/types.h"
#include "kernel/uapi/stat.h"

#define NFILE 128           /* open files in the whole system */

struct pipe;
struct inode;

struct file {
  enum { FD_NONE, FD_INODE, FD_PIPE, FD_CONSOLE } type;
  int ref;
  bool readable, writable, append;
  struct inode *ip;         /* FD_INODE; a writable one counts in the inode's writers */
  struct pipe *pipe;        /* FD_PIPE */
  uint32_t off;             /* FD_INODE; changed with the inode locked */
};

void fileinit(void);
struct file *filealloc(void);
/* Reads or writes n bytes at user address addr: bytes done, or -errno. */
int fileread(struct file *f, uint32_t addr, uint32_t n);
int filewrite(struct file *f, uint32_t addr, uint32_t n);
int filestat(struct file *f, struct stat *st);

/* kernel/pipe.c: a pipe is a ring buffer in one kernel page. */
int pipealloc(struct file **rf, struct file **wf);
void pipeclose(struct pipe *p, bool writable);
int piperead(struct pipe *p, uint32_t addr, uint32_t n);
int pipewrite(struct pipe *p, uint32_t addr, uint32_t n);
#endif
