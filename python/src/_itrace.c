/*
 * _itrace.c - the C half of the Python package `itrace` (python/README.md):
 * traces read through libitrace (reader/itrace.h), filled, symbolised and
 * analysed through libitrace-code (code/itrace_code.h).
 *
 * What is fast is done here, in C, so that Python sees only what it asked
 * for:
 *   - records one at a time (Record, reused while nobody else holds it,
 *     as CPython's zip() reuses its tuple), filtered by type, thread,
 *     branch kind and address range before Python sees them (Filter);
 *   - batches of columns (Column: a typed buffer, buffer protocol) filled
 *     straight from the decoded records, and the same batches through the
 *     Arrow C stream interface (arrow_stream.h) for pyarrow and polars;
 *   - the analysis tables itrace-sqlite writes (itrace_analysis_run).
 * The Python half (python/itrace/) adds the decorators of handlers and
 * the command line.  Nothing here depends on NumPy at build time: columns
 * become NumPy arrays through numpy.frombuffer when NumPy imports.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "itrace_code.h"

#include "batch.h"

/* ---- errors ----------------------------------------------------------- */

static PyObject *ItraceError;
static PyObject *IncompleteWarning;

/*
 * raise_code - the Python exception for libitrace status `code`: OSError
 * with errno for I/O (the library keeps errno), itrace.Error otherwise,
 * whose message is the library's text and, when known, the reader's
 * description with its offset ("chunk 3 at offset 4096: ...").
 */
static void *raise_code(int code, const char *detail, PyObject *filename)
{
	if (code == -ITRACE_E_IO) {
		if (errno == 0)
			errno = EIO;
		return PyErr_SetFromErrnoWithFilenameObject(PyExc_OSError, filename);
	}
	if (code == -ITRACE_E_NOMEM)
		return PyErr_NoMemory();
	PyObject *msg;
	if (detail && *detail)
		msg = PyUnicode_FromFormat("%s: %s", itrace_errstr(code), detail); /* as the tools say it */
	else
		msg = PyUnicode_FromString(itrace_errstr(code));
	if (!msg)
		return NULL;
	PyObject *exc = PyObject_CallOneArg(ItraceError, msg);
	Py_DECREF(msg);
	if (!exc)
		return NULL;
	PyObject *c = PyLong_FromLong(code < 0 ? -code : code);
	PyObject *d = PyUnicode_FromString(detail ? detail : "");
	PyObject *rs = PyUnicode_FromString(itrace_errstr(code));
	if (c && d && rs) {
		PyObject_SetAttrString(exc, "code", c);
		PyObject_SetAttrString(exc, "detail", d);
		PyObject_SetAttrString(exc, "reason", rs);
	}
	Py_XDECREF(c);
	Py_XDECREF(d);
	Py_XDECREF(rs);
	PyErr_SetObject(ItraceError, exc);
	Py_DECREF(exc);
	return NULL;
}

/* ---- names ------------------------------------------------------------ */

/* Interned names of record types (itrace_rec_type_name: what itrace-dump
 * prints) and branch kinds, made once at import. */
static PyObject *type_names[128];
static PyObject *kind_names[16];

static int type_by_name(PyObject *name)
{
	for (int t = 0; t < 128; t++)
		if (type_names[t] && PyUnicode_Compare(type_names[t], name) == 0)
			return t;
	if (!PyErr_Occurred())
		PyErr_Format(PyExc_ValueError, "unknown record type %R", name);
	return -1;
}

static int kind_by_name(PyObject *name)
{
	for (int k = 0; k <= ITRACE_BRANCH_UNKNOWN; k++)
		if (PyUnicode_Compare(kind_names[k], name) == 0)
			return k;
	if (!PyErr_Occurred())
		PyErr_Format(PyExc_ValueError, "unknown branch kind %R", name);
	return -1;
}

/* ---- records ---------------------------------------------------------- */

typedef struct {
	PyObject_HEAD
	struct itrace_record rec;
	char *own;	/* the record's strings/bytes, copied from the reader */
	size_t own_cap;
} RecordObject;

static PyTypeObject RecordType;

/* record_own - copy what the reader owns (paths, names, code bytes) of
 * the record o holds into o, valid until the reader's next call. */
static int record_own(RecordObject *o)
{
	const struct itrace_record *rec = &o->rec;
	const char *src = NULL;
	size_t n = 0;

	switch (rec->type) {
	case ITRACE_REC_MMAP: src = rec->u.mmap.path; n = rec->u.mmap.path_len; break;
	case ITRACE_REC_CODE: src = (const char *)rec->u.code.bytes; n = rec->u.code.len; break;
	case ITRACE_REC_THREAD: src = rec->u.thread.name; n = rec->u.thread.name_len; break;
	case ITRACE_REC_PROCESS: src = rec->u.process.name; n = rec->u.process.name_len; break;
	default: return 0;
	}
	if (!src || src == o->own)
		return 0;
	if (n + 1 > o->own_cap) {
		char *p = PyMem_Realloc(o->own, n + 1);
		if (!p) {
			PyErr_NoMemory();
			return -1;
		}
		o->own = p;
		o->own_cap = n + 1;
	}
	memcpy(o->own, src, n);
	o->own[n] = 0;
	switch (rec->type) {
	case ITRACE_REC_MMAP: o->rec.u.mmap.path = o->own; break;
	case ITRACE_REC_CODE: o->rec.u.code.bytes = (const uint8_t *)o->own; break;
	case ITRACE_REC_THREAD: o->rec.u.thread.name = o->own; break;
	default: o->rec.u.process.name = o->own; break;
	}
	return 0;
}

/* record_set - make `o` hold a copy of `rec`. */
static int record_set(RecordObject *o, const struct itrace_record *rec)
{
	o->rec = *rec;
	return record_own(o);
}

static RecordObject *record_new(const struct itrace_record *rec)
{
	RecordObject *o = PyObject_New(RecordObject, &RecordType);

	if (!o)
		return NULL;
	o->own = NULL;
	o->own_cap = 0;
	if (rec && record_set(o, rec) < 0) {
		Py_DECREF(o);
		return NULL;
	}
	return o;
}

static void record_dealloc(RecordObject *o)
{
	PyMem_Free(o->own);
	PyObject_Free(o);
}

static PyObject *no_field(RecordObject *o, const char *field)
{
	PyErr_Format(PyExc_AttributeError, "'%U' record has no attribute '%s'",
		     type_names[o->rec.type & 127], field);
	return NULL;
}

#define R (&o->rec)
#define U64(x) PyLong_FromUnsignedLongLong(x)

static PyObject *rec_type(RecordObject *o, void *c)
{
	(void)c;
	return Py_NewRef(type_names[R->type & 127]);
}
static PyObject *rec_tid(RecordObject *o, void *c) { (void)c; return PyLong_FromUnsignedLong(R->tid); }
static PyObject *rec_time(RecordObject *o, void *c) { (void)c; return U64(R->time_ns); }
static PyObject *rec_chunk(RecordObject *o, void *c) { (void)c; return U64(R->chunk); }
static PyObject *rec_raw_type(RecordObject *o, void *c) { (void)c; return PyLong_FromLong(R->raw_type); }

static PyObject *rec_pid(RecordObject *o, void *c)
{
	(void)c;
	switch (R->type) {
	case ITRACE_REC_MMAP: return PyLong_FromUnsignedLong(R->u.mmap.pid);
	case ITRACE_REC_PROCESS: return PyLong_FromUnsignedLong(R->u.process.pid);
	default: return PyLong_FromUnsignedLong(R->pid);
	}
}

static PyObject *rec_addr(RecordObject *o, void *c)
{
	(void)c;
	switch (R->type) {
	case ITRACE_REC_INSN: return U64(R->u.insn.addr);
	case ITRACE_REC_MEM: return U64(R->u.mem.addr);
	case ITRACE_REC_CODE: return U64(R->u.code.addr);
	case ITRACE_REC_SIGNAL: return U64(R->u.signal.addr);
	case ITRACE_REC_TRACE_CTL: return U64(R->u.ctl.addr);
	case ITRACE_REC_GAP: return U64(R->u.gap.addr);
	default: return no_field(o, "addr");
	}
}

static PyObject *rec_len(RecordObject *o, void *c)
{
	(void)c;
	switch (R->type) {
	case ITRACE_REC_INSN: return PyLong_FromLong(R->u.insn.len);
	case ITRACE_REC_MMAP: return U64(R->u.mmap.len);
	case ITRACE_REC_CODE: return PyLong_FromSize_t(R->u.code.len);
	default: return no_field(o, "len");
	}
}

static PyObject *rec_bytes(RecordObject *o, void *c)
{
	(void)c;
	if (R->type == ITRACE_REC_INSN) {
		if (!R->u.insn.has_bytes)
			Py_RETURN_NONE;
		return PyBytes_FromStringAndSize((const char *)R->u.insn.bytes, R->u.insn.len);
	}
	if (R->type == ITRACE_REC_CODE)
		return PyBytes_FromStringAndSize((const char *)R->u.code.bytes, (Py_ssize_t)R->u.code.len);
	return no_field(o, "bytes");
}

static PyObject *rec_src(RecordObject *o, void *c)
{
	(void)c;
	return R->type == ITRACE_REC_BRANCH ? U64(R->u.branch.from) : no_field(o, "src");
}

static PyObject *rec_dst(RecordObject *o, void *c)
{
	(void)c;
	return R->type == ITRACE_REC_BRANCH ? U64(R->u.branch.to) : no_field(o, "dst");
}

static PyObject *rec_kind(RecordObject *o, void *c)
{
	(void)c;
	if (R->type != ITRACE_REC_BRANCH)
		return no_field(o, "kind");
	unsigned k = R->u.branch.kind;
	if (k > ITRACE_BRANCH_UNKNOWN)
		k = ITRACE_BRANCH_UNKNOWN;
	return Py_NewRef(kind_names[k]);
}

static PyObject *rec_taken(RecordObject *o, void *c)
{
	(void)c;
	if (R->type != ITRACE_REC_BRANCH)
		return no_field(o, "taken");
	return PyBool_FromLong(R->u.branch.flags & ITRACE_BRANCH_TAKEN);
}

static PyObject *rec_predicted(RecordObject *o, void *c)
{
	(void)c;
	if (R->type != ITRACE_REC_BRANCH)
		return no_field(o, "predicted");
	if (!(R->u.branch.flags & ITRACE_BRANCH_PRED_KNOWN))
		Py_RETURN_NONE;
	return PyBool_FromLong(R->u.branch.flags & ITRACE_BRANCH_PRED_CORRECT);
}

static PyObject *rec_size(RecordObject *o, void *c)
{
	(void)c;
	return R->type == ITRACE_REC_MEM ? U64(R->u.mem.size) : no_field(o, "size");
}

static PyObject *rec_store(RecordObject *o, void *c)
{
	(void)c;
	if (R->type != ITRACE_REC_MEM)
		return no_field(o, "store");
	return PyBool_FromLong(R->u.mem.flags & ITRACE_MEM_STORE);
}

static PyObject *rec_start(RecordObject *o, void *c)
{
	(void)c;
	return R->type == ITRACE_REC_MMAP ? U64(R->u.mmap.start) : no_field(o, "start");
}

static PyObject *rec_pgoff(RecordObject *o, void *c)
{
	(void)c;
	return R->type == ITRACE_REC_MMAP ? U64(R->u.mmap.pgoff) : no_field(o, "pgoff");
}

static PyObject *rec_prot(RecordObject *o, void *c)
{
	(void)c;
	return R->type == ITRACE_REC_MMAP ? PyLong_FromLong(R->u.mmap.prot) : no_field(o, "prot");
}

static PyObject *rec_buildid(RecordObject *o, void *c)
{
	(void)c;
	if (R->type != ITRACE_REC_MMAP)
		return no_field(o, "buildid");
	return PyBytes_FromStringAndSize((const char *)R->u.mmap.buildid, R->u.mmap.buildid_len);
}

static PyObject *str_or_none(const char *s, size_t n)
{
	if (!s)
		Py_RETURN_NONE;
	return PyUnicode_DecodeFSDefaultAndSize(s, (Py_ssize_t)n);
}

static PyObject *rec_path(RecordObject *o, void *c)
{
	(void)c;
	if (R->type != ITRACE_REC_MMAP)
		return no_field(o, "path");
	return str_or_none(R->u.mmap.path, R->u.mmap.path_len);
}

static PyObject *rec_name(RecordObject *o, void *c)
{
	(void)c;
	if (R->type == ITRACE_REC_THREAD)
		return str_or_none(R->u.thread.name, R->u.thread.name_len);
	if (R->type == ITRACE_REC_PROCESS)
		return str_or_none(R->u.process.name, R->u.process.name_len);
	return no_field(o, "name");
}

