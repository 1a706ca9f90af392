/*
 * writer_out.c - the writer's chunk output: compression, checksums, the
 * write itself and the chunk index for the footer.
 *
 * Encoding records (writer.c) and compressing them are independent once a
 * chunk is complete, so with `async` a second thread compresses and writes
 * chunk N while the caller encodes chunk N+1: a collector that produces
 * records as fast as one core can encode them then no longer also pays
 * for zstd.  One chunk is in flight at most (double buffering), which
 * bounds memory and keeps errors close to the call that caused them.
 * Output is byte-identical in both modes.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/uio.h>
#include <unistd.h>
#include <zstd.h>

#include "internal.h"

struct chunk_async {
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int pending;	/* a job is queued or being written */
	int quit;
	struct chunk_job job;
	uint8_t *spare;	/* the raw buffer the caller is not filling */
	size_t spare_cap;
	/* Counters as of the last finished job, for chunk_out_counts(). */
	uint64_t chunks, raw_bytes, file_bytes;
};

/* out_err - the sticky error, with errno restored when it is an I/O error
 * (which may have happened on the output thread, whose errno is its own). */
static int out_err(const struct chunk_out *o)
{
	if (o->err == -ITRACE_E_IO)
		errno = o->err_errno;
	return o->err;
}

/* write_all - write every byte of the iovecs, retrying short writes. */
static int write_all(struct chunk_out *o, struct iovec *iov, int iovcnt)
{
	while (iovcnt > 0) {
		ssize_t n = writev(o->fd, iov, iovcnt);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			o->err_errno = errno;
			return o->err = -ITRACE_E_IO;
		}
		o->file_bytes += (uint64_t)n;
		while (iovcnt > 0 && (size_t)n >= iov->iov_len) {
			n -= (ssize_t)iov->iov_len;
			iov++;
			iovcnt--;
		}
		if (iovcnt > 0) {
			iov->iov_base = (uint8_t *)iov->iov_base + n;
			iov->iov_len -= (size_t)n;
		}
	}
	return 0;
}

/* index_append - the footer's entry for a chunk written at `offset`. */
static int index_append(struct chunk_out *o, uint64_t offset, uint64_t first_insn)
{
	if (o->index_len == o->index_cap) {
		size_t cap = o->index_cap ? o->index_cap * 2 : 64;
		struct chunk_index_entry *n = realloc(o->index, cap * sizeof(*n));

		if (!n)
			return o->err = -ITRACE_E_NOMEM;
		o->index = n;
		o->index_cap = cap;
	}
	o->index[o->index_len].offset = offset;
	o->index[o->index_len].first_insn = first_insn;
	o->index_len++;
	return 0;
}

/* compress - zstd the payload; falls back to storing it raw. */
static const uint8_t *compress(struct chunk_out *o, const struct chunk_job *j, size_t *len,
			       uint8_t *comp)
{
	size_t bound, n;

	*comp = ITRACE_COMP_NONE_DISK;
	*len = j->raw_len;
	if (!o->cctx)
		return j->raw;
	bound = ZSTD_compressBound(j->raw_len);
	if (bound > o->zcap) {
		uint8_t *z = realloc(o->zbuf, bound);

		if (!z)
			return j->raw;
		o->zbuf = z;
		o->zcap = bound;
	}
	n = ZSTD_compressCCtx(o->cctx, o->zbuf, o->zcap, j->raw, j->raw_len, o->zstd_level);
	if (ZSTD_isError(n) || n >= j->raw_len)
		return j->raw;
	*comp = ITRACE_COMP_ZSTD_DISK;
	*len = n;
	return o->zbuf;
}

/* capture - append a finished chunk to the segment being encoded. */
static int capture(struct chunk_out *o, const struct chunk_job *j, const struct iovec *iov)
{
	struct writer_segment *s = o->capture;
	size_t n = iov[0].iov_len + iov[1].iov_len;
	struct segment_chunk *c;

	if (itrace_reserve((void **)&s->data, &s->cap, s->len + n, 1) < 0 ||
	    itrace_reserve((void **)&s->chunks, &s->capchunks, s->nchunks + 1, sizeof(*s->chunks)) < 0)
		return o->err = -ITRACE_E_NOMEM;
	c = &s->chunks[s->nchunks++];
	c->offset = s->len;
	c->first_insn = j->first_insn;
	c->inherits_thread = j->inherits_thread;
	memcpy(s->data + s->len, iov[0].iov_base, iov[0].iov_len);
	memcpy(s->data + s->len + iov[0].iov_len, iov[1].iov_base, iov[1].iov_len);
	s->len += n;
	return 0;
}

