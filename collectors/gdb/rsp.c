/*
 * rsp.c - gdb remote serial protocol client (see rsp.h).
 */
#include "rsp.h"

#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

/*
 * Limits on what a stub can make us wait for or hold: a reply of at most
 * RSP_MAX_PACKET decoded bytes, a qXfer object of at most RSP_MAX_XFER,
 * at most RSP_MAX_NOISE bytes outside packets while waiting for one, and
 * one deadline for each command (the reply timeout, not per byte: a stub
 * that trickles bytes does not keep us waiting longer).
 */
#define RSP_MAX_PACKET (1u << 20)
#define RSP_MAX_XFER (4u << 20)
#define RSP_MAX_NOISE (64u << 10)
#define RSP_DEFAULT_PACKET 4096
#define RSP_DEFAULT_TIMEOUT_MS 30000
#define RSP_RETRIES 3
#define RSP_IN_BYTES 65536

struct rsp {
	int fd;
	int noack;
	int timeout_ms;	     /* for the current command; < 0: none */
	int default_timeout_ms; /* RSP_DEFAULT_TIMEOUT_MS or $ITRACE_RSP_TIMEOUT_MS */
	int64_t deadline;    /* ms (CLOCK_MONOTONIC) the reply is due, 0: none */
	size_t noise;	     /* bytes outside packets since the command */
	size_t packet_size;  /* stub's PacketSize */
	volatile sig_atomic_t *interrupt; /* see rsp_set_interrupt */
	int break_sent;
	int debug;	     /* ITRACE_RSP_DEBUG set: log packets on stderr */
	char *features;      /* qSupported reply */
	uint8_t *in;	     /* receive buffer (RSP_IN_BYTES; none in memory mode) */
	size_t in_pos, in_len;
	const uint8_t *mem;  /* rsp_open_mem: the stub's bytes, else NULL */
	size_t mem_len, mem_pos;
	char *reply;	     /* decoded reply */
	size_t reply_cap;
	char *out;	     /* framed packet being sent */
	size_t out_cap;
	char error[256];
};

static void set_err(struct rsp *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void set_err(struct rsp *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->error, sizeof(r->error), fmt, ap);
	va_end(ap);
}

const char *rsp_error(const struct rsp *r)
{
	return r->error;
}

void rsp_set_interrupt(struct rsp *r, volatile sig_atomic_t *flag)
{
	r->interrupt = flag;
}

void rsp_set_timeout(struct rsp *r, int ms)
{
	r->timeout_ms = ms ? ms : r->default_timeout_ms;
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* begin_wait - a command starts: its reply is due within the timeout. */
static void begin_wait(struct rsp *r)
{
	r->deadline = r->timeout_ms < 0 ? 0 : now_ms() + r->timeout_ms;
	r->noise = 0;
	r->error[0] = '\0';
}

/* wait_ms - how long poll may wait now (-1: forever). */
static int wait_ms(const struct rsp *r)
{
	int64_t left;

	if (!r->deadline)
		return -1;
	left = r->deadline - now_ms();
	return left < 0 ? 0 : left > INT32_MAX ? INT32_MAX : (int)left;
}

/* noise - one more byte that is not part of a packet; -1 past the limit. */
static int noise(struct rsp *r)
{
	if (++r->noise <= RSP_MAX_NOISE)
		return 0;
	set_err(r, "the gdb stub sent over %u bytes that are not packets", RSP_MAX_NOISE);
	return -1;
}

int rsp_hex_value(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int rsp_hex_decode(const char *hex, uint8_t *out, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		int hi = rsp_hex_value((unsigned char)hex[2 * i]);
		int lo = hi < 0 ? -1 : rsp_hex_value((unsigned char)hex[2 * i + 1]);

		if (lo < 0)
			return -1;
		out[i] = (uint8_t)(hi << 4 | lo);
	}
	return 0;
}

/* ---- Connection ---------------------------------------------------------- */

static int split_hostport(const char *hostport, char *host, size_t hostlen, const char **port)
{
	const char *colon = strrchr(hostport, ':');
	size_t n;

	if (!colon || colon[1] == '\0')
		return -1;
	n = (size_t)(colon - hostport);
	if (n == 0) {
		snprintf(host, hostlen, "localhost");
	} else {
		if (hostport[0] == '[' && n >= 2 && hostport[n - 1] == ']') {
			hostport++; /* [::1]:1234 */
			n -= 2;
		}
		if (n >= hostlen)
			return -1;
		memcpy(host, hostport, n);
		host[n] = '\0';
	}
	*port = colon + 1;
	return 0;
}

static int try_connect(const struct addrinfo *ai)
{
	for (; ai; ai = ai->ai_next) {
		int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
		int one = 1;

		if (fd < 0)
			continue;
		if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0) {
			/* Small packets, one round trip per step: no Nagle delay. */
			setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
			return fd;
		}
		close(fd);
	}
	return -1;
}

