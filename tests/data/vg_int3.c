/*
 * vg_int3.c - an int3 that nothing catches: the program dies of SIGTRAP,
 * which the kernel reports as SI_KERNEL just past the instruction (the
 * valgrind backend's tests compare that SIGNAL record with ptrace's).
 */
int main(void)
{
	__asm__ volatile("int3");
	return 0;
}