/* emit - compress, checksum and write one chunk (format/ITRACE.md). */
static int emit(struct chunk_out *o, const struct chunk_job *j)
{
	uint8_t h[ITRACE_CHUNK_HEADER_SIZE] = { 0 };
	struct iovec iov[2];
	const uint8_t *payload;
	size_t plen;
	uint8_t comp;

	if (o->err)
		return out_err(o);
	payload = compress(o, j, &plen, &comp);
	memcpy(h, ITRACE_CHUNK_MAGIC, 4);
	put_le32(h + 4, ITRACE_CHUNK_HEADER_SIZE);
	put_le64(h + 8, j->seq);
	put_le32(h + 16, j->records);
	put_le32(h + 20, (uint32_t)plen);
	put_le32(h + 24, (uint32_t)j->raw_len);
	h[28] = comp;
	put_le32(h + 32, itrace_crc32c(0, payload, plen));
	put_le32(h + 36, j->tid);
	put_le32(h + 40, j->pid);
	put_le64(h + 48, j->time);
	put_le64(h + 56, j->first_insn);
	put_le32(h + 64, (uint32_t)j->first_branch);
	put_le32(h + 68, itrace_crc32c(0, h, 68));
	iov[0].iov_base = h;
	iov[0].iov_len = sizeof(h);
	iov[1].iov_base = (void *)payload;
	iov[1].iov_len = plen;
	if (o->capture) {
		if (capture(o, j, iov) < 0)
			return o->err;
	} else if (index_append(o, o->offset, j->first_insn) < 0 || write_all(o, iov, 2) < 0) {
		return out_err(o);
	}
	o->raw_bytes += j->raw_len;
	o->chunks++;
	o->offset += sizeof(h) + plen;
	return 0;
}

/* snapshot_counts - what chunk_out_counts() reports; a->mu held (or no thread yet). */
static void snapshot_counts(struct chunk_async *a, const struct chunk_out *o)
{
	a->chunks = o->chunks;
	a->raw_bytes = o->raw_bytes;
	a->file_bytes = o->file_bytes;
}

/* publish_counts - after a write by the caller's thread, with none pending. */
static void publish_counts(struct chunk_out *o)
{
	if (!o->async)
		return;
	pthread_mutex_lock(&o->async->mu);
	snapshot_counts(o->async, o);
	pthread_mutex_unlock(&o->async->mu);
}

static void *output_thread(void *arg)
{
	struct chunk_out *o = arg;
	struct chunk_async *a = o->async;

	pthread_mutex_lock(&a->mu);
	for (;;) {
		while (!a->pending && !a->quit)
			pthread_cond_wait(&a->cv, &a->mu);
		if (!a->pending)
			break;
		pthread_mutex_unlock(&a->mu);
		emit(o, &a->job);
		pthread_mutex_lock(&a->mu);
		snapshot_counts(a, o);
		a->pending = 0;
		pthread_cond_broadcast(&a->cv);
	}
	pthread_mutex_unlock(&a->mu);
	return NULL;
}

/*
 * start_async - the output thread, with every signal blocked so that the
 * caller's handlers keep running (and interrupting) on the caller's thread.
 * Failing to start it is not an error: output stays synchronous.
 */
static void start_async(struct chunk_out *o)
{
	struct chunk_async *a = calloc(1, sizeof(*a));
	sigset_t all, old;
	int rc;

	if (!a)
		return;
	pthread_mutex_init(&a->mu, NULL);
	pthread_cond_init(&a->cv, NULL);
	snapshot_counts(a, o);
	o->async = a;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	rc = pthread_create(&a->thread, NULL, output_thread, o);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc != 0) {
		o->async = NULL;
		pthread_mutex_destroy(&a->mu);
		pthread_cond_destroy(&a->cv);
		free(a);
	}
}

int chunk_out_init(struct chunk_out *o, int fd, int zstd, int zstd_level, int async)
{
	memset(o, 0, sizeof(*o));
	o->fd = fd;
	o->zstd_level = zstd_level;
	o->want_async = async;
	if (zstd) {
		o->cctx = ZSTD_createCCtx();
		if (!o->cctx)
			return -ITRACE_E_NOMEM;
	}
	return 0;
}

