/*
 * itrace_tool.c - the Valgrind tool behind `itrace-collect --backend valgrind`.
 *
 * Valgrind re-JITs the program; this tool adds a few IR statements per
 * guest instruction that append raw 64-bit words (vg_wire.h) to a buffer:
 * one constant store per group of sequential instructions (whose lengths
 * and accesses the collector learns once, at translation), one store of
 * (address | tag) per load or store, and at branch level one BSITE unit
 * of 32 bits per branch whose targets are constants (two to a word).
 * Each superblock loads the buffer cursor once, writes at
 * fixed offsets from it and stores the cursor back at its exits (and
 * before each instruction that may fault), so there is no helper call per
 * instruction; a guarded helper call at superblock entry hands the buffer
 * over when fewer than VGI_RESERVE_WORDS words are left.  The buffers are
 * slots of a memory file shared with itrace-collect, so handing one over
 * is an 8-byte note on a pipe, not a copy.
 *
 * Everything that is not generated code (thread switches, system calls,
 * signals, mappings, triggers) is written by ordinary callbacks into the
 * same buffer, so the collector sees one ordered stream.
 *
 * The tool links against Valgrind's core only (no libc, no libitrace):
 * itrace-collect turns the stream into itrace records.
 */
#include "pub_tool_basics.h"
#include "pub_tool_tooliface.h"
#include "pub_tool_aspacemgr.h"
#include "pub_tool_clientstate.h"
#include "pub_tool_debuginfo.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcfile.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_libcproc.h"
#include "pub_tool_machine.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_options.h"
#include "pub_tool_threadstate.h"
#include "pub_tool_transtab.h"
#include "pub_tool_vki.h"
#include "pub_tool_vkiscnums.h"
#include "pub_tool_xarray.h"
#include "libvex_guest_amd64.h"

#include "vg_wire.h"

/* Not in the tool headers, but exported by the core: moves a descriptor
 * above the range the client may use and sets close-on-exec, exactly as
 * the core does for its own log file.  Without it the program would see
 * the trace pipe as one of its descriptors. */
extern Int VG_(safe_fd)(Int oldfd);
/* Exported by the core as well: discarding without the "safely" check
 * (which only allows it inside client requests), and the mapping the
 * core uses for vgdb's shared memory. */
extern void VG_(discard_translations)(Addr start, ULong range, const HChar *who);
extern SysRes VG_(am_shared_mmap_file_float_valgrind)(SizeT length, UInt prot, Int fd,
						       Off64T offset);
/* Also exported by the core: the program's auxiliary vector (AT_ENTRY,
 * AT_SYSINFO_EHDR), which the tool interface does not offer. */
extern UWord *VG_(client_auxv);
/* And what following an execve needs (m_syswrap: an exec'd program runs
 * under the launcher VALGRIND_LAUNCHER names, with VG_(args_for_valgrind)
 * as its options, when VG_(clo_trace_children) is set).  The tool sets
 * that flag at each execve rather than with --trace-children=yes, with
 * which Valgrind refuses to start a set-user-ID program at all. */
extern Int VG_(fcntl)(Int fd, Int cmd, Addr arg);
extern XArray *VG_(args_for_valgrind);
extern Bool VG_(clo_trace_children);

#define VGI_RESERVE_WORDS 8192		/* more than any superblock writes */
#define VGI_MAX_THREADS 1024
#define VGI_MAX_SIG 65
#define VGI_MAX_LOADS 8
#define ITRACE_INSN_MAX_LEN_X86 15

/* ---- Options ------------------------------------------------------------ */

static Int clo_fd = -1;
static Int clo_ack_fd = -1;
static Int clo_shm_fd = -1;
static Bool clo_branch = False;	   /* --itrace-level=branch */
static Bool clo_mem = True;	   /* MEM words at insn level */
static const HChar *clo_only = NULL;	/* module to trace, NULL = all */
static const HChar *clo_start = NULL;	/* function names of the triggers */
static const HChar *clo_stop = NULL;
static const HChar *clo_start_addr = NULL; /* hex, like --start-addr */
static const HChar *clo_stop_addr = NULL;
static Addr start_addr = 0, stop_addr = 0;

/*
 * Separate debug information.  Valgrind 3.19 reads the separate debug
 * file of every object it maps as the object is mapped (m_debuginfo/
 * readelf.c, find_debug_file(), looks under the fixed path
 * /usr/lib/debug whatever the options): with Debian's libc6-dbg
 * installed, libc's and ld.so's compressed DWARF take 0.08-0.10 s of
 * every start.  The tool uses symbols only for the name triggers
 * (--itrace-start, --itrace-stop: VG_(get_fnname_if_entry)); without
 * them, Valgrind's opening of a file under /usr/lib/debug fails, as if
 * no debug package were installed.  The objects' own symbol tables and
 * unwind tables (.symtab, .dynsym, .eh_frame) are still read, so
 * Valgrind's own reports (a fatal signal's stack) keep libc's exported
 * names.  The link wraps the function that opens them (module.mk:
 * -Wl,--wrap, for a Valgrind that has it).
 */
#if defined(VGI_WRAP_IMAGE_OPEN)
#define VGI_DEBUG_DIR "/usr/lib/debug/"

struct _DiImage;
struct _DiImage *__real_vgModuleLocal_img_from_local_file(const HChar *path);
struct _DiImage *__wrap_vgModuleLocal_img_from_local_file(const HChar *path);

struct _DiImage *__wrap_vgModuleLocal_img_from_local_file(const HChar *path)
{
	if (!clo_start && !clo_stop &&
	    VG_(strncmp)(path, VGI_DEBUG_DIR, sizeof(VGI_DEBUG_DIR) - 1) == 0)
		return NULL;
	return __real_vgModuleLocal_img_from_local_file(path);
}
#endif

static Bool itrace_process_cmd_line_option(const HChar *arg)
{
	const HChar *level = NULL;

	if VG_INT_CLO (arg, "--itrace-fd", clo_fd) {
	} else if VG_INT_CLO (arg, "--itrace-ack-fd", clo_ack_fd) {
	} else if VG_INT_CLO (arg, "--itrace-shm-fd", clo_shm_fd) {
	} else if VG_STR_CLO (arg, "--itrace-level", level) {
		if (VG_(strcmp)(level, "branch") == 0)
			clo_branch = True;
		else if (VG_(strcmp)(level, "insn") == 0)
			clo_branch = False;
		else
			return False;
	} else if VG_BOOL_CLO (arg, "--itrace-mem", clo_mem) {
	} else if VG_STR_CLO (arg, "--itrace-only", clo_only) {
	} else if VG_STR_CLO (arg, "--itrace-start", clo_start) {
	} else if VG_STR_CLO (arg, "--itrace-stop", clo_stop) {
	} else if VG_STR_CLO (arg, "--itrace-start-addr", clo_start_addr) {
	} else if VG_STR_CLO (arg, "--itrace-stop-addr", clo_stop_addr) {
	} else {
		return False;
	}
	return True;
}

static void itrace_print_usage(void)
{
	VG_(printf)("    --itrace-fd=N --itrace-ack-fd=N --itrace-shm-fd=N\n"
		    "                             channels to itrace-collect (required)\n"
		    "    --itrace-level=insn|branch  what to record [insn]\n"
		    "    --itrace-mem=yes|no      loads and stores at insn level [yes]\n"
		    "    --itrace-only=MODULE     record only code of MODULE\n"
		    "    --itrace-start=FUNC      start recording at FUNC's entry\n"
		    "    --itrace-stop=FUNC       stop recording at FUNC's entry\n"
		    "    --itrace-start-addr=ADDR, --itrace-stop-addr=ADDR  the same by address\n");
}

static void itrace_print_debug_usage(void)
{
	VG_(printf)("    (none)\n");
}

/* ---- The buffer ----------------------------------------------------------- */

/*
 * The words go into VGW_SLOTS slots of a memory file shared with the
 * collector (--itrace-shm-fd): a full slot is announced on the pipe
 * (--itrace-fd) and the collector gives it back with one byte on the ack
 * pipe (--itrace-ack-fd) once converted, so nothing is copied through the
 * kernel.  Generated code reads `vgi_cursor` and `vgi_limit` (the slot's
 * end less the reserve) from these globals, so slots can change under it.
 * At branch level generated code may leave `vgi_cursor` on 4, not 8,
 * after a BSITE unit: align_cursor() pads that before C code writes.
 */
static ULong *vgi_buf;		/* start of the current slot */
static ULong *vgi_buf_end;
static ULong *vgi_cursor;
static ULong *vgi_limit;	/* flush when the cursor passes this */
static ULong *vgi_shm;		/* the slots */
static UInt vgi_slot;		/* current slot */
static UInt vgi_outstanding;	/* slots handed over and not yet given back */
static Int vgi_fd = -1;		/* -1 once the collector is gone or in a child */
static Int vgi_ack_fd = -1;
static Int vgi_shm_fd = -1;	/* kept open for a program exec'd under the tool */

/* All ones while recording, zero while a trigger has recording off:
 * generated code commits `words * 8 & mask`. */
static ULong vgi_on_mask = ~0ULL;

static void use_buffer(ULong *base, SizeT words)
{
	vgi_buf = base;
	vgi_buf_end = base + words;
	vgi_cursor = base;
	vgi_limit = vgi_buf_end - VGI_RESERVE_WORDS;
}

/*
 * The collector is gone (or this is a forked child, which is not traced):
 * keep running the program untraced, writing into a private buffer that
 * is simply reset when full.
 */
static void detach_collector(void)
{
	static ULong *private_buf;

	if (vgi_fd >= 0)
		VG_(close)(vgi_fd);
	if (vgi_ack_fd >= 0)
		VG_(close)(vgi_ack_fd);
	if (vgi_shm_fd >= 0)
		VG_(close)(vgi_shm_fd);
	vgi_fd = vgi_ack_fd = vgi_shm_fd = -1;
	if (private_buf == NULL)
		private_buf = VG_(malloc)("itrace.private", VGW_SLOT_WORDS * sizeof(ULong));
	use_buffer(private_buf, VGW_SLOT_WORDS);
}

/* Wait until the collector gives back at least one slot. */
static Bool wait_for_slot(void)
{
	UChar acks[VGW_SLOTS];

	while (vgi_outstanding >= VGW_SLOTS) {
		Int n = VG_(read)(vgi_ack_fd, acks, sizeof(acks));
		if (n <= 0)
			return False;
		vgi_outstanding -= (UInt)n > vgi_outstanding ? vgi_outstanding : (UInt)n;
	}
	return True;
}

