/* The kernel command line: "key=value" words from GRUB or -append. */
#ifndef KERNEL_CMDLINE_H
#define KERNEL_CMDLINE_H
#include "types.h"

void cmdline_init(const char *line);
/* Returns the value of key, or def when absent. Marks the key as known. Settings do not call
 * this: setting_register applies their boot values. */
const char *cmdline_get(const char *key, const char *def);
/* Reports keys that no one asked for (call after all modules initialised). */
void cmdline_report_unknown(void);
#endif
