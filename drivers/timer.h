#ifndef DRIVERS_TIMER_H
#define DRIVERS_TIMER_H
void timer_init(void);
#endif
