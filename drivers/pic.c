/* The two 8259A interrupt controllers, remapped so IRQ n arrives at vector 32 + n. */
#include "kernel/x86.h"
#include "drivers/pic.h"

#define PIC1 0x20
#define PIC2 0xA0
static uint16_t mask = 0xFFFF & ~(1 << 2);   /* the cascade line stays open */

static void setmask(void)
{
  outb(PIC1 + 1, mask);
  outb(PIC2 + 1, mask >> 8);
}

void pic_init(void)
{
  outb(PIC1, 0x11); outb(PIC2, 0x11);         /* ICW1: edge, cascade, ICW4 follows */
  outb(PIC1 + 1, 32); outb(PIC2 + 1, 40);     /* ICW2: vector bases */
  outb(PIC1 + 1, 4); outb(PIC2 + 1, 2);       /* ICW3: slave on IRQ 2 */
  outb(PIC1 + 1, 1); outb(PIC2 + 1, 1);       /* ICW4: 8086 mode */
  setmask();
}

void pic_enable(int irq)
{
  mask &= ~(1 << irq);
  setmask();
}

void pic_eoi(int irq)
{
  if (irq >= 8)
    outb(PIC2, 0x20);
  outb(PIC1, 0x20);
}
