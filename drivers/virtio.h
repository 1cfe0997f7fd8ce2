/* Virtio over the legacy PCI interface (virtio 0.9.5 / "transitional" devices), split rings.
 *
 * The registers are in I/O BAR0. With MSI-X off (we use INTx), the device-specific
 * configuration follows the common registers at offset 0x14.
 */
#ifndef DRIVERS_VIRTIO_H
#define DRIVERS_VIRTIO_H
#include "../kernel/types.h"

#define VIRTIO_VENDOR        0x1af4
#define VIRTIO_DEV_BLK_LEGACY 0x1001

/* Legacy register offsets from BAR0. */
#define VIRTIO_PCI_HOST_FEATURES  0x00   /* 32-bit, read: what the device offers */
#define VIRTIO_PCI_GUEST_FEATURES 0x04   /* 32-bit, write: what the driver accepts */
#define VIRTIO_PCI_QUEUE_PFN      0x08   /* 32-bit: ring's physical address >> 12; 0 = none */
#define VIRTIO_PCI_QUEUE_NUM      0x0C   /* 16-bit, read: size of the selected queue */
#define VIRTIO_PCI_QUEUE_SEL      0x0E   /* 16-bit: which queue the two above refer to */
#define VIRTIO_PCI_QUEUE_NOTIFY   0x10   /* 16-bit: write a queue number to kick it */
#define VIRTIO_PCI_STATUS         0x12   /* 8-bit: VIRTIO_STATUS_* */
#define VIRTIO_PCI_ISR            0x13   /* 8-bit: reading clears it and deasserts INTx */
#define VIRTIO_PCI_CONFIG         0x14   /* device-specific configuration (no MSI-X) */

/* Device status bits, set in this order while starting a device. */
#define VIRTIO_STATUS_ACKNOWLEDGE 1
#define VIRTIO_STATUS_DRIVER      2
#define VIRTIO_STATUS_DRIVER_OK   4
#define VIRTIO_STATUS_FAILED      128

#define VIRTIO_ISR_QUEUE          1
#define VIRTIO_ISR_CONFIG         2

/* The legacy ring layout puts the used ring on the next 4096-byte boundary. */
#define VIRTIO_RING_ALIGN 4096

/* Descriptor flags. */
#define VRING_DESC_F_NEXT   1     /* the chain continues at .next */
#define VRING_DESC_F_WRITE  2     /* the device writes this buffer (else reads it) */
#define VRING_DESC_F_INDIRECT 4   /* the buffer is a table of descriptors: the whole chain */

#define VIRTIO_RING_F_INDIRECT_DESC 28  /* the device follows VRING_DESC_F_INDIRECT */

#define VRING_USED_F_NO_NOTIFY  1 /* device: don't kick me (an optimisation hint) */
#define VRING_AVAIL_F_NO_INTERRUPT 1

struct vring_desc {
  uint64_t addr;              /* guest-physical */
  uint32_t len;
  uint16_t flags;
  uint16_t next;
};

struct vring_avail {
  uint16_t flags;
  uint16_t idx;               /* where the driver will put the next entry (mod num) */
  uint16_t ring[];            /* heads of descriptor chains; then a used_event word */
};

struct vring_used_elem {
  uint32_t id;                /* head of the chain the device finished */
  uint32_t len;               /* bytes it wrote */
};

struct vring_used {
  uint16_t flags;
  uint16_t idx;
  struct vring_used_elem ring[];  /* then an avail_event word */
};

/* Bytes of the contiguous ring area for a queue of num entries (legacy layout). */
static inline uint32_t vring_size(uint32_t num)
{
  uint32_t a = 16 * num + 6 + 2 * num;                 /* descriptors + available ring */
  a = (a + VIRTIO_RING_ALIGN - 1) & ~(VIRTIO_RING_ALIGN - 1);
  return a + 6 + 8 * num;                              /* + used ring */
}

/* virtio-blk */
#define VIRTIO_BLK_F_SIZE_MAX 1
#define VIRTIO_BLK_F_SEG_MAX  2
#define VIRTIO_BLK_F_RO       5
#define VIRTIO_BLK_F_BLK_SIZE 6
#define VIRTIO_BLK_F_FLUSH    9

#define VIRTIO_BLK_CFG_CAPACITY 0x00  /* 64-bit, in 512-byte sectors, from VIRTIO_PCI_CONFIG */
#define VIRTIO_BLK_CFG_SEG_MAX  0x0C  /* 32-bit: buffers a request may have (VIRTIO_BLK_F_SEG_MAX) */

#define VIRTIO_BLK_T_IN     0
#define VIRTIO_BLK_T_OUT    1
#define VIRTIO_BLK_T_FLUSH  4

#define VIRTIO_BLK_S_OK     0
#define VIRTIO_BLK_S_IOERR  1
#define VIRTIO_BLK_S_UNSUPP 2

/* What the device reads first in every request. */
struct virtio_blk_req_hdr {
  uint32_t type;
  uint32_t reserved;          /* ioprio in legacy */
  uint64_t sector;
};
#endif
