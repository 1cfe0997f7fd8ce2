/* Memory and string functions for the kernel (the compiler may also call memset/memcpy). */
#include "kernel/klib.h"

void *memset(void *dst, int c, size_t n)
{
  uint8_t *d = dst;
  if (((uint32_t)d & 3) == 0 && (n & 3) == 0) {
    uint32_t w = (uint8_t)c * 0x01010101u;
    uint32_t *dw = dst;
    for (size_t i = 0; i < n / 4; i++)
      dw[i] = w;
    return dst;
  }
  while (n-- > 0)
    *d++ = (uint8_t)c;
  return dst;
}

void *memcpy(void *dst, const void *src, size_t n)
{
  return memmove(dst, src, n);
}

/* Word copies when both ends are aligned: a byte loop is four times slower under QEMU. */
void *memmove(void *dst, const void *src, size_t n)
{
  uint8_t *d = dst;
  const uint8_t *s = src;
  if (s < d && s + n > d) {
    while (n-- > 0)
      d[n] = s[n];
    return dst;
  }
  if ((((uint32_t)d | (uint32_t)s) & 3) == 0) {
    uint32_t *dw = (uint32_t *)d;
    const uint32_t *sw = (const uint32_t *)s;
    size_t words = n / 4;
    for (size_t i = 0; i < words; i++)
      dw[i] = sw[i];
    d += words * 4;
    s += words * 4;
    n -= words * 4;
  }
  while (n-- > 0)
    *d++ = *s++;
  return dst;
}

int memcmp(const void *a, const void *b, size_t n)
{
  const uint8_t *x = a, *y = b;
  for (size_t i = 0; i < n; i++)
    if (x[i] != y[i])
      return x[i] - y[i];
  return 0;
}

size_t strlen(const char *s)
{
  size_t n = 0;
  while (s[n])
    n++;
  return n;
}

int strcmp(const char *a, const char *b)
{
  while (*a && *a == *b)
    a++, b++;
  return (uint8_t)*a - (uint8_t)*b;
}

int strncmp(const char *a, const char *b, size_t n)
{
  while (n > 0 && *a && *a == *b)
    n--, a++, b++;
  return n == 0 ? 0 : (uint8_t)*a - (uint8_t)*b;
}

char *strncpy(char *dst, const char *src, size_t n)
{
  size_t i = 0;
  for (; i < n && src[i]; i++)
    dst[i] = src[i];
  for (; i < n; i++)
    dst[i] = 0;
  return dst;
}

char *safestrcpy(char *dst, const char *src, size_t n)
{
  if (n == 0)
    return dst;
  size_t i = 0;
  for (; i + 1 < n && src[i]; i++)
    dst[i] = src[i];
  dst[i] = 0;
  return dst;
}

char *strchr(const char *s, int c)
{
  for (; *s; s++)
    if (*s == (char)c)
      return (char *)s;
  return c == 0 ? (char *)s : 0;
}

int parse_uint(const char *s, uint32_t *out)
{
  uint32_t v = 0, base = 10;
  if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    base = 16;
    s += 2;
  }
  if (!*s)
    return -1;
  for (; *s; s++) {
    uint32_t d;
    if (*s >= '0' && *s <= '9')
      d = *s - '0';
    else if (base == 16 && *s >= 'a' && *s <= 'f')
      d = *s - 'a' + 10;
    else if (base == 16 && *s >= 'A' && *s <= 'F')
      d = *s - 'A' + 10;
    else
      return -1;
    if (v > (0xFFFFFFFFu - d) / base)
      return -1;
    v = v * base + d;
  }
  *out = v;
  return 0;
}
