/* printf and friends. One formatter, vformat(), sends its output to a sink: a FILE's
 * buffer, a caller's string, or a file descriptor. No floating point: user programs avoid
 * the FPU altogether. */
#include <stdio.h>
#include <string.h>
#include <stdint.h>
#include <unistd.h>

struct sink {
  void (*emit)(struct sink *k, const char *s, size_t n);
  FILE *f;            /* FILE sink */
  char *buf;          /* string sink */
  size_t cap, len;
  int fd;             /* fd sink: buf is a local staging buffer */
  int total;          /* characters produced so far (the return value) */
};

static void out(struct sink *k, const char *s, size_t n)
{
  if (n) {
    k->emit(k, s, n);
    k->total += n;
  }
}

static void pad(struct sink *k, char c, int n)
{
  char chunk[16];
  memset(chunk, c, sizeof(chunk));
  while (n > 0) {
    int m = n < 16 ? n : 16;
    out(k, chunk, m);
    n -= m;
  }
}

/* Divides *v by base (at most 16) in place and returns the remainder, in 16-bit steps so
 * that no 64-bit division helper from libgcc is needed. */
static unsigned divmod64(uint64_t *v, unsigned base)
{
  uint32_t hi = *v >> 32, lo = (uint32_t)*v;
  uint32_t r = hi % base;
  hi /= base;
  uint32_t a = (r << 16) | (lo >> 16);
  uint32_t qa = a / base;
  r = a % base;
  uint32_t b = (r << 16) | (lo & 0xffff);
  uint32_t qb = b / base;
  r = b % base;
  *v = ((uint64_t)hi << 32) | (qa << 16) | qb;
  return r;
}

struct spec {
  int left, zero, plus, space, alt;
  int width, prec;      /* prec -1 when absent */
};

static void put_number(struct sink *k, struct spec *sp, uint64_t v, int neg, unsigned base,
                       int upper)
{
  const char *digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
  char tmp[24];
  int n = 0;
  if (v == 0) {
    if (sp->prec != 0)
      tmp[n++] = '0';
  } else {
    while (v)
      tmp[n++] = digits[divmod64(&v, base)];
  }
  const char *prefix = "";
  if (neg)
    prefix = "-";
  else if (sp->plus)
    prefix = "+";
  else if (sp->space)
    prefix = " ";
  if (sp->alt && base == 16 && n > 0 && !(n == 1 && tmp[0] == '0'))
    prefix = upper ? "0X" : "0x";
  if (sp->alt && base == 8 && (n == 0 || tmp[n - 1] != '0'))
    tmp[n++] = '0';
  int plen = strlen(prefix);
  int zeros = sp->prec > n ? sp->prec - n : 0;
  int body = plen + zeros + n;
  int padding = sp->width > body ? sp->width - body : 0;
  if (sp->zero && !sp->left && sp->prec < 0) {
    zeros += padding;
    padding = 0;
  }
  if (!sp->left)
    pad(k, ' ', padding);
  out(k, prefix, plen);
  pad(k, '0', zeros);
  while (n > 0) {
    char c = tmp[--n];
    out(k, &c, 1);
  }
  if (sp->left)
    pad(k, ' ', padding);
}

static void put_str(struct sink *k, struct spec *sp, const char *s, int len)
{
  int padding = sp->width > len ? sp->width - len : 0;
  if (!sp->left)
    pad(k, ' ', padding);
  out(k, s, len);
  if (sp->left)
    pad(k, ' ', padding);
}

