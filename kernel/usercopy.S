# int user_memcpy(void *dst, const void *src, uint32_t n): 0, or -EFAULT (-14).
#
# Every copy between the kernel and user memory ends here. vm_check_user has made the pages
# present just before, but a page can be pushed out again in between; the fault then goes
# through vm_fault like any other, and only if that fails (memory and backing store both
# exhausted) does trap() resume at user_memcpy_fault instead of panicking: the system call
# gets EFAULT. Copies words with a plain loop, like the kernel's memmove: `rep movs` would
# look several times cheaper in guest time under -icount than it is, and make the file
# benchmarks' comparison with the guest's own page copy meaningless.
.text
.globl user_memcpy, user_memcpy_fault, user_memcpy_end
user_memcpy:
  pushl %esi
  pushl %edi
  movl 12(%esp), %edi
  movl 16(%esp), %esi
  movl 20(%esp), %ecx
  movl %ecx, %edx
  shrl $2, %ecx
  jz 3f
2:
  movl (%esi), %eax
  movl %eax, (%edi)
  addl $4, %esi
  addl $4, %edi
  decl %ecx
  jnz 2b
3:
  andl $3, %edx
  jz 5f
4:
  movb (%esi), %al
  movb %al, (%edi)
  incl %esi
  incl %edi
  decl %edx
  jnz 4b
5:
  xorl %eax, %eax
1:
  popl %edi
  popl %esi
  ret
user_memcpy_fault:
  movl $-14, %eax
  jmp 1b
user_memcpy_end:
.section .note.GNU-stack,"",@progbits