static PyObject *rec_event(RecordObject *o, void *c)
{
	(void)c;
	if (R->type == ITRACE_REC_THREAD)
		return PyUnicode_FromString(itrace_thread_event_name(R->u.thread.event));
	if (R->type == ITRACE_REC_PROCESS)
		return PyUnicode_FromString(itrace_process_event_name(R->u.process.event));
	return no_field(o, "event");
}

static PyObject *rec_thread_tid(RecordObject *o, void *c)
{
	(void)c;
	return R->type == ITRACE_REC_THREAD ? PyLong_FromUnsignedLong(R->u.thread.tid) :
					      no_field(o, "thread_tid");
}

static PyObject *rec_thread_pid(RecordObject *o, void *c)
{
	(void)c;
	return R->type == ITRACE_REC_THREAD ? PyLong_FromUnsignedLong(R->u.thread.pid) :
					      no_field(o, "thread_pid");
}

static PyObject *rec_other(RecordObject *o, void *c)
{
	(void)c;
	if (R->type == ITRACE_REC_THREAD)
		return U64(R->u.thread.other);
	if (R->type == ITRACE_REC_PROCESS)
		return U64(R->u.process.other);
	return no_field(o, "other");
}

static PyObject *rec_status(RecordObject *o, void *c)
{
	(void)c;
	if (R->type == ITRACE_REC_PROCESS)
		return PyLong_FromLongLong(R->u.process.status);
	if (R->type == ITRACE_REC_THREAD && R->u.thread.event == ITRACE_THREAD_EXIT)
		return U64(R->u.thread.other);
	return no_field(o, "status");
}

static PyObject *rec_dir(RecordObject *o, void *c)
{
	(void)c;
	if (R->type != ITRACE_REC_SYSCALL)
		return no_field(o, "dir");
	return PyUnicode_FromString(R->u.syscall.dir == ITRACE_SYSCALL_EXIT ? "exit" : "enter");
}

static PyObject *rec_nr(RecordObject *o, void *c)
{
	(void)c;
	return R->type == ITRACE_REC_SYSCALL ? U64(R->u.syscall.nr) : no_field(o, "nr");
}

static PyObject *rec_ret(RecordObject *o, void *c)
{
	(void)c;
	return R->type == ITRACE_REC_SYSCALL ? PyLong_FromLongLong(R->u.syscall.ret) :
					       no_field(o, "ret");
}

static PyObject *rec_args(RecordObject *o, void *c)
{
	(void)c;
	if (R->type != ITRACE_REC_SYSCALL)
		return no_field(o, "args");
	unsigned n = R->u.syscall.nargs > 6 ? 6 : R->u.syscall.nargs;
	PyObject *t = PyTuple_New(n);
	for (unsigned i = 0; t && i < n; i++) {
		PyObject *v = U64(R->u.syscall.args[i]);
		if (!v) {
			Py_CLEAR(t);
			break;
		}
		PyTuple_SET_ITEM(t, i, v);
	}
	return t;
}

static PyObject *rec_signo(RecordObject *o, void *c)
{
	(void)c;
	return R->type == ITRACE_REC_SIGNAL ? PyLong_FromUnsignedLong(R->u.signal.signo) :
					      no_field(o, "signo");
}

static PyObject *rec_code(RecordObject *o, void *c)
{
	(void)c;
	return R->type == ITRACE_REC_SIGNAL ? PyLong_FromLong(R->u.signal.code) : no_field(o, "code");
}

static PyObject *rec_pc(RecordObject *o, void *c)
{
	(void)c;
	return R->type == ITRACE_REC_SIGNAL ? U64(R->u.signal.pc) : no_field(o, "pc");
}

static PyObject *rec_handler(RecordObject *o, void *c)
{
	(void)c;
	return R->type == ITRACE_REC_SIGNAL ? U64(R->u.signal.handler) : no_field(o, "handler");
}

static PyObject *rec_on(RecordObject *o, void *c)
{
	(void)c;
	return R->type == ITRACE_REC_TRACE_CTL ? PyBool_FromLong(R->u.ctl.on) : no_field(o, "on");
}

static PyObject *rec_reason(RecordObject *o, void *c)
{
	(void)c;
	switch (R->type) {
	case ITRACE_REC_TRACE_CTL: return PyUnicode_FromString(itrace_ctl_reason_name(R->u.ctl.reason));
	case ITRACE_REC_LOST: return PyUnicode_FromString(itrace_lost_reason_name(R->u.lost.reason));
	case ITRACE_REC_GAP: return PyUnicode_FromString(itrace_gap_reason_name(R->u.gap.reason));
	default: return no_field(o, "reason");
	}
}

static PyObject *rec_unit(RecordObject *o, void *c)
{
	(void)c;
	return R->type == ITRACE_REC_LOST ? PyUnicode_FromString(itrace_lost_unit_name(R->u.lost.unit)) :
					    no_field(o, "unit");
}

static PyObject *rec_count(RecordObject *o, void *c)
{
	(void)c;
	if (R->type == ITRACE_REC_LOST)
		return U64(R->u.lost.count);
	if (R->type == ITRACE_REC_GAP)
		return U64(R->u.gap.count);
	return no_field(o, "count");
}

static PyObject *rec_resume(RecordObject *o, void *c)
{
	(void)c;
	return R->type == ITRACE_REC_GAP ? U64(R->u.gap.resume) : no_field(o, "resume");
}

#undef R

#define G(name, doc) { #name, (getter)rec_##name, NULL, doc, NULL }
static PyGetSetDef record_getset[] = {
	G(type, "record type as itrace-dump names it: 'INSN', 'BRANCH', 'MEM', 'MMAP', ..."),
	G(tid, "thread the record belongs to"),
	G(pid, "process (MMAP, PROCESS: the record's own pid field)"),
	{ "time_ns", (getter)rec_time, NULL, "last TIMESTAMP seen (0: none)", NULL },
	G(chunk, "sequence number of the chunk holding the record"),
	G(raw_type, "on-disk type (for 'UNKNOWN' records)"),
	G(addr, "INSN, MEM, CODE, SIGNAL, TRACE_CTL, GAP: the address"),
	G(len, "INSN: length in bytes; MMAP: mapping length; CODE: bytes"),
	G(bytes, "INSN: the instruction's bytes (None unless recorded); CODE: the code"),
	G(src, "BRANCH: address of the branch instruction"),
	G(dst, "BRANCH: next instruction executed (fall-through when not taken)"),
	G(kind, "BRANCH: 'cond', 'uncond', 'call', 'return', 'indirect', ..."),
	G(taken, "BRANCH: taken (bool)"),
	G(predicted, "BRANCH: predicted correctly (None: not recorded)"),
	G(size, "MEM: access size in bytes"),
	G(store, "MEM: a store (else a load)"),
	G(start, "MMAP: first address"),
	G(pgoff, "MMAP: file offset of start"),
	G(prot, "MMAP: PROT_READ|PROT_WRITE|PROT_EXEC bits"),
	G(buildid, "MMAP: build-id bytes"),
	G(path, "MMAP: mapped file"),
	G(name, "THREAD name / PROCESS path (None when absent)"),
	G(event, "THREAD: 'create', 'switch', 'exit', 'name'; PROCESS: 'start', 'fork', 'exec', 'exit'"),
	G(thread_tid, "THREAD: the thread the event is about"),
	G(thread_pid, "THREAD: its process"),
	G(other, "THREAD: creating thread or exit status; PROCESS: forked child"),
	G(status, "PROCESS: exit status (-signo if killed); THREAD exit: status"),
	G(dir, "SYSCALL: 'enter' or 'exit'"),
	G(nr, "SYSCALL: number"),
	G(ret, "SYSCALL exit: return value"),
	G(args, "SYSCALL enter: arguments (tuple)"),
	G(signo, "SIGNAL: signal number"),
	G(code, "SIGNAL: si_code"),
	G(pc, "SIGNAL: interrupted instruction"),
	G(handler, "SIGNAL: where delivery continues (0: default action)"),
	G(on, "TRACE_CTL: tracing resumes (True) or stops"),
	G(reason, "TRACE_CTL, LOST, GAP: why"),
	G(unit, "LOST: what count counts"),
	G(count, "LOST, GAP: how many"),
	G(resume, "GAP: where the walk resumed (0: unknown)"),
	{ NULL, NULL, NULL, NULL, NULL },
};
#undef G

/* The fields of each type, for repr() and as_dict(). */
static const char *record_fields(int type)
{
	switch (type) {
	case ITRACE_REC_BRANCH: return "src dst kind taken";
	case ITRACE_REC_INSN: return "addr len";
	case ITRACE_REC_MEM: return "addr size store";
	case ITRACE_REC_MMAP: return "pid start len pgoff prot path";
	case ITRACE_REC_CODE: return "addr len";
	case ITRACE_REC_THREAD: return "event thread_tid thread_pid other name";
	case ITRACE_REC_PROCESS: return "event pid other status name";
	case ITRACE_REC_SYSCALL: return "dir nr ret args";
	case ITRACE_REC_SIGNAL: return "signo code addr pc handler";
	case ITRACE_REC_TIMESTAMP: return "time_ns";
	case ITRACE_REC_TRACE_CTL: return "on reason addr";
	case ITRACE_REC_LOST: return "count unit reason";
	case ITRACE_REC_GAP: return "reason addr resume count";
	default: return "raw_type";
	}
}

static PyObject *record_as_dict(RecordObject *o, PyObject *unused)
{
	(void)unused;
	PyObject *d = PyDict_New();
	char buf[256];
	if (!d)
		return NULL;
	snprintf(buf, sizeof(buf), "type tid %s", record_fields(o->rec.type));
	for (char *save, *f = strtok_r(buf, " ", &save); f; f = strtok_r(NULL, " ", &save)) {
		PyObject *v = PyObject_GetAttrString((PyObject *)o, f);
		if (!v || PyDict_SetItemString(d, f, v) < 0) {
			Py_XDECREF(v);
			Py_DECREF(d);
			return NULL;
		}
		Py_DECREF(v);
	}
	return d;
}

static PyObject *record_copy(RecordObject *o, PyObject *unused)
{
	(void)unused;
	return (PyObject *)record_new(&o->rec);
}

static PyObject *record_repr(RecordObject *o)
{
	PyObject *d = record_as_dict(o, NULL);
	if (!d)
		return NULL;
	PyObject *r = PyUnicode_FromFormat("itrace.Record(%R)", d);
	Py_DECREF(d);
	return r;
}

static PyMethodDef record_methods[] = {
	{ "as_dict", (PyCFunction)record_as_dict, METH_NOARGS,
	  "as_dict() -> the record's type, tid and the fields of its type, as a dict" },
	{ "copy", (PyCFunction)record_copy, METH_NOARGS,
	  "copy() -> a record of its own (iteration reuses the record it hands out\n"
	  "when nobody else holds it, so keeping one is safe; copy() is explicit)" },
	{ NULL, NULL, 0, NULL },
};

static PyTypeObject RecordType = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "itrace.Record",
	.tp_basicsize = sizeof(RecordObject),
	.tp_dealloc = (destructor)record_dealloc,
	.tp_repr = (reprfunc)record_repr,
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_doc = "One trace record: r.type, r.tid and the fields of its type.",
	.tp_getset = record_getset,
	.tp_methods = record_methods,
};

/* ---- columns: typed buffers ------------------------------------------- */

typedef struct {
	PyObject_HEAD
	void *data;
	Py_ssize_t n;
	char fmt[2];
	Py_ssize_t itemsize;
	Py_ssize_t exports;
} ColumnObject;

static PyTypeObject ColumnType;

/* column_wrap - a Column owning `data` (malloc'd), n items of format fmt. */
static PyObject *column_wrap(void *data, Py_ssize_t n, char fmt)
{
	ColumnObject *c = PyObject_New(ColumnObject, &ColumnType);
	if (!c) {
		free(data);
		return NULL;
	}
	c->data = data;
	c->n = n;
	c->fmt[0] = fmt;
	c->fmt[1] = 0;
	c->itemsize = fmt == 'B' ? 1 : fmt == 'I' || fmt == 'i' ? 4 : 8;
	c->exports = 0;
	return (PyObject *)c;
}

static void column_dealloc(ColumnObject *c)
{
	free(c->data);
	PyObject_Free(c);
}

