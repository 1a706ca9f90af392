/*
 * A read() on a pipe that SIGCHLD interrupts and the kernel restarts
 * (SA_RESTART): child 1 exits while the parent is blocked in read(),
 * child 2 writes to the pipe later.  Child 2 then waits for the parent to
 * close `go`, after SIGCHLD is blocked, so that no second SIGCHLD lands
 * anywhere but where the program says and every run is the same.
 * Exit status 0 when the read got the two bytes after one handler run.
 * With the argument "default", SIGCHLD keeps its default action (ignored):
 * the kernel restarts the read without the program seeing it.
 */
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t chld;

static void on_chld(int signo)
{
	(void)signo;
	chld++;
}

static void pause_ms(long ms)
{
	struct timespec t = {ms / 1000, ms % 1000 * 1000000L};

	while (nanosleep(&t, &t) != 0)
		;
}

int main(int argc, char **argv)
{
	struct sigaction sa;
	sigset_t chld_set;
	int data[2], go[2];
	char buf[8];
	ssize_t n;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_chld;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	int by_default = argc > 1 && strcmp(argv[1], "default") == 0;

	if ((!by_default && sigaction(SIGCHLD, &sa, NULL) < 0) || pipe(data) < 0 || pipe(go) < 0)
		return 2;
	if (fork() == 0) {
		pause_ms(200); /* the parent is in read() by then, even under Valgrind */
		_exit(0);
	}
	if (fork() == 0) {
		close(go[1]);
		pause_ms(600);
		if (write(data[1], "hi", 2) != 2)
			_exit(1);
		_exit(read(go[0], buf, 1) == 0 ? 0 : 1); /* until the parent closes go */
	}
	close(data[1]);
	close(go[0]);
	n = read(data[0], buf, sizeof(buf));
	sigemptyset(&chld_set);
	sigaddset(&chld_set, SIGCHLD);
	sigprocmask(SIG_BLOCK, &chld_set, NULL);
	close(go[1]);
	while (wait(NULL) > 0)
		;
	return n == 2 && chld == !by_default ? 0 : 1;
}
