/* 16550 UART on COM1: polled output, interrupt-driven input.
 *
 * Input never drops a byte: when the console's buffer is full we turn off the receive
 * interrupt and leave bytes in the UART; QEMU then stops taking bytes from its input, so
 * the sender waits. When the console frees space it calls serial_resume(). */
#include "kernel/x86.h"
#include "kernel/trap.h"
#include "kernel/console.h"
#include "kernel/spinlock.h"
#include "drivers/serial.h"

#define COM1 0x3F8
#define REG_DATA 0
#define REG_IER  1
#define REG_FCR  2
#define REG_LCR  3
#define REG_MCR  4
#define REG_LSR  5
#define LSR_DATA_READY 0x01
#define LSR_THR_EMPTY  0x20
#define IER_RX         0x01

static bool present;

void serial_init(void)
{
  outb(COM1 + REG_IER, 0);
  outb(COM1 + REG_LCR, 0x80);        /* divisor latch: 115200 baud */
  outb(COM1 + 0, 1);
  outb(COM1 + 1, 0);
  outb(COM1 + REG_LCR, 0x03);        /* 8 bits, no parity, one stop bit */
  outb(COM1 + REG_FCR, 0xC7);        /* FIFOs on, cleared */
  outb(COM1 + REG_MCR, 0x0B);        /* OUT2 gates the interrupt line */
  present = inb(COM1 + REG_LSR) != 0xFF;
}

void serial_putc(int c)
{
  if (!present)
    return;
  for (int i = 0; i < 100000 && !(inb(COM1 + REG_LSR) & LSR_THR_EMPTY); i++)
    ;
  outb(COM1 + REG_DATA, c);
}

/* Moves bytes from the UART to the console until it is empty or the console is full. */
static void serial_drain(void)
{
  while (inb(COM1 + REG_LSR) & LSR_DATA_READY) {
    /* A 16550 cannot put a byte back, so ask the console for room before reading one. */
    if (!console_input_room()) {
      outb(COM1 + REG_IER, 0);       /* full: stop reading until serial_resume() */
      return;
    }
    console_input(inb(COM1 + REG_DATA));
  }
}

static void serial_intr(void *arg)
{
  serial_drain();
}

void serial_resume(void)
{
  pushcli();                /* the interrupt handler drains too; one at a time */
  outb(COM1 + REG_IER, IER_RX);
  serial_drain();
  popcli();
}

void serial_enable_input(void)
{
  if (!present)
    return;
  irq_register(IRQ_COM1, serial_intr, 0);
  console_set_space_callback(serial_resume);
  inb(COM1 + 2);                      /* clear pending interrupt identification */
  serial_resume();
}
