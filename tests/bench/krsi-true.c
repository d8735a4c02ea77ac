// SPDX-License-Identifier: GPL-2.0
/*
 * krsi-true: the smallest static binary that exits 0, for krsi-bench's exec loop. No libc: an
 * execve of it costs the kernel's exec path and nothing of a dynamic loader's.
 */
void _start(void)
{
	__asm__ volatile("mov $60, %eax\n\txor %edi, %edi\n\tsyscall");
	__builtin_unreachable();
}
