/* The one table of settings, behind both the kernel command line and SYS_sysctl.
 *
 * A module registers each setting once its own state is ready; registering applies the
 * setting's boot value, if the command line has one, through the very path sysctl takes at
 * run time. So a boot key is only the setting applied early: the same names, the same range
 * check, and a refused value gets the same one-line message ("NAME=VALUE: why; keeping
 * CURRENT") and leaves the default in place. */
#include "kernel/sysctl.h"
#include "kernel/cmdline.h"
#include "kernel/klib.h"
#include "kernel/syscall.h"

#define MAXSETTINGS 64
static const struct setting *settings[MAXSETTINGS];
static int nsettings;

/* The index of value among a choice setting's names, or -1. */
static int choice_of(const struct setting *s, const char *value)
{
  for (int i = 0; s->choices[i]; i++)
    if (strcmp(s->choices[i], value) == 0)
      return i;
  return -1;
}

static void format_value(const struct setting *s, char *out, int len)
{
  if (s->choices)
    snprintf(out, len, "%s", s->choices[*s->value]);
  else if (s->get)
    s->get(out, len);
  else
    snprintf(out, len, "%u", *s->value);
}

/* A number setting: its value is checked against [min, max] here, for every caller. */
static bool bounded(const struct setting *s)
{
  return !s->choices && (s->value || s->min < s->max);
}

/* Sets s to value, or says why not in why. Returns 0 or a negative errno. */
static int apply(const struct setting *s, const char *value, char *why, int whylen)
{
  uint32_t v = 0;
  if (bounded(s)) {
    if (parse_uint(value, &v) < 0) {
      snprintf(why, whylen, "not a number");
      return -EINVAL;
    }
    if (v < s->min || v > s->max) {
      snprintf(why, whylen, "out of range [%u..%u]", s->min, s->max);
      return -EINVAL;
    }
  }
  int err;
  if (s->choices) {
    int i = choice_of(s, value);
    if (i >= 0)
      *s->value = (uint32_t)i;
    err = i >= 0 ? 0 : -EINVAL;
  } else if (!s->set) {
    *s->value = v;
    return 0;
  } else {
    err = s->set(value);
  }
  if (err == -EINVAL)
    snprintf(why, whylen, "not a valid value (%s)", s->description);
  else if (err == -ESRCH)
    snprintf(why, whylen, "no such process");
  else if (err == -EPERM)
    snprintf(why, whylen, "not permitted (%s)", s->description);
  else if (err < 0)
    snprintf(why, whylen, "error %d", -err);
  return err;
}

/* The message for a refused value: "NAME=VALUE: why; keeping CURRENT". */
static void refusal(const struct setting *s, const char *value, const char *why, char *out, int outlen)
{
  char cur[64];
  format_value(s, cur, sizeof cur);
  snprintf(out, outlen, "%s=%s: %s; keeping %s", s->name, value, why, cur);
}

void setting_register(const struct setting *s)
{
  if (nsettings == MAXSETTINGS)
    panic("sysctl: too many settings");
  settings[nsettings++] = s;
  const char *value = cmdline_get(s->name, 0);
  if (!value)
    return;
  char why[160], msg[256];
  if (apply(s, value, why, sizeof why) < 0) {
    refusal(s, value, why, msg, sizeof msg);
    kprintf("cmdline: %s\n", msg);
  }
}

void setting_register_table(const struct setting *s, uint32_t n)
{
  for (uint32_t i = 0; i < n; i++)
    setting_register(&s[i]);
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
    if (bounded(s))
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
      char why[160];
      int err = apply(s, value, why, sizeof why);
      if (err < 0) {
        refusal(s, value, why, out, outlen);
        return err;
      }
    }
    format_value(s, out, outlen);
    return 0;
  }
  return -ENOENT;
}
