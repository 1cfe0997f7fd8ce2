/* PCI enumeration through configuration mechanism #1.
 *
 * The firmware (SeaBIOS under QEMU) has already assigned BARs and routed each device's INTx
 * pin to a PIC line, written in the interrupt-line register; we only read what it set up.
 */
#include "kernel/types.h"
#include "kernel/x86.h"
#include "kernel/klib.h"
#include "kernel/spinlock.h"
#include "drivers/pci.h"

#define PCI_CONFIG_ADDR 0xCF8
#define PCI_CONFIG_DATA 0xCFC

#define NPCIDEV 32

static struct pci_dev devs[NPCIDEV];
static int ndevs;

/* Address register then data register: two port accesses that must not be split by an
 * interrupt handler doing its own configuration access, hence pushcli. */
static uint32_t cfg_read(uint8_t bus, uint8_t dev, uint8_t fn, uint8_t off)
{
  uint32_t v;
  pushcli();
  outl(PCI_CONFIG_ADDR, 0x80000000u | (uint32_t)bus << 16 | (uint32_t)dev << 11 |
           (uint32_t)fn << 8 | (off & 0xFC));
  v = inl(PCI_CONFIG_DATA);
  popcli();
  return v;
}

static void cfg_write(uint8_t bus, uint8_t dev, uint8_t fn, uint8_t off, uint32_t v)
{
  pushcli();
  outl(PCI_CONFIG_ADDR, 0x80000000u | (uint32_t)bus << 16 | (uint32_t)dev << 11 |
           (uint32_t)fn << 8 | (off & 0xFC));
  outl(PCI_CONFIG_DATA, v);
  popcli();
}

uint32_t pci_read32(struct pci_dev *d, uint8_t off)
{
  return cfg_read(d->bus, d->dev, d->fn, off);
}

uint16_t pci_read16(struct pci_dev *d, uint8_t off)
{
  return cfg_read(d->bus, d->dev, d->fn, off) >> ((off & 2) * 8);
}

uint8_t pci_read8(struct pci_dev *d, uint8_t off)
{
  return cfg_read(d->bus, d->dev, d->fn, off) >> ((off & 3) * 8);
}

void pci_write32(struct pci_dev *d, uint8_t off, uint32_t v)
{
  cfg_write(d->bus, d->dev, d->fn, off, v);
}

/* Mechanism #1 moves whole dwords: narrower writes read, merge and write back. Only used on
 * registers where rewriting the neighbours is harmless (command, interrupt line). The status
 * register beside the command register has write-1-to-clear bits, so they are masked off. */
void pci_write16(struct pci_dev *d, uint8_t off, uint16_t v)
{
  int shift = (off & 2) * 8;
  uint32_t old = cfg_read(d->bus, d->dev, d->fn, off);
  if ((off & 0xFC) == PCI_COMMAND)
    old &= 0x0000FFFF;          /* never write back status bits */
  old &= ~(0xFFFFu << shift);
  cfg_write(d->bus, d->dev, d->fn, off, old | (uint32_t)v << shift);
}

void pci_write8(struct pci_dev *d, uint8_t off, uint8_t v)
{
  int shift = (off & 3) * 8;
  uint32_t old = cfg_read(d->bus, d->dev, d->fn, off);
  if ((off & 0xFC) == PCI_COMMAND)
    old &= 0x0000FFFF;
  old &= ~(0xFFu << shift);
  cfg_write(d->bus, d->dev, d->fn, off, old | (uint32_t)v << shift);
}

void pci_enable(struct pci_dev *d, uint16_t cmd_bits)
{
  uint16_t cmd = pci_read16(d, PCI_COMMAND);
  cmd |= cmd_bits;
  cmd &= ~PCI_CMD_INTX_OFF;
  pci_write16(d, PCI_COMMAND, cmd);
}

struct pci_dev *pci_find(uint16_t vendor, uint16_t device)
{
  for (int i = 0; i < ndevs; i++)
    if (devs[i].vendor == vendor && devs[i].device == device)
      return &devs[i];
  return 0;
}

struct pci_dev *pci_get(int i)
{
  return (i >= 0 && i < ndevs) ? &devs[i] : 0;
}

