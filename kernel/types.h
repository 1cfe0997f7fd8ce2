/* Basic types for kernel code: the compiler's freestanding headers only. */
#ifndef KERNEL_TYPES_H
#define KERNEL_TYPES_H
#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdarg.h>
typedef uint32_t pte_t;
typedef uint32_t pde_t;
#endif