/*
 * At branch level generated code may leave the cursor on 4, after a
 * BSITE unit (vg_wire.h): a zero unit pads that word, so that what the
 * callbacks write, and the slot's end, are on whole words.  The reserve
 * keeps room for it.
 */
static void align_cursor(void)
{
	if ((Addr)vgi_cursor % 8 != 0) {
		*(UInt *)vgi_cursor = 0;
		vgi_cursor = (ULong *)((Addr)vgi_cursor + 4);
	}
}

/* Hand the filled part of the slot to the collector and move to the next. */
static void flush_buffer(void)
{
	ULong note;

	align_cursor();
	if (vgi_fd < 0) {
		vgi_cursor = vgi_buf;
		return;
	}
	if (vgi_cursor == vgi_buf)
		return;
	note = ((ULong)vgi_slot << 32) | (ULong)((UChar *)vgi_cursor - (UChar *)vgi_buf);
	if (VG_(write)(vgi_fd, &note, sizeof(note)) != sizeof(note)) {
		detach_collector();
		return;
	}
	vgi_outstanding++;
	vgi_slot = (vgi_slot + 1) % VGW_SLOTS;
	if (!wait_for_slot()) {
		detach_collector();
		return;
	}
	use_buffer(vgi_shm + (SizeT)vgi_slot * VGW_SLOT_WORDS, VGW_SLOT_WORDS);
}

/*
 * Hand over what is written and wait until the collector has converted
 * every slot: it has then acted on every event so far (the entry point's
 * checks, an exec).  Returns False if the collector is gone.
 */
static Bool sync_with_collector(void)
{
	UChar acks[VGW_SLOTS];

	flush_buffer();
	while (vgi_fd >= 0 && vgi_outstanding > 0) {
		Int n = VG_(read)(vgi_ack_fd, acks, (Int)vgi_outstanding);
		if (n <= 0) {
			detach_collector();
			break;
		}
		vgi_outstanding -= (UInt)n;
	}
	return vgi_fd >= 0;
}

/* Called from generated code (guarded) when the slot is nearly full. */
static VG_REGPARM(0) void vgi_flush_helper(void)
{
	flush_buffer();
}

/* Room for `n` words outside generated code, keeping the reserve intact. */
static ULong *reserve_words(UInt n)
{
	align_cursor();
	if (vgi_cursor + n + VGI_RESERVE_WORDS > vgi_buf_end)
		flush_buffer();
	tl_assert(vgi_cursor + n + VGI_RESERVE_WORDS <= vgi_buf_end);
	return vgi_cursor;
}

static void put_event(UInt type, const ULong *payload, UInt n)
{
	ULong *w = reserve_words(n + 1);
	UInt i;

	w[0] = ((ULong)VGW_EVENT << VGW_TAG_SHIFT) | ((ULong)type << VGW_AUX_SHIFT) | n;
	for (i = 0; i < n; i++)
		w[1 + i] = payload[i];
	vgi_cursor = w + 1 + n;
}

/* An event whose payload ends in a byte string (path, code bytes). */
static void put_event_bytes(UInt type, const ULong *head, UInt nhead, const void *bytes,
			    SizeT len)
{
	UInt nb = VGW_BYTES_WORDS(len);
	ULong *w;
	UInt i;

	if (nhead + nb + 1 > VGW_SLOT_WORDS - 2 * VGI_RESERVE_WORDS)
		return; /* cannot happen for paths and the vDSO; never overflow */
	w = reserve_words(nhead + nb + 1);
	w[0] = ((ULong)VGW_EVENT << VGW_TAG_SHIFT) | ((ULong)type << VGW_AUX_SHIFT) | (nhead + nb);
	for (i = 0; i < nhead; i++)
		w[1 + i] = head[i];
	w[1 + nhead + nb - (nb ? 1 : 0)] = 0; /* zero the padding of the last word */
	VG_(memcpy)(&w[1 + nhead], bytes, len);
	vgi_cursor = w + 1 + nhead + nb;
}

static Bool recording(void)
{
	return vgi_on_mask != 0;
}

/* ---- Threads ------------------------------------------------------------- */

/*
 * Per thread: its kernel tid and, as with the ptrace backend, its own
 * recording state (a --start window belongs to the thread that entered
 * the function).  vgi_on_mask is the running thread's copy.
 */
struct vgi_thread {
	Int os_tid;	/* 0: not running (yet or any more) */
	Bool seen;
	ULong mask;
	Addr ret_addr;	/* --start alone: return address of the traced call */
	Addr ret_sp;	/* and the stack pointer at the entry (points at it) */
	Bool exit_called; /* the thread called exit(exit_code) */
	Int exit_code;
	ULong last_rep;	/* rep instruction in mid-loop (see vgi_last_rep) */
};
static struct vgi_thread vgi_threads[VGI_MAX_THREADS];
static ThreadId last_tid = VG_INVALID_THREADID;
static Bool client_started = False;
static Bool fatal_sent = False;		/* the FATAL event is written */
/*
 * Branch level: the rep-prefixed string instruction whose loop the running
 * thread is in (0: none).  Valgrind runs one iteration per entry of the
 * instruction's superblock and enters it once more at the end only to find
 * the count zero; generated code keeps this to tell an entry that goes on
 * with the loop (its branch to itself, ITRACE.md 6.5.2) from a first one.
 */
static ULong vgi_last_rep;
static Bool group_exiting = False;	/* exit_group was called */
static Int group_exit_code = 0;

static struct vgi_thread *cur_thread(void)
{
	return last_tid < VGI_MAX_THREADS ? &vgi_threads[last_tid] : NULL;
}

static ULong initial_mask(void);

static void put_thread(UInt kind, Int tid, ULong other)
{
	ULong p[4] = { kind, (ULong)tid, (ULong)VG_(getpid)(), other };
	put_event(VGW_EV_THREAD, p, 4);
}

static void first_client_code(ThreadId tid);
static void put_trace_ctl(Bool on, UInt reason, Addr pc);

/*
 * Valgrind runs one thread at a time; the scheduler calls this whenever a
 * thread gets the CPU.  Each client thread is a kernel thread of its own,
 * so VG_(gettid) here is the thread's real tid.  The collector writes the
 * THREAD switch lazily, before the next record of that thread.
 */
static void thread_start_client_code(ThreadId tid, ULong blocks_done)
{
	struct vgi_thread *t;

	(void)blocks_done;
	if (vgi_fd < 0)
		return;
	if (tid == last_tid || tid >= VGI_MAX_THREADS)
		return;
	if (cur_thread()) {
		cur_thread()->mask = vgi_on_mask;
		cur_thread()->last_rep = vgi_last_rep;
	}
	t = &vgi_threads[tid];
	t->os_tid = VG_(gettid)();
	vgi_last_rep = t->last_rep;
	last_tid = tid;
	if (!t->seen) {
		t->seen = True;
		t->mask = initial_mask();
		t->last_rep = vgi_last_rep = 0;
		vgi_on_mask = t->mask;
		put_thread(2 /* switch */, t->os_tid, 0);
		/* A new thread: where its first instruction is (itrace-fill
		 * needs it at branch level). */
		if (client_started && recording())
			put_trace_ctl(True, 1 /* ITRACE_CTL_START */, VG_(get_IP)(tid));
	} else {
		vgi_on_mask = t->mask;
		put_thread(2 /* switch */, t->os_tid, 0);
	}
	if (!client_started)
		first_client_code(tid);
}

/*
 * Is `pc` just past an int3 (CC, or CD 03)?  A SIGTRAP there is the
 * instruction's: the kernel reports it as SI_KERNEL, where Valgrind
 * delivers TRAP_BRKPT (its synth_sigtrap) and reports a fatal one with no
 * code at all.
 */
static Bool after_int3(Addr pc)
{
	const UChar *b = (const UChar *)pc;
	NSegment const *seg = VG_(am_find_nsegment)(pc - 2);

	if (seg == NULL || (seg->kind != SkFileC && seg->kind != SkAnonC) || !seg->hasR ||
	    VG_(am_find_nsegment)(pc - 1) != seg)
		return False;
	return b[-1] == 0xcc || (b[-2] == 0xcd && b[-1] == 0x03);
}

static void thread_pre_exit(ThreadId tid)
{
	struct vgi_thread *t;

	if (vgi_fd < 0 || tid >= VGI_MAX_THREADS || vgi_threads[tid].os_tid == 0)
		return;
	t = &vgi_threads[tid];
	/* Killed with the process, and the thread that was running: it got
	 * the fatal signal (Valgrind acts on a signal in the running thread),
	 * here.  The collector learns the signal from waitpid. */
	if (!group_exiting && !t->exit_called && tid == last_tid && !fatal_sent) {
		Addr pc = VG_(get_IP)(tid);
		ULong p[3] = { (ULong)t->os_tid, pc, after_int3(pc) };
		put_event(VGW_EV_FATAL, p, 3);
		fatal_sent = True;
	}
	/* The status is that of exit_group or the thread's exit; a thread
	 * killed with the process by a signal has none yet: the collector
	 * fills in what waitpid says (VGW_STATUS_UNKNOWN). */
	put_thread(3 /* exit */, t->os_tid,
		   group_exiting ? (ULong)(Long)group_exit_code
		   : t->exit_called ? (ULong)(Long)t->exit_code : VGW_STATUS_UNKNOWN);
	t->os_tid = 0;
	t->seen = False; /* Valgrind reuses the slot for a later thread */
	t->exit_called = False;
	if (last_tid == tid)
		last_tid = VG_INVALID_THREADID;
}

/* ---- System calls and signals ------------------------------------------- */

/* Handlers as the program installed them: Valgrind keeps the real ones to
 * itself, so we follow rt_sigaction to say where a delivery continues. */
static Addr sig_handler[VGI_MAX_SIG];
static Addr sig_handler_pending[VGI_MAX_SIG];
static ULong *sig_event_words;	/* payload of the SIGNAL event being built */
static Addr sigreturn_from;	/* the rt_sigreturn instruction being run */

/* ---- execve: following the new program ------------------------------- */

/* Length of the client's string at `s` (0 if unreadable), at most max. */
static SizeT client_strlen(const HChar *s, SizeT max)
{
	SizeT len = 0;

	while (s != NULL && len < max && VG_(am_is_valid_for_client)((Addr)s + len, 1, VKI_PROT_READ) &&
	       s[len] != '\0')
		len++;
	return len;
}