static int column_getbuffer(ColumnObject *c, Py_buffer *view, int flags)
{
	int rc = PyBuffer_FillInfo(view, (PyObject *)c, c->data, c->n * c->itemsize, 0, flags);
	if (rc < 0)
		return rc;
	view->itemsize = c->itemsize;
	view->format = (flags & PyBUF_FORMAT) ? c->fmt : NULL;
	if (flags & PyBUF_ND) {
		view->ndim = 1;
		view->shape = &c->n;
		view->strides = (flags & PyBUF_STRIDES) ? &view->itemsize : NULL;
	}
	c->exports++;
	return 0;
}

static void column_releasebuffer(ColumnObject *c, Py_buffer *view)
{
	(void)view;
	c->exports--;
}

static Py_ssize_t column_len(ColumnObject *c) { return c->n; }

static PyBufferProcs column_as_buffer = {
	(getbufferproc)column_getbuffer,
	(releasebufferproc)column_releasebuffer,
};

static PySequenceMethods column_as_sequence = { .sq_length = (lenfunc)column_len };

static PyTypeObject ColumnType = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "itrace.Column",
	.tp_basicsize = sizeof(ColumnObject),
	.tp_dealloc = (destructor)column_dealloc,
	.tp_as_buffer = &column_as_buffer,
	.tp_as_sequence = &column_as_sequence,
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_doc = "A typed column (buffer protocol): numpy.frombuffer or memoryview.",
};

/*
 * as_array - what a user gets for a column: numpy.frombuffer(col) (no
 * copy) when NumPy imports, else memoryview(col), typed by the column's
 * format.  Steals `col`.
 */
static PyObject *np_frombuffer;
static int numpy_tried;

static PyObject *as_array(PyObject *col)
{
	if (!col)
		return NULL;
	if (!numpy_tried) {
		PyObject *np = PyImport_ImportModule("numpy");
		numpy_tried = 1;
		if (np) {
			np_frombuffer = PyObject_GetAttrString(np, "frombuffer");
			Py_DECREF(np);
		}
		PyErr_Clear();
	}
	PyObject *r;
	if (np_frombuffer) {
		ColumnObject *c = (ColumnObject *)col;
		const char *dt = c->fmt[0] == 'B' ? "u1" : c->fmt[0] == 'I' ? "u4" :
				 c->fmt[0] == 'i' ? "i4" : c->fmt[0] == 'Q' ? "u8" :
				 c->fmt[0] == 'q' ? "i8" : "f8";
		r = PyObject_CallFunction(np_frombuffer, "Os", col, dt);
	} else {
		r = PyMemoryView_FromObject(col);
	}
	Py_DECREF(col);
	return r;
}

/* strings_array - a list of str/None as a NumPy object array, or the list. */
static PyObject *strings_array(PyObject *list)
{
	if (!list || !np_frombuffer)
		return list;
	PyObject *np = PyImport_ImportModule("numpy");
	if (!np) {
		PyErr_Clear();
		return list;
	}
	PyObject *r = PyObject_CallMethod(np, "array", "Os", list, "O");
	Py_DECREF(np);
	Py_DECREF(list);
	return r;
}

/* ---- traces ----------------------------------------------------------- */

typedef struct {
	PyObject_HEAD
	struct itrace_reader *first; /* the reader open() made, for the first pass */
	PyObject *name;		     /* what was opened, for messages and OSError */
	PyObject *path;		     /* bytes: a file to reopen for each pass; or NULL */
	Py_buffer mem;		     /* in-memory trace (mem.obj NULL if none) */
	int fd;			     /* a descriptor of ours (file objects, '-', fill) */
	int seekable;		     /* fd can be read again from 0 */
	int passes;		     /* passes started */
	int closed;		     /* close() was called */
	PyObject *meta;
	PyObject *summary;	     /* cached summary() */
	PyObject *mappings;	     /* cached, from the summary pass */
	struct itrace_header hdr;
	int have_footer;
	struct itrace_footer footer;
	struct itrace_analysis *analysis; /* cached for functions()/hot_branches() */
	PyObject *analysis_warning;
	struct itrace_image *img;	  /* cached for symbolize() */
	struct itrace_symbolizer *sym;
	uint32_t img_pid;
	int pending_code;		  /* fill(): the filler's error, raised
					   * after the records it filled */
	char pending_msg[512];
} TraceObject;

static PyTypeObject TraceType;

static void trace_note_footer(TraceObject *t, struct itrace_reader *r)
{
	if (!t->have_footer && itrace_reader_footer(r, &t->footer) == 0)
		t->have_footer = 1;
}

/*
 * trace_reader - a reader positioned at the first record, for one pass:
 * the one open() made, then a new one on the file, buffer or seekable
 * descriptor.  A pipe can be read once.
 */
static struct itrace_reader *trace_reader(TraceObject *t)
{
	struct itrace_reader *r = NULL;
	char msg[256] = "";
	int rc;

	if (!t->name) {
		PyErr_SetString(PyExc_ValueError, "itrace.Trace: not opened (use itrace.open)");
		return NULL;
	}
	if (t->closed) {
		PyErr_Format(PyExc_ValueError, "%R: the trace is closed", t->name);
		return NULL;
	}
	t->passes++;
	if (t->first) {
		r = t->first;
		t->first = NULL;
		return r;
	}
	if (t->path) {
		rc = itrace_reader_open_report(PyBytes_AS_STRING(t->path), &r, msg, sizeof(msg));
	} else if (t->mem.obj) {
		rc = itrace_reader_open_mem(t->mem.buf, (size_t)t->mem.len, &r);
	} else if (t->fd >= 0 && t->seekable) {
		rc = lseek(t->fd, 0, SEEK_SET) < 0 ? (errno = errno, -ITRACE_E_IO) :
						      itrace_reader_open_fd(t->fd, &r);
	} else {
		PyErr_Format(ItraceError, "%R is a stream: it can be read once", t->name);
		return NULL;
	}
	if (rc < 0)
		return raise_code(rc, msg, t->name);
	return r;
}

/* trace_open_common - read the header and metadata of reader r into t. */
static int trace_take(TraceObject *t, struct itrace_reader *r)
{
	const char *k, *v;

	t->first = r;
	t->hdr = *itrace_reader_header(r);
	trace_note_footer(t, r);
	t->meta = PyDict_New();
	if (!t->meta)
		return -1;
	for (size_t i = 0; itrace_reader_meta_at(r, i, &k, &v) == 0; i++) {
		PyObject *val = PyUnicode_DecodeFSDefault(v);
		if (!val || PyDict_SetItemString(t->meta, k, val) < 0) {
			Py_XDECREF(val);
			return -1;
		}
		Py_DECREF(val);
	}
	return 0;
}

static TraceObject *trace_alloc(PyObject *name)
{
	TraceObject *t = (TraceObject *)TraceType.tp_alloc(&TraceType, 0);
	if (!t)
		return NULL;
	t->fd = -1;
	t->name = Py_NewRef(name);
	return t;
}

/* open_fd_source - a trace on descriptor fd (ours: closed with the trace). */
static PyObject *trace_from_fd(PyObject *name, int fd)
{
	struct itrace_reader *r;
	struct stat st;
	TraceObject *t = trace_alloc(name);
	int rc;

	if (!t) {
		close(fd);
		return NULL;
	}
	t->fd = fd;
	t->seekable = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && lseek(fd, 0, SEEK_CUR) >= 0;
	Py_BEGIN_ALLOW_THREADS
	rc = itrace_reader_open_fd(fd, &r);
	Py_END_ALLOW_THREADS
	if (rc < 0) {
		raise_code(rc, NULL, name);
		Py_DECREF(t);
		return NULL;
	}
	if (trace_take(t, r) < 0) {
		Py_DECREF(t);
		return NULL;
	}
	return (PyObject *)t;
}

static PyObject *trace_from_path(PyObject *name, PyObject *bytes_path)
{
	struct itrace_reader *r;
	char msg[256] = "";
	TraceObject *t;
	int rc;

	Py_BEGIN_ALLOW_THREADS
	rc = itrace_reader_open_report(PyBytes_AS_STRING(bytes_path), &r, msg, sizeof(msg));
	Py_END_ALLOW_THREADS
	if (rc < 0)
		return raise_code(rc, msg, name);
	t = trace_alloc(name);
	if (!t) {
		itrace_reader_close(r);
		return NULL;
	}
	t->path = Py_NewRef(bytes_path);
	if (trace_take(t, r) < 0) {
		Py_DECREF(t);
		return NULL;
	}
	return (PyObject *)t;
}

static PyObject *trace_from_buffer(PyObject *name, PyObject *obj)
{
	struct itrace_reader *r;
	TraceObject *t = trace_alloc(name);
	int rc;

	if (!t)
		return NULL;
	if (PyObject_GetBuffer(obj, &t->mem, PyBUF_SIMPLE) < 0) {
		Py_DECREF(t);
		return NULL;
	}
	rc = itrace_reader_open_mem(t->mem.buf, (size_t)t->mem.len, &r);
	if (rc < 0) {
		raise_code(rc, NULL, name);
		Py_DECREF(t);
		return NULL;
	}
	if (trace_take(t, r) < 0) {
		Py_DECREF(t);
		return NULL;
	}
	return (PyObject *)t;
}

PyDoc_STRVAR(open_doc,
"open(source) -> Trace\n\n"
"Open an itrace file: a path (str, bytes or os.PathLike), '-' for standard\n"
"input, a binary file object (read through its descriptor when it has one,\n"
"else read whole), or a buffer holding a trace (memoryview, bytearray;\n"
"bytes are a path, as for the built-in open).  Raises OSError\n"
"(with errno) when it cannot be read, itrace.Error when it is not a trace\n"
"this library reads.");

static PyObject *mod_open(PyObject *self, PyObject *src)
{
	(void)self;
	if (PyUnicode_Check(src) && PyUnicode_CompareWithASCIIString(src, "-") == 0) {
		int fd = dup(0);
		if (fd < 0)
			return PyErr_SetFromErrno(PyExc_OSError);
		PyObject *name = PyUnicode_FromString("<stdin>");
		PyObject *t = name ? trace_from_fd(name, fd) : NULL;
		Py_XDECREF(name);
		return t;
	}
	if (PyUnicode_Check(src) || PyBytes_Check(src) || PyObject_HasAttrString(src, "__fspath__")) {
		PyObject *b = NULL;
		if (!PyUnicode_FSConverter(src, &b))
			return NULL;
		PyObject *name = PyOS_FSPath(src);
		PyObject *t = name ? trace_from_path(name, b) : NULL;
		Py_XDECREF(name);
		Py_DECREF(b);
		return t;
	}
	if (PyObject_CheckBuffer(src)) {
		PyObject *name = PyUnicode_FromString("<buffer>");
		PyObject *t = name ? trace_from_buffer(name, src) : NULL;
		Py_XDECREF(name);
		return t;
	}
	/* a file object: its descriptor (dup'd: the file object keeps its
	 * own), read from where the file is; else its bytes */
	PyObject *fileno = PyObject_CallMethod(src, "fileno", NULL);
	PyObject *name = PyObject_GetAttrString(src, "name");
	if (!name) {
		PyErr_Clear();
		name = PyObject_Repr(src);
		if (!name) {
			Py_XDECREF(fileno);
			return NULL;
		}
	}
	if (fileno) {
		int fd = PyLong_AsLong(fileno);
		Py_DECREF(fileno);
		PyObject *t = NULL;
		if (!PyErr_Occurred()) {
			int ours = dup(fd);
			t = ours < 0 ? PyErr_SetFromErrno(PyExc_OSError) : trace_from_fd(name, ours);
		}
		Py_DECREF(name);
		return t;
	}
	PyErr_Clear();
	PyObject *data = PyObject_CallMethod(src, "read", NULL);
	PyObject *t = NULL;
	if (data) {
		t = PyObject_CheckBuffer(data) ? trace_from_buffer(name, data) :
			PyErr_Format(PyExc_TypeError, "itrace.open: read() gave no bytes");
		Py_DECREF(data);
	}
	Py_DECREF(name);
	return t;
}

static void trace_release(TraceObject *t)
{
	itrace_reader_close(t->first);
	t->first = NULL;
	itrace_analysis_free(t->analysis);
	t->analysis = NULL;
	itrace_symbolizer_free(t->sym);
	t->sym = NULL;
	itrace_image_free(t->img);
	t->img = NULL;
	if (t->mem.obj)
		PyBuffer_Release(&t->mem);
	if (t->fd >= 0)
		close(t->fd);
	t->fd = -1;
}

static void trace_dealloc(TraceObject *t)
{
	trace_release(t);
	Py_XDECREF(t->name);
	Py_XDECREF(t->path);
	Py_XDECREF(t->meta);
	Py_XDECREF(t->summary);
	Py_XDECREF(t->mappings);
	Py_XDECREF(t->analysis_warning);
	Py_TYPE(t)->tp_free((PyObject *)t);
}

