/* Shared by the host harness that runs the kernel's file-system code (see stubs.c). */
#ifndef KFS_H
#define KFS_H
#include <stdint.h>

extern int kfs_quiet;
extern char kfs_log[];
void kfs_log_clear(void);
uint32_t kfs_stat(const char *name);
void kfs_memory_init(void);
void kfs_disk_open(const char *path);
extern uint32_t kfs_disk_reads, kfs_disk_writes, kfs_frames_used;
extern long kfs_fail_writes_after, kfs_fail_read_block;
extern uint32_t kfs_disk_flushes;
int kfs_setting(const char *name, const char *value);
uint32_t kfs_setting_value(const char *name);     /* a number setting's value */

/* User memory: addresses inside it are valid user pointers. */
uint32_t ualloc(uint32_t n);
uint32_t ustr(const char *s);
void ureset(void);
extern uint32_t kfs_args[6];
#endif