/*
 * Can Valgrind run the program execve starts, under this tool?  Not a
 * set-user/group-ID program (Valgrind cannot give it its privileges and
 * would make the execve fail: it runs natively instead, untraced), nor
 * one that is not x86-64 (this tool is amd64 only).  A program that does
 * not exist or cannot run gets its execve error either way: followed.
 */
static UInt exec_followable(const HChar *path)
{
	struct vg_stat st;
	UChar hdr[20];
	SysRes r;
	Int fd, n;

	if (path == NULL)
		return VGW_EXEC_UNKNOWN;
	r = VG_(stat)(path, &st);
	if (sr_isError(r))
		return VGW_EXEC_FOLLOW;
	if (st.mode & (VKI_S_ISUID | VKI_S_ISGID))
		return VGW_EXEC_SETUID;
	r = VG_(open)(path, VKI_O_RDONLY, 0);
	if (sr_isError(r))
		return VGW_EXEC_FOLLOW;
	fd = (Int)sr_Res(r);
	n = VG_(read)(fd, hdr, sizeof(hdr));
	VG_(close)(fd);
	if (n >= 2 && hdr[0] == '#' && hdr[1] == '!')
		return VGW_EXEC_FOLLOW; /* Valgrind runs its interpreter */
	if (n == (Int)sizeof(hdr) && hdr[0] == 0x7f && hdr[1] == 'E' && hdr[2] == 'L' &&
	    hdr[3] == 'F' && (hdr[4] != 2 /* ELFCLASS64 */ || hdr[18] != 62 || hdr[19] != 0))
		return VGW_EXEC_FOREIGN;
	return VGW_EXEC_FOLLOW;
}

/* Point the option `prefix` (--itrace-fd=, ...) of the next Valgrind at fd. */
static void set_fd_option(const HChar *prefix, Int fd)
{
	SizeT plen = VG_(strlen)(prefix);
	Word i;

	for (i = 0; i < VG_(sizeXA)(VG_(args_for_valgrind)); i++) {
		HChar **arg = VG_(indexXA)(VG_(args_for_valgrind), i);
		HChar *s;

		if (VG_(strncmp)(*arg, prefix, plen) != 0)
			continue;
		s = VG_(malloc)("itrace.execarg", plen + 16);
		VG_(sprintf)(s, "%s%d", prefix, fd);
		*arg = s;
	}
}

/* Our descriptors survive this execve (on) or not (off, the default). */
static void pass_channels(Bool on)
{
	Int fds[3] = { vgi_fd, vgi_ack_fd, vgi_shm_fd };
	Int i;

	for (i = 0; i < 3; i++)
		if (fds[i] >= 0)
			VG_(fcntl)(fds[i], VKI_F_SETFD, on ? 0 : VKI_FD_CLOEXEC);
}

/*
 * execve, before it happens.  The collector gets the path and whether the
 * new program will be traced, and converts everything so far before the
 * execve goes on.  If it is followed, the next Valgrind (the launcher in
 * VALGRIND_LAUNCHER, with our options) gets our channels, at the numbers
 * they have now, and starts the stream again with a HELLO in slot 0 (every
 * slot is free after the sync).  If not, the program runs natively and the
 * stream ends.  A failed execve (a shell trying each directory of $PATH)
 * is taken back in post_syscall.
 */
static void announce_exec(const HChar *path)
{
	SizeT len = client_strlen(path, 4000);
	UInt follow = exec_followable(path);
	ULong head[2];

	VG_(clo_trace_children) = follow == VGW_EXEC_FOLLOW;
	head[0] = follow;
	head[1] = len;
	put_event_bytes(VGW_EV_EXEC, head, 2, len ? path : "", len);
	if (!sync_with_collector() || follow != VGW_EXEC_FOLLOW)
		return;
	set_fd_option("--itrace-fd=", vgi_fd);
	set_fd_option("--itrace-ack-fd=", vgi_ack_fd);
	set_fd_option("--itrace-shm-fd=", vgi_shm_fd);
	pass_channels(True);
}

static void pre_syscall(ThreadId tid, UInt nr, UWord *args, UInt nargs)
{
	ULong p[2 + 6];
	UInt i, n = nargs > 6 ? 6 : nargs;

	if (nr == __NR_rt_sigaction && args[0] < VGI_MAX_SIG && args[1] != 0) {
		/* struct sigaction starts with the handler on amd64-linux */
		sig_handler_pending[args[0]] = *(const Addr *)args[1];
	}
	if (nr == __NR_exit && cur_thread()) {
		cur_thread()->exit_called = True;
		cur_thread()->exit_code = (Int)(args[0] & 0xff);
	}
	if (nr == __NR_exit_group) {
		group_exiting = True;
		group_exit_code = (Int)(args[0] & 0xff);
	}
	if (nr == __NR_rt_sigreturn)
		sigreturn_from = VG_(get_IP)(tid) - 2; /* after "syscall" (0f 05) */
	if (vgi_fd >= 0 && recording()) {
		p[0] = nr;
		p[1] = 6;
		for (i = 0; i < 6; i++)
			p[2 + i] = i < n ? args[i] : 0;
		put_event(VGW_EV_SYSCALL_ENTER, p, 8);
	}
	/* execveat: only a path relative to the working directory is known */
	if ((nr == __NR_execve || nr == 322 /* execveat */) && vgi_fd >= 0)
		announce_exec(nr == __NR_execve ? (const HChar *)args[0]
			      : (Int)args[0] == VKI_AT_FDCWD ? (const HChar *)args[1] : NULL);
}

static void post_syscall(ThreadId tid, UInt nr, UWord *args, UInt nargs, SysRes res)
{
	ULong p[2];

	(void)nargs;
	if (nr == __NR_rt_sigaction && args[0] < VGI_MAX_SIG && args[1] != 0 &&
	    !sr_isError(res))
		sig_handler[args[0]] = sig_handler_pending[args[0]];
	if (vgi_fd < 0)
		return;
	if (nr == __NR_execve || nr == 322 /* execveat */) {
		pass_channels(False);
		put_event(VGW_EV_EXEC_FAILED, NULL, 0);
	}
	/* A new thread: named by the parent's clone, as the kernel does. */
	if ((nr == __NR_clone || nr == 435 /* clone3 */) && !sr_isError(res) && sr_Res(res) != 0 &&
	    (nr == 435 || (args[0] & VKI_CLONE_THREAD)))
		put_thread(1 /* create */, (Int)sr_Res(res), (ULong)VG_(gettid)());
	if (!recording())
		return;
	p[0] = nr;
	p[1] = sr_isError(res) ? (ULong)(-(Long)sr_Err(res)) : (ULong)sr_Res(res);
	put_event(VGW_EV_SYSCALL_EXIT, p, 2);
}

static void pre_deliver_signal(ThreadId tid, Int signo, Bool alt_stack)
{
	ULong p[6];
	Addr h = signo > 0 && signo < VGI_MAX_SIG ? sig_handler[signo] : 0;

	(void)alt_stack;
	sig_event_words = NULL;
	/* Also outside a --start window, as the ptrace backend does: the
	 * program's own code took the signal, with its handler. */
	if (vgi_fd < 0 || !client_started)
		return;
	p[0] = (ULong)signo;
	p[1] = 0;	/* si_code and si_addr: filled from the frame below */
	p[2] = 0;
	p[3] = VG_(get_IP)(tid);
	p[4] = h > 1 ? h : 0;	/* SIG_DFL (0) and SIG_IGN (1): no handler */
	p[5] = recording();
	put_event(VGW_EV_SIGNAL, p, 6);
	sig_event_words = vgi_cursor - 6;
}

/*
 * Valgrind builds the handler's frame on the client stack and reports it
 * as a core write.  On amd64-linux the frame starts with the return
 * address and the ucontext, followed by the siginfo the handler receives:
 * the only place a tool can see si_code and si_addr.
 */
static void post_mem_write(CorePart part, ThreadId tid, Addr a, SizeT len)
{
	const vki_siginfo_t *si;
	SizeT off = sizeof(Addr) + sizeof(struct vki_ucontext);

	(void)tid;
	if (part != Vg_CoreSignal || sig_event_words == NULL)
		return;
	if (len >= off + sizeof(vki_siginfo_t)) {
		si = (const vki_siginfo_t *)(a + off);
		sig_event_words[1] = (ULong)(Long)si->si_code;
		if (si->si_code > 0 &&
		    (si->si_signo == VKI_SIGSEGV || si->si_signo == VKI_SIGBUS ||
		     si->si_signo == VKI_SIGILL || si->si_signo == VKI_SIGFPE ||
		     si->si_signo == VKI_SIGTRAP))
			sig_event_words[2] = (ULong)(Addr)si->_sifields._sigfault._addr;
	}
	sig_event_words = NULL;
}

/* The handler returned through rt_sigreturn: a branch to where the
 * program was interrupted (branch level only, like the ptrace backend). */
static void post_deliver_signal(ThreadId tid, Int signo)
{
	ULong *w;

	(void)signo;
	if (vgi_fd < 0 || !recording() || !clo_branch || sigreturn_from == 0)
		return;
	w = reserve_words(3);
	w[0] = ((ULong)VGW_BRANCH_FULL << VGW_TAG_SHIFT) |
	       ((ULong)(2 | (8 /* SIGRETURN */ << 4)) << VGW_AUX_SHIFT);
	w[1] = sigreturn_from;
	w[2] = VG_(get_IP)(tid);
	vgi_cursor = w + 3;
	sigreturn_from = 0;
}

/* ---- Mappings ------------------------------------------------------------- */

static void put_mapping(Addr a, SizeT len, Bool rr, Bool ww, Bool xx)
{
	NSegment const *seg = VG_(am_find_nsegment)(a);
	const HChar *path = seg ? VG_(am_get_filename)(seg) : NULL;
	ULong head[5];
	SizeT plen;

	/* Like the ptrace backend: mappings of files, not anonymous memory
	 * (the vDSO is sent separately) and not Valgrind's own. */
	if (vgi_fd < 0 || seg == NULL || seg->kind != SkFileC || path == NULL)
		return;
	plen = VG_(strlen)(path);
	head[0] = a;
	head[1] = len;
	head[2] = (ULong)(seg->offset + (a - seg->start));
	head[3] = (rr ? 1 : 0) | (ww ? 2 : 0) | (xx ? 4 : 0);
	head[4] = plen;
	put_event_bytes(VGW_EV_MMAP, head, 5, path, plen);
}

