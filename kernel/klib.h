/* The kernel's small C library: strings, memory, formatted output, panic. */
#ifndef KERNEL_KLIB_H
#define KERNEL_KLIB_H
#include "types.h"

void *memset(void *dst, int c, size_t n);
void *memcpy(void *dst, const void *src, size_t n);
void *memmove(void *dst, const void *src, size_t n);
int memcmp(const void *a, const void *b, size_t n);
size_t strlen(const char *s);
int strcmp(const char *a, const char *b);
int strncmp(const char *a, const char *b, size_t n);
char *strncpy(char *dst, const char *src, size_t n);
/* Copies at most n-1 bytes and always terminates. */
char *safestrcpy(char *dst, const char *src, size_t n);
char *strchr(const char *s, int c);
/* Parses a decimal (or 0x hex) unsigned number; returns 0 and sets *out on success, -1 on junk. */
int parse_uint(const char *s, uint32_t *out);

int vsnprintf(char *buf, size_t size, const char *fmt, va_list ap);
int snprintf(char *buf, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Console output (serial and VGA). %d %u %x %p %s %c %ld %lu %llu %lld %llx, widths, '-' and '0'. */
void kprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void panic(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))
#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))
#define KASSERT(c) do { if (!(c)) panic("assertion failed: %s at %s:%d", #c, __FILE__, __LINE__); } while (0)
#endif
