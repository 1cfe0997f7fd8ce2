/* Number conversion, exit, rand, qsort. */
#include <stdlib.h>
#include <stdio.h>
#include <ctype.h>
#include <limits.h>
#include <errno.h>
#include <string.h>
#include <unistd.h>

static int digitval(int c)
{
  if (isdigit(c))
    return c - '0';
  if (c >= 'a' && c <= 'z')
    return c - 'a' + 10;
  if (c >= 'A' && c <= 'Z')
    return c - 'A' + 10;
  return 99;
}

/* The common part of strtol and strtoul: magnitude in *mag, sign in *neg; returns 1 if
 * the magnitude overflowed an unsigned long. */
static int parse(const char *s, char **end, int base, unsigned long *mag, int *neg)
{
  const char *p = s;
  unsigned long v = 0;
  int overflow = 0, any = 0;

  while (isspace(*p))
    p++;
  *neg = 0;
  if (*p == '+' || *p == '-')
    *neg = (*p++ == '-');
  if ((base == 0 || base == 16) && p[0] == '0' && (p[1] == 'x' || p[1] == 'X') &&
      digitval(p[2]) < 16) {
    p += 2;
    base = 16;
  } else if (base == 0) {
    base = (p[0] == '0') ? 8 : 10;
  }
  for (;; p++) {
    int d = digitval(*p);
    if (d >= base)
      break;
    any = 1;
    if (v > (ULONG_MAX - d) / base)
      overflow = 1;
    v = v * base + d;
  }
  if (end)
    *end = (char *)(any ? p : s);
  *mag = v;
  return overflow;
}

long strtol(const char *s, char **end, int base)
{
  unsigned long mag;
  int neg;
  int overflow = parse(s, end, base, &mag, &neg);
  if (!neg && (overflow || mag > (unsigned long)LONG_MAX)) {
    errno = ERANGE;
    return LONG_MAX;
  }
  if (neg && (overflow || mag > (unsigned long)LONG_MAX + 1)) {
    errno = ERANGE;
    return LONG_MIN;
  }
  return neg ? (long)(0 - mag) : (long)mag;
}

unsigned long strtoul(const char *s, char **end, int base)
{
  unsigned long mag;
  int neg;
  if (parse(s, end, base, &mag, &neg)) {
    errno = ERANGE;
    return ULONG_MAX;
  }
  return neg ? 0 - mag : mag;
}

int atoi(const char *s) { return (int)strtol(s, 0, 10); }
long atol(const char *s) { return strtol(s, 0, 10); }
int abs(int x) { return x < 0 ? -x : x; }
long labs(long x) { return x < 0 ? -x : x; }

void exit(int status)
{
  fflush(0);
  _exit(status);
}

void abort(void)
{
  fputs("abort\n", stderr);
  _exit(134);
}

static unsigned rand_state = 1;

void srand(unsigned seed) { rand_state = seed; }

int rand(void)
{
  /* xorshift32: good enough for tests, and cheap. */
  unsigned x = rand_state ? rand_state : 0x9e3779b9;
  x ^= x << 13;
  x ^= x >> 17;
  x ^= x << 5;
  rand_state = x;
  return (int)(x & RAND_MAX);
}

static void swap(char *a, char *b, size_t size)
{
  while (size--) {
    char t = *a;
    *a++ = *b;
    *b++ = t;
  }
}

/* Insertion sort for small ranges, else quicksort with a middle pivot. Recursing on the
 * smaller half keeps the stack depth logarithmic. */
void qsort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
  char *b = base;
  while (n > 8) {
    swap(b, b + (n / 2) * size, size);   /* pivot to the front */
    size_t last = 0;
    for (size_t i = 1; i < n; i++)
      if (cmp(b + i * size, b) < 0)
        swap(b + (++last) * size, b + i * size, size);
    swap(b, b + last * size, size);
    /* [0, last) < pivot, pivot at last, (last, n) >= pivot */
    size_t left = last, right = n - last - 1;
    if (left < right) {
      qsort(b, left, size, cmp);
      b += (last + 1) * size;
      n = right;
    } else {
      qsort(b + (last + 1) * size, right, size, cmp);
      n = left;
    }
  }
  for (size_t i = 1; i < n; i++)
    for (size_t j = i; j > 0 && cmp(b + (j - 1) * size, b + j * size) > 0; j--)
      swap(b + (j - 1) * size, b + j * size, size);
}