static void new_mem_startup(Addr a, SizeT len, Bool rr, Bool ww, Bool xx, ULong di)
{
	(void)di;
	put_mapping(a, len, rr, ww, xx);
}

static void new_mem_mmap(Addr a, SizeT len, Bool rr, Bool ww, Bool xx, ULong di)
{
	(void)di;
	put_mapping(a, len, rr, ww, xx);
}

/* An entry of the program's auxiliary vector (0 if absent). */
static Addr client_auxv_value(UWord type)
{
	UWord *a;

	for (a = VG_(client_auxv); a && a[0] != 0 /* AT_NULL */; a += 2)
		if (a[0] == type)
			return a[1];
	return 0;
}

/*
 * The vDSO has no file: send its bytes so the trace can be decoded.
 * (Valgrind 3.19 on amd64 unmaps it and marks AT_SYSINFO_EHDR ignored, so
 * the program makes real system calls instead; this only matters for a
 * Valgrind that hands it over.)
 */
static void put_vdso(void)
{
	Addr vdso = client_auxv_value(33 /* AT_SYSINFO_EHDR */);
	NSegment const *seg;
	ULong head[2];

	if (vdso == 0 || (seg = VG_(am_find_nsegment)(vdso)) == NULL)
		return;
	head[0] = seg->start;
	head[1] = seg->end + 1 - seg->start;
	if (head[1] > (1u << 20))
		return;
	put_event_bytes(VGW_EV_CODE, head, 2, (const void *)seg->start, head[1]);
}

/* ---- Scope (--itrace-only) and triggers ------------------------------------ */

static const HChar *base_name(const HChar *path)
{
	const HChar *s = VG_(strrchr)(path, '/');
	return s ? s + 1 : path;
}

static Addr client_auxv_value(UWord type);

/*
 * The executable, as mapped: the file of the mapping that holds the entry
 * point (AT_ENTRY).  From the memory map, so a stripped program is scoped
 * like any other, and an exec'd one is the new program.
 */
static const HChar *main_path(void)
{
	static HChar *path;
	NSegment const *seg;
	const HChar *p;
	Addr entry;

	if (path == NULL && (entry = client_auxv_value(9 /* AT_ENTRY */)) != 0 &&
	    (seg = VG_(am_find_nsegment)(entry)) != NULL && (p = VG_(am_get_filename)(seg)) != NULL)
		path = VG_(strdup)("itrace.main", p);
	return path;
}

/* Does the code at `a` belong to the module named by --itrace-only: "main"
 * (the executable), a full path, or a base name? */
static Bool in_scope(Addr a)
{
	NSegment const *seg;
	const HChar *path;

	if (clo_only == NULL)
		return True;
	seg = VG_(am_find_nsegment)(a);
	path = seg ? VG_(am_get_filename)(seg) : NULL;
	if (path == NULL)
		return False;
	if (VG_(strcmp)(clo_only, "main") == 0)
		return main_path() != NULL && VG_(strcmp)(path, main_path()) == 0;
	if (VG_(strchr)(clo_only, '/'))
		return VG_(strcmp)(path, clo_only) == 0;
	return VG_(strcmp)(base_name(path), clo_only) == 0;
}

/*
 * Triggers, with the ptrace backend's meaning.  With any of --start,
 * --stop or --only, recording begins at the program's entry point (after
 * the dynamic loader), or with --start at FUNC's entry.  --start alone
 * records until FUNC returns to its caller (the instruction after the
 * call is not recorded); with --stop, until the entry of the other
 * function (not recorded).  The return is noticed at the return address,
 * which gets a check when it is next translated.
 */
static Bool use_triggers = False;
static Bool triggers_armed = False;	/* the entry point was reached */
static Addr entry_addr = 0;
/*
 * Return addresses that got a stop check: one per call site of FUNC,
 * kept in an open-addressing hash set (looked up for every instruction
 * translated while --start is in use).
 */
static Addr *watched;		/* 0 = empty slot */
static UInt watched_cap;	/* power of two */
static UInt n_watched;

static UInt watch_slot(Addr a, UInt cap)
{
	return (UInt)((a * 0x9e3779b97f4a7c15ULL) >> 40) & (cap - 1);
}

static Bool is_watched(Addr a)
{
	UInt i;

	if (watched == NULL || a == 0)
		return False;
	for (i = watch_slot(a, watched_cap); watched[i] != 0; i = (i + 1) & (watched_cap - 1))
		if (watched[i] == a)
			return True;
	return False;
}

static void watch_insert(Addr *set, UInt cap, Addr a)
{
	UInt i = watch_slot(a, cap);

	while (set[i] != 0 && set[i] != a)
		i = (i + 1) & (cap - 1);
	set[i] = a;
}

/* Add `a`; returns False if it was there already. */
static Bool watch_add(Addr a)
{
	UInt i;

	if (a == 0 || is_watched(a))
		return False;
	if (2 * (n_watched + 1) > watched_cap) {
		UInt cap = watched_cap ? 2 * watched_cap : 64;
		Addr *set = VG_(calloc)("itrace.watched", cap, sizeof(Addr));
		for (i = 0; i < watched_cap; i++)
			if (watched[i] != 0)
				watch_insert(set, cap, watched[i]);
		if (watched)
			VG_(free)(watched);
		watched = set;
		watched_cap = cap;
	}
	watch_insert(watched, watched_cap, a);
	n_watched++;
	return True;
}

static Bool has_start(void)
{
	return clo_start != NULL || start_addr != 0;
}

static Bool has_stop(void)
{
	return clo_stop != NULL || stop_addr != 0;
}

static void put_trace_ctl(Bool on, UInt reason, Addr pc)
{
	ULong p[3] = { on ? 1 : 0, reason, pc };
	put_event(VGW_EV_TRACE_CTL, p, 3);
}

static void recording_on(UInt reason, Addr pc)
{
	vgi_on_mask = ~0ULL;
	put_trace_ctl(True, reason, pc);
}

static VG_REGPARM(0) void vgi_entry_helper(Addr pc, Addr sp)
{
	(void)sp;
	if (triggers_armed || vgi_fd < 0 || pc != entry_addr)
		return;
	triggers_armed = True;
	/* The collector checks --start/--stop/--only against what is mapped
	 * now, before the program's own code runs: it kills the program
	 * rather than let a trigger that exists nowhere pass unnoticed. */
	put_event(VGW_EV_ENTRY, NULL, 0);
	if (!sync_with_collector())
		return;
	if (!has_start())
		recording_on(1 /* ITRACE_CTL_START */, pc);
}

static VG_REGPARM(0) void vgi_start_helper(Addr pc, Addr sp)
{
	struct vgi_thread *t = cur_thread();

	if (!triggers_armed || vgi_on_mask != 0 || vgi_fd < 0 || t == NULL)
		return;
	recording_on(2 /* ITRACE_CTL_TRIGGER */, pc);
	if (!has_stop()) {
		t->ret_sp = sp;
		t->ret_addr = *(const Addr *)sp;
		if (watch_add(t->ret_addr)) {
			/* Translated before without a check: retranslate.  The
			 * running translation (FUNC's entry block) ends at a
			 * branch, so it never covers the return address. */
			VG_(discard_translations)(t->ret_addr, 1, "itrace trigger");
		}
	}
}

static VG_REGPARM(0) void vgi_stop_helper(Addr pc, Addr sp)
{
	struct vgi_thread *t = cur_thread();

	if (!triggers_armed || vgi_on_mask == 0 || vgi_fd < 0 || t == NULL)
		return;
	if (!has_stop()) {
		/* At a return address: only the return of this thread's
		 * traced activation counts, not a deeper recursive one. */
		if (pc != t->ret_addr || sp <= t->ret_sp)
			return;
		t->ret_addr = 0;
	}
	put_trace_ctl(False, 2 /* ITRACE_CTL_TRIGGER */, pc);
	vgi_on_mask = 0;
}

/* Recording state of a thread seen for the first time. */
static ULong initial_mask(void)
{
	if (!use_triggers)
		return client_started ? ~0ULL : 0;
	return triggers_armed && !has_start() ? ~0ULL : 0;
}

/* Helper calls to insert before the instruction at `a` (bit set). */
#define TRIG_ENTRY 1u
#define TRIG_START 2u
#define TRIG_STOP 4u

/* Valgrind names versioned symbols "name@@VERSION" (the default) or
 * "name@VERSION"; a trigger names the function, as in the ELF files. */
static Bool same_function(const HChar *valgrind_name, const HChar *name)
{
	SizeT n = VG_(strlen)(name);

	return VG_(strncmp)(valgrind_name, name, n) == 0 &&
	       (valgrind_name[n] == '\0' || (valgrind_name[n] == '@' && VG_(strchr)(name, '@') == NULL));
}

static UInt triggers_at(Addr a)
{
	const HChar *fn;
	UInt t = 0;

	if (!use_triggers)
		return 0;
	if (a == entry_addr)
		t |= TRIG_ENTRY;
	if (a == start_addr && start_addr != 0)
		t |= TRIG_START;
	if ((a == stop_addr && stop_addr != 0) ||
	    (!has_stop() && is_watched(a)))
		t |= TRIG_STOP;
	if ((clo_start || clo_stop) && VG_(get_fnname_if_entry)(VG_(current_DiEpoch)(), a, &fn)) {
		if (clo_start && same_function(fn, clo_start))
			t |= TRIG_START;
		if (clo_stop && same_function(fn, clo_stop))
			t |= TRIG_STOP;
	}
	return t;
}

/*
 * The first time the program runs: its auxiliary vector is in place now.
 * Without triggers recording starts here, at the first instruction of the
 * dynamic loader, as with the ptrace backend.
 */
static void first_client_code(ThreadId tid)
{
	client_started = True;
	put_vdso();
	entry_addr = client_auxv_value(9 /* AT_ENTRY */);
	/* A dynamic program starts in the loader, and its entry block gets
	 * its checks when it is translated (triggers_at).  A static one
	 * starts at its entry point, whose block the scheduler translated
	 * before calling us, without them: they run here, before it. */
	if (use_triggers && entry_addr != 0 && VG_(get_IP)(tid) == entry_addr) {
		UInt trig = triggers_at(entry_addr);

		if (trig & TRIG_ENTRY)
			vgi_entry_helper(entry_addr, VG_(get_SP)(tid));
		if (trig & TRIG_START)
			vgi_start_helper(entry_addr, VG_(get_SP)(tid));
	}
	if (!use_triggers)
		recording_on(1 /* ITRACE_CTL_START */, VG_(get_IP)(tid));
}

