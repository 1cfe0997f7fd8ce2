/* Process entry. The kernel's exec leaves esp pointing at argc, then argv (a char **),
 * with the strings above them. Calls main(argc, argv) and exits with its result. */
  .text
  .globl _start
_start:
  xorl %ebp, %ebp            /* marks the outermost frame for backtraces */
  movl (%esp), %eax          /* argc */
  movl 4(%esp), %ecx         /* argv */
  andl $-16, %esp            /* the i386 ABI wants 16-byte alignment at a call */
  subl $8, %esp
  pushl %ecx
  pushl %eax
  call main
  addl $16, %esp
  pushl %eax
  call exit                  /* flushes stdout; does not return */
1:
  jmp 1b

/* No executable stack wanted. */
  .section .note.GNU-stack, "", @progbits
