/* Turning the machine off. QEMU's isa-debug-exit device (port 0xf4) makes QEMU exit with
 * status (value << 1) | 1. QEMU's own failures (a bad option, a disk image locked by another
 * QEMU) exit with 1, and an ACPI power-off or the monitor's quit with 0, so the values written
 * here are chosen to give statuses QEMU never uses by itself: tools/runqemu.py can then tell a
 * clean power-off (33) and one reporting a failure (35) from QEMU stopping on its own. */
#ifndef KERNEL_POWER_H
#define KERNEL_POWER_H
#define POWEROFF_CLEAN   0x10   /* QEMU exits with 33 */
#define POWEROFF_FAILURE 0x11   /* QEMU exits with 35 */
void machine_poweroff(int failure) __attribute__((noreturn));
#endif