/* ---- Instrumentation ---------------------------------------------------- */

/*
 * The superblock being built: `cursor` is a temp holding vgi_cursor as
 * loaded at the start of the current segment (or that rounded up to a
 * word, store_word()), `bytes` how many bytes the segment wrote after it,
 * `dirty` whether it wrote any since the cursor was last stored back,
 * `aligned` whether `cursor` is known to be a multiple of 8.  A segment
 * ends at every side exit and helper call, where the cursor is stored
 * back.  At branch level BSITE units of 4 bytes leave the cursor anywhere
 * on 4 (vg_wire.h); at instruction level, and with triggers, every write
 * is whole words.
 */
struct sb {
	IRSB *out;
	IRTemp cursor;
	UInt bytes;
	Bool dirty;
	Bool aligned;
	Bool open;
	Bool masked; /* triggers in use: commit through vgi_on_mask */
	Int offset_sp;
	IRExpr *loads[VGI_MAX_LOADS]; /* load addresses of the current instruction */
	UInt n_loads;
	/* The open group (insn level): instructions that follow each other
	 * and their accesses.  Its GROUP word is stored when it opens, each
	 * access's word as the access happens; its GROUP event goes to the
	 * collector when it closes. */
	Addr grp_start, grp_next;
	ULong grp_id;
	UInt grp_n, grp_m;
	UChar grp_lens[VGW_GROUP_MAX];
	UChar grp_acc[VGW_GROUP_ACC_MAX * VGW_ACC_BYTES];
	Bool insn_in_group; /* the current instruction is in the open group */
	Bool insn_emitted;  /* the current instruction has its words */
	UInt insn_accesses; /* at most this many access words for it */
};

/* Id of the next GROUP and BSITE events (vg_wire.h): they count from 0 in
 * each image. */
static ULong vgi_next_group;
static ULong vgi_next_bsite;

static IRTemp new_tmp(struct sb *sb, IRExpr *e)
{
	IRTemp t = newIRTemp(sb->out->tyenv, Ity_I64);
	addStmtToIRSB(sb->out, IRStmt_WrTmp(t, e));
	return t;
}

static IRExpr *u64(ULong v)
{
	return IRExpr_Const(IRConst_U64(v));
}

static IRExpr *load_global(void *addr)
{
	return IRExpr_Load(Iend_LE, Ity_I64, mkIRExpr_HWord((HWord)addr));
}

/* Start a segment: flush if the reserve is not free, then load the cursor. */
static void open_segment(struct sb *sb, Bool check_room)
{
	if (check_room) {
		IRTemp cur = new_tmp(sb, load_global(&vgi_cursor));
		IRTemp lim = new_tmp(sb, load_global(&vgi_limit));
		IRTemp full = newIRTemp(sb->out->tyenv, Ity_I1);
		IRDirty *d;

		addStmtToIRSB(sb->out,
			      IRStmt_WrTmp(full, IRExpr_Binop(Iop_CmpLT64U, IRExpr_RdTmp(lim),
							      IRExpr_RdTmp(cur))));
		d = unsafeIRDirty_0_N(0, "vgi_flush_helper", VG_(fnptr_to_fnentry)(&vgi_flush_helper),
				      mkIRExprVec_0());
		d->guard = IRExpr_RdTmp(full);
		d->mFx = Ifx_Modify;
		d->mAddr = mkIRExpr_HWord((HWord)&vgi_cursor);
		d->mSize = sizeof(vgi_cursor);
		addStmtToIRSB(sb->out, IRStmt_Dirty(d));
	}
	sb->cursor = new_tmp(sb, load_global(&vgi_cursor));
	sb->bytes = 0;
	sb->dirty = False;
	sb->aligned = !clo_branch || sb->masked;
	sb->open = True;
}

static ULong tagged(UInt tag, UInt aux, ULong addr);
static void flush_group(struct sb *sb);

/* Store the cursor back past the words written so far (or, while a
 * trigger has recording off, leave it where it was).  The open group
 * stays open: its words so far are committed, a fault after this point
 * leaves them to tell the collector how far it ran.  Nothing to store
 * when no word came since the last commit: that store ran whichever way
 * a side exit went (the end of most superblocks, after their branch's). */
static void commit_words(struct sb *sb)
{
	IRExpr *adv;
	IRTemp nc;

	if (!sb->open || !sb->dirty)
		return;
	sb->dirty = False;
	if (sb->masked) {
		IRTemp mask = new_tmp(sb, load_global(&vgi_on_mask));
		adv = IRExpr_RdTmp(new_tmp(sb, IRExpr_Binop(Iop_And64, IRExpr_RdTmp(mask),
							    u64(sb->bytes))));
	} else {
		adv = u64(sb->bytes);
	}
	nc = new_tmp(sb, IRExpr_Binop(Iop_Add64, IRExpr_RdTmp(sb->cursor), adv));
	addStmtToIRSB(sb->out, IRStmt_Store(Iend_LE, mkIRExpr_HWord((HWord)&vgi_cursor),
					    IRExpr_RdTmp(nc)));
}

/* Close the open group and commit: at exits, helper calls, the end. */
static void commit_segment(struct sb *sb)
{
	flush_group(sb);
	commit_words(sb);
}

/* Store `data` (an I64 or I32 atom) `bytes` past the segment's cursor. */
static void store_at(struct sb *sb, UInt bytes, IRExpr *data)
{
	IRTemp at = new_tmp(sb, IRExpr_Binop(Iop_Add64, IRExpr_RdTmp(sb->cursor), u64(bytes)));

	addStmtToIRSB(sb->out, IRStmt_Store(Iend_LE, IRExpr_RdTmp(at), data));
}

/* Append one word (any I64 atom) to the segment, as it comes, on a
 * multiple of 8: after a BSITE unit that leaves the cursor on 4, a zero
 * unit pads the word it is in (vg_wire.h).  Where the segment's own
 * units cannot tell (it began at branch level), a zero unit goes where
 * the cursor is, and the segment goes on from the cursor rounded up to 8:
 * the word overwrites that zero when the cursor was on 8 already. */
static void store_word(struct sb *sb, IRExpr *word)
{
	tl_assert(sb->open);
	if (sb->bytes % 8 != 0 || !sb->aligned) {
		store_at(sb, sb->bytes, IRExpr_Const(IRConst_U32(0)));
		if (sb->aligned) {
			sb->bytes += 4;
		} else {
			IRTemp end = new_tmp(sb, IRExpr_Binop(Iop_Add64, IRExpr_RdTmp(sb->cursor),
							      u64(sb->bytes + 7ULL)));

			sb->cursor = new_tmp(sb, IRExpr_Binop(Iop_And64, IRExpr_RdTmp(end), u64(~7ULL)));
			sb->bytes = 0;
			sb->aligned = True;
		}
	}
	store_at(sb, sb->bytes, word);
	sb->bytes += 8;
	sb->dirty = True;
}

/* Append one BSITE unit (an I32 atom): half a word (vg_wire.h).  With
 * triggers (a masked commit) every write stays whole words: a zero unit
 * pads it. */
static void store_unit(struct sb *sb, IRExpr *unit)
{
	tl_assert(sb->open);
	flush_group(sb);
	store_at(sb, sb->bytes, unit);
	sb->bytes += 4;
	if (sb->masked) {
		store_at(sb, sb->bytes, IRExpr_Const(IRConst_U32(0)));
		sb->bytes += 4;
	}
	sb->dirty = True;
}

/*
 * Close the open group: its instructions' addresses and lengths and its
 * accesses' instructions, directions and sizes go to the collector once,
 * now, in a GROUP event; the code stores one constant each time it runs
 * them instead of one word per instruction, and one word per access.
 */
static void flush_group(struct sb *sb)
{
	ULong head[4];
	UChar bytes[VGW_GROUP_MAX + sizeof(sb->grp_acc)];

	if (sb->grp_n == 0)
		return;
	head[0] = sb->grp_id;
	head[1] = sb->grp_start;
	head[2] = sb->grp_n;
	head[3] = sb->grp_m;
	VG_(memcpy)(bytes, sb->grp_lens, sb->grp_n);
	VG_(memcpy)(bytes + sb->grp_n, sb->grp_acc, sb->grp_m * VGW_ACC_BYTES);
	put_event_bytes(VGW_EV_GROUP, head, 4, bytes, sb->grp_n + sb->grp_m * VGW_ACC_BYTES);
	sb->grp_n = 0;
	sb->grp_m = 0;
	sb->insn_in_group = False;
}

/* Open a group at `a`: its id, and its GROUP word first in the buffer. */
static void open_group(struct sb *sb, Addr a)
{
	sb->grp_id = vgi_next_group++;
	tl_assert(sb->grp_id <= VGW_ADDR_MASK);
	sb->grp_start = a;
	sb->grp_n = 0;
	sb->grp_m = 0;
	store_word(sb, u64(tagged(VGW_GROUP, 0, sb->grp_id)));
}

/* Append one word, after the pending instructions it follows. */
static void emit_word(struct sb *sb, IRExpr *word)
{
	flush_group(sb);
	store_word(sb, word);
}

static ULong tagged(UInt tag, UInt aux, ULong addr)
{
	return ((ULong)tag << VGW_TAG_SHIFT) | ((ULong)(aux & VGW_AUX_MASK) << VGW_AUX_SHIFT) |
	       (addr & VGW_ADDR_MASK);
}

/* Does `a` fit the 48-bit address field as a canonical address? */
static Bool fits(ULong a)
{
	return VGW_ADDR(a & VGW_ADDR_MASK) == a;
}

static void emit_insn_word(struct sb *sb, Addr a, UInt aux);
static void emit_branch_words(struct sb *sb, Addr from, UInt len, UInt kind, IRExpr *to);

/*
 * Valgrind decodes its client-request "special instruction" (four rolq
 * of 4 bytes and an xchg marker of 3) as one instruction of 19 bytes; on
 * the machine, and in the ptrace backend's trace, they are five.
 */
static void emit_insn(struct sb *sb, Addr a, UInt len, Bool rep)
{
	UInt i = 0;

	if (len > ITRACE_INSN_MAX_LEN_X86) {
		for (; i < 16 && i + 4 < len; i += 4)
			emit_insn_word(sb, a + i, 4);
		emit_insn_word(sb, a + i, len - i);
		return;
	}
	emit_insn_word(sb, a, len | (rep ? VGW_INSN_REP : 0));
}

