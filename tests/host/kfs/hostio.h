#ifndef KFS_HOSTIO_H
#define KFS_HOSTIO_H
#include <stdint.h>
int hostio_open(const char *path, uint64_t *size);
int hostio_pread(int fd, void *buf, uint32_t n, uint64_t off);
int hostio_pwrite(int fd, const void *buf, uint32_t n, uint64_t off);
void hostio_log_writes(void);
void hostio_wrote(uint64_t off, uint32_t n);
int hostio_map(uint32_t addr, uint32_t len);
#endif
