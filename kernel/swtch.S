# void swtch(struct context **old, struct context *new);
# Saves the callee-saved registers on the current stack, stores the stack pointer in *old,
# and resumes whatever was saved at new.
.globl swtch
swtch:
  movl 4(%esp), %eax
  movl 8(%esp), %edx
  pushl %ebp
  pushl %ebx
  pushl %esi
  pushl %edi
  movl %esp, (%eax)
  movl %edx, %esp
  popl %edi
  popl %esi
  popl %ebx
  popl %ebp
  ret
