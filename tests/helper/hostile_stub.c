/*
 * hostile_stub - a gdb stub that misbehaves, for tests/e2e/fault_gdb.sh.
 * It listens on 127.0.0.1 at a free port, prints the port on stdout, takes
 * one connection and answers every packet the way MODE says:
 *
 *   silence    reads, never answers
 *   noise      sends bytes that are never a packet, as fast as it can
 *   trickle    sends one such byte every 200 ms (a per-byte timeout
 *              would never expire)
 *   oversize   answers with a 2 MiB packet
 *   badsum     answers with packets whose checksum is wrong
 *   xfer       offers qXfer:features:read and sends an endless object
 *
 * It exits when the client goes away, or after 60 s whatever happens.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static int fd = -1;

static void put(const char *s, size_t n)
{
	while (n > 0) {
		ssize_t k = send(fd, s, n, MSG_NOSIGNAL);

		if (k <= 0)
			exit(0); /* the client went away */
		s += k;
		n -= (size_t)k;
	}
}

/* packet - "$data#cs" with a correct checksum unless `bad`. */
static void packet(const char *data, size_t n, int bad)
{
	unsigned sum = 0;
	char tail[4];

	for (size_t i = 0; i < n; i++)
		sum += (unsigned char)data[i];
	snprintf(tail, sizeof(tail), "#%02x", (sum + (bad ? 1 : 0)) & 0xff);
	put("$", 1);
	put(data, n);
	put(tail, 3);
}

/* next_packet - read up to the end of the next packet into buf (its data). */
static int next_packet(char *buf, size_t cap)
{
	size_t n = 0;
	int in = 0;
	char c;

	for (;;) {
		if (recv(fd, &c, 1, 0) != 1)
			return -1;
		if (!in) {
			in = c == '$';
			continue;
		}
		if (c == '#') {
			char cs[2];

			if (recv(fd, cs, 2, MSG_WAITALL) != 2)
				return -1;
			buf[n] = '\0';
			return 0;
		}
		if (n + 1 < cap)
			buf[n++] = c;
	}
}

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

static void serve(const char *mode)
{
	static char big[2u << 20];
	char pkt[4096];

	if (strcmp(mode, "silence") == 0) {
		while (recv(fd, pkt, sizeof(pkt), 0) > 0)
			;
		return;
	}
	if (strcmp(mode, "noise") == 0) {
		memset(pkt, 'x', sizeof(pkt));
		for (;;)
			put(pkt, sizeof(pkt));
	}
	if (strcmp(mode, "trickle") == 0) {
		for (;;) {
			put("x", 1);
			sleep_ms(200);
		}
	}
	while (next_packet(pkt, sizeof(pkt)) == 0) {
		put("+", 1);
		if (strcmp(mode, "oversize") == 0) {
			memset(big, 'a', sizeof(big));
			packet(big, sizeof(big), 0);
		} else if (strcmp(mode, "badsum") == 0) {
			packet("OK", 2, 1);
		} else if (strcmp(mode, "xfer") == 0) {
			if (strncmp(pkt, "qSupported", 10) == 0) {
				const char *f = "PacketSize=1000;qXfer:features:read+";

				packet(f, strlen(f), 0);
			} else if (strcmp(pkt, "?") == 0) {
				packet("S05", 3, 0); /* stopped: go on to the description */
			} else if (strncmp(pkt, "qXfer:", 6) == 0) {
				memset(big, 'a', 3000);
				big[0] = 'm'; /* more follows, always */
				packet(big, 3000, 0);
			} else {
				packet("", 0, 0);
			}
		} else {
			fprintf(stderr, "hostile_stub: unknown mode '%s'\n", mode);
			exit(2);
		}
	}
}

int main(int argc, char **argv)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t len = sizeof(a);
	int ls, one = 1;

	if (argc != 2) {
		fprintf(stderr, "usage: hostile_stub MODE\n");
		return 2;
	}
	alarm(60); /* never outlive a test */
	signal(SIGPIPE, SIG_IGN);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ls = socket(AF_INET, SOCK_STREAM, 0);
	setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (ls < 0 || bind(ls, (struct sockaddr *)&a, sizeof(a)) != 0 || listen(ls, 1) != 0 ||
	    getsockname(ls, (struct sockaddr *)&a, &len) != 0) {
		perror("hostile_stub");
		return 1;
	}
	printf("%d\n", ntohs(a.sin_port));
	fflush(stdout);
	fd = accept(ls, NULL, NULL);
	if (fd < 0)
		return 1;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)); /* as gdbserver */
	serve(argv[1]);
	return 0;
}