static PyObject *trace_close(TraceObject *t, PyObject *unused)
{
	(void)unused;
	trace_release(t);
	Py_CLEAR(t->path);
	t->closed = 1;
	Py_RETURN_NONE;
}

static PyObject *trace_enter(TraceObject *t, PyObject *unused)
{
	(void)unused;
	return Py_NewRef(t);
}

static PyObject *trace_exit(TraceObject *t, PyObject *args)
{
	(void)args;
	return trace_close(t, NULL);
}

static PyObject *get_meta(TraceObject *t, void *c) { (void)c; return Py_NewRef(t->meta ? t->meta : Py_None); }
static PyObject *get_arch(TraceObject *t, void *c)
{
	(void)c;
	return PyUnicode_FromString(itrace_machine_name(t->hdr.machine, t->hdr.target_endian));
}
static PyObject *get_machine(TraceObject *t, void *c) { (void)c; return PyLong_FromLong(t->hdr.machine); }
static PyObject *get_level(TraceObject *t, void *c)
{
	(void)c;
	return PyUnicode_FromString(t->hdr.level == ITRACE_LEVEL_BRANCH ? "branch" : "insn");
}
static PyObject *get_name(TraceObject *t, void *c) { (void)c; return Py_NewRef(t->name ? t->name : Py_None); }
static PyObject *get_ended(TraceObject *t, void *c)
{
	(void)c;
	const char *n = t->have_footer ? itrace_end_reason_name(t->footer.end_reason) : NULL;
	if (!n)
		Py_RETURN_NONE;
	return PyUnicode_FromString(n);
}
static PyObject *get_status(TraceObject *t, void *c)
{
	(void)c;
	if (!t->have_footer)
		Py_RETURN_NONE;
	return PyLong_FromLong(t->footer.end_status);
}
static PyObject *get_how(TraceObject *t, void *c)
{
	char how[256];

	(void)c;
	return PyUnicode_FromString(itrace_footer_describe(t->have_footer ? &t->footer : NULL, how,
							  sizeof(how)));
}
static PyObject *get_complete(TraceObject *t, void *c)
{
	(void)c;
	return PyBool_FromLong(itrace_footer_is_complete(t->have_footer ? &t->footer : NULL));
}

/* ---- filters: what Python wants to see -------------------------------- */

#define MAX_TIDS 64

/* One wish: records of `types`, of threads `tids`, branches of `kinds`, with
 * the address `field` in [lo, hi) (resolved from `symbol` when set). */
struct rule {
	uint64_t types[2];
	uint32_t kinds; /* bits of enum itrace_branch_kind; 0 = any */
	uint32_t tids[MAX_TIDS];
	size_t ntids;	/* 0 = any thread */
	int field;	/* 0: none; 1 addr (INSN/MEM); 2 src; 3 dst (BRANCH) */
	char *symbol;	/* resolved at each MMAP by itrace_symbolizer_find */
	int resolved;
	uint64_t lo, hi;
};

struct filter {
	uint64_t types[2]; /* union of the rules' types */
	struct rule *rules;
	size_t nrules;
	int symbols;	   /* a rule names a symbol: keep an image */
	struct itrace_image *img;
	struct itrace_symbolizer *sym;
};

static int has_type(const uint64_t *types, unsigned t)
{
	return (int)(types[(t >> 6) & 1] >> (t & 63) & 1);
}

static void filter_free(struct filter *f)
{
	for (size_t i = 0; i < f->nrules; i++)
		free(f->rules[i].symbol);
	free(f->rules);
	itrace_symbolizer_free(f->sym);
	itrace_image_free(f->img);
	memset(f, 0, sizeof(*f));
}

static uint64_t field_value(const struct itrace_record *rec, int field)
{
	switch (field) {
	case 1: return rec->type == ITRACE_REC_INSN ? rec->u.insn.addr : rec->u.mem.addr;
	case 2: return rec->u.branch.from;
	default: return rec->u.branch.to;
	}
}

static int rule_match(const struct rule *r, const struct itrace_record *rec)
{
	if (!has_type(r->types, rec->type))
		return 0;
	if (r->ntids) {
		size_t i;
		for (i = 0; i < r->ntids && r->tids[i] != rec->tid; i++)
			;
		if (i == r->ntids)
			return 0;
	}
	if (r->kinds && (rec->type != ITRACE_REC_BRANCH || !(r->kinds >> rec->u.branch.kind & 1)))
		return 0;
	if (r->field) {
		if (!r->resolved)
			return 0;
		uint64_t v = field_value(rec, r->field);
		if (v < r->lo || v >= r->hi)
			return 0;
	}
	return 1;
}

/* Symbols are looked up again whenever the image changes (a new MMAP):
 * once per mapping, then compared per record in C. */
static void filter_resolve(struct filter *f, uint32_t pid)
{
	for (size_t i = 0; i < f->nrules; i++) {
		struct rule *r = &f->rules[i];
		struct itrace_symbol s;

		if (!r->symbol || r->resolved)
			continue;
		if (itrace_symbolizer_find(f->sym, pid, r->symbol, &s) == 0) {
			r->lo = s.addr;
			r->hi = s.addr + (s.size ? s.size : 1);
			r->resolved = 1;
		}
	}
}

static int filter_image(struct filter *f, const struct itrace_record *rec)
{
	if (!f->img) {
		struct itrace_image_options io;
		itrace_image_options_init(&io);
		int rc = itrace_image_alloc(&io, &f->img);
		if (rc == 0)
			rc = itrace_symbolizer_alloc(f->img, &f->sym);
		if (rc < 0)
			return rc;
	}
	int rc = itrace_image_apply(f->img, rec);
	if (rc > 0)
		filter_resolve(f, rec->type == ITRACE_REC_MMAP ? rec->u.mmap.pid : rec->pid);
	return rc < 0 ? rc : 0;
}

/*
 * filter_next - the next record some rule wants: 0 with *which the rule,
 * or what the reader returns (ITRACE_EOF, a negative code).
 */
static int filter_next(struct filter *f, struct itrace_reader *r, struct itrace_record *rec,
		       size_t *which)
{
	for (;;) {
		int rc = itrace_reader_next(r, rec, sizeof(*rec));
		if (rc != 0)
			return rc;
		if (f->symbols && (rec->type == ITRACE_REC_MMAP || rec->type == ITRACE_REC_CODE ||
				   rec->type == ITRACE_REC_PROCESS)) {
			rc = filter_image(f, rec);
			if (rc < 0)
				return rc;
		}
		if (!has_type(f->types, rec->type))
			continue;
		for (size_t i = 0; i < f->nrules; i++)
			if (rule_match(&f->rules[i], rec)) {
				*which = i;
				return 0;
			}
	}
}

/* parse_types - a sequence of type names into a bit set; None = all. */
static int parse_types(PyObject *seq, uint64_t *types)
{
	if (!seq || seq == Py_None) {
		types[0] = types[1] = ~0ull;
		return 0;
	}
	if (PyUnicode_Check(seq)) {
		int t = type_by_name(seq);
		if (t < 0)
			return -1;
		types[t >> 6] |= 1ull << (t & 63);
		return 0;
	}
	PyObject *fast = PySequence_Fast(seq, "types: a sequence of record type names");
	if (!fast)
		return -1;
	for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(fast); i++) {
		int t = type_by_name(PySequence_Fast_GET_ITEM(fast, i));
		if (t < 0) {
			Py_DECREF(fast);
			return -1;
		}
		types[t >> 6] |= 1ull << (t & 63);
	}
	Py_DECREF(fast);
	return 0;
}

static int parse_tids(PyObject *seq, struct rule *r)
{
	if (!seq || seq == Py_None)
		return 0;
	if (PyLong_Check(seq)) {
		r->tids[r->ntids++] = (uint32_t)PyLong_AsUnsignedLong(seq);
		return PyErr_Occurred() ? -1 : 0;
	}
	PyObject *fast = PySequence_Fast(seq, "tids: a sequence of thread ids");
	if (!fast)
		return -1;
	Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
	if (n > MAX_TIDS) {
		Py_DECREF(fast);
		PyErr_Format(PyExc_ValueError, "tids: at most %d threads", MAX_TIDS);
		return -1;
	}
	for (Py_ssize_t i = 0; i < n; i++)
		r->tids[r->ntids++] = (uint32_t)PyLong_AsUnsignedLong(PySequence_Fast_GET_ITEM(fast, i));
	Py_DECREF(fast);
	return PyErr_Occurred() ? -1 : 0;
}

static int parse_kinds(PyObject *seq, uint32_t *kinds)
{
	if (!seq || seq == Py_None)
		return 0;
	if (PyUnicode_Check(seq)) {
		int k = kind_by_name(seq);
		if (k < 0)
			return -1;
		*kinds |= 1u << k;
		return 0;
	}
	PyObject *fast = PySequence_Fast(seq, "kind: a branch kind name or a sequence of them");
	if (!fast)
		return -1;
	for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(fast); i++) {
		int k = kind_by_name(PySequence_Fast_GET_ITEM(fast, i));
		if (k < 0) {
			Py_DECREF(fast);
			return -1;
		}
		*kinds |= 1u << k;
	}
	Py_DECREF(fast);
	return 0;
}

/* ---- record iterators ------------------------------------------------- */

typedef struct {
	PyObject_HEAD
	TraceObject *trace;
	struct itrace_reader *r;
	struct filter f;
	RecordObject *pool[2]; /* records handed out, reused when free again */
	RecordObject *rec;     /* the last one (borrowed from pool) */
	int next_slot;
	int with_rule; /* yield (rule index, record) */
	int done;
} IterObject;

static PyTypeObject IterType;

static PyObject *iter_new(TraceObject *t, struct filter *f, int with_rule)
{
	struct itrace_reader *r = trace_reader(t);
	if (!r) {
		filter_free(f);
		return NULL;
	}
	IterObject *it = PyObject_New(IterObject, &IterType);
	if (!it) {
		itrace_reader_close(r);
		filter_free(f);
		return NULL;
	}
	it->trace = (TraceObject *)Py_NewRef(t);
	it->r = r;
	it->f = *f;
	it->pool[0] = it->pool[1] = it->rec = NULL;
	it->next_slot = 0;
	it->with_rule = with_rule;
	it->done = 0;
	return (PyObject *)it;
}

static void iter_finish(IterObject *it)
{
	if (it->r) {
		trace_note_footer(it->trace, it->r);
		itrace_reader_close(it->r);
		it->r = NULL;
	}
	it->done = 1;
}

static void iter_dealloc(IterObject *it)
{
	itrace_reader_close(it->r);
	filter_free(&it->f);
	Py_XDECREF(it->pool[0]);
	Py_XDECREF(it->pool[1]);
	Py_XDECREF(it->trace);
	PyObject_Free(it);
}

/*
 * The damage of a trace: every record before it has been yielded; the
 * error is raised now, as itrace_reader_next returns it.  After a corrupt
 * chunk the reader resynchronises, so iterating again goes on (with the
 * GAP record that stands for the lost chunk); after anything else the
 * iteration is over.
 */
static PyObject *iter_damage(IterObject *it, int rc)
{
	char msg[512];

	snprintf(msg, sizeof(msg), "%s", itrace_reader_error(it->r));
	if (rc != -ITRACE_E_CORRUPT)
		iter_finish(it);
	return raise_code(rc, msg, it->trace->name);
}

static PyObject *iter_next(IterObject *it)
{
	size_t which = 0;
	int rc;

	if (it->done)
		return NULL;
	/*
	 * Decode straight into a record object that only this iterator holds
	 * (zip() reuses its tuple so).  Two of them: while `for r in t` asks
	 * for the next record, r still holds the last one, but no longer the
	 * one before.  A record a script kept is left alone: a new one takes
	 * its place in the pool.
	 */
	int k = it->next_slot;
	if (it->pool[k] && Py_REFCNT(it->pool[k]) != 1)
		k ^= 1;
	if (!it->pool[k] || Py_REFCNT(it->pool[k]) != 1) {
		Py_XDECREF(it->pool[k]);
		it->pool[k] = record_new(NULL);
		if (!it->pool[k])
			return NULL;
	}
	it->next_slot = k ^ 1;
	it->rec = it->pool[k];
	struct itrace_record *rec = &it->rec->rec;
	if (it->f.nrules)
		rc = filter_next(&it->f, it->r, rec, &which);
	else
		rc = itrace_reader_next(it->r, rec, sizeof(*rec));
	if (rc == ITRACE_EOF) {
		iter_finish(it);
		TraceObject *t = it->trace;
		if (t->pending_code)
			return raise_code(t->pending_code, t->pending_msg, t->name);
		return NULL;
	}
	if (rc < 0)
		return iter_damage(it, rc);
	if (record_own(it->rec) < 0)
		return NULL;
	if (it->with_rule)
		return Py_BuildValue("nO", (Py_ssize_t)which, (PyObject *)it->rec);
	return Py_NewRef(it->rec);
}

