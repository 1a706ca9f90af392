/*
 * prog.c - the program README.md's examples call "prog" (tests/real/readme.sh
 * runs them with this one in the working directory and on PATH): it has
 * the functions they name (main, parse, emit), prints a line and exits 0.
 * Arguments are parsed as numbers; "sleep" makes it wait a second first
 * (an example attaches to a running program).  No C library (built
 * -nostdlib -static): a few hundred instructions, so that single-stepping
 * backends trace it in a moment.
 */
#include <stddef.h>
#include <sys/syscall.h>

long sys3(long nr, long a, long b, long c);
__asm__(".text\n"
	".globl sys3\n"
	"sys3:\n"
	"	mov %rdi, %rax\n"
	"	mov %rsi, %rdi\n"
	"	mov %rdx, %rsi\n"
	"	mov %rcx, %rdx\n"
	"	syscall\n"
	"	ret\n"
	".globl _start\n"
	"_start:\n"
	"	mov (%rsp), %rdi\n"
	"	lea 8(%rsp), %rsi\n"
	"	and $-16, %rsp\n"
	"	call main\n"
	"	mov %rax, %rsi\n"
	"	mov $60, %rdi\n"
	"	call sys3\n");

int main(long argc, char **argv);

__attribute__((noinline)) long parse(const char *s)
{
	long v = 0;

	while (*s >= '0' && *s <= '9')
		v = v * 10 + (*s++ - '0');
	return v;
}

__attribute__((noinline)) void emit(long total)
{
	char buf[32] = "prog: total ", *p = buf + 12, digits[20];
	int n = 0;

	do
		digits[n++] = (char)('0' + total % 10);
	while ((total /= 10) > 0);
	while (n)
		*p++ = digits[--n];
	*p++ = '\n';
	sys3(SYS_write, 1, (long)buf, p - buf);
}

int main(long argc, char **argv)
{
	long total = 0;

	for (long i = 1; i < argc; i++) {
		if (argv[i][0] == 's') { /* "sleep" */
			long ts[2] = {1, 0};

			sys3(SYS_nanosleep, (long)ts, 0, 0);
		}
		total += parse(argv[i]);
	}
	for (int i = 0; i < 100; i++)
		total += i % 7;
	emit(total);
	return 0;
}
