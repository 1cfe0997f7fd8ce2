/* Run-time settings, read and written by the sysctl program (SYS_sysctl).
 * A module registers each setting once, with a description and its bounds. */
#ifndef KERNEL_SYSCTL_H
#define KERNEL_SYSCTL_H
#include "types.h"

struct setting {
  const char *name;
  const char *description;
  uint32_t *value;          /* a number setting, or 0 when get/set handle it */
  uint32_t min, max;
  /* optional: text settings (e.g. a policy name); set returns 0 or a negative errno */
  void (*get)(char *out, int len);
  int (*set)(const char *value);
};

void setting_register(const struct setting *s);
/* Reads (value == 0) or writes a setting; out receives "value" (or, for name "#N", the N-th
 * setting as "name=value description"). Returns 0 or a negative errno (ENOENT, EINVAL). */
int sysctl(const char *name, const char *value, char *out, int outlen);
#endif
