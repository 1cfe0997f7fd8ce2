/* The PS/2 keyboard: scancode set 1 (as the i8042 translates it) to ASCII, into the console. */
#ifndef DRIVERS_KBD_H
#define DRIVERS_KBD_H

/* Registers the IRQ 1 handler; keys then go to console_input(). */
void kbd_init(void);
#endif
