/* The kernel command line: "key=value" words from GRUB or -append. */
#ifndef KERNEL_CMDLINE_H
#define KERNEL_CMDLINE_H
#include "types.h"

void cmdline_init(const char *line);
/* Returns the value of key, or def when absent. Marks the key as known. */
const char *cmdline_get(const char *key, const char *def);
uint32_t cmdline_get_uint(const char *key, uint32_t def);
/* Reports keys that no one asked for (call after all modules initialised). */
void cmdline_report_unknown(void);
#endif
