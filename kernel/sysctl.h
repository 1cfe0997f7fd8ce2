/* Settings, set on the kernel command line and read and written by the sysctl program
 * (SYS_sysctl). A module registers each setting once, with a description and its bounds: one
 * with setting_register, a table of them with setting_register_table (as counters are). */
#ifndef KERNEL_SYSCTL_H
#define KERNEL_SYSCTL_H
#include "types.h"

struct setting {
  const char *name;
  const char *description;
  uint32_t *value;          /* a number setting, or 0 when get/set handle it */
  uint32_t min, max;        /* bounds, checked before set is called when min < max */
  /* optional: text settings (e.g. a policy name); set returns 0 or a negative errno */
  void (*get)(char *out, int len);
  int (*set)(const char *value);
  /* optional: a choice among these names (0-terminated), stored in *value as the index of
   * the one chosen; sysctl reads and writes it by name (no get or set) */
  const char *const *choices;
};

/* Adds s and applies its value from the kernel command line, if any: register once the
 * module is ready for a set, with the default in place (a refused value keeps it). */
void setting_register(const struct setting *s);
/* The n settings of a module's table, in order, as setting_register adds each. */
void setting_register_table(const struct setting *s, uint32_t n);
/* Reads (value == 0) or writes a setting; out receives "value" (or, for name "#N", the N-th
 * setting as "name=value description [min..max]"). Returns 0 or a negative errno: ENOENT, or
 * a refused value (EINVAL, or the setter's error), and then out holds the one-line reason,
 * "NAME=VALUE: why; keeping CURRENT", the very line the command line gets at boot. */
int sysctl(const char *name, const char *value, char *out, int outlen);
#endif
