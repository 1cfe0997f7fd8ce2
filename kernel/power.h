/* Turning the machine off. QEMU's isa-debug-exit device (port 0xf4) makes QEMU exit with
 * status (value << 1) | 1; tools/runqemu.py maps a clean power-off to 0 and anything else
 * (a panic, a triple fault, a hang) to non-zero. */
#ifndef KERNEL_POWER_H
#define KERNEL_POWER_H
void machine_poweroff(int failure) __attribute__((noreturn));
#endif