static int vformat(struct sink *k, const char *fmt, va_list ap)
{
  for (const char *p = fmt; *p; p++) {
    if (*p != '%') {
      const char *q = p;
      while (q[1] && q[1] != '%')
        q++;
      out(k, p, q - p + 1);
      p = q;
      continue;
    }
    p++;
    struct spec sp = {0, 0, 0, 0, 0, 0, -1};
    for (;; p++) {
      if (*p == '-') sp.left = 1;
      else if (*p == '0') sp.zero = 1;
      else if (*p == '+') sp.plus = 1;
      else if (*p == ' ') sp.space = 1;
      else if (*p == '#') sp.alt = 1;
      else break;
    }
    if (*p == '*') {
      sp.width = va_arg(ap, int);
      if (sp.width < 0) {
        sp.left = 1;
        sp.width = -sp.width;
      }
      p++;
    } else {
      while (*p >= '0' && *p <= '9')
        sp.width = sp.width * 10 + (*p++ - '0');
    }
    if (*p == '.') {
      p++;
      sp.prec = 0;
      if (*p == '*') {
        sp.prec = va_arg(ap, int);
        if (sp.prec < 0)
          sp.prec = -1;
        p++;
      } else {
        while (*p >= '0' && *p <= '9')
          sp.prec = sp.prec * 10 + (*p++ - '0');
      }
    }
    int longs = 0;   /* 0 int, 1 long, 2 long long; h and z read an int-sized value */
    for (;; p++) {
      if (*p == 'l') longs++;
      else if (*p == 'h' || *p == 'z' || *p == 't' || *p == 'j') ;
      else break;
    }
    if (*p == 'j')
      longs = 2;

    uint64_t u;
    switch (*p) {
    case 'd':
    case 'i': {
      int64_t v = longs >= 2 ? va_arg(ap, long long) : longs ? va_arg(ap, long) : va_arg(ap, int);
      put_number(k, &sp, v < 0 ? 0 - (uint64_t)v : (uint64_t)v, v < 0, 10, 0);
      break;
    }
    case 'u':
    case 'x':
    case 'X':
    case 'o':
      u = longs >= 2 ? va_arg(ap, unsigned long long)
          : longs ? va_arg(ap, unsigned long) : va_arg(ap, unsigned);
      put_number(k, &sp, u, 0, *p == 'u' ? 10 : *p == 'o' ? 8 : 16, *p == 'X');
      break;
    case 'p':
      sp.alt = 1;
      put_number(k, &sp, (uintptr_t)va_arg(ap, void *), 0, 16, 0);
      break;
    case 'c': {
      char c = va_arg(ap, int);
      put_str(k, &sp, &c, 1);
      break;
    }
    case 's': {
      const char *s = va_arg(ap, const char *);
      if (!s)
        s = "(null)";
      put_str(k, &sp, s, sp.prec >= 0 ? (int)strnlen(s, sp.prec) : (int)strlen(s));
      break;
    }
    case '%':
      out(k, "%", 1);
      break;
    case 0:
      p--;    /* a lone '%' at the end: stop at the NUL */
      break;
    default:  /* unknown: print it as written so the mistake is visible */
      out(k, "%", 1);
      out(k, p, 1);
      break;
    }
  }
  return k->total;
}

/* ---- FILEs ---- */

static FILE stdin_file = {0, 0, 0, 0, {0}};
static FILE stdout_file = {1, 0, 0, 0, {0}};
static FILE stderr_file = {2, 1, 0, 0, {0}};
FILE *stdin = &stdin_file, *stdout = &stdout_file, *stderr = &stderr_file;

static int flush_file(FILE *f)
{
  if (f->len > 0) {
    int n = f->len;
    f->len = 0;
    if (write_all(f->fd, f->buf, n) < 0) {
      f->err = 1;
      return EOF;
    }
  }
  return 0;
}

int fflush(FILE *f)
{
  if (!f) {
    int r = flush_file(stdout);
    if (flush_file(stderr) < 0)
      r = EOF;
    return r;
  }
  return flush_file(f);
}

/* Appends to the buffer, writing it out when full. Whether to flush at the end of the call
 * is the caller's decision (finish_file). */
static void file_put(FILE *f, const char *s, size_t n)
{
  while (n > 0) {
    if (f->len == BUFSIZ)
      flush_file(f);
    size_t m = BUFSIZ - f->len;
    if (m > n)
      m = n;
    memcpy(f->buf + f->len, s, m);
    f->len += m;
    s += m;
    n -= m;
  }
}

static void finish_file(FILE *f, int newline)
{
  if (f->flush_each_call || newline)
    flush_file(f);
}

static void emit_file(struct sink *k, const char *s, size_t n)
{
  file_put(k->f, s, n);
  if (memchr(s, '\n', n))
    k->len = 1;   /* remember that a newline went by */
}

