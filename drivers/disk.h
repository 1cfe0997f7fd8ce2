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

struct disk_req {
  enum disk_op op;
  uint64_t sector;          /* first 512-byte sector */
  void *buf;                /* kernel virtual address */
  uint32_t nbytes;          /* a multiple of 512; 0 for a flush */
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
/* Called by the timer every tick: recovers from a lost completion interrupt or notify. */
void disk_watchdog(void);
/* With `disktest` on the command line: the driver's self-test, in a process (sleeping waits). */
void disk_selftest_in_process(void);
#endif
