/* Signal numbers, only to name why the kernel killed a process: its exit status is
 * 128 + the signal (SIG_STATUS; the table of causes is in kernel/uapi/signal.h). */
#ifndef _SIGNAL_H
#define _SIGNAL_H
#include "uapi/signal.h"
#endif