int vfprintf(FILE *f, const char *fmt, va_list ap)
{
  struct sink k = {emit_file, f, 0, 0, 0, 0, 0};
  int n = vformat(&k, fmt, ap);
  finish_file(f, k.len);
  return n;
}

int vprintf(const char *fmt, va_list ap) { return vfprintf(stdout, fmt, ap); }

int printf(const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  int n = vfprintf(stdout, fmt, ap);
  va_end(ap);
  return n;
}

int fprintf(FILE *f, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  int n = vfprintf(f, fmt, ap);
  va_end(ap);
  return n;
}

int fputc(int c, FILE *f)
{
  char ch = c;
  file_put(f, &ch, 1);
  finish_file(f, ch == '\n');
  return (unsigned char)ch;
}

int putchar(int c) { return fputc(c, stdout); }

int fputs(const char *s, FILE *f)
{
  size_t n = strlen(s);
  file_put(f, s, n);
  finish_file(f, memchr(s, '\n', n) != 0);
  return f->err ? EOF : 0;
}

int puts(const char *s)
{
  file_put(stdout, s, strlen(s));
  file_put(stdout, "\n", 1);
  finish_file(stdout, 1);
  return stdout->err ? EOF : 0;
}

size_t fwrite(const void *p, size_t size, size_t n, FILE *f)
{
  size_t bytes = size * n;
  file_put(f, p, bytes);
  finish_file(f, memchr(p, '\n', bytes) != 0);
  return f->err ? 0 : n;
}

/* ---- strings ---- */

static void emit_str(struct sink *k, const char *s, size_t n)
{
  /* Keep room for the NUL; characters beyond cap are counted but dropped. */
  if (k->cap > 0 && k->len < k->cap - 1) {
    size_t room = k->cap - 1 - k->len;
    size_t m = n < room ? n : room;
    memcpy(k->buf + k->len, s, m);
    k->len += m;
  }
}

int vsnprintf(char *buf, size_t size, const char *fmt, va_list ap)
{
  struct sink k = {emit_str, 0, buf, size, 0, 0, 0};
  int n = vformat(&k, fmt, ap);
  if (size > 0)
    buf[k.len] = 0;
  return n;
}

int snprintf(char *buf, size_t size, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(buf, size, fmt, ap);
  va_end(ap);
  return n;
}

int sprintf(char *buf, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(buf, 0x7fffffff, fmt, ap);
  va_end(ap);
  return n;
}

/* ---- file descriptors ---- */

static void emit_fd(struct sink *k, const char *s, size_t n)
{
  while (n > 0) {
    if (k->len == k->cap) {
      write_all(k->fd, k->buf, k->len);
      k->len = 0;
    }
    size_t m = k->cap - k->len;
    if (m > n)
      m = n;
    memcpy(k->buf + k->len, s, m);
    k->len += m;
    s += m;
    n -= m;
  }
}

int vdprintf(int fd, const char *fmt, va_list ap)
{
  char stage[256];   /* usually the whole message goes out in one write */
  struct sink k = {emit_fd, 0, stage, sizeof(stage), 0, fd, 0};
  int n = vformat(&k, fmt, ap);
  if (k.len > 0)
    write_all(fd, stage, k.len);
  return n;
}

int dprintf(int fd, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  int n = vdprintf(fd, fmt, ap);
  va_end(ap);
  return n;
}

/* ---- input ---- */

int getline_fd(int fd, char *buf, int max)
{
  int n = 0;
  fflush(stdout);
  while (n < max - 1) {
    char c;
    int r = read(fd, &c, 1);
    if (r < 0) {
      if (n > 0)
        break;
      return -1;
    }
    if (r == 0)
      break;
    buf[n++] = c;
    if (c == '\n')
      break;
  }
  if (max > 0)
    buf[n] = 0;
  return n;
}

char *fgets(char *buf, int max, FILE *f)
{
  int n = getline_fd(f->fd, buf, max);
  return n > 0 ? buf : 0;
}

int getchar(void)
{
  unsigned char c;
  fflush(stdout);
  return read(0, &c, 1) == 1 ? c : EOF;
}
