# Interrupt entry points. Each vector pushes an error code (0 when the CPU pushes none) and its
# number, then alltraps builds a struct trapframe and calls trap(tf).

#define SEG_KDATA 0x10

.macro vector_noerr n
  .globl vector\n
vector\n:
  pushl $0
  pushl $\n
  jmp alltraps
.endm
.macro vector_err n
  .globl vector\n
vector\n:
  pushl $\n
  jmp alltraps
.endm

.text
.globl alltraps
alltraps:
  pushl %ds
  pushl %es
  pushl %fs
  pushl %gs
  pushal
  movw $SEG_KDATA, %ax
  movw %ax, %ds
  movw %ax, %es
  pushl %esp
  call trap
  addl $4, %esp
.globl trapret
trapret:
  popal
  popl %gs
  popl %fs
  popl %es
  popl %ds
  addl $8, %esp            # trap number and error code
  iret

# Vectors 8, 10-14, 17 and 21 get an error code from the CPU.
vector_noerr 0
vector_noerr 1
vector_noerr 2
vector_noerr 3
vector_noerr 4
vector_noerr 5
vector_noerr 6
vector_noerr 7
vector_err 8
vector_noerr 9
vector_err 10
vector_err 11
vector_err 12
vector_err 13
vector_err 14
vector_noerr 15
vector_noerr 16
vector_err 17
vector_noerr 18
vector_noerr 19
vector_noerr 20
vector_err 21
.altmacro
.set i, 22
.rept 256 - 22
  vector_noerr %i
  .set i, i + 1
.endr

# The table of entry points, for trap_init.
.macro vecaddr n
  .long vector\n
.endm
.data
.globl vectors
vectors:
.set i, 0
.rept 256
  vecaddr %i
  .set i, i + 1
.endr
