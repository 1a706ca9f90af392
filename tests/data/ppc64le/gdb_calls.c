/*
 * gdb_calls.c - a static ppc64le C program for the gdb backend tests:
 * traced with --start work, so only work() and what it calls is stepped.
 * work(6) calls square() six times, takes the `i % 3 == 0` branch for
 * i = 0 and 3, stores every square into data[] and returns 5.
 */
int data[16];

__attribute__((noinline)) int square(int x)
{
	return x * x;
}

__attribute__((noinline)) int work(int n)
{
	int sum = 0;

	for (int i = 0; i < n; i++) {
		data[i & 15] = square(i);
		if (i % 3 == 0)
			sum += data[i & 15];
		else
			sum -= 1;
	}
	return sum;
}

int main(int argc, char **argv)
{
	(void)argv;
	return work(argc + 5) & 0x7f;
}