static void sleep_ms(int ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};

	nanosleep(&ts, NULL);
}

int rsp_connect(const char *hostport, int wait_ms, struct rsp **rp, char *err, size_t errlen)
{
	struct addrinfo hints = {.ai_socktype = SOCK_STREAM}, *ai = NULL;
	char host[256];
	const char *port;
	struct rsp *r;
	int fd = -1, rc, waited = 0;

	*rp = NULL;
	if (split_hostport(hostport, host, sizeof(host), &port) < 0) {
		snprintf(err, errlen, "bad --remote '%s': expected HOST:PORT", hostport);
		return -1;
	}
	rc = getaddrinfo(host, port, &hints, &ai);
	if (rc != 0) {
		snprintf(err, errlen, "cannot resolve '%s': %s", hostport, gai_strerror(rc));
		return -1;
	}
	for (;;) {
		fd = try_connect(ai);
		if (fd >= 0 || waited >= wait_ms)
			break;
		sleep_ms(20);
		waited += 20;
	}
	freeaddrinfo(ai);
	if (fd < 0) {
		snprintf(err, errlen, "cannot connect to gdb stub at '%s': %s", hostport,
			 strerror(errno));
		return -1;
	}
	r = calloc(1, sizeof(*r));
	if (!r || !(r->in = malloc(RSP_IN_BYTES))) {
		free(r);
		close(fd);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	r->fd = fd;
	r->debug = getenv("ITRACE_RSP_DEBUG") != NULL;
	r->default_timeout_ms = RSP_DEFAULT_TIMEOUT_MS;
	if (getenv("ITRACE_RSP_TIMEOUT_MS") && atoi(getenv("ITRACE_RSP_TIMEOUT_MS")) > 0)
		r->default_timeout_ms = atoi(getenv("ITRACE_RSP_TIMEOUT_MS"));
	r->timeout_ms = r->default_timeout_ms;
	r->packet_size = RSP_DEFAULT_PACKET;
	*rp = r;
	return 0;
}

struct rsp *rsp_open_mem(const void *bytes, size_t len)
{
	struct rsp *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	r->fd = -1;
	r->mem = bytes;
	r->mem_len = len;
	r->default_timeout_ms = r->timeout_ms = RSP_DEFAULT_TIMEOUT_MS;
	r->packet_size = RSP_DEFAULT_PACKET;
	return r;
}

void rsp_close(struct rsp *r)
{
	if (!r)
		return;
	if (r->fd >= 0)
		close(r->fd);
	free(r->in);
	free(r->features);
	free(r->reply);
	free(r->out);
	free(r);
}

/* ---- Bytes in and out ---------------------------------------------------- */

static int write_all(struct rsp *r, const char *p, size_t n)
{
	if (r->mem)
		return 0; /* rsp_open_mem: nobody listens */
	while (n > 0) {
		ssize_t k = send(r->fd, p, n, MSG_NOSIGNAL);

		if (k < 0) {
			if (errno == EINTR)
				continue;
			set_err(r, "connection to the gdb stub lost: %s", strerror(errno));
			return -1;
		}
		p += k;
		n -= (size_t)k;
	}
	return 0;
}

/* get_byte - the next byte from the stub, or -1 on error/timeout/EOF. */
static int get_byte(struct rsp *r)
{
	if (r->mem) {
		if (r->mem_pos < r->mem_len)
			return r->mem[r->mem_pos++];
		set_err(r, "the gdb stub closed the connection");
		return -1;
	}
	if (r->in_pos == r->in_len) {
		struct pollfd pfd = {.fd = r->fd, .events = POLLIN};
		ssize_t k;
		int rc;

		for (;;) {
			/* After a break, give the stub a second: qemu-user
			 * does not read the connection while the target runs. */
			int ms = wait_ms(r);

			if (r->break_sent && (ms < 0 || ms > 1000))
				ms = 1000;
			rc = poll(&pfd, 1, ms);
			if (rc >= 0 || errno != EINTR)
				break;
			if (r->interrupt && *r->interrupt && !r->break_sent) {
				r->break_sent = 1; /* ^C for the stub: stop the target */
				send(r->fd, "\x03", 1, MSG_NOSIGNAL);
			}
		}
		if (rc == 0) {
			if (r->break_sent)
				set_err(r, "the target did not stop when interrupted");
			else
				set_err(r, "the gdb stub did not answer within %d ms%s", r->timeout_ms,
					r->noise ? " (it sent bytes that are not packets)" : "");
			return -1;
		}
		do
			k = recv(r->fd, r->in, RSP_IN_BYTES, 0);
		while (k < 0 && errno == EINTR);
		if (k <= 0) {
			set_err(r, "the gdb stub closed the connection%s%s", k < 0 ? ": " : "",
				k < 0 ? strerror(errno) : "");
			return -1;
		}
		r->in_pos = 0;
		r->in_len = (size_t)k;
	}
	return r->in[r->in_pos++];
}

static int reply_put(struct rsp *r, size_t *n, char c)
{
	if (*n + 2 > r->reply_cap) {
		size_t cap = r->reply_cap ? r->reply_cap * 2 : 4096;
		char *p;

		if (cap > RSP_MAX_PACKET) {
			set_err(r, "reply from the gdb stub longer than %u bytes", RSP_MAX_PACKET);
			return -1;
		}
		p = realloc(r->reply, cap);
		if (!p) {
			set_err(r, "out of memory");
			return -1;
		}
		r->reply = p;
		r->reply_cap = cap;
	}
	r->reply[(*n)++] = c;
	return 0;
}

/*
 * read_packet_body - after '$': decode up to '#', then read the checksum.
 * Returns 1 for a good packet, 0 for a bad checksum, -1 on error.
 */
static int read_packet_body(struct rsp *r, size_t *len)
{
	unsigned sum = 0;
	size_t n = 0;
	int c, hi, lo;

	while ((c = get_byte(r)) >= 0 && c != '#') {
		sum += (unsigned)c;
		if (c == '}') { /* escaped byte */
			int e = get_byte(r);

			if (e < 0)
				return -1;
			sum += (unsigned)e;
			c = e ^ 0x20;
		} else if (c == '*' && n > 0) { /* run length: repeat previous */
			int count = get_byte(r);

			if (count < 0)
				return -1;
			sum += (unsigned)count;
			for (int i = 0; i < count - 29; i++)
				if (reply_put(r, &n, r->reply[n - 1]) < 0)
					return -1;
			continue;
		}
		if (reply_put(r, &n, (char)c) < 0)
			return -1;
	}
	if (c < 0 || (hi = get_byte(r)) < 0 || (lo = get_byte(r)) < 0)
		return -1;
	if (reply_put(r, &n, '\0') < 0)
		return -1;
	*len = n - 1;
	return rsp_hex_value(hi) * 16 + rsp_hex_value(lo) == (int)(sum & 0xff);
}

/* read_packet - the next packet; acks it unless in no-ack mode. */
static int read_packet(struct rsp *r, size_t *len)
{
	for (int tries = 0; tries < RSP_RETRIES; tries++) {
		int c, good;

		while ((c = get_byte(r)) >= 0 && c != '$')
			if (noise(r) < 0) /* stray '+' acks and noise before the packet */
				return -1;
		if (c < 0)
			return -1;
		good = read_packet_body(r, len);
		if (good < 0)
			return -1;
		if (r->noack && good)
			return 0;
		if (!r->noack && write_all(r, good ? "+" : "-", 1) < 0)
			return -1;
		if (good)
			return 0;
	}
	set_err(r, "the gdb stub keeps sending packets with bad checksums");
	return -1;
}

/* frame - "$cmd#cs" in r->out. */
static int frame(struct rsp *r, const char *cmd, size_t *n)
{
	size_t len = strlen(cmd);
	unsigned sum = 0;

	if (len + 5 > r->out_cap) {
		char *p = realloc(r->out, len + 5);

		if (!p) {
			set_err(r, "out of memory");
			return -1;
		}
		r->out = p;
		r->out_cap = len + 5;
	}
	for (size_t i = 0; i < len; i++)
		sum += (unsigned char)cmd[i];
	r->out[0] = '$';
	memcpy(r->out + 1, cmd, len);
	snprintf(r->out + 1 + len, 4, "#%02x", sum & 0xff);
	*n = len + 4;
	return 0;
}

/* wait_ack - '+' accepted, '-' asks for the packet again. */
static int wait_ack(struct rsp *r)
{
	int c;

	while ((c = get_byte(r)) >= 0) {
		if (c == '+')
			return 1;
		if (c == '-')
			return 0;
		if (noise(r) < 0)
			return -1;
	}
	return -1;
}

int rsp_send(struct rsp *r, const char *cmd)
{
	size_t n;

	if (frame(r, cmd, &n) < 0)
		return -1;
	begin_wait(r);
	if (r->debug)
		fprintf(stderr, "rsp -> %.200s\n", cmd);
	for (int tries = 0; tries < RSP_RETRIES; tries++) {
		int ack;

		if (write_all(r, r->out, n) < 0)
			return -1;
		if (r->noack)
			return 0;
		ack = wait_ack(r);
		if (ack != 0)
			return ack < 0 ? -1 : 0;
	}
	set_err(r, "the gdb stub keeps rejecting packet '%.20s'", cmd);
	return -1;
}

const char *rsp_command(struct rsp *r, const char *cmd, size_t *len)
{
	size_t n = 0;

	if (rsp_send(r, cmd) < 0)
		return NULL;
	do {
		if (read_packet(r, &n) < 0)
			return NULL;
		/* 'O' + hex is console output of the target; "OK" is a reply. */
	} while (r->reply[0] == 'O' && n > 1 && strcmp(r->reply, "OK") != 0 &&
		 rsp_hex_value((unsigned char)r->reply[1]) >= 0);
	if (r->debug)
		fprintf(stderr, "rsp <- %.200s\n", r->reply);
	if (len)
		*len = n;
	return r->reply;
}

/* ---- Features ------------------------------------------------------------ */

int rsp_start_noack(struct rsp *r)
{
	const char *reply = rsp_command(r, "qSupported:multiprocess+;swbreak+;hwbreak+;"
					   "xmlRegisters=i386,powerpc", NULL);
	const char *ps;

	if (!reply)
		return -1;
	free(r->features);
	r->features = strdup(reply);
	if (!r->features) {
		set_err(r, "out of memory");
		return -1;
	}
	ps = strstr(r->features, "PacketSize=");
	if (ps) {
		size_t v = strtoul(ps + 11, NULL, 16);

		if (v >= 64 && v <= RSP_MAX_PACKET)
			r->packet_size = v;
	}
	if (rsp_supports(r, "QStartNoAckMode")) {
		reply = rsp_command(r, "QStartNoAckMode", NULL);
		if (!reply)
			return -1;
		if (strcmp(reply, "OK") == 0)
			r->noack = 1;
	}
	return 0;
}

int rsp_supports(const struct rsp *r, const char *feature)
{
	size_t n = strlen(feature);
	const char *p = r->features;

	while (p && *p) {
		if (strncmp(p, feature, n) == 0 && (p[n] == '+' || p[n] == '='))
			return 1;
		p = strchr(p, ';');
		if (p)
			p++;
	}
	return 0;
}

char *rsp_xfer_read(struct rsp *r, const char *object, const char *annex, size_t *len)
{
	size_t chunk = r->packet_size > 64 ? r->packet_size - 32 : 64;
	size_t have = 0, cap = 0;
	char *buf = NULL, *p;
	char cmd[512];

	for (;;) {
		const char *reply;
		size_t n;

		snprintf(cmd, sizeof(cmd), "qXfer:%s:read:%s:%zx,%zx", object, annex, have, chunk);
		reply = rsp_command(r, cmd, &n);
		if (!reply || (reply[0] != 'm' && reply[0] != 'l')) {
			free(buf);
			return NULL;
		}
		if (have + n + 1 > cap) {
			cap = 2 * (have + n + 1);
			p = realloc(buf, cap);
			if (!p) {
				free(buf);
				return NULL;
			}
			buf = p;
		}
		if (have + n > RSP_MAX_XFER) {
			set_err(r, "the gdb stub's %s object is larger than %u bytes", object,
				RSP_MAX_XFER);
			free(buf);
			return NULL;
		}
		memcpy(buf + have, reply + 1, n - 1);
		have += n - 1;
		buf[have] = '\0';
		if (reply[0] == 'l' || n <= 1)
			break;
	}
	if (len)
		*len = have;
	return buf;
}

long rsp_read_memory(struct rsp *r, uint64_t addr, uint8_t *buf, size_t len)
{
	size_t max = (r->packet_size - 8) / 2, done = 0;
	char cmd[64];

	while (done < len) {
		size_t want = len - done < max ? len - done : max, n;
		const char *reply;

		snprintf(cmd, sizeof(cmd), "m%llx,%zx", (unsigned long long)(addr + done), want);
		reply = rsp_command(r, cmd, &n);
		if (!reply)
			return -1;
		if ((reply[0] == 'E' && n == 3) || n == 0 || n % 2)
			break; /* unreadable from here on */
		if (n / 2 < want)
			want = n / 2;
		if (rsp_hex_decode(reply, buf + done, want) < 0)
			break;
		done += want;
	}
	return (long)done;
}
