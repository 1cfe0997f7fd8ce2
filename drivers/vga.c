/* VGA text mode: a mirror of the console output on the screen, 80x25, scrolling. */
#include "kernel/x86.h"
#include "kernel/klib.h"
#include "kernel/memlayout.h"
#include "drivers/vga.h"

#define COLS 80
#define ROWS 25
#define ATTR 0x0700
static uint16_t *screen = (uint16_t *)P2V(0xB8000);
static int pos;

static void move_cursor(void)
{
  outb(0x3D4, 14);
  outb(0x3D5, pos >> 8);
  outb(0x3D4, 15);
  outb(0x3D5, pos);
}

void vga_init(void)
{
  for (int i = 0; i < COLS * ROWS; i++)
    screen[i] = ATTR | ' ';
  pos = 0;
  move_cursor();
}

void vga_putc(int c)
{
  if (c == '\n')
    pos += COLS - pos % COLS;
  else if (c == '\b') {
    if (pos > 0)
      screen[--pos] = ATTR | ' ';
  } else if (c == '\r')
    pos -= pos % COLS;
  else if (c >= ' ' || c == '\t')
    screen[pos++] = ATTR | (c == '\t' ? ' ' : (uint8_t)c);
  if (pos >= COLS * ROWS) {
    memmove(screen, screen + COLS, sizeof(uint16_t) * COLS * (ROWS - 1));
    for (int i = COLS * (ROWS - 1); i < COLS * ROWS; i++)
      screen[i] = ATTR | ' ';
    pos -= COLS;
  }
  move_cursor();
}
