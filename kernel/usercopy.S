# int user_memcpy(void *dst, const void *src, uint32_t n): 0, or -EFAULT (-14).
#
# Every copy between the kernel and user memory ends here. vm_check_user has made the pages
# present just before, but a page can be pushed out again in between; the fault then goes
# through vm_fault like any other, and only if that fails (memory and backing store both
# exhausted) does trap() resume at user_memcpy_fault instead of panicking: the system call
# gets EFAULT. Copies words first: byte copies are four times slower under QEMU.
.text
.globl user_memcpy, user_memcpy_fault, user_memcpy_end
user_memcpy:
  pushl %esi
  pushl %edi
  movl 12(%esp), %edi
  movl 16(%esp), %esi
  movl 20(%esp), %ecx
  cld
  movl %ecx, %edx
  shrl $2, %ecx
  rep movsl
  movl %edx, %ecx
  andl $3, %ecx
  rep movsb
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
