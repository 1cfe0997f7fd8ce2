/* The table of run-time settings behind SYS_sysctl. */
#include "kernel/sysctl.h"
#include "kernel/klib.h"
#include "kernel/syscall.h"

#define MAXSETTINGS 64
static const struct setting *settings[MAXSETTINGS];
static int nsettings;

void setting_register(const struct setting *s)
{
  if (nsettings == MAXSETTINGS)
    panic("sysctl: too many settings");
  settings[nsettings++] = s;
}

static void format_value(const struct setting *s, char *out, int len)
{
  if (s->get)
    s->get(out, len);
  else
    snprintf(out, len, "%u", *s->value);
}

int sysctl(const char *name, const char *value, char *out, int outlen)
{
  if (name[0] == '#') {
    uint32_t i;
    if (parse_uint(name + 1, &i) < 0 || i >= (uint32_t)nsettings)
      return -ENOENT;
    char v[64];
    format_value(settings[i], v, sizeof v);
    const struct setting *s = settings[i];
    if (s->value)
      snprintf(out, outlen, "%s=%s %s [%u..%u]", s->name, v, s->description, s->min, s->max);
    else
      snprintf(out, outlen, "%s=%s %s", s->name, v, s->description);
    return 0;
  }
  for (int i = 0; i < nsettings; i++) {
    const struct setting *s = settings[i];
    if (strcmp(s->name, name) != 0)
      continue;
    if (value) {
      if (s->set) {
        int err = s->set(value);
        if (err < 0)
          return err;
      } else {
        uint32_t v;
        if (!s->value || parse_uint(value, &v) < 0 || v < s->min || v > s->max)
          return -EINVAL;
        *s->value = v;
      }
    }
    format_value(s, out, outlen);
    return 0;
  }
  return -ENOENT;
}
