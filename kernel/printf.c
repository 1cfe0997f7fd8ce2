/* Formatted output for the kernel: snprintf, kprintf to the console, panic. */
#include "kernel/klib.h"
#include "kernel/ksyms.h"
#include "kernel/console.h"
#include "kernel/spinlock.h"
#include "kernel/power.h"
#include "kernel/proc.h"

struct outbuf {
  char *buf;
  size_t size, len;
};

static void put(struct outbuf *o, char c)
{
  if (o->len + 1 < o->size)
    o->buf[o->len] = c;
  o->len++;
}

static void putnum(struct outbuf *o, unsigned long long v, int base, bool neg, int width, char pad, bool left)
{
  char tmp[24];
  int n = 0;
  const char *digits = "0123456789abcdef";
  do {
    tmp[n++] = digits[v % base];
    v /= base;
  } while (v);
  if (neg)
    tmp[n++] = '-';
  if (neg && pad == '0') {     /* the sign goes before zero padding */
    put(o, '-');
    n--;
    width--;
  }
  int fill = width > n ? width - n : 0;
  if (!left)
    while (fill-- > 0)
      put(o, pad);
  while (n > 0)
    put(o, tmp[--n]);
  if (left)
    while (fill-- > 0)
      put(o, ' ');
}

int vsnprintf(char *buf, size_t size, const char *fmt, va_list ap)
{
  struct outbuf o = { buf, size, 0 };
  for (; *fmt; fmt++) {
    if (*fmt != '%') {
      put(&o, *fmt);
      continue;
    }
    fmt++;
    bool left = false;
    char pad = ' ';
    int width = 0, longs = 0;
    if (*fmt == '-') { left = true; fmt++; }
    if (*fmt == '0') { pad = '0'; fmt++; }
    while (*fmt >= '0' && *fmt <= '9')
      width = width * 10 + (*fmt++ - '0');
    while (*fmt == 'l') { longs++; fmt++; }
    if (*fmt == 'z') fmt++;
    switch (*fmt) {
    case 'd': case 'i': {
      long long v = longs >= 2 ? va_arg(ap, long long) : va_arg(ap, int);
      putnum(&o, v < 0 ? -(unsigned long long)v : (unsigned long long)v, 10, v < 0, width, pad, left);
      break;
    }
    case 'u': case 'x': case 'X': {
      unsigned long long v = longs >= 2 ? va_arg(ap, unsigned long long) : va_arg(ap, unsigned int);
      putnum(&o, v, *fmt == 'u' ? 10 : 16, false, width, pad, left);
      break;
    }
    case 'p':
      put(&o, '0'); put(&o, 'x');
      putnum(&o, (uint32_t)va_arg(ap, void *), 16, false, 8, '0', false);
      break;
    case 's': {
      const char *s = va_arg(ap, const char *);
      if (!s)
        s = "(null)";
      int n = strlen(s);
      if (!left) for (int i = n; i < width; i++) put(&o, ' ');
      while (*s) put(&o, *s++);
      if (left) for (int i = n; i < width; i++) put(&o, ' ');
      break;
    }
    case 'c':
      put(&o, (char)va_arg(ap, int));
      break;
    case '%':
      put(&o, '%');
      break;
    case 0:
      fmt--;
      break;
    default:
      put(&o, '%');
      put(&o, *fmt);
    }
  }
  if (size > 0)
    buf[o.len < size ? o.len : size - 1] = 0;
  return o.len;
}

int snprintf(char *buf, size_t size, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(buf, size, fmt, ap);
  va_end(ap);
  return n;
}

void kprintf(const char *fmt, ...)
{
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  if (n > (int)sizeof buf - 1)
    n = sizeof buf - 1;
  pushcli();          /* one message is not interleaved with another */
  for (int i = 0; i < n; i++)
    console_putc(buf[i]);
  popcli();
}

void panic(const char *fmt, ...)
{
  char buf[256];
  va_list ap;
  __asm__ volatile("cli");
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  struct proc *p = myproc();
  kprintf("\nkernel panic: %s (process %d %s)\n", buf, p ? p->pid : 0, p ? p->name : "-");
  uint32_t ebp;
  __asm__ volatile("movl %%ebp, %0" : "=r"(ebp));
  ksym_backtrace(ebp, 16);
  machine_poweroff(1);
}