int chunk_out_wait(struct chunk_out *o)
{
	struct chunk_async *a = o->async;

	if (a) {
		pthread_mutex_lock(&a->mu);
		while (a->pending)
			pthread_cond_wait(&a->cv, &a->mu);
		pthread_mutex_unlock(&a->mu);
	}
	return out_err(o);
}

int chunk_out_submit(struct chunk_out *o, const struct chunk_job *j, uint8_t **raw, size_t *raw_cap)
{
	struct chunk_async *a;
	int rc;

	if (!o->async && o->want_async) {
		o->want_async = 0;
		start_async(o);
	}
	a = o->async;
	if (!a)
		return emit(o, j);
	if ((rc = chunk_out_wait(o)) < 0)
		return rc;
	if (!a->spare) {
		/* First job: the spare buffer is made as large as the caller's. */
		a->spare = malloc(*raw_cap);
		if (!a->spare)
			return emit(o, j);
		a->spare_cap = *raw_cap;
	}
	pthread_mutex_lock(&a->mu);
	a->job = *j;
	a->job.raw = *raw;
	*raw = a->spare;
	a->spare = (uint8_t *)a->job.raw;
	{
		size_t cap = *raw_cap;

		*raw_cap = a->spare_cap;
		a->spare_cap = cap;
	}
	a->pending = 1;
	pthread_cond_broadcast(&a->cv);
	pthread_mutex_unlock(&a->mu);
	return 0;
}

int chunk_out_write(struct chunk_out *o, const void *buf, size_t len)
{
	struct iovec iov;
	int rc;

	if ((rc = chunk_out_wait(o)) < 0)
		return rc;
	iov.iov_base = (void *)buf;
	iov.iov_len = len;
	if (write_all(o, &iov, 1) < 0)
		return out_err(o);
	o->offset += len;
	publish_counts(o);
	return 0;
}

int chunk_out_splice(struct chunk_out *o, struct writer_segment *s, const struct segment_base *base)
{
	struct iovec iov;
	int rc;

	if ((rc = chunk_out_wait(o)) < 0)
		return rc;
	for (size_t i = 0; i < s->nchunks; i++) {
		const struct segment_chunk *c = &s->chunks[i];
		uint8_t *h = s->data + c->offset;

		put_le64(h + 8, base->seq + i);
		if (c->inherits_thread) {
			put_le32(h + 36, base->tid);
			put_le32(h + 40, base->pid);
		}
		put_le64(h + 56, base->insns + c->first_insn);
		put_le32(h + 64, (uint32_t)(base->branches + get_le32(h + 64)));
		put_le32(h + 68, itrace_crc32c(0, h, 68));
		if (index_append(o, o->offset + c->offset, base->insns + c->first_insn) < 0)
			return o->err;
	}
	iov.iov_base = s->data;
	iov.iov_len = s->len;
	if (write_all(o, &iov, 1) < 0)
		return out_err(o);
	o->offset += s->len;
	o->chunks += s->nchunks;
	o->raw_bytes += s->raw_bytes;
	publish_counts(o);
	return 0;
}

void chunk_out_counts(const struct chunk_out *o, uint64_t *chunks, uint64_t *raw_bytes,
		      uint64_t *file_bytes)
{
	struct chunk_async *a = o->async;

	if (!a) {
		*chunks = o->chunks;
		*raw_bytes = o->raw_bytes;
		*file_bytes = o->file_bytes;
		return;
	}
	pthread_mutex_lock(&a->mu);
	*chunks = a->chunks;
	*raw_bytes = a->raw_bytes;
	*file_bytes = a->file_bytes;
	pthread_mutex_unlock(&a->mu);
}

void chunk_out_fini(struct chunk_out *o)
{
	struct chunk_async *a = o->async;

	if (a) {
		pthread_mutex_lock(&a->mu);
		a->quit = 1;
		pthread_cond_broadcast(&a->cv);
		pthread_mutex_unlock(&a->mu);
		pthread_join(a->thread, NULL);
		pthread_mutex_destroy(&a->mu);
		pthread_cond_destroy(&a->cv);
		free(a->spare);
		free(a);
		o->async = NULL;
	}
	ZSTD_freeCCtx(o->cctx);
	o->cctx = NULL;
	free(o->zbuf);
	o->zbuf = NULL;
	free(o->index);
	o->index = NULL;
}
