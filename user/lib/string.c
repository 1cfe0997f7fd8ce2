/* String and memory functions. The bulk copies and fills use rep instructions in inline
 * assembly: besides being quick, this stops gcc from turning a byte loop inside memset or
 * memcpy into a call to memset or memcpy, which would recurse forever. */
#include <string.h>
#include <stdlib.h>

void *memcpy(void *dst, const void *src, size_t n)
{
  void *d = dst;
  size_t words = n / 4, bytes = n % 4;
  __asm__ volatile("cld; rep movsl; movl %3, %%ecx; rep movsb"
                   : "+D"(d), "+S"(src), "+c"(words)
                   : "r"(bytes)
                   : "memory");
  return dst;
}

void *memmove(void *dst, const void *src, size_t n)
{
  char *d = dst;
  const char *s = src;
  if (d <= s || d >= s + n)
    return memcpy(dst, src, n);   /* a forward copy is safe */
  /* Overlapping with dst above src: copy backwards, byte by byte (rare). */
  char *de = d + n - 1;
  const char *se = s + n - 1;
  __asm__ volatile("std; rep movsb; cld" : "+D"(de), "+S"(se), "+c"(n) : : "memory");
  return dst;
}

void *memset(void *dst, int c, size_t n)
{
  void *d = dst;
  __asm__ volatile("cld; rep stosb" : "+D"(d), "+c"(n) : "a"(c) : "memory");
  return dst;
}

int memcmp(const void *a, const void *b, size_t n)
{
  const unsigned char *p = a, *q = b;
  for (size_t i = 0; i < n; i++)
    if (p[i] != q[i])
      return p[i] - q[i];
  return 0;
}

void *memchr(const void *s, int c, size_t n)
{
  const unsigned char *p = s;
  for (size_t i = 0; i < n; i++)
    if (p[i] == (unsigned char)c)
      return (void *)(p + i);
  return 0;
}

size_t strlen(const char *s)
{
  size_t n = 0;
  while (s[n])
    n++;
  return n;
}

size_t strnlen(const char *s, size_t max)
{
  size_t n = 0;
  while (n < max && s[n])
    n++;
  return n;
}

int strcmp(const char *a, const char *b)
{
  while (*a && *a == *b)
    a++, b++;
  return (unsigned char)*a - (unsigned char)*b;
}

int strncmp(const char *a, const char *b, size_t n)
{
  for (; n > 0; n--, a++, b++) {
    if (*a != *b)
      return (unsigned char)*a - (unsigned char)*b;
    if (*a == 0)
      return 0;
  }
  return 0;
}

char *strcpy(char *dst, const char *src)
{
  char *d = dst;
  while ((*d++ = *src++) != 0)
    ;
  return dst;
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

size_t strlcpy(char *dst, const char *src, size_t size)
{
  size_t len = strlen(src);
  if (size > 0) {
    size_t n = len < size - 1 ? len : size - 1;
    memcpy(dst, src, n);
    dst[n] = 0;
  }
  return len;
}

char *strcat(char *dst, const char *src)
{
  strcpy(dst + strlen(dst), src);
  return dst;
}

char *strncat(char *dst, const char *src, size_t n)
{
  char *d = dst + strlen(dst);
  while (n-- > 0 && *src)
    *d++ = *src++;
  *d = 0;
  return dst;
}

char *strchr(const char *s, int c)
{
  for (;; s++) {
    if (*s == (char)c)
      return (char *)s;
    if (*s == 0)
      return 0;
  }
}

char *strrchr(const char *s, int c)
{
  const char *last = 0;
  for (;; s++) {
    if (*s == (char)c)
      last = s;
    if (*s == 0)
      return (char *)last;
  }
}

char *strstr(const char *hay, const char *needle)
{
  size_t n = strlen(needle);
  if (n == 0)
    return (char *)hay;
  for (; *hay; hay++)
    if (*hay == *needle && strncmp(hay, needle, n) == 0)
      return (char *)hay;
  return 0;
}

size_t strspn(const char *s, const char *accept)
{
  size_t n = 0;
  while (s[n] && strchr(accept, s[n]))
    n++;
  return n;
}

size_t strcspn(const char *s, const char *reject)
{
  size_t n = 0;
  while (s[n] && !strchr(reject, s[n]))
    n++;
  return n;
}

char *strdup(const char *s)
{
  return strndup(s, strlen(s));
}

char *strndup(const char *s, size_t n)
{
  size_t len = strnlen(s, n);
  char *p = malloc(len + 1);
  if (p) {
    memcpy(p, s, len);
    p[len] = 0;
  }
  return p;
}