static PyTypeObject IterType = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "itrace.RecordIterator",
	.tp_basicsize = sizeof(IterObject),
	.tp_dealloc = (destructor)iter_dealloc,
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_doc = "Records of a trace, in order (one reused Record object).",
	.tp_iter = PyObject_SelfIter,
	.tp_iternext = (iternextfunc)iter_next,
};

static PyObject *trace_iter(TraceObject *t)
{
	struct filter f = { { 0, 0 }, NULL, 0, 0, NULL, NULL };
	return iter_new(t, &f, 0);
}

PyDoc_STRVAR(records_doc,
"records(types=None, tids=None, kind=None) -> iterator of Record\n\n"
"The records of the given types ('INSN', 'BRANCH', ...), threads and branch\n"
"kinds ('call', 'cond', ...), selected in C.");

static struct rule *filter_add_rule(struct filter *f)
{
	struct rule *n = realloc(f->rules, (f->nrules + 1) * sizeof(*n));
	if (!n) {
		PyErr_NoMemory();
		return NULL;
	}
	f->rules = n;
	memset(&n[f->nrules], 0, sizeof(*n));
	return &n[f->nrules++];
}

static void filter_union(struct filter *f)
{
	f->types[0] = f->types[1] = 0;
	for (size_t i = 0; i < f->nrules; i++) {
		f->types[0] |= f->rules[i].types[0];
		f->types[1] |= f->rules[i].types[1];
	}
}

static PyObject *trace_records(TraceObject *t, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "types", "tids", "kind", NULL };
	PyObject *types = NULL, *tids = NULL, *kinds = NULL;
	struct filter f = { { 0, 0 }, NULL, 0, 0, NULL, NULL };

	if (!PyArg_ParseTupleAndKeywords(args, kw, "|OOO", kwlist, &types, &tids, &kinds))
		return NULL;
	struct rule *r = filter_add_rule(&f);
	if (!r || parse_types(types, r->types) < 0 || parse_tids(tids, r) < 0 ||
	    parse_kinds(kinds, &r->kinds) < 0) {
		filter_free(&f);
		return NULL;
	}
	filter_union(&f);
	return iter_new(t, &f, 0);
}

PyDoc_STRVAR(select_doc,
"_select(rules) -> iterator of (rule index, Record)\n\n"
"For handlers (itrace.on): each rule is a dict with 'types', and optionally\n"
"'tids', 'kind', and 'field' ('addr', 'src', 'dst') with 'symbol' (a\n"
"function whose address range is looked up at each new mapping) or\n"
"'range' (lo, hi).  A record goes to the first rule it matches.");

static int parse_rule(struct filter *f, PyObject *d)
{
	static const char *const fields[] = { "addr", "src", "dst" };
	struct rule *r = filter_add_rule(f);
	if (!r)
		return -1;
	if (!PyDict_Check(d)) {
		PyErr_SetString(PyExc_TypeError, "_select: a rule is a dict");
		return -1;
	}
	if (parse_types(PyDict_GetItemString(d, "types"), r->types) < 0 ||
	    parse_tids(PyDict_GetItemString(d, "tids"), r) < 0 ||
	    parse_kinds(PyDict_GetItemString(d, "kind"), &r->kinds) < 0)
		return -1;
	PyObject *field = PyDict_GetItemString(d, "field");
	if (!field || field == Py_None)
		return 0;
	for (int i = 0; i < 3; i++)
		if (PyUnicode_CompareWithASCIIString(field, fields[i]) == 0)
			r->field = i + 1;
	if (!r->field) {
		PyErr_Format(PyExc_ValueError, "_select: unknown field %R", field);
		return -1;
	}
	PyObject *sym = PyDict_GetItemString(d, "symbol");
	PyObject *range = PyDict_GetItemString(d, "range");
	if (sym && sym != Py_None) {
		const char *s = PyUnicode_AsUTF8(sym);
		if (!s || !(r->symbol = strdup(s))) {
			if (!PyErr_Occurred())
				PyErr_NoMemory();
			return -1;
		}
		f->symbols = 1;
	} else if (range && range != Py_None) {
		unsigned long long lo, hi;
		if (!PyArg_ParseTuple(range, "KK", &lo, &hi))
			return -1;
		r->lo = lo;
		r->hi = hi;
		r->resolved = 1;
	} else {
		PyErr_SetString(PyExc_ValueError, "_select: a field needs a symbol or a range");
		return -1;
	}
	return 0;
}

static PyObject *trace_select(TraceObject *t, PyObject *rules)
{
	struct filter f = { { 0, 0 }, NULL, 0, 0, NULL, NULL };
	PyObject *fast = PySequence_Fast(rules, "_select: a sequence of rules");
	if (!fast)
		return NULL;
	for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(fast); i++)
		if (parse_rule(&f, PySequence_Fast_GET_ITEM(fast, i)) < 0) {
			Py_DECREF(fast);
			filter_free(&f);
			return NULL;
		}
	Py_DECREF(fast);
	if (!f.nrules) { /* no wishes: nothing matches, the whole trace is read */
		struct rule *r = filter_add_rule(&f);
		if (!r) {
			filter_free(&f);
			return NULL;
		}
	}
	filter_union(&f);
	return iter_new(t, &f, 1);
}

/* ---- summary: what itrace-dump --summary counts ----------------------- */

struct thread_count {
	uint32_t tid;
	uint64_t records, insns, branches;
};

static PyObject *mapping_dict(const struct itrace_record *rec)
{
	RecordObject *o = record_new(rec);
	if (!o)
		return NULL;
	PyObject *d = record_as_dict(o, NULL);
	Py_DECREF(o);
	if (d) {
		PyDict_DelItemString(d, "type");
		PyDict_DelItemString(d, "tid");
	}
	return d;
}

static PyObject *summary_dict(TraceObject *t, const uint64_t *per_type, uint64_t records,
			      const struct thread_count *th, size_t nth, PyObject *errors)
{
	char how[256];
	PyObject *types = PyDict_New(), *threads = PyDict_New();
	PyObject *d = NULL;

	if (!types || !threads)
		goto out;
	for (int i = 0; i < 128; i++)
		if (per_type[i]) {
			PyObject *v = U64(per_type[i]);
			if (!v || PyDict_SetItem(types, type_names[i], v) < 0) {
				Py_XDECREF(v);
				goto out;
			}
			Py_DECREF(v);
		}
	for (size_t i = 0; i < nth; i++) {
		PyObject *v = Py_BuildValue("{sKsKsK}", "records", (unsigned long long)th[i].records,
					    "insns", (unsigned long long)th[i].insns, "branches",
					    (unsigned long long)th[i].branches);
		PyObject *k = PyLong_FromUnsignedLong(th[i].tid);
		if (!v || !k || PyDict_SetItem(threads, k, v) < 0) {
			Py_XDECREF(v);
			Py_XDECREF(k);
			goto out;
		}
		Py_DECREF(v);
		Py_DECREF(k);
	}
	const struct itrace_footer *fp = t->have_footer ? &t->footer : NULL;
	const char *ended = fp ? itrace_end_reason_name(fp->end_reason) : NULL;
	d = Py_BuildValue("{sKsOsOszsOsOsssOsO}", "records", (unsigned long long)records, "types",
			  types, "threads", threads, "ended", ended, "status",
			  fp ? PyLong_FromLong(fp->end_status) : Py_NewRef(Py_None), "chunks",
			  fp ? U64(fp->chunk_count) : Py_NewRef(Py_None), "how",
			  itrace_footer_describe(fp, how, sizeof(how)), "complete",
			  itrace_footer_is_complete(fp) ? Py_True : Py_False, "damage", errors);
	/* the two new references built inline */
	if (d) {
		PyObject *s = PyDict_GetItemString(d, "status"), *c = PyDict_GetItemString(d, "chunks");
		Py_DECREF(s);
		Py_DECREF(c);
	}
	if (d && t->path) {
		struct stat st;
		if (stat(PyBytes_AS_STRING(t->path), &st) == 0) {
			PyObject *v = U64((uint64_t)st.st_size);
			if (v)
				PyDict_SetItemString(d, "file_bytes", v);
			Py_XDECREF(v);
		}
	}
out:
	Py_XDECREF(types);
	Py_XDECREF(threads);
	return d;
}

#define MAX_THREADS 4096

PyDoc_STRVAR(summary_doc,
"summary() -> dict\n\n"
"What itrace-dump --summary prints: 'records', 'types' (count per record\n"
"type), 'threads' ({tid: {'records', 'insns', 'branches'}}), 'ended',\n"
"'status', 'chunks' (None without a footer), 'how', 'complete',\n"
"'file_bytes' (files), 'damage' (the reader's messages; the count goes on\n"
"past a corrupt chunk, as itrace-dump's does).  One pass, cached.");

static PyObject *trace_summary(TraceObject *t, PyObject *unused)
{
	static uint64_t per_type[128];
	struct thread_count *th = NULL;
	size_t nth = 0;
	uint64_t records = 0;
	struct itrace_record rec;
	PyObject *errors = NULL, *maps = NULL, *d = NULL;
	struct itrace_reader *r;
	int rc;

	(void)unused;
	if (t->summary)
		return Py_NewRef(t->summary);
	r = trace_reader(t);
	if (!r)
		return NULL;
	memset(per_type, 0, sizeof(per_type));
	th = PyMem_Calloc(MAX_THREADS, sizeof(*th));
	errors = PyList_New(0);
	maps = PyList_New(0);
	if (!th || !errors || !maps)
		goto out;
	for (;;) {
		rc = itrace_reader_next(r, &rec, sizeof(rec));
		if (rc == ITRACE_EOF)
			break;
		if (rc < 0) {
			PyObject *m = PyUnicode_FromFormat("%s: %s", itrace_errstr(rc),
							   itrace_reader_error(r));
			if (!m || PyList_Append(errors, m) < 0) {
				Py_XDECREF(m);
				goto out;
			}
			Py_DECREF(m);
			continue;
		}
		records++;
		per_type[rec.type & 127]++;
		size_t i;
		for (i = 0; i < nth && th[i].tid != rec.tid; i++)
			;
		if (i == nth && nth < MAX_THREADS)
			th[nth++].tid = rec.tid;
		if (i < nth) {
			th[i].records++;
			th[i].insns += rec.type == ITRACE_REC_INSN;
			th[i].branches += rec.type == ITRACE_REC_BRANCH;
		}
		if (rec.type == ITRACE_REC_MMAP) {
			PyObject *m = mapping_dict(&rec);
			if (!m || PyList_Append(maps, m) < 0) {
				Py_XDECREF(m);
				goto out;
			}
			Py_DECREF(m);
		}
	}
	trace_note_footer(t, r);
	d = summary_dict(t, per_type, records, th, nth, errors);
	if (d) {
		t->summary = Py_NewRef(d);
		Py_XSETREF(t->mappings, Py_NewRef(maps));
	}
out:
	itrace_reader_close(r);
	PyMem_Free(th);
	Py_XDECREF(errors);
	Py_XDECREF(maps);
	return d;
}

static PyObject *get_threads(TraceObject *t, void *c)
{
	(void)c;
	PyObject *s = trace_summary(t, NULL);
	if (!s)
		return NULL;
	PyObject *l = PySequence_List(PyDict_GetItemString(s, "threads"));
	Py_DECREF(s);
	return l;
}

static PyObject *get_mappings(TraceObject *t, void *c)
{
	(void)c;
	PyObject *s = trace_summary(t, NULL);
	if (!s)
		return NULL;
	Py_DECREF(s);
	return Py_NewRef(t->mappings);
}

/* ---- batches ---------------------------------------------------------- */

typedef struct {
	PyObject_HEAD
	TraceObject *trace;
	struct batch_reader *b;
	int done;
} BatchIterObject;

static PyTypeObject BatchIterType;

/* parse_columns - names into column ids (batch.h); None = all. */
static int parse_columns(PyObject *seq, int *cols, size_t *ncols)
{
	*ncols = 0;
	if (!seq || seq == Py_None) {
		for (int i = 0; i < BATCH_NCOLS; i++)
			cols[(*ncols)++] = i;
		return 0;
	}
	PyObject *fast = PySequence_Fast(seq, "columns: a sequence of column names");
	if (!fast)
		return -1;
	for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(fast); i++) {
		const char *n = PyUnicode_AsUTF8(PySequence_Fast_GET_ITEM(fast, i));
		int c = n ? batch_column_by_name(n) : -1;
		for (size_t k = 0; c >= 0 && k < *ncols; k++)
			if (cols[k] == c) {
				PyErr_Format(PyExc_ValueError, "column '%s' named twice", n);
				c = -1;
			}
		if (c < 0 || *ncols == BATCH_NCOLS) {
			if (!PyErr_Occurred())
				PyErr_Format(PyExc_ValueError, "unknown column '%s' (known: %s)", n,
					     batch_column_names());
			Py_DECREF(fast);
			return -1;
		}
		cols[(*ncols)++] = c;
	}
	Py_DECREF(fast);
	return 0;
}

