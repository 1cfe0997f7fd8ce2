#ifndef DRIVERS_VGA_H
#define DRIVERS_VGA_H
void vga_init(void);
void vga_putc(int c);
#endif
