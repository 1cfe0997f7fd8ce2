/* PCI: configuration space through mechanism #1 (ports 0xCF8/0xCFC), a table of the devices
 * found at boot, and the few helpers a driver needs to start its device. */
#ifndef DRIVERS_PCI_H
#define DRIVERS_PCI_H
#include "../kernel/types.h"

struct pci_dev {
  uint8_t bus, dev, fn;
  uint16_t vendor, device;
  uint8_t class, subclass;
  uint32_t bar[6];          /* raw BAR values as read: use pci_bar_addr() / pci_bar_is_io() */
  uint8_t irq_line;         /* legacy PIC line the firmware routed INTx to; 0xFF if none */
};

/* Standard configuration-space offsets and command bits. */
#define PCI_VENDOR_ID   0x00
#define PCI_DEVICE_ID   0x02
#define PCI_COMMAND     0x04
#define PCI_STATUS      0x06
#define PCI_CLASS_REV   0x08      /* class 31:24, subclass 23:16, prog-if 15:8, revision 7:0 */
#define PCI_HEADER_TYPE 0x0E
#define PCI_BAR0        0x10
#define PCI_SUBSYS_ID   0x2E
#define PCI_INTR_LINE   0x3C
#define PCI_INTR_PIN    0x3D

#define PCI_CMD_IO          0x0001
#define PCI_CMD_MEM         0x0002
#define PCI_CMD_MASTER      0x0004
#define PCI_CMD_INTX_OFF    0x0400

/* Scans every bus and prints one line per function found. */
void pci_init(void);
/* The first device with this vendor and device id, or 0. */
struct pci_dev *pci_find(uint16_t vendor, uint16_t device);
/* The i-th device found (0-based), or 0 past the end; for listing. */
struct pci_dev *pci_get(int i);

uint32_t pci_read32(struct pci_dev *d, uint8_t off);
uint16_t pci_read16(struct pci_dev *d, uint8_t off);
uint8_t pci_read8(struct pci_dev *d, uint8_t off);
void pci_write32(struct pci_dev *d, uint8_t off, uint32_t v);
void pci_write16(struct pci_dev *d, uint8_t off, uint16_t v);
void pci_write8(struct pci_dev *d, uint8_t off, uint8_t v);

/* Sets bits in the command register (PCI_CMD_IO, PCI_CMD_MEM, PCI_CMD_MASTER) and makes sure
 * legacy INTx interrupts are not disabled. */
void pci_enable(struct pci_dev *d, uint16_t cmd_bits);

static inline bool pci_bar_is_io(struct pci_dev *d, int i) { return d->bar[i] & 1; }
/* The base address of BAR i (the low 32 bits for a 64-bit memory BAR). */
static inline uint32_t pci_bar_addr(struct pci_dev *d, int i)
{
  return (d->bar[i] & 1) ? (d->bar[i] & ~3u) : (d->bar[i] & ~0xFu);
}

#endif
