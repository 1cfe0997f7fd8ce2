#ifndef DRIVERS_PIC_H
#define DRIVERS_PIC_H
void pic_init(void);
void pic_enable(int irq);
void pic_eoi(int irq);
#endif