static void emit_insn_word(struct sb *sb, Addr a, UInt aux)
{
	sb->insn_emitted = True;
	if (!clo_branch && fits(a) && aux >= 1 && aux <= ITRACE_INSN_MAX_LEN_X86) {
		if (sb->grp_n > 0 && (a != sb->grp_next || sb->grp_n == VGW_GROUP_MAX ||
				      sb->grp_m + sb->insn_accesses > VGW_GROUP_ACC_MAX))
			flush_group(sb);
		if (sb->grp_n == 0)
			open_group(sb, a);
		sb->grp_lens[sb->grp_n++] = (UChar)aux;
		sb->grp_next = a + aux;
		sb->insn_in_group = True;
		return;
	}
	sb->insn_in_group = False;
	if (fits(a)) {
		emit_word(sb, u64(tagged(VGW_INSN, aux, a)));
	} else {
		emit_word(sb, u64(tagged(VGW_INSN_FULL, aux, 0)));
		emit_word(sb, u64(a));
	}
}

/*
 * A load or store of `size` bytes at `addr` (an I64 atom); `guard` (an I1
 * atom or NULL) says whether it happens: a word of zero is written when not.
 */
static void emit_mem(struct sb *sb, Bool store, IRExpr *addr, UInt size, IRExpr *guard)
{
	IRTemp masked, word;

	if (!sb->insn_emitted)
		return; /* an instruction that does not run (it faults) */
	if (size > VGW_AUX_MASK)
		size = VGW_AUX_MASK;
	masked = new_tmp(sb, IRExpr_Binop(Iop_And64, addr, u64(VGW_ADDR_MASK)));
	word = new_tmp(sb, IRExpr_Binop(Iop_Or64, IRExpr_RdTmp(masked),
					u64(tagged(store ? VGW_STORE : VGW_LOAD, size, 0))));
	if (guard != NULL)
		word = new_tmp(sb, IRExpr_ITE(guard, IRExpr_RdTmp(word), u64(0)));
	if (sb->insn_in_group && sb->grp_m < VGW_GROUP_ACC_MAX) {
		/* one of the group's accesses: described in its GROUP event */
		UChar *d = sb->grp_acc + sb->grp_m++ * VGW_ACC_BYTES;

		d[0] = (UChar)(sb->grp_n - 1);
		d[1] = store ? 1 : 0;
		d[2] = (UChar)size;
		d[3] = (UChar)(size >> 8);
		store_word(sb, IRExpr_RdTmp(word));
		return;
	}
	/* after the group (or its last instruction's accesses beyond the
	 * group's room): a MEM record of the instruction before it */
	emit_word(sb, IRExpr_RdTmp(word));
}

/*
 * A branch whose targets are constants: its from, kind and targets go to
 * the collector once, now, in a BSITE event, and the code stores one word
 * each time it runs, a constant (or, with `guard`, one of two constants:
 * target 1 when the guard holds, else target 0).
 */
static void emit_site(struct sb *sb, Addr from, UInt len, UInt kind, IRExpr *guard, ULong to1,
		      ULong to0)
{
	ULong ev[5];
	ULong id = vgi_next_bsite;
	UInt way0, way1;

	if (id > VGW_BSITE_ID_MAX) {
		emit_branch_words(sb, from, len, kind,
				  guard == NULL ? u64(to0)
						: IRExpr_RdTmp(new_tmp(sb, IRExpr_ITE(guard, u64(to1),
										      u64(to0)))));
		return;
	}
	vgi_next_bsite++;
	ev[0] = id;
	ev[1] = from;
	ev[2] = (len & 0xf) | (kind << 4);
	ev[3] = to0;
	ev[4] = to1;
	put_event(VGW_EV_BSITE, ev, 5);
	way0 = VGW_BSITE_UNIT(id, 0);
	way1 = VGW_BSITE_UNIT(id, 1);
	if (guard == NULL) {
		store_unit(sb, IRExpr_Const(IRConst_U32(way0)));
		return;
	}
	{
		IRTemp unit = newIRTemp(sb->out->tyenv, Ity_I32);
		IRExpr *pick = IRExpr_ITE(guard, IRExpr_Const(IRConst_U32(way1)),
					  IRExpr_Const(IRConst_U32(way0)));

		addStmtToIRSB(sb->out, IRStmt_WrTmp(unit, pick));
		store_unit(sb, IRExpr_RdTmp(unit));
	}
}

static void emit_branch(struct sb *sb, Addr from, UInt len, UInt kind, IRExpr *to)
{
	if (to->tag == Iex_Const) {
		emit_site(sb, from, len, kind, NULL, to->Iex.Const.con->Ico.U64,
			  to->Iex.Const.con->Ico.U64);
		return;
	}
	emit_branch_words(sb, from, len, kind, to);
}

/* A branch as a BRANCH word pair: from, and `to` (an I64 atom). */
static void emit_branch_words(struct sb *sb, Addr from, UInt len, UInt kind, IRExpr *to)
{
	UInt aux = (len & 0xf) | (kind << 4);

	if (fits(from)) {
		emit_word(sb, u64(tagged(VGW_BRANCH, aux, from)));
	} else {
		emit_word(sb, u64(tagged(VGW_BRANCH_FULL, aux, 0)));
		emit_word(sb, u64(from));
	}
	emit_word(sb, to);
}

/* A helper call between segments (triggers): pc and sp as arguments. */
static void emit_helper(struct sb *sb, const HChar *name, void *fn, Addr pc)
{
	IRTemp sp = newIRTemp(sb->out->tyenv, Ity_I64);
	IRDirty *d;

	commit_segment(sb);
	addStmtToIRSB(sb->out, IRStmt_WrTmp(sp, IRExpr_Get(sb->offset_sp, Ity_I64)));
	d = unsafeIRDirty_0_N(0, name, VG_(fnptr_to_fnentry)(fn),
			      mkIRExprVec_2(mkIRExpr_HWord(pc), IRExpr_RdTmp(sp)));
	d->mFx = Ifx_Modify;
	d->mAddr = mkIRExpr_HWord((HWord)&vgi_cursor);
	d->mSize = sizeof(vgi_cursor);
	addStmtToIRSB(sb->out, IRStmt_Dirty(d));
	/* The helper may have written events or flushed: reload. */
	open_segment(sb, False);
}

static void emit_triggers(struct sb *sb, UInt trig, Addr pc)
{
	if (trig & TRIG_ENTRY)
		emit_helper(sb, "vgi_entry_helper", (void *)&vgi_entry_helper, pc);
	if (trig & TRIG_STOP)
		emit_helper(sb, "vgi_stop_helper", (void *)&vgi_stop_helper, pc);
	if (trig & TRIG_START)
		emit_helper(sb, "vgi_start_helper", (void *)&vgi_start_helper, pc);
}

/* Did the current instruction load from the address atom `a`? */
static Bool loaded_before(const struct sb *sb, const IRExpr *a)
{
	UInt i;

	for (i = 0; i < sb->n_loads; i++) {
		const IRExpr *b = sb->loads[i];
		if (a->tag == Iex_RdTmp && b->tag == Iex_RdTmp && a->Iex.RdTmp.tmp == b->Iex.RdTmp.tmp)
			return True;
		if (a->tag == Iex_Const && b->tag == Iex_Const &&
		    a->Iex.Const.con->Ico.U64 == b->Iex.Const.con->Ico.U64)
			return True;
	}
	return False;
}

static UInt access_size(IRTypeEnv *env, IRExpr *data)
{
	return (UInt)sizeofIRType(typeOfIRExpr(env, data));
}

/* The memory words of one statement of the original superblock. */
static void emit_accesses(struct sb *sb, IRTypeEnv *env, IRStmt *st)
{
	switch (st->tag) {
	case Ist_WrTmp:
		if (st->Ist.WrTmp.data->tag == Iex_Load) {
			IRExpr *a = st->Ist.WrTmp.data->Iex.Load.addr;
			emit_mem(sb, False, a, (UInt)sizeofIRType(st->Ist.WrTmp.data->Iex.Load.ty), NULL);
			if (sb->n_loads < VGI_MAX_LOADS)
				sb->loads[sb->n_loads++] = a;
		}
		break;
	case Ist_Store:
		emit_mem(sb, True, st->Ist.Store.addr, access_size(env, st->Ist.Store.data), NULL);
		break;
	case Ist_StoreG: {
		IRStoreG *sg = st->Ist.StoreG.details;
		emit_mem(sb, True, sg->addr, access_size(env, sg->data), sg->guard);
		break;
	}
	case Ist_LoadG: {
		IRLoadG *lg = st->Ist.LoadG.details;
		IRType ty_res, ty_arg;
		typeOfIRLoadGOp(lg->cvt, &ty_res, &ty_arg);
		emit_mem(sb, False, lg->addr, (UInt)sizeofIRType(ty_arg), lg->guard);
		break;
	}
	case Ist_CAS: {
		IRCAS *cas = st->Ist.CAS.details;
		UInt size = access_size(env, cas->dataLo) * (cas->dataHi ? 2 : 1);
		/* Locked read-modify-writes (xadd, xchg, lock add...) are a
		 * load and then a CAS that stores: the CAS is the store.  A
		 * CAS on its own is lock cmpxchg, which loads and stores its
		 * memory operand whatever the comparison gives (Intel SDM,
		 * CMPXCHG: "the destination operand receives a write cycle
		 * without regard to the result of the comparison"), as
		 * libitrace's decoder says for the ptrace backend. */
		if (!loaded_before(sb, cas->addr))
			emit_mem(sb, False, cas->addr, size, NULL);
		emit_mem(sb, True, cas->addr, size, NULL);
		break;
	}
	case Ist_Dirty: {
		IRDirty *d = st->Ist.Dirty.details;
		IRExpr *g = d->guard;
		if (d->mFx == Ifx_None)
			break;
		if (g->tag == Iex_Const && g->Iex.Const.con->Ico.U1)
			g = NULL;
		if (d->mFx == Ifx_Read || d->mFx == Ifx_Modify)
			emit_mem(sb, False, d->mAddr, (UInt)d->mSize, g);
		if (d->mFx == Ifx_Write || d->mFx == Ifx_Modify)
			emit_mem(sb, True, d->mAddr, (UInt)d->mSize, g);
		break;
	}
	default:
		break;
	}
}

static Bool accesses_memory(const IRStmt *st)
{
	switch (st->tag) {
	case Ist_WrTmp:
		return st->Ist.WrTmp.data->tag == Iex_Load;
	case Ist_Store:
	case Ist_StoreG:
	case Ist_LoadG:
	case Ist_CAS:
		return True;
	case Ist_Dirty:
		return st->Ist.Dirty.details->mFx != Ifx_None;
	default:
		return False;
	}
}

