/* What the virtio-blk driver (drivers/virtio_blk.c) shares with its self-test
 * (scaffold/disk_selftest.c), and with nobody else: everyone else uses drivers/disk.h. */
#ifndef DRIVERS_VIRTIO_BLK_H
#define DRIVERS_VIRTIO_BLK_H
#include "../kernel/types.h"

/* disk.requests, and disk.inflight.max, which the self-test measures its batch with. */
extern uint32_t st_requests, st_inflight_max;
/* The self-test's first run, from disk_init before the scheduler (with `disktest` only). */
void disktest_start(void);
#endif