PyDoc_STRVAR(batches_doc,
"batches(types=None, columns=None, size=1<<20) -> iterator of dict\n\n"
"The records of `types` in batches of at most `size`, each a dict of\n"
"columns: NumPy arrays when NumPy imports (no copy: numpy.frombuffer over\n"
"the batch's buffer), memoryviews otherwise.  Columns: type (uint8 type\n"
"number, itrace.TYPES), tid, pid (uint32), time_ns, chunk, addr (INSN, MEM,\n"
"CODE, SIGNAL, TRACE_CTL, GAP), size (MEM), src, dst (BRANCH) (uint64),\n"
"len (INSN), store (MEM), kind (BRANCH: itrace.KINDS), taken (BRANCH)\n"
"(uint8); 0 where the column does not apply to a record.  The iterator\n"
"also has __arrow_c_stream__ (the Arrow PyCapsule interface).");

static PyObject *trace_batches(TraceObject *t, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "types", "columns", "size", NULL };
	PyObject *types = NULL, *columns = NULL;
	Py_ssize_t size = 1 << 20;
	uint64_t tmask[2] = { 0, 0 };
	int cols[BATCH_NCOLS];
	size_t ncols;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "|OOn", kwlist, &types, &columns, &size))
		return NULL;
	if (size <= 0)
		return PyErr_Format(PyExc_ValueError, "size must be positive");
	if (parse_types(types, tmask) < 0 || parse_columns(columns, cols, &ncols) < 0)
		return NULL;
	struct itrace_reader *r = trace_reader(t);
	if (!r)
		return NULL;
	BatchIterObject *it = PyObject_New(BatchIterObject, &BatchIterType);
	if (!it) {
		itrace_reader_close(r);
		return NULL;
	}
	it->trace = (TraceObject *)Py_NewRef(t);
	it->done = 0;
	it->b = batch_reader_new(r, tmask, cols, ncols, (size_t)size);
	if (!it->b) {
		itrace_reader_close(r);
		Py_DECREF(it);
		return PyErr_NoMemory();
	}
	return (PyObject *)it;
}

static void batchiter_dealloc(BatchIterObject *it)
{
	batch_reader_free(it->b);
	Py_XDECREF(it->trace);
	PyObject_Free(it);
}

static PyObject *batchiter_next(BatchIterObject *it)
{
	struct batch out;
	int rc;

	if (it->done || !it->b)
		return NULL;
	Py_BEGIN_ALLOW_THREADS
	rc = batch_reader_fill(it->b, &out);
	Py_END_ALLOW_THREADS
	if (rc < 0 && out.n == 0) {
		/* the damage, after the batch of the records before it */
		char msg[512];
		snprintf(msg, sizeof(msg), "%s", batch_reader_error(it->b));
		trace_note_footer(it->trace, batch_reader_reader(it->b));
		it->done = rc != -ITRACE_E_CORRUPT;
		batch_reader_clear_error(it->b);
		return raise_code(rc, msg, it->trace->name);
	}
	if (out.n == 0) {
		trace_note_footer(it->trace, batch_reader_reader(it->b));
		it->done = 1;
		if (it->trace->pending_code)
			return raise_code(it->trace->pending_code, it->trace->pending_msg,
					  it->trace->name);
		return NULL;
	}
	PyObject *d = PyDict_New();
	for (size_t i = 0; i < out.ncols; i++) {
		PyObject *a = as_array(column_wrap(out.data[i], (Py_ssize_t)out.n,
						   batch_column_format(out.cols[i])));
		out.data[i] = NULL;
		if (!d || !a || PyDict_SetItemString(d, batch_column_name(out.cols[i]), a) < 0) {
			Py_XDECREF(a);
			for (size_t j = i + 1; j < out.ncols; j++)
				free(out.data[j]);
			Py_XDECREF(d);
			return NULL;
		}
		Py_DECREF(a);
	}
	return d;
}

/* The capsule's destructor: a consumer that took the stream has moved it
 * out (release NULL); else it is released here (Arrow PyCapsule interface). */
static void arrow_capsule_free(PyObject *cap)
{
	arrow_stream_free(PyCapsule_GetPointer(cap, "arrow_array_stream"));
}

static PyObject *batchiter_arrow(BatchIterObject *it, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "requested_schema", NULL };
	PyObject *schema = Py_None;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "|O", kwlist, &schema))
		return NULL;
	if (it->done || !it->b)
		return PyErr_Format(ItraceError, "these batches have been read");
	/* the stream takes the batch reader over: it lives in C from now on */
	struct ArrowArrayStream *s = arrow_stream_new(it->b);
	if (!s)
		return PyErr_NoMemory();
	it->b = NULL;
	it->done = 1;
	PyObject *cap = PyCapsule_New(s, "arrow_array_stream", arrow_capsule_free);
	if (!cap)
		arrow_stream_free(s);
	return cap;
}

static PyMethodDef batchiter_methods[] = {
	{ "__arrow_c_stream__", (PyCFunction)(void (*)(void))batchiter_arrow,
	  METH_VARARGS | METH_KEYWORDS,
	  "__arrow_c_stream__(requested_schema=None) -> PyCapsule 'arrow_array_stream'\n\n"
	  "The remaining batches as an Arrow C stream (struct of the columns), for\n"
	  "pyarrow.RecordBatchReader.from_stream, polars, DuckDB.  requested_schema\n"
	  "is not used: the columns are chosen by batches(columns=...)." },
	{ NULL, NULL, 0, NULL },
};

static PyTypeObject BatchIterType = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "itrace.BatchIterator",
	.tp_basicsize = sizeof(BatchIterObject),
	.tp_dealloc = (destructor)batchiter_dealloc,
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_doc = "Batches of columns of a trace (dicts of arrays).",
	.tp_iter = PyObject_SelfIter,
	.tp_iternext = (iternextfunc)batchiter_next,
	.tp_methods = batchiter_methods,
};

static PyObject *trace_arrow(TraceObject *t, PyObject *args, PyObject *kw)
{
	PyObject *none = PyTuple_New(0);
	if (!none)
		return NULL;
	PyObject *it = trace_batches(t, none, NULL);
	Py_DECREF(none);
	if (!it)
		return NULL;
	PyObject *cap = batchiter_arrow((BatchIterObject *)it, args, kw);
	Py_DECREF(it);
	return cap;
}

/* ---- analysis tables: what itrace-sqlite's summary holds -------------- */

/* u64_column - n values from fn(i) into a Column. */
static PyObject *new_u64(size_t n, uint64_t **p)
{
	*p = malloc((n ? n : 1) * sizeof(uint64_t));
	if (!*p) {
		PyErr_NoMemory();
		return NULL;
	}
	return column_wrap(*p, (Py_ssize_t)n, 'Q');
}

static int run_analysis(TraceObject *t)
{
	struct itrace_analysis_options ao;
	struct itrace_analysis_run_options ro;
	struct itrace_analysis *a = NULL;
	int rc;

	if (t->analysis)
		return 0;
	struct itrace_reader *r = trace_reader(t);
	if (!r)
		return -1;
	itrace_analysis_options_init(&ao);
	ao.machine = t->hdr.machine;
	ao.endian = t->hdr.target_endian;
	itrace_analysis_run_options_init(&ro);
	/* as itrace-sqlite's summary: every function of the modules that ran */
	ro.flags = ITRACE_RUN_ALL_FUNCTIONS;
	Py_BEGIN_ALLOW_THREADS
	rc = itrace_analysis_run(r, t->path ? PyBytes_AS_STRING(t->path) : NULL, &ao, &ro, &a);
	Py_END_ALLOW_THREADS
	trace_note_footer(t, r);
	itrace_reader_close(r);
	if (!a) {
		raise_code(rc, NULL, t->name);
		return -1;
	}
	t->analysis = a;
	if (rc < 0) {
		/* as itrace-sqlite: the tables of every record before the damage */
		PyObject *m = PyUnicode_FromFormat("%U is damaged: %s (%s); the tables cover the "
						   "records before it", t->name, itrace_errstr(rc),
						   itrace_analysis_run_error(a));
		Py_XSETREF(t->analysis_warning, m);
	}
	if (t->analysis_warning &&
	    PyErr_WarnEx(IncompleteWarning, PyUnicode_AsUTF8(t->analysis_warning), 1) < 0)
		return -1;
	return 0;
}

static PyObject *str_list_from(size_t n, const char *(*get)(const struct itrace_analysis *, size_t),
			       const struct itrace_analysis *a)
{
	PyObject *l = PyList_New((Py_ssize_t)n);
	for (size_t i = 0; l && i < n; i++) {
		const char *s = get(a, i);
		PyObject *v = s ? PyUnicode_DecodeFSDefault(s) : Py_NewRef(Py_None);
		if (!v) {
			Py_CLEAR(l);
			break;
		}
		PyList_SET_ITEM(l, (Py_ssize_t)i, v);
	}
	return strings_array(l);
}

static const char *fn_symbol(const struct itrace_analysis *a, size_t i)
{
	return itrace_analysis_function_at(a, i)->name;
}
static const char *fn_file(const struct itrace_analysis *a, size_t i)
{
	return itrace_analysis_function_at(a, i)->file;
}
static const char *fn_dso(const struct itrace_analysis *a, size_t i)
{
	uint64_t id = itrace_analysis_function_at(a, i)->dso_id;
	const struct itrace_analysis_dso *d = id ? itrace_analysis_dso_at(a, id - 1) : NULL;
	return d ? d->short_name : NULL;
}

/* set_item - d[key] = v, stealing v; -1 on failure. */
static int set_item(PyObject *d, const char *key, PyObject *v)
{
	if (!v)
		return -1;
	int rc = PyDict_SetItemString(d, key, v);
	Py_DECREF(v);
	return rc;
}

/*
 * sql_round2 - SQLite's round(x, 2) as Debian 12's SQLite 3.40 computes it
 * (func.c roundFunc: its printf "%.2f", which adds 0.005 and truncates the
 * digits), so that insn_percent equals functions_view's.
 */
static double sql_round2(double x)
{
	char buf[64], *dot;

	snprintf(buf, sizeof(buf), "%.10f", x + 0.005);
	dot = strchr(buf, '.');
	if (dot && strlen(dot) > 3)
		dot[3] = 0;
	return strtod(buf, NULL);
}

PyDoc_STRVAR(functions_doc,
"functions() -> dict of arrays\n\n"
"itrace-sqlite's functions_view: id, symbol, dso, sym_start, insn_count\n"
"(self), total_insn_count (inclusive), call_count, insn_percent, src_file,\n"
"src_line (0: unknown) - one entry per function, in the table's order\n"
"(every function with debug info of the modules that ran, as itrace-sqlite\n"
"lists them).  Runs the analysis once (cached; a damaged trace gives the\n"
"tables of the records before the damage with an itrace.IncompleteWarning).");