/* A short name for the boot log: the devices QEMU's pc machine has, else the class. */
static const char *devname(struct pci_dev *d)
{
  static const struct { uint16_t vendor, device; const char *name; } known[] = {
    { 0x1af4, 0x1000, "virtio-net" },
    { 0x1af4, 0x1001, "virtio-blk" },
    { 0x1af4, 0x1002, "virtio-balloon" },
    { 0x1af4, 0x1003, "virtio-console" },
    { 0x1af4, 0x1004, "virtio-scsi" },
    { 0x1af4, 0x1005, "virtio-rng" },
    { 0x1af4, 0x1009, "virtio-9p" },
    { 0x1af4, 0x1042, "virtio-blk (modern)" },
    { 0x8086, 0x1237, "i440fx host bridge" },
    { 0x8086, 0x7000, "piix3 isa bridge" },
    { 0x8086, 0x7010, "piix3 ide" },
    { 0x8086, 0x7113, "piix4 acpi" },
    { 0x8086, 0x100e, "e1000" },
    { 0x1234, 0x1111, "vga" },
  };
  static const char *classes[] = {
    "unclassified", "storage", "network", "display", "multimedia", "memory", "bridge",
    "communication", "system", "input", "docking", "processor", "serial bus",
  };
  for (unsigned i = 0; i < NELEM(known); i++)
    if (known[i].vendor == d->vendor && known[i].device == d->device)
      return known[i].name;
  if (d->class < NELEM(classes))
    return classes[d->class];
  return "other";
}

static void probe(uint8_t bus, uint8_t dev, uint8_t fn)
{
  uint32_t id = cfg_read(bus, dev, fn, PCI_VENDOR_ID);
  if ((id & 0xFFFF) == 0xFFFF)
    return;
  if (ndevs == NPCIDEV) {
    kprintf("pci %02x:%02x.%x: too many devices, ignored\n", bus, dev, fn);
    return;
  }
  struct pci_dev *d = &devs[ndevs++];
  d->bus = bus;
  d->dev = dev;
  d->fn = fn;
  d->vendor = id & 0xFFFF;
  d->device = id >> 16;
  uint32_t cls = cfg_read(bus, dev, fn, PCI_CLASS_REV);
  d->class = cls >> 24;
  d->subclass = (cls >> 16) & 0xFF;
  /* Only type-0 headers (ordinary devices) have six BARs; bridges have two and then
   * bus numbers, which we do not want to mistake for addresses. */
  uint8_t htype = (cfg_read(bus, dev, fn, PCI_HEADER_TYPE) >> 16) & 0x7F;
  for (int i = 0; i < 6; i++)
    d->bar[i] = (htype == 0 || (htype == 1 && i < 2)) ? cfg_read(bus, dev, fn, PCI_BAR0 + 4 * i) : 0;
  uint32_t intr = cfg_read(bus, dev, fn, PCI_INTR_LINE);
  /* No interrupt pin means no line, whatever the line register holds. */
  d->irq_line = ((intr >> 8) & 0xFF) ? (intr & 0xFF) : 0xFF;

  if (d->irq_line != 0xFF)
    kprintf("pci %02x:%02x.%x %04x:%04x %s irq %d\n", bus, dev, fn, d->vendor, d->device,
            devname(d), d->irq_line);
  else
    kprintf("pci %02x:%02x.%x %04x:%04x %s\n", bus, dev, fn, d->vendor, d->device, devname(d));
}

void pci_init(void)
{
  /* Brute force over every bus: 256 x 32 reads of an absent vendor id is quick, and it
   * finds devices behind bridges without walking the bridge tree. */
  for (int bus = 0; bus < 256; bus++) {
    for (int dev = 0; dev < 32; dev++) {
      uint32_t id = cfg_read(bus, dev, 0, PCI_VENDOR_ID);
      if ((id & 0xFFFF) == 0xFFFF)
        continue;
      probe(bus, dev, 0);
      /* Functions 1..7 exist only on a multi-function device (header type bit 7). */
      if ((cfg_read(bus, dev, 0, PCI_HEADER_TYPE) >> 16) & 0x80)
        for (int fn = 1; fn < 8; fn++)
          probe(bus, dev, fn);
    }
  }
}
