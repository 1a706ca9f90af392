// real_throw.cc - an exception thrown three calls deep, caught in main;
// a second one thrown and caught inside a destructor-running frame.
#include <cstdio>
#include <stdexcept>
#include <string>

struct Guard {
	int *count;
	explicit Guard(int *c) : count(c) {}
	~Guard() { ++*count; }
};

static int unwound;

__attribute__((noinline)) static int level3(int n)
{
	Guard g(&unwound);
	if (n > 2)
		throw std::runtime_error("too deep: " + std::to_string(n));
	return n;
}

__attribute__((noinline)) static int level2(int n)
{
	Guard g(&unwound);
	return level3(n + 1) + 1;
}

__attribute__((noinline)) static int level1(int n)
{
	Guard g(&unwound);
	return level2(n + 1) + 1;
}

int main()
{
	int caught = 0;

	for (int i = 0; i < 3; i++) {
		try {
			std::printf("level1(%d) = %d\n", i, level1(i));
		} catch (const std::exception &e) {
			std::printf("caught: %s\n", e.what());
			caught++;
		}
	}
	std::printf("caught %d, destructors %d\n", caught, unwound);
	return caught == 2 && unwound == 9 ? 0 : 1;
}