/* At most how many access words the instruction whose IMark is
 * stmts[i] has (emit_accesses: up to two per statement). */
static UInt insn_access_bound(IRSB *in, Int i)
{
	UInt n = 0;

	for (i++; i < in->stmts_used && in->stmts[i]->tag != Ist_IMark; i++)
		if (accesses_memory(in->stmts[i]))
			n += 2;
	return n;
}

/*
 * Does the instruction whose IMark is stmts[i] divide integers?  VEX
 * runs such a division as the host's own div, which faults (a zero
 * divisor, an overflow) in the middle of the superblock: the words not
 * committed before it are lost, and Valgrind's guest state, precise only
 * at memory accesses, says an earlier instruction faulted.
 */
static Bool insn_divides(IRSB *in, Int i)
{
	for (i++; i < in->stmts_used && in->stmts[i]->tag != Ist_IMark; i++) {
		const IRStmt *st = in->stmts[i];

		if (st->tag != Ist_WrTmp || st->Ist.WrTmp.data->tag != Iex_Binop)
			continue;
		switch (st->Ist.WrTmp.data->Iex.Binop.op) {
		case Iop_DivU32: case Iop_DivS32: case Iop_DivU64: case Iop_DivS64:
		case Iop_DivU32E: case Iop_DivS32E: case Iop_DivU64E: case Iop_DivS64E:
		case Iop_DivModU64to32: case Iop_DivModS64to32:
		case Iop_DivModU128to64: case Iop_DivModS128to64:
		case Iop_DivModU64to64: case Iop_DivModS64to64:
		case Iop_DivModU32to32: case Iop_DivModS32to32:
			return True;
		default:
			break;
		}
	}
	return False;
}

/* Jump kinds by which Valgrind raises a signal for the instruction
 * itself (ud2, misaligned access...): it did not execute. */
static Bool is_fault_jump(IRJumpKind jk)
{
	switch (jk) {
	case Ijk_SigILL:
	case Ijk_SigSEGV:
	case Ijk_SigBUS:
	case Ijk_SigFPE:
	case Ijk_SigFPE_IntDiv:
	case Ijk_SigFPE_IntOvf:
		return True;
	default:
		return False;
	}
}

static ULong const_next(IRSB *in)
{
	return in->next->tag == Iex_Const ? in->next->Iex.Const.con->Ico.U64 : 0;
}

/*
 * Is the instruction at `a` an indirect jump or call (opcode FF /2../5)?  The IR
 * cannot tell: Valgrind folds a register target it can compute into a
 * constant.  As for the ptrace backend (libitrace's decoder), the instruction decides.
 */
/* Legacy prefixes (segment, operand/address size, lock, rep/bnd) and REX
 * at the start of an instruction: how many bytes. */
static UInt prefix_bytes(const UChar *b, UInt len)
{
	UInt i = 0;

	while (i < len && (b[i] == 0x66 || b[i] == 0x67 || b[i] == 0xf0 || b[i] == 0xf2 ||
			   b[i] == 0xf3 || b[i] == 0x2e || b[i] == 0x3e || b[i] == 0x26 ||
			   b[i] == 0x36 || b[i] == 0x64 || b[i] == 0x65 || (b[i] & 0xf0) == 0x40))
		i++;
	return i;
}

static Bool is_indirect_transfer(Addr a, UInt len)
{
	const UChar *b = (const UChar *)a;
	UInt i = prefix_bytes(b, len);

	/* FF /2, /3 call; FF /4, /5 jmp (FF /0, /1, /6 are inc, dec, push) */
	return i + 1 < len && b[i] == 0xff && ((b[i + 1] >> 3) & 7) >= 2 && ((b[i + 1] >> 3) & 7) <= 5;
}

/*
 * A conditional branch (Jcc rel8/rel32, loop, loope, loopne, jrcxz/jecxz)?
 * VEX folds a condition it can compute when it translates the code
 * (`xor ecx,ecx; jrcxz` in one superblock), and the branch then leaves no
 * side exit, or ends the superblock as a plain jump: the record must still
 * say conditional, taken or not (ITRACE.md 6.5.1).
 */
static Bool is_cond_jump(Addr a, UInt len)
{
	const UChar *b = (const UChar *)a;
	UInt i = prefix_bytes(b, len);

	if (i >= len)
		return False;
	return (b[i] >= 0x70 && b[i] <= 0x7f) || (b[i] >= 0xe0 && b[i] <= 0xe3) ||
	       (b[i] == 0x0f && i + 1 < len && b[i + 1] >= 0x80 && b[i + 1] <= 0x8f);
}

/*
 * A rep/repe/repne-prefixed string instruction (ins, outs, movs, cmps,
 * stos, lods, scas)?  VEX runs it as a loop of one iteration per entry.
 * Sets *addr32 when it counts in ecx (0x67 prefix).
 */
static Bool is_rep_string(Addr a, UInt len, Bool *addr32)
{
	const UChar *b = (const UChar *)a;
	UInt i, n = prefix_bytes(b, len);
	Bool rep = False;

	*addr32 = False;
	for (i = 0; i < n; i++) {
		rep |= b[i] == 0xf2 || b[i] == 0xf3;
		*addr32 |= b[i] == 0x67;
	}
	if (!rep || n >= len)
		return False;
	return (b[n] >= 0x6c && b[n] <= 0x6f) || (b[n] >= 0xa4 && b[n] <= 0xa7) ||
	       (b[n] >= 0xaa && b[n] <= 0xaf);
}

/*
 * The words of a rep-prefixed string instruction at `cur`, at its entry.
 * Valgrind enters it once per iteration, and once more after the last
 * iteration that ran the count out, only to find the count zero: each
 * entry is one instruction record (ITRACE.md 6.5.2), the last one without
 * MEM words, as callgrind counts them.  At branch level an entry of a loop
 * under way (an iteration, or that final check) is the loop's taken branch
 * to itself.
 */
static void emit_rep_entry(struct sb *sb, Addr cur, UInt len, Bool addr32)
{
	Int off_rcx = __builtin_offsetof(VexGuestAMD64State, guest_RCX);
	IRTemp rcx, last, next, zero, again;

	if (!clo_branch) {
		emit_insn(sb, cur, len, True);
		return;
	}
	zero = newIRTemp(sb->out->tyenv, Ity_I1);
	again = newIRTemp(sb->out->tyenv, Ity_I1);
	if (addr32) {
		IRTemp ecx = newIRTemp(sb->out->tyenv, Ity_I32);

		addStmtToIRSB(sb->out, IRStmt_WrTmp(ecx, IRExpr_Get(off_rcx, Ity_I32)));
		rcx = new_tmp(sb, IRExpr_Unop(Iop_32Uto64, IRExpr_RdTmp(ecx)));
	} else {
		rcx = new_tmp(sb, IRExpr_Get(off_rcx, Ity_I64));
	}
	addStmtToIRSB(sb->out, IRStmt_WrTmp(zero, IRExpr_Binop(Iop_CmpEQ64, IRExpr_RdTmp(rcx), u64(0))));
	/* the loop's branch: this instruction's loop under way */
	last = new_tmp(sb, load_global(&vgi_last_rep));
	addStmtToIRSB(sb->out, IRStmt_WrTmp(again, IRExpr_Binop(Iop_CmpEQ64, IRExpr_RdTmp(last), u64(cur))));
	if (fits(cur)) {
		emit_word(sb, IRExpr_RdTmp(new_tmp(sb, IRExpr_ITE(IRExpr_RdTmp(again),
			u64(tagged(VGW_BRANCH, (len & 0xf) | (0 /* COND */ << 4), cur)), u64(0)))));
	} else {
		emit_word(sb, IRExpr_RdTmp(new_tmp(sb, IRExpr_ITE(IRExpr_RdTmp(again),
			u64(tagged(VGW_BRANCH_FULL, (len & 0xf) | (0 /* COND */ << 4), 0)), u64(0)))));
		emit_word(sb, IRExpr_RdTmp(new_tmp(sb, IRExpr_ITE(IRExpr_RdTmp(again), u64(cur), u64(0)))));
	}
	emit_word(sb, IRExpr_RdTmp(new_tmp(sb, IRExpr_ITE(IRExpr_RdTmp(again), u64(cur), u64(0)))));
	/* leaving the loop (count zero) ends it; anything else is in it */
	next = new_tmp(sb, IRExpr_ITE(IRExpr_RdTmp(zero), u64(0), u64(cur)));
	addStmtToIRSB(sb->out, IRStmt_Store(Iend_LE, mkIRExpr_HWord((HWord)&vgi_last_rep),
					    IRExpr_RdTmp(next)));
}

/* A rep loop that ends by its condition (cmps, scas) falls through to the
 * next instruction at the end of its superblock: the loop is over. */
static void end_rep_loop(struct sb *sb)
{
	addStmtToIRSB(sb->out, IRStmt_Store(Iend_LE, mkIRExpr_HWord((HWord)&vgi_last_rep), u64(0)));
}

/* Branch kind of the superblock's final jump, or -1 if it is not a branch. */
static Int final_branch_kind(IRSB *in, Addr last, UInt last_len)
{
	Bool direct = in->next->tag == Iex_Const;
	ULong dst = const_next(in);

	switch (in->jumpkind) {
	case Ijk_Call:
		return is_indirect_transfer(last, last_len) ? 5 /* INDIRECT_CALL */ : 2 /* CALL */;
	case Ijk_Ret:
		return 3; /* RETURN */
	case Ijk_Boring:
		if (!direct || is_indirect_transfer(last, last_len))
			return 4; /* INDIRECT */
		/* A superblock also ends after a non-branch; rep-prefixed
		 * string instructions loop to themselves. */
		if (dst == last + last_len || dst == last)
			return -1;
		return 1; /* UNCOND */
	default:
		/* System calls go on with the next instruction (rt_sigreturn
		 * is reported by post_deliver_signal); client requests,
		 * yields and faults are not branches. */
		return -1;
	}
}

/* Branch level: the word pair for a side exit that is a conditional branch. */
static void emit_cond_exit(struct sb *sb, IRSB *in, IRStmt *st, Addr cur, UInt cur_len, Addr last,
			   Bool *final_done)
{
	ULong dst = st->Ist.Exit.dst->Ico.U64;
	Bool last_insn = cur == last;
	ULong other;

	/* A conditional branch goes somewhere other than the instruction
	 * itself (rep loops do) and the superblock's end is the other way. */
	if (st->Ist.Exit.jk != Ijk_Boring || dst == cur)
		return;
	if (last_insn && (in->next->tag != Iex_Const || const_next(in) == cur))
		return;
	other = last_insn ? const_next(in) : cur + cur_len;
	emit_site(sb, cur, cur_len, 0 /* COND */, st->Ist.Exit.guard, dst, other);
	if (last_insn)
		*final_done = True;
}

