#ifndef DRIVERS_SERIAL_H
#define DRIVERS_SERIAL_H
void serial_init(void);
void serial_putc(int c);
void serial_enable_input(void);
void serial_resume(void);
#endif