static PyObject *trace_functions(TraceObject *t, PyObject *unused)
{
	(void)unused;
	if (run_analysis(t) < 0)
		return NULL;
	const struct itrace_analysis *a = t->analysis;
	size_t n = itrace_analysis_function_count(a);
	uint64_t *id, *start, *self, *total, *calls, *line, sum = 0;
	double *pct;
	PyObject *d = PyDict_New();
	PyObject *cid = new_u64(n, &id), *cst = new_u64(n, &start), *cse = new_u64(n, &self);
	PyObject *cto = new_u64(n, &total), *cca = new_u64(n, &calls), *cli = new_u64(n, &line);
	PyObject *cpc = NULL;

	pct = malloc((n ? n : 1) * sizeof(double));
	if (pct)
		cpc = column_wrap(pct, (Py_ssize_t)n, 'd');
	if (!d || !cid || !cst || !cse || !cto || !cca || !cli || !cpc) {
		Py_XDECREF(d); Py_XDECREF(cid); Py_XDECREF(cst); Py_XDECREF(cse);
		Py_XDECREF(cto); Py_XDECREF(cca); Py_XDECREF(cli); Py_XDECREF(cpc);
		return PyErr_Occurred() ? NULL : PyErr_NoMemory();
	}
	for (size_t i = 0; i < n; i++)
		sum += itrace_analysis_function_at(a, i)->insns;
	for (size_t i = 0; i < n; i++) {
		const struct itrace_analysis_function *f = itrace_analysis_function_at(a, i);
		id[i] = f->id;
		start[i] = f->start;
		self[i] = f->insns;
		total[i] = f->total_insns;
		calls[i] = f->calls;
		line[i] = f->line;
		/* functions_view: round(100.0 * insn_count / max(1, sum), 2) */
		double p = 100.0 * (double)f->insns / (double)(sum > 1 ? sum : 1);
		pct[i] = sql_round2(p);
	}
	if (set_item(d, "id", as_array(cid)) < 0 ||
	    set_item(d, "symbol", str_list_from(n, fn_symbol, a)) < 0 ||
	    set_item(d, "dso", str_list_from(n, fn_dso, a)) < 0 ||
	    set_item(d, "sym_start", as_array(cst)) < 0 ||
	    set_item(d, "insn_count", as_array(cse)) < 0 ||
	    set_item(d, "total_insn_count", as_array(cto)) < 0 ||
	    set_item(d, "call_count", as_array(cca)) < 0 ||
	    set_item(d, "insn_percent", as_array(cpc)) < 0 ||
	    set_item(d, "src_file", str_list_from(n, fn_file, a)) < 0 ||
	    set_item(d, "src_line", as_array(cli)) < 0) {
		Py_DECREF(d);
		return NULL;
	}
	return d;
}

static const struct itrace_analysis *sort_a;
static int by_executions(const void *x, const void *y)
{
	const struct itrace_analysis_branch_stat *a = itrace_analysis_branch_stat_at(sort_a, *(const size_t *)x);
	const struct itrace_analysis_branch_stat *b = itrace_analysis_branch_stat_at(sort_a, *(const size_t *)y);
	if (a->executions != b->executions)
		return a->executions < b->executions ? 1 : -1;
	return a->id < b->id ? -1 : a->id > b->id;
}

PyDoc_STRVAR(hot_branches_doc,
"hot_branches(n=None) -> dict of arrays\n\n"
"itrace-sqlite's hot_branches_view, the n most executed branches first\n"
"(None: all of them, ties in table order): id, symbol, ip, sym_offset,\n"
"to_ip (most recent taken target, 0: never taken), branch_type_name (perf's:\n"
"'conditional jump', 'call', ...), kind (itrace's: 'cond', 'call', ...),\n"
"exec_count, taken_count, taken_ratio (NaN when never executed).");

static PyObject *trace_hot_branches(TraceObject *t, PyObject *args)
{
	PyObject *nobj = Py_None;
	if (!PyArg_ParseTuple(args, "|O", &nobj) || run_analysis(t) < 0)
		return NULL;
	const struct itrace_analysis *a = t->analysis;
	size_t total = itrace_analysis_branch_stat_count(a), n = total;
	if (nobj != Py_None) {
		Py_ssize_t want = PyLong_AsSsize_t(nobj);
		if (want < 0)
			return PyErr_Occurred() ? NULL : PyErr_Format(PyExc_ValueError, "n must be >= 0");
		if ((size_t)want < n)
			n = (size_t)want;
	}
	size_t *order = malloc((total ? total : 1) * sizeof(*order));
	if (!order)
		return PyErr_NoMemory();
	for (size_t i = 0; i < total; i++)
		order[i] = i;
	sort_a = a;
	qsort(order, total, sizeof(*order), by_executions);
	uint64_t *id, *ip, *off, *to, *ex, *tk;
	double *ratio = malloc((n ? n : 1) * sizeof(double));
	PyObject *cid = new_u64(n, &id), *cip = new_u64(n, &ip), *cof = new_u64(n, &off);
	PyObject *cto = new_u64(n, &to), *cex = new_u64(n, &ex), *ctk = new_u64(n, &tk);
	PyObject *cra = ratio ? column_wrap(ratio, (Py_ssize_t)n, 'd') : NULL;
	PyObject *sym = PyList_New((Py_ssize_t)n), *btn = PyList_New((Py_ssize_t)n);
	PyObject *kind = PyList_New((Py_ssize_t)n), *d = PyDict_New();
	int ok = cid && cip && cof && cto && cex && ctk && cra && sym && btn && kind && d;
	for (size_t i = 0; ok && i < n; i++) {
		const struct itrace_analysis_branch_stat *s = itrace_analysis_branch_stat_at(a, order[i]);
		const struct itrace_analysis_function *f =
			s->function_id ? itrace_analysis_function_at(a, s->function_id - 1) : NULL;
		id[i] = s->id;
		ip[i] = s->from;
		off[i] = s->from - (f ? f->start : 0);
		to[i] = s->to;
		ex[i] = s->executions;
		tk[i] = s->taken;
		ratio[i] = s->executions ? (double)s->taken / (double)s->executions : Py_NAN;
		PyObject *sn = f && f->name ? PyUnicode_DecodeFSDefault(f->name) : Py_NewRef(Py_None);
		PyObject *bn = PyUnicode_FromString(
			itrace_analysis_perf_branch_type_name(itrace_analysis_perf_branch_type(s->kind)));
		PyObject *kn = Py_NewRef(kind_names[s->kind <= ITRACE_BRANCH_UNKNOWN ? s->kind :
								ITRACE_BRANCH_UNKNOWN]);
		ok = sn && bn;
		if (sn) PyList_SET_ITEM(sym, (Py_ssize_t)i, sn);
		if (bn) PyList_SET_ITEM(btn, (Py_ssize_t)i, bn);
		PyList_SET_ITEM(kind, (Py_ssize_t)i, kn);
	}
	free(order);
	if (!ok) {
		Py_XDECREF(cid); Py_XDECREF(cip); Py_XDECREF(cof); Py_XDECREF(cto);
		Py_XDECREF(cex); Py_XDECREF(ctk); Py_XDECREF(cra); Py_XDECREF(sym);
		Py_XDECREF(btn); Py_XDECREF(kind); Py_XDECREF(d);
		return PyErr_Occurred() ? NULL : PyErr_NoMemory();
	}
	if (set_item(d, "id", as_array(cid)) < 0 || set_item(d, "symbol", strings_array(sym)) < 0 ||
	    set_item(d, "ip", as_array(cip)) < 0 || set_item(d, "sym_offset", as_array(cof)) < 0 ||
	    set_item(d, "to_ip", as_array(cto)) < 0 ||
	    set_item(d, "branch_type_name", strings_array(btn)) < 0 ||
	    set_item(d, "kind", strings_array(kind)) < 0 ||
	    set_item(d, "exec_count", as_array(cex)) < 0 ||
	    set_item(d, "taken_count", as_array(ctk)) < 0 ||
	    set_item(d, "taken_ratio", as_array(cra)) < 0) {
		Py_DECREF(d);
		return NULL;
	}
	return d;
}

/* ---- symbolize -------------------------------------------------------- */

/* build_image - the trace's mappings (one pass over its records). */
static int build_image(TraceObject *t)
{
	struct itrace_image_options io;
	struct itrace_record rec;
	int rc, have_pid = 0, damage = 0;

	if (t->sym)
		return 0;
	struct itrace_reader *r = trace_reader(t);
	if (!r)
		return -1;
	itrace_image_options_init(&io);
	rc = itrace_image_alloc(&io, &t->img);
	if (rc == 0)
		rc = itrace_symbolizer_alloc(t->img, &t->sym);
	Py_BEGIN_ALLOW_THREADS
	while (rc >= 0 && (rc = itrace_reader_next(r, &rec, sizeof(rec))) != ITRACE_EOF) {
		if (rc == -ITRACE_E_CORRUPT) { /* the reader goes on at the next intact chunk */
			damage = rc;
			rc = 0;
			continue;
		}
		if (rc < 0)
			break;
		if (rec.type != ITRACE_REC_MMAP && rec.type != ITRACE_REC_CODE &&
		    rec.type != ITRACE_REC_PROCESS)
			continue;
		if (rec.type == ITRACE_REC_MMAP && !have_pid) {
			t->img_pid = rec.u.mmap.pid;
			have_pid = 1;
		}
		rc = itrace_image_apply(t->img, &rec);
	}
	Py_END_ALLOW_THREADS
	trace_note_footer(t, r);
	char msg[512];
	snprintf(msg, sizeof(msg), "%s", itrace_reader_error(r));
	if (rc == -ITRACE_E_TRUNCATED || rc == -ITRACE_E_NOFOOTER)
		damage = rc;
	else if (rc == ITRACE_EOF)
		rc = 0;
	if (rc < 0 && !damage) {
		itrace_reader_close(r);
		itrace_symbolizer_free(t->sym);
		itrace_image_free(t->img);
		t->sym = NULL;
		t->img = NULL;
		raise_code(rc, msg, t->name);
		return -1;
	}
	itrace_reader_close(r);
	/* as functions(): the mappings of the records before the damage */
	if (damage && PyErr_WarnFormat(IncompleteWarning, 1, "%U is damaged: %s: %s; symbols "
				       "from the mappings before it", t->name,
				       itrace_errstr(damage), msg) < 0)
		return -1;
	return 0;
}

PyDoc_STRVAR(symbolize_doc,
"symbolize(addrs, pid=None) -> dict\n\n"
"Symbols of many addresses at once (a sequence of ints or a uint64 buffer,\n"
"e.g. a batch's 'addr' column): 'function' (name or None), 'offset' (from\n"
"the function's start), 'module' (mapped file or None), 'file' and 'line'\n"
"(source position, None/0 when unknown).  pid: the process whose mappings\n"
"to use (default: the first mapped one).");

static PyObject *trace_symbolize(TraceObject *t, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "addrs", "pid", NULL };
	PyObject *addrs, *pidobj = Py_None;
	Py_buffer view = { 0 };
	uint64_t *vals = NULL;
	Py_ssize_t n;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O|O", kwlist, &addrs, &pidobj))
		return NULL;
	if (build_image(t) < 0)
		return NULL;
	uint32_t pid = pidobj == Py_None ? t->img_pid : (uint32_t)PyLong_AsUnsignedLong(pidobj);
	if (PyErr_Occurred())
		return NULL;
	if (PyObject_CheckBuffer(addrs) &&
	    PyObject_GetBuffer(addrs, &view, PyBUF_FORMAT | PyBUF_C_CONTIGUOUS) == 0) {
		if (view.itemsize != 8 || !view.format || !strchr("QLK", view.format[strlen(view.format) - 1])) {
			/* not uint64: go through the sequence protocol */
			PyBuffer_Release(&view);
			view.obj = NULL;
		}
	} else {
		PyErr_Clear();
	}
	PyObject *fast = NULL;
	if (view.obj) {
		n = view.len / 8;
		vals = view.buf;
	} else {
		fast = PySequence_Fast(addrs, "symbolize: a sequence of addresses");
		if (!fast)
			return NULL;
		n = PySequence_Fast_GET_SIZE(fast);
		vals = PyMem_Malloc((size_t)(n ? n : 1) * 8);
		for (Py_ssize_t i = 0; vals && i < n; i++) {
			PyObject *ix = PyNumber_Index(PySequence_Fast_GET_ITEM(fast, i));
			vals[i] = ix ? PyLong_AsUnsignedLongLong(ix) : 0;
			Py_XDECREF(ix);
			if (PyErr_Occurred()) {
				PyMem_Free(vals);
				Py_DECREF(fast);
				return NULL;
			}
		}
	}
	uint64_t *off, *line;
	PyObject *coff = new_u64((size_t)n, &off), *cline = new_u64((size_t)n, &line);
	PyObject *fn = PyList_New(n), *mod = PyList_New(n), *file = PyList_New(n);
	PyObject *d = PyDict_New();
	int ok = vals && coff && cline && fn && mod && file && d;
	for (Py_ssize_t i = 0; ok && i < n; i++) {
		struct itrace_symbol s;
		memset(&s, 0, sizeof(s));
		if (itrace_symbolizer_lookup(t->sym, pid, vals[i], ITRACE_SYM_NAME | ITRACE_SYM_LINE,
					     &s) < 0)
			s.name = s.file = NULL; /* module stays named when its file is unusable */
		off[i] = s.name ? s.offset : 0;
		line[i] = (uint64_t)(s.line > 0 ? s.line : 0);
		PyObject *a = s.name ? PyUnicode_DecodeFSDefault(s.name) : Py_NewRef(Py_None);
		PyObject *b = s.module ? PyUnicode_DecodeFSDefault(s.module) : Py_NewRef(Py_None);
		PyObject *c = s.file ? PyUnicode_DecodeFSDefault(s.file) : Py_NewRef(Py_None);
		ok = a && b && c;
		PyList_SET_ITEM(fn, i, a ? a : Py_NewRef(Py_None));
		PyList_SET_ITEM(mod, i, b ? b : Py_NewRef(Py_None));
		PyList_SET_ITEM(file, i, c ? c : Py_NewRef(Py_None));
	}
	if (view.obj)
		PyBuffer_Release(&view);
	else
		PyMem_Free(vals);
	Py_XDECREF(fast);
	if (!ok) {
		Py_XDECREF(coff); Py_XDECREF(cline); Py_XDECREF(fn); Py_XDECREF(mod);
		Py_XDECREF(file); Py_XDECREF(d);
		return PyErr_Occurred() ? NULL : PyErr_NoMemory();
	}
	if (set_item(d, "function", strings_array(fn)) < 0 ||
	    set_item(d, "offset", as_array(coff)) < 0 ||
	    set_item(d, "module", strings_array(mod)) < 0 ||
	    set_item(d, "file", strings_array(file)) < 0 || set_item(d, "line", as_array(cline)) < 0) {
		Py_DECREF(d);
		return NULL;
	}
	return d;
}