static IRSB *itrace_instrument(VgCallbackClosure *closure, IRSB *in, const VexGuestLayout *layout,
			       const VexGuestExtents *vge, const VexArchInfo *archinfo,
			       IRType gWordTy, IRType hWordTy)
{
	struct sb sb;
	Int i, first = 0, n_imarks = 0;
	Addr cur = 0, last = 0;
	UInt cur_len = 0, last_len = 0;
	Bool cur_in = False, scope_out_done = False, final_done = False, cur_rep = False, addr32 = False;
	Bool cur_exit = False; /* the current instruction has a side exit */
	Bool divides;	       /* the current instruction divides integers */
	UInt acc_bound;

	(void)closure;
	(void)vge;
	(void)archinfo;
	(void)hWordTy;
	if (gWordTy != Ity_I64)
		VG_(tool_panic)("itrace: only amd64 is supported");
	if (vgi_buf == NULL)
		return in;

	sb.out = deepCopyIRSBExceptStmts(in);
	sb.open = False;
	sb.masked = use_triggers;
	sb.n_loads = 0;
	sb.grp_n = 0;
	sb.grp_m = 0;
	sb.insn_in_group = False;
	sb.insn_emitted = False;
	sb.insn_accesses = 0;
	sb.offset_sp = layout->offset_SP;

	/* Statements before the first IMark (self-checks) stay as they are. */
	while (first < in->stmts_used && in->stmts[first]->tag != Ist_IMark) {
		addStmtToIRSB(sb.out, in->stmts[first]);
		first++;
	}
	for (i = first; i < in->stmts_used; i++) {
		IRStmt *st = in->stmts[i];
		if (st->tag == Ist_IMark) {
			last = st->Ist.IMark.addr + st->Ist.IMark.delta;
			last_len = st->Ist.IMark.len;
		}
	}
	if (first >= in->stmts_used)
		return in;

	for (i = first; i < in->stmts_used; i++) {
		IRStmt *st = in->stmts[i];

		if (st->tag == Ist_IMark) {
			UInt trig;

			/* The previous instruction, a conditional branch
			 * VEX folded to "not taken": no exit, on it goes. */
			if (clo_branch && cur_in && !cur_rep && !cur_exit && cur_len &&
			    is_cond_jump(cur, cur_len))
				emit_branch(&sb, cur, cur_len, 0 /* COND */, u64(cur + cur_len));
			cur_exit = False;
			cur = st->Ist.IMark.addr + st->Ist.IMark.delta;
			cur_len = st->Ist.IMark.len;
			cur_in = in_scope(cur);
			cur_rep = cur == last && is_rep_string(cur, cur_len, &addr32);
			sb.n_loads = 0;
			sb.insn_emitted = False;
			sb.insn_in_group = False;
			acc_bound = insn_access_bound(in, i);
			divides = insn_divides(in, i);
			sb.insn_accesses = clo_mem ? acc_bound : 0;
			if (!sb.open)
				open_segment(&sb, True);
			trig = triggers_at(cur);
			if (trig)
				emit_triggers(&sb, trig, cur);
			if (!cur_in && !scope_out_done && clo_only != NULL) {
				emit_word(&sb, u64(tagged(VGW_SCOPE_OUT, 0, fits(cur) ? cur : 0)));
				scope_out_done = True;
			}
			if (cur_in && cur_rep) {
				if (n_imarks > 0)
					commit_segment(&sb);
				emit_rep_entry(&sb, cur, cur_len, addr32);
			} else if (cur_in && !clo_branch) {
				/* A fault in an access must leave the earlier
				 * instructions recorded and this one not (as
				 * with single-stepping): commit before it.  The
				 * group stays open: the collector knows from the
				 * access words committed how far it ran (without
				 * MEM words it could not: the group ends here).
				 * A division can fault without an access: the
				 * group ends before it too. */
				if (n_imarks > 0 && (acc_bound > 0 || divides)) {
					if (clo_mem && !divides)
						commit_words(&sb);
					else
						commit_segment(&sb);
				}
				if (!(cur == last && is_fault_jump(in->jumpkind) &&
				      const_next(in) == cur))
					emit_insn(&sb, cur, cur_len, False);
			}
			n_imarks++;
			addStmtToIRSB(sb.out, st);
			/* A division that faults must be where the signal is
			 * reported: the guest pc, as at a memory access. */
			if (divides)
				addStmtToIRSB(sb.out, IRStmt_Put(layout->offset_IP, mkIRExpr_HWord(cur)));
			continue;
		}
		if (cur_in && !clo_branch && clo_mem)
			emit_accesses(&sb, in->tyenv, st);
		if (st->tag == Ist_Exit) {
			if (clo_branch && cur_in && !cur_rep)
				emit_cond_exit(&sb, in, st, cur, cur_len, last, &final_done);
			cur_exit = True;
			commit_segment(&sb);
		}
		addStmtToIRSB(sb.out, st);
	}

	if (clo_branch && in_scope(last) && !final_done && !cur_rep) {
		Int kind = final_branch_kind(in, last, last_len);

		/* a conditional branch whose outcome VEX folded: the end of
		 * the superblock is where it went */
		if (!cur_exit && is_cond_jump(last, last_len))
			kind = 0; /* COND */
		if (kind >= 0)
			emit_branch(&sb, last, last_len, (UInt)kind, in->next);
	}
	if (clo_branch && cur_rep && !(in->next->tag == Iex_Const && const_next(in) == cur))
		end_rep_loop(&sb);
	commit_segment(&sb);
	return sb.out;
}

/* ---- Start and end --------------------------------------------------------- */

static void fork_child(ThreadId tid)
{
	(void)tid;
	/* The child is not traced: it must neither write into the shared
	 * slots nor send the parent's unsent words, and a program it execs
	 * runs natively (not under a tool without a collector). */
	detach_collector();
	VG_(clo_trace_children) = False;
}

static void itrace_post_clo_init(void)
{
	ULong hello[4];

	SysRes shm;
	Int shm_fd;

	if (clo_fd < 0 || clo_ack_fd < 0 || clo_shm_fd < 0) {
		VG_(message)(Vg_UserMsg, "itrace: this tool is started by itrace-collect "
					 "(--itrace-fd, --itrace-ack-fd, --itrace-shm-fd)\n");
		VG_(exit)(1);
	}
	/* Out of the program's sight, before it starts. */
	vgi_fd = VG_(safe_fd)(clo_fd);
	vgi_ack_fd = VG_(safe_fd)(clo_ack_fd);
	shm_fd = VG_(safe_fd)(clo_shm_fd);
	if (vgi_fd < 0 || vgi_ack_fd < 0 || shm_fd < 0) {
		VG_(message)(Vg_UserMsg, "itrace: the descriptors from itrace-collect are not open\n");
		VG_(exit)(1);
	}
	shm = VG_(am_shared_mmap_file_float_valgrind)((SizeT)VGW_SLOTS * VGW_SLOT_WORDS * 8,
						      VKI_PROT_READ | VKI_PROT_WRITE, shm_fd, 0);
	vgi_shm_fd = shm_fd; /* for a program this one execs */
	if (sr_isError(shm)) {
		VG_(message)(Vg_UserMsg, "itrace: cannot map the buffer shared with itrace-collect\n");
		VG_(exit)(1);
	}
	vgi_shm = (ULong *)sr_Res(shm);
	vgi_slot = 0;
	use_buffer(vgi_shm, VGW_SLOT_WORDS);
	if (clo_start_addr)
		start_addr = (Addr)VG_(strtoull16)(clo_start_addr, NULL);
	if (clo_stop_addr)
		stop_addr = (Addr)VG_(strtoull16)(clo_stop_addr, NULL);
	use_triggers = has_start() || has_stop() || clo_only != NULL;
	/* Off until the program starts (first_client_code) or, with
	 * triggers, until its entry point or the start trigger. */
	vgi_on_mask = 0;
	/* One guest control transfer per superblock, so that each
	 * superblock ends at (at most) one branch. */
	VG_(clo_vex_control).guest_chase = False;

	hello[0] = VGW_VERSION;
	hello[1] = (ULong)VG_(getpid)();
	hello[2] = clo_branch ? VGW_LEVEL_BRANCH : VGW_LEVEL_INSN;
	hello[3] = clo_mem ? 1 : 0;
	put_event(VGW_EV_HELLO, hello, 4);
	/* Tell the collector now that the tool runs: if Valgrind fails
	 * later, the collector says so instead of "could not run". */
	flush_buffer();
	VG_(atfork)(NULL, NULL, fork_child);
}

static void itrace_fini(Int exitcode)
{
	ULong p[1] = { (ULong)(Long)exitcode };

	if (vgi_fd < 0)
		return;
	put_event(VGW_EV_EXIT, p, 1);
	flush_buffer();
	/* The collector reads the pipe to its end: closing it says "done". */
	detach_collector();
}

static void itrace_pre_clo_init(void)
{
	VG_(details_name)("itrace");
	VG_(details_version)("0.1.0");
	VG_(details_description)("instruction and branch tracing for itrace-collect");
	VG_(details_copyright_author)("the itrace authors");
	VG_(details_bug_reports_to)("the itrace project");
	VG_(details_avg_translation_sizeB)(400);

	VG_(basic_tool_funcs)(itrace_post_clo_init, itrace_instrument, itrace_fini);
	VG_(needs_command_line_options)(itrace_process_cmd_line_option, itrace_print_usage,
					itrace_print_debug_usage);
	VG_(needs_syscall_wrapper)(pre_syscall, post_syscall);
	VG_(track_new_mem_startup)(new_mem_startup);
	VG_(track_new_mem_mmap)(new_mem_mmap);
	VG_(track_start_client_code)(thread_start_client_code);
	VG_(track_pre_thread_ll_exit)(thread_pre_exit);
	VG_(track_pre_deliver_signal)(pre_deliver_signal);
	VG_(track_post_deliver_signal)(post_deliver_signal);
	VG_(track_post_mem_write)(post_mem_write);
}

VG_DETERMINE_INTERFACE_VERSION(itrace_pre_clo_init)
