/* Process entry under Linux (i386): the kernel leaves esp pointing at argc, then argv's
 * pointers and a null, then the environment's pointers and a null, then the auxiliary
 * vector. As user/lib/crt0.S, but the environment is kept (environ) for execve. */
  .text
  .globl _start
_start:
  xorl %ebp, %ebp            /* marks the outermost frame for backtraces */
  movl (%esp), %eax          /* argc */
  leal 4(%esp), %ecx         /* argv */
  leal 8(%esp,%eax,4), %edx  /* envp: after argv's argc pointers and its null */
  movl %edx, environ
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

  .section .note.GNU-stack, "", @progbits
