/* The console: output to serial and VGA, line-edited input from serial and keyboard. */
#ifndef KERNEL_CONSOLE_H
#define KERNEL_CONSOLE_H
#include "types.h"

void console_init(void);
void console_putc(int c);
/* A device driver hands over one input byte (interrupt context). Returns false when the
 * input buffer is full: the caller must keep the byte and try again later. */
bool console_input(int c);
bool console_input_room(void);   /* would console_input accept a byte now? */
/* Register a callback the console calls when input space frees up (UART restarts reading). */
void console_set_space_callback(void (*fn)(void));
/* Names the process group ^C kills (0: none; ^C then ends the line being typed, empty). */
void console_setfg(int pgid);
/* Raw input (true) or cooked (false), as SYS_consmode sets it; returns the mode before. */
bool console_setmode(bool raw);
int console_read(uint32_t udst, uint32_t n);        /* to user memory; 0 at end of file */
int console_write(uint32_t usrc, uint32_t n);       /* from user memory */
#endif
