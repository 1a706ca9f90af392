/*
 * rsp.h - client side of the gdb remote serial protocol (RSP) over TCP.
 *
 * Packets are "$data#cs" with a modulo-256 checksum, acknowledged with
 * '+' (or '-' to ask for a resend) until both sides agree on
 * QStartNoAckMode.  Replies may be run-length encoded ("x*n") and escape
 * '#', '$', '}' and '*' as '}' + (byte ^ 0x20); rsp_command() hands back
 * the decoded data.  See the gdb manual, "Remote Protocol".
 */
#ifndef ITRACE_GDB_RSP_H
#define ITRACE_GDB_RSP_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

struct rsp;

/*
 * rsp_connect - connect to HOST:PORT, retrying for `wait_ms` milliseconds
 * while the stub is not listening yet (a just-started qemu).  Returns 0
 * with *rp set, or -1 with a message in err.
 */
int rsp_connect(const char *hostport, int wait_ms, struct rsp **rp, char *err, size_t errlen);

/*
 * rsp_open_mem - a connection whose stub sends `bytes` (kept by the caller
 * until rsp_close) and then closes; what we send is dropped.  For the fuzz
 * target of the protocol code (tests/fuzz/fuzz_gdb_stub.c).
 */
struct rsp *rsp_open_mem(const void *bytes, size_t len);

/* rsp_close - close the connection and free; NULL is a no-op. */
void rsp_close(struct rsp *r);

/*
 * rsp_command - send packet `cmd` and wait for its reply (console output
 * 'O' packets are skipped).  Returns the reply, NUL-terminated, owned by
 * `r` and valid until the next call; its length in *len if len is set.
 * NULL when the connection fails or times out (rsp_error() says why).
 */
const char *rsp_command(struct rsp *r, const char *cmd, size_t *len);

/* rsp_send - send a packet without waiting for a reply (e.g. "k"). */
int rsp_send(struct rsp *r, const char *cmd);

/*
 * rsp_start_noack - negotiate qSupported (keeping the stub's feature list
 * for rsp_supports) and QStartNoAckMode if offered.  Returns 0 or -1.
 */
int rsp_start_noack(struct rsp *r);

/* rsp_supports - whether qSupported listed `feature` with '+' (or '='). */
int rsp_supports(const struct rsp *r, const char *feature);

/*
 * rsp_xfer_read - read a whole qXfer object ("features", "target.xml")
 * in pieces.  Returns a malloc'd NUL-terminated buffer (length in *len),
 * or NULL if the stub does not have it or the connection fails.
 */
char *rsp_xfer_read(struct rsp *r, const char *object, const char *annex, size_t *len);

/*
 * rsp_read_memory - read `len` bytes at `addr` with 'm' packets.  Returns
 * the number of bytes read (less at an unreadable page), or -1 if the
 * connection fails.
 */
long rsp_read_memory(struct rsp *r, uint64_t addr, uint8_t *buf, size_t len);

/* rsp_error - the last connection error ("" if none). */
const char *rsp_error(const struct rsp *r);

/*
 * rsp_set_interrupt - while waiting for a reply, a non-zero *flag (set by
 * a signal handler, the wait returning EINTR) makes the client send the
 * break byte 0x03 once, so that a running target stops and answers.
 */
void rsp_set_interrupt(struct rsp *r, volatile sig_atomic_t *flag);

/*
 * rsp_set_timeout - reply timeout in milliseconds for the next commands:
 * -1 waits forever (a target running freely), 0 restores the default
 * (30000, or $ITRACE_RSP_TIMEOUT_MS).  Each command has one deadline,
 * however the stub spreads its bytes, and a stub that sends more than
 * 64 KiB that is not a packet while we wait, a reply above 1 MiB or a
 * qXfer object above 4 MiB gets an error (rsp_error) instead of memory.
 */
void rsp_set_timeout(struct rsp *r, int ms);

/* hex helpers shared with the backend */
int rsp_hex_value(int c);
/* rsp_hex_decode - decode 2*n hex digits into n bytes; -1 on a bad digit. */
int rsp_hex_decode(const char *hex, uint8_t *out, size_t n);

#endif
