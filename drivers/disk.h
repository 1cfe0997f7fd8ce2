/* The disk: an asynchronous request interface over virtio-blk.
 *
 * A request is submitted and returns at once; the device completes it by interrupt.
 * Several requests may be in flight. The submitter either sleeps in disk_wait() for its
 * own request, or gives a done callback (called in interrupt context, must not sleep).
 * Buffers are kernel virtual addresses of physically contiguous memory (one frame, or
 * a few frames contiguous within the direct map).
 */
#ifndef DRIVERS_DISK_H
#define DRIVERS_DISK_H
#include "../kernel/types.h"

#define SECTOR_SIZE 512

enum disk_op { DISK_READ, DISK_WRITE, DISK_FLUSH };

/* The most buffers one request may gather (a 4 KB frame each: 64 KB), whatever the device
 * allows; disk_max_segs() says how many this device takes. */
#define DISK_MAX_SEGS 16

/* One buffer of a request that gathers several: they follow each other on the disk. */
struct disk_seg {
  void *buf;                /* kernel virtual address, physically contiguous */
  uint32_t nbytes;          /* a multiple of 512 */
};

struct disk_req {
  enum disk_op op;
  uint64_t sector;          /* first 512-byte sector */
  void *buf;                /* kernel virtual address (when nsegs is 0) */
  uint32_t nbytes;          /* a multiple of 512; 0 for a flush; with segs, their sum */
  const struct disk_seg *segs;  /* nsegs > 0: the buffers, in disk order (buf unused) */
  uint32_t nsegs;               /* at most disk_max_segs() */
  void (*done)(struct disk_req *r);   /* optional completion callback (interrupt context) */
  void *arg;                /* for the callback's use */
  /* set by the driver */
  volatile int complete;    /* 1 once the device has finished */
  int status;               /* 0, or -EIO */
};

/* Finds and starts the disk; returns 0, or -1 when there is none (the kernel says so). */
int disk_init(void);
bool disk_present(void);
uint64_t disk_sectors(void);  /* capacity in sectors */
/* Queues r on the device. Sleeps only if the queue is full (never spins). */
void disk_submit(struct disk_req *r);
/* Sleeps until r is complete; returns r->status. */
int disk_wait(struct disk_req *r);
/* Synchronous convenience: submit and wait. */
int disk_rw(enum disk_op op, uint64_t sector, void *buf, uint32_t nbytes);
uint32_t disk_inflight(void);  /* requests submitted but not complete */
uint32_t disk_max_segs(void);  /* buffers a request may gather here (1 .. DISK_MAX_SEGS) */
/* Called by the timer every tick: recovers from a lost completion interrupt or notify. */
void disk_watchdog(void);
/* scaffold/disk_ceiling.c: disk.ceiling_kb, the sequential ceiling measured with no file
 * system, on the disk's tail from first_sector on (told by the file system at mount). */
void disk_ceiling_init(void);
void disk_set_spare(uint64_t first_sector);
/* With `disktest` on the command line: the driver's self-test, in a process (sleeping waits). */
void disk_selftest_in_process(void);
#endif