/* ---- fill ------------------------------------------------------------- */

PyDoc_STRVAR(fill_doc,
"fill(source, output=None, jobs=1) -> Trace\n\n"
"The filled instruction stream of a branch trace, as itrace-fill makes it\n"
"(code/fill): a Trace of INSN records (and the context records).  Written\n"
"to `output` when given (a path, as itrace-fill -o), else kept in an\n"
"anonymous in-memory file.  A damaged input gives every record filled\n"
"before the damage, then raises itrace.Error when those are read.");

static PyObject *mod_fill(PyObject *self, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "source", "output", "jobs", NULL };
	PyObject *src, *output = Py_None, *outb = NULL;
	unsigned jobs = 1;
	struct itrace_fill_options fo;
	struct itrace_writer_options wo;
	struct itrace_filler *fl = NULL;
	struct itrace_writer *w = NULL;
	struct itrace_meta *meta = NULL;
	struct itrace_footer foot;
	PyObject *result = NULL;
	int fd = -1, rc, wrc;

	(void)self;
	if (!PyArg_ParseTupleAndKeywords(args, kw, "O|OI", kwlist, &src, &output, &jobs))
		return NULL;
	TraceObject *in = PyObject_TypeCheck(src, &TraceType) ? (TraceObject *)Py_NewRef(src) :
			  (TraceObject *)mod_open(NULL, src);
	if (!in)
		return NULL;
	if (in->hdr.level != ITRACE_LEVEL_BRANCH) {
		PyErr_Format(ItraceError, "%R is not a branch trace (level insn): nothing to fill",
			     in->name);
		goto out;
	}
	struct itrace_reader *r = trace_reader(in);
	if (!r)
		goto out;
	meta = calloc(in->hdr.meta_count + 1, sizeof(*meta));
	if (!meta) {
		itrace_reader_close(r);
		PyErr_NoMemory();
		goto out;
	}
	itrace_fill_writer_options(r, 0, &wo, meta, in->hdr.meta_count + 1);
	if (output != Py_None) {
		if (!PyUnicode_FSConverter(output, &outb)) {
			itrace_reader_close(r);
			goto out;
		}
		rc = itrace_writer_open(PyBytes_AS_STRING(outb), &wo, &w);
	} else {
		fd = memfd_create("itrace-fill", MFD_CLOEXEC);
		rc = fd < 0 ? -ITRACE_E_IO : itrace_writer_open_fd(fd, &wo, &w);
	}
	if (rc < 0) {
		itrace_reader_close(r);
		raise_code(rc, NULL, output);
		goto out;
	}
	itrace_fill_options_init(&fo);
	fo.jobs = jobs ? jobs : 1;
	rc = itrace_filler_alloc(&fo, &fl);
	if (rc < 0) {
		itrace_writer_abandon(w);
		itrace_reader_close(r);
		raise_code(rc, NULL, in->name);
		goto out;
	}
	Py_BEGIN_ALLOW_THREADS
	rc = itrace_filler_run(fl, r, in->path ? PyBytes_AS_STRING(in->path) : NULL,
			       itrace_fill_output_writer, w);
	/* as itrace-fill: the output ends as the input did */
	if (itrace_reader_footer(r, &foot) == 0)
		wrc = itrace_writer_close(w, foot.end_reason, foot.end_status);
	else
		wrc = itrace_writer_close(w, ITRACE_END_UNKNOWN, 0);
	Py_END_ALLOW_THREADS
	itrace_reader_close(r);
	if (wrc < 0) {
		raise_code(wrc, NULL, output);
		goto out;
	}
	if (rc < 0 && rc != -ITRACE_E_TRUNCATED && rc != -ITRACE_E_CORRUPT &&
	    rc != -ITRACE_E_NOFOOTER) {
		raise_code(rc, itrace_filler_error(fl), in->name);
		goto out;
	}
	if (output != Py_None) {
		result = trace_from_path(output, outb);
	} else {
		PyObject *name = PyUnicode_FromFormat("<filled %U>", in->name);
		int dupfd = name ? dup(fd) : -1;
		result = dupfd < 0 ? (name ? PyErr_SetFromErrno(PyExc_OSError) : NULL) :
				     (lseek(dupfd, 0, SEEK_SET), trace_from_fd(name, dupfd));
		Py_XDECREF(name);
	}
	if (result && rc < 0) {
		TraceObject *t = (TraceObject *)result;
		t->pending_code = rc;
		snprintf(t->pending_msg, sizeof(t->pending_msg), "%s", itrace_filler_error(fl));
	}
out:
	if (fd >= 0)
		close(fd);
	free(meta);
	itrace_filler_free(fl);
	Py_XDECREF(outb);
	Py_DECREF(in);
	return result;
}

/* ---- the types' tables ------------------------------------------------ */

static PyMethodDef trace_methods[] = {
	{ "summary", (PyCFunction)trace_summary, METH_NOARGS, summary_doc },
	{ "records", (PyCFunction)(void (*)(void))trace_records, METH_VARARGS | METH_KEYWORDS, records_doc },
	{ "batches", (PyCFunction)(void (*)(void))trace_batches, METH_VARARGS | METH_KEYWORDS, batches_doc },
	{ "functions", (PyCFunction)trace_functions, METH_NOARGS, functions_doc },
	{ "hot_branches", (PyCFunction)trace_hot_branches, METH_VARARGS, hot_branches_doc },
	{ "symbolize", (PyCFunction)(void (*)(void))trace_symbolize, METH_VARARGS | METH_KEYWORDS, symbolize_doc },
	{ "_select", (PyCFunction)trace_select, METH_O, select_doc },
	{ "__arrow_c_stream__", (PyCFunction)(void (*)(void))trace_arrow, METH_VARARGS | METH_KEYWORDS,
	  "__arrow_c_stream__(requested_schema=None): every record, all columns, as an\n"
	  "Arrow C stream (see batches())." },
	{ "close", (PyCFunction)trace_close, METH_NOARGS, "close(): release the trace's files" },
	{ "__enter__", (PyCFunction)trace_enter, METH_NOARGS, NULL },
	{ "__exit__", (PyCFunction)trace_exit, METH_VARARGS, NULL },
	{ NULL, NULL, 0, NULL },
};

static PyGetSetDef trace_getset[] = {
	{ "meta", (getter)get_meta, NULL, "metadata (dict of str)", NULL },
	{ "arch", (getter)get_arch, NULL, "architecture, as itrace-dump names it ('x86-64', ...)", NULL },
	{ "machine", (getter)get_machine, NULL, "ELF e_machine", NULL },
	{ "level", (getter)get_level, NULL, "'branch' or 'insn'", NULL },
	{ "name", (getter)get_name, NULL, "what was opened", NULL },
	{ "threads", (getter)get_threads, NULL, "thread ids, in order of appearance (one pass, cached)", NULL },
	{ "mappings", (getter)get_mappings, NULL, "MMAP records as dicts (one pass, cached)", NULL },
	{ "ended", (getter)get_ended, NULL,
	  "how the trace ended, in itrace-dump's words ('complete', 'interrupted',\n"
	  "'target crashed', ...); None without a footer (on a stream: until read)", NULL },
	{ "status", (getter)get_status, NULL, "the footer's status (exit code, signal); None without one", NULL },
	{ "how", (getter)get_how, NULL, "itrace-dump's 'how:' line", NULL },
	{ "complete", (getter)get_complete, NULL, "does it hold everything asked (ITRACE.md 7.4)?", NULL },
	{ NULL, NULL, NULL, NULL, NULL },
};

static PyObject *trace_repr(TraceObject *t)
{
	return PyUnicode_FromFormat("<itrace.Trace %R %s %s>", t->name ? t->name : Py_None,
				    itrace_machine_name(t->hdr.machine, t->hdr.target_endian),
				    t->hdr.level == ITRACE_LEVEL_BRANCH ? "branch" : "insn");
}

static PyTypeObject TraceType = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "itrace.Trace",
	.tp_basicsize = sizeof(TraceObject),
	.tp_dealloc = (destructor)trace_dealloc,
	.tp_repr = (reprfunc)trace_repr,
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_doc = "An itrace file (itrace.open).  Iterating gives its records.",
	.tp_iter = (getiterfunc)trace_iter,
	.tp_methods = trace_methods,
	.tp_getset = trace_getset,
	.tp_new = NULL,
};

static PyMethodDef module_methods[] = {
	{ "open", mod_open, METH_O, open_doc },
	{ "fill", (PyCFunction)(void (*)(void))mod_fill, METH_VARARGS | METH_KEYWORDS, fill_doc },
	{ NULL, NULL, 0, NULL },
};

static struct PyModuleDef module_def = {
	PyModuleDef_HEAD_INIT, "itrace._itrace",
	"The C half of the itrace package (see help(itrace)).", -1, module_methods,
	NULL, NULL, NULL, NULL,
};

static int add_names(PyObject *m)
{
	PyObject *types = PyDict_New(), *kinds = PyTuple_New(ITRACE_BRANCH_UNKNOWN + 1);
	if (!types || !kinds)
		return -1;
	for (int t = 0; t < 128; t++) {
		const char *n = itrace_rec_type_name(t);
		/* types this library does not know stand as 'UNKNOWN' */
		type_names[t] = PyUnicode_InternFromString(n);
		if (!type_names[t])
			return -1;
		if (strcmp(n, "UNKNOWN") || t == ITRACE_REC_UNKNOWN) {
			PyObject *v = PyLong_FromLong(t);
			if (!v || PyDict_SetItem(types, type_names[t], v) < 0)
				return -1;
			Py_DECREF(v);
		}
	}
	for (int k = 0; k <= ITRACE_BRANCH_UNKNOWN; k++) {
		kind_names[k] = PyUnicode_InternFromString(itrace_branch_kind_name(k));
		if (!kind_names[k])
			return -1;
		PyTuple_SET_ITEM(kinds, k, Py_NewRef(kind_names[k]));
	}
	if (PyModule_AddObject(m, "TYPES", types) < 0 || PyModule_AddObject(m, "KINDS", kinds) < 0)
		return -1;
	return 0;
}

PyMODINIT_FUNC PyInit__itrace(void);
PyMODINIT_FUNC PyInit__itrace(void)
{
	PyTypeObject *types[] = { &RecordType, &ColumnType, &TraceType, &IterType, &BatchIterType };
	PyObject *m = PyModule_Create(&module_def);

	if (!m)
		return NULL;
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (PyType_Ready(types[i]) < 0)
			goto fail;
	ItraceError = PyErr_NewExceptionWithDoc(
		"itrace.Error",
		"An itrace library error: the message is the library's (itrace_errstr) with the\n"
		"reader's description; attributes code (ITRACE_E_*), reason, detail.",
		NULL, NULL);
	IncompleteWarning = PyErr_NewExceptionWithDoc(
		"itrace.IncompleteWarning", "Results that cover only part of a damaged trace.",
		PyExc_UserWarning, NULL);
	if (!ItraceError || !IncompleteWarning ||
	    PyModule_AddObjectRef(m, "Error", ItraceError) < 0 ||
	    PyModule_AddObjectRef(m, "IncompleteWarning", IncompleteWarning) < 0 ||
	    PyModule_AddObjectRef(m, "Trace", (PyObject *)&TraceType) < 0 ||
	    PyModule_AddObjectRef(m, "Record", (PyObject *)&RecordType) < 0 ||
	    PyModule_AddObjectRef(m, "Column", (PyObject *)&ColumnType) < 0 ||
	    PyModule_AddStringConstant(m, "library_version", itrace_version()) < 0 ||
	    add_names(m) < 0)
		goto fail;
	return m;
fail:
	Py_DECREF(m);
	return NULL;
}
