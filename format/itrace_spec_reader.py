#!/usr/bin/python3
"""itrace_spec_reader - a second reader of itrace files, written from the spec alone.

This is the format's educational decoder, in the way zstd keeps one next to
its real library: a small, slow, dependency-free reader written from
format/ITRACE.md (and the on-disk numbers of format/itrace_format.h) without
looking at libitrace's code.  Where the two disagree, the spec is what gets
fixed first.  Every function cites the section of ITRACE.md it implements
("ITRACE.md 6.5.15" below means that section).

Only the Python standard library is used; zstd-compressed chunks (5.4) are
decompressed through ctypes by the system's libzstd.so.1.

As a module:

    import itrace_spec_reader as isr
    with isr.Reader.open("trace.itr") as r:
        print(r.header.machine, r.metadata)
        for ev in r.events():          # records and errors, in file order
            if isinstance(ev, isr.ReadError):
                print("damage:", ev)
            else:
                print(ev["type"], ev)
        print(r.footer)                # None without a footer

    isr.records("trace.itr")           # just the records, as a list of dicts

Every record is a dict with "type" (BRANCH, INSN, MEM, MMAP, CODE, THREAD,
PROCESS, SYSCALL, SIGNAL, TIMESTAMP, TRACE_CTL, LOST, GAP), "tid", "pid"
and "time" (6.2) and the fields of its payload (6.5).  Runs, blocks and
sequences are delivered expanded, as INSN, MEM and BRANCH records, exactly
as a reader's caller sees them (6.5.2, 6.5.15, 6.5.16).

As a program it prints a file the way `itrace-dump FILE` does, line for
line, with the same messages on standard error and the same exit status:

    format/itrace_spec_reader.py [--summary | -H | -q | -n N] FILE

The file header implemented here is that of format 1.0 (a fixed part of 64
bytes with feature bitmaps and the MEM table size; see Header).  Files with
the pre-1.0 header (fixed_size 48) are refused, naming their read version.
"""

import ctypes
import os
import struct
import sys

PROG = "itrace-spec-reader"

# ---------------------------------------------------------------------------
# 2. Conventions

U64 = (1 << 64) - 1


def crc32c(data, crc=0):
    """CRC-32C (Castagnoli), ITRACE.md 2.6: reflected polynomial 0x82F63B78,
    initial value and final XOR ~0.  Table-driven, one byte at a time."""
    crc ^= 0xFFFFFFFF
    table = _CRC_TABLE
    for b in data:
        crc = table[(crc ^ b) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


def _crc_table():
    table = []
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ (0x82F63B78 if c & 1 else 0)
        table.append(c)
    return table


_CRC_TABLE = _crc_table()
assert crc32c(b"123456789") == 0xE3069283  # the check value of 2.6


class Malformed(Exception):
    """A record that breaks a rule of section 6 (reported per 8)."""

    def __init__(self, why="malformed record payload"):
        super().__init__(why)
        self.why = why


class Cursor:
    """Reads the fields of 2.1-2.5 from data[pos:end].  Reading past `end`
    raises Malformed: "a varint that runs past the end of the structure
    containing it is malformed" (2.2), and so is a short payload (6.1)."""

    __slots__ = ("data", "pos", "end")

    def __init__(self, data, pos, end):
        self.data, self.pos, self.end = data, pos, end

    def u8(self):
        if self.pos >= self.end:
            raise Malformed()
        b = self.data[self.pos]
        self.pos += 1
        return b

    def varint(self):
        """Unsigned LEB128, at most 10 bytes, the tenth 0 or 1 (2.2)."""
        data, pos, end = self.data, self.pos, self.end
        value = shift = 0
        for i in range(10):
            if pos >= end:
                raise Malformed()
            b = data[pos]
            pos += 1
            if i == 9 and b > 1:
                raise Malformed()
            value |= (b & 0x7F) << shift
            if b < 0x80:
                self.pos = pos
                return value
            shift += 7
        raise Malformed()  # no end within 10 bytes

    def svarint(self):
        """Zigzag-coded signed value (2.3), returned as a Python int."""
        z = self.varint()
        return (z >> 1) ^ -(z & 1)

    def bytes_field(self, limit):
        """A varint length and that many bytes, at most `limit` (2.5)."""
        n = self.varint()
        if n > limit or n > self.end - self.pos:
            raise Malformed()
        b = self.data[self.pos:self.pos + n]
        self.pos += n
        return b


def u32_of(v):
    """6.5: a 32-bit field (pid, tid, signo) whose varint holds a value that
    does not fit makes the record malformed."""
    if v > 0xFFFFFFFF:
        raise Malformed()
    return v


def s32_of(v):
    """Likewise for a signed 32-bit field (si_code)."""
    if not -(1 << 31) <= v < (1 << 31):
        raise Malformed()
    return v


# ---------------------------------------------------------------------------
# Errors, named as section 8 names them.  `kind` is one of the keys of
# ERROR_TEXT; `offset` is the file offset the error is about; `detail` says
# what was found there.  Header errors have neither (the file cannot be
# opened).

ERROR_TEXT = {
    "bad-magic": "not an itrace file (bad magic)",
    "version": "unsupported itrace format version",
    "truncated": "trace is truncated",
    "corrupt": "trace is corrupt",
    "no-footer": "trace ends without a footer (writer was interrupted)",
}


class ReadError(Exception):
    def __init__(self, kind, offset=None, detail=None):
        super().__init__(kind, offset, detail)
        self.kind, self.offset, self.detail = kind, offset, detail

    def __str__(self):
        if self.offset is None:
            return ERROR_TEXT[self.kind]
        return "%s: offset %d: %s" % (ERROR_TEXT[self.kind], self.offset, self.detail)


# ---------------------------------------------------------------------------
# 4. File header (format 1.0)

FILE_MAGIC = b"\x89ITR\r\n\x1a\n"
FIXED_SIZE = 64
LEGACY_FIXED_SIZE = 48  # the header of read versions 1-5, before 1.0
HEADER_MAX = 1 << 20

FEATURE_BLOCK = 1 << 0       # record type 15 may appear (6.5.15)
FEATURE_BRANCH_SEQ = 1 << 1  # record type 16 may appear (6.5.16)
KNOWN_INCOMPAT = FEATURE_BLOCK | FEATURE_BRANCH_SEQ
FEATURE_NAMES = {FEATURE_BLOCK: "BLOCK", FEATURE_BRANCH_SEQ: "BRANCH_SEQ"}

FLAG_MEM, FLAG_INSN_BYTES, FLAG_TAKEN_ONLY, FLAG_FILLED = 1, 2, 4, 8


class Header:
    """The 64-byte fixed part of the file header, little-endian (2.1):

    off size field
      0    8 magic             89 49 54 52 0d 0a 1a 0a
      8    2 major             1; a reader refuses any other value
     10    2 minor             any: a newer minor only adds what readers skip
     12    1 mem_table_log2    the MEM table has 1 << n entries, n in 6..12
     13    1 reserved
     14    2 fixed_size        >= 64; metadata starts here (48: a pre-1.0 file)
     16    4 header_size       fixed part + metadata = first chunk's offset
     20    2 machine           ELF e_machine
     22    1 target_endian     1 little, 2 big
     23    1 level             1 branch, 2 instruction
     24    4 flags             MEM 1, INSN_BYTES 2, TAKEN_ONLY 4, FILLED 8
     28    4 meta_size
     32    4 meta_count
     36    4 incompat_features BLOCK 1, BRANCH_SEQ 2; unknown bits: refuse
     40    4 compat_features   unknown bits are ignored
     44    4 header_crc32c     over [0, header_size), this field as zero
     48   16 reserved
    """

    FORMAT = "<8sHHBBHIHBBIIIIII"

    def __init__(self, raw):
        (self.magic, self.major, self.minor, self.mem_table_log2, _,
         self.fixed_size, self.header_size, self.machine, self.target_endian,
         self.level, self.flags, self.meta_size, self.meta_count,
         self.incompat_features, self.compat_features,
         self.header_crc32c) = struct.unpack_from(self.FORMAT, raw, 0)

    def __repr__(self):
        return "Header(%s)" % ", ".join(
            "%s=%r" % kv for kv in vars(self).items() if kv[0] != "magic")


def parse_header(data):
    """Validate the file header with the checks of the table of 4.1, in its
    order, and return (Header, metadata).  Raises ReadError with the
    table's offset and text (the file cannot be opened)."""
    n = len(data)
    # 1, 1a. The magic; a file that ends inside a matching magic is truncated.
    if n == 0 or data[:min(n, 8)] != FILE_MAGIC[:min(n, 8)]:
        raise ReadError("bad-magic", 0, "not an itrace file")
    if n < 8:
        raise ReadError("truncated", n, "file ends inside the header")
    # 2, 3. A draft before 1.0, then the major; both need 16 bytes.
    if n >= 16:
        major, minor = struct.unpack_from("<HH", data, 8)
        fixed_size = struct.unpack_from("<H", data, 14)[0]
        if fixed_size == LEGACY_FIXED_SIZE and 1 <= major <= 5:
            raise ReadError("version", 8, "pre-1.0 draft format (read version %d), written by "
                            "itrace before format 1.0; re-record the trace" % major)
        if major != 1:
            raise ReadError("version", 8, "format version %d.%d is not supported (this reader "
                            "implements 1.x)" % (major, minor))
    # 4. The fixed part is present.
    if n < FIXED_SIZE:
        raise ReadError("truncated", n, "file ends inside the header")
    h = Header(data)
    # 5. Incompatible features this reader does not know: refuse, naming them.
    unknown = h.incompat_features & ~KNOWN_INCOMPAT
    if unknown:
        bits = [str(b) for b in range(32) if unknown >> b & 1]
        raise ReadError("version", 36, "incompatible feature bit%s %s (0x%x) unknown to this "
                        "reader" % ("s" if len(bits) > 1 else "", ", ".join(bits), unknown))
    # 6. The MEM table parameter.
    if not 6 <= h.mem_table_log2 <= 12:
        raise ReadError("corrupt", 12, "MEM table of 2^%d entries (readers take 2^6 to 2^12)"
                        % h.mem_table_log2)
    # 7. The sizes.
    if (h.fixed_size < FIXED_SIZE or h.header_size > HEADER_MAX
            or h.fixed_size + h.meta_size > h.header_size):
        raise ReadError("corrupt", 14, "header sizes are inconsistent")
    # 8. The whole header is present.
    if n < h.header_size:
        raise ReadError("truncated", n, "file ends inside the header metadata")
    # 9. The CRC, computed with its own field as zero.
    hdr = bytearray(data[:h.header_size])
    hdr[44:48] = b"\0\0\0\0"
    if crc32c(hdr) != h.header_crc32c:
        raise ReadError("corrupt", 44, "header checksum mismatch")
    # 10. The metadata (4.6).
    try:
        meta = parse_metadata(data[h.fixed_size:h.fixed_size + h.meta_size], h.meta_count)
    except ReadError:
        raise ReadError("corrupt", h.fixed_size, "header metadata is malformed") from None
    return h, meta


def parse_metadata(area, count):
    """meta_count entries "key=value\\0" (4.4).  Returns a list of (key, value)
    byte strings in file order; bytes after the last entry are ignored."""
    if count > len(area):
        raise ReadError("corrupt")
    entries, pos = [], 0
    for _ in range(count):
        nul = area.find(b"\0", pos)
        if nul < 0:
            raise ReadError("corrupt")
        entry = area[pos:nul]
        eq = entry.find(b"=")
        if eq <= 0:  # no '=', or an empty key
            raise ReadError("corrupt")
        entries.append((entry[:eq], entry[eq + 1:]))
        pos = nul + 1
    return entries


# ---------------------------------------------------------------------------
# 5. Chunks

CHUNK_MAGIC = b"ICHK"
FOOTER_MAGIC = b"IFTR"
TRAILER_MAGIC = b"ITREND\0\0"
CHUNK_HEADER_SIZE = 72
RAW_MAX = 16 << 20
RECORDS_MAX = 16 << 20
PAYLOAD_MAX = RAW_MAX + RAW_MAX // 256  # ZSTD_COMPRESSBOUND(16 MiB), 5.1
COMP_NONE, COMP_ZSTD = 0, 1


class ChunkHeader:
    """5.1: magic, header_size, seq, record_count, payload_size, raw_size,
    compression, reserved, payload_crc32c, tid, pid, reserved2, time_ns,
    first_insn, first_branch_lo, header_crc32c."""

    FORMAT = "<4sIQIIIB3xIIIIQQII"

    def __init__(self, data, offset):
        (self.magic, self.header_size, self.seq, self.record_count,
         self.payload_size, self.raw_size, self.compression,
         self.payload_crc32c, self.tid, self.pid, _, self.time_ns,
         self.first_insn, self.first_branch_lo,
         self.header_crc32c) = struct.unpack_from(self.FORMAT, data, offset)
        self.offset = offset


def chunk_header_problem(data, offset):
    """The validity test of 5.1, in its order; returns None for a valid
    header, else what is wrong (the text of the error)."""
    if data[offset:offset + 4] != CHUNK_MAGIC:
        return "bad chunk magic"
    c = ChunkHeader(data, offset)
    if crc32c(data[offset:offset + 68]) != c.header_crc32c:
        return "chunk header checksum mismatch"
    if c.header_size != CHUNK_HEADER_SIZE:
        return "unexpected chunk header size"
    if c.raw_size > RAW_MAX or c.record_count > RECORDS_MAX or c.payload_size > PAYLOAD_MAX:
        return "chunk sizes out of range"
    if c.compression not in (COMP_NONE, COMP_ZSTD):
        return "unknown chunk compression"
    if c.compression == COMP_NONE and c.payload_size != c.raw_size:
        return "stored chunk sizes disagree"
    return None


# 5.4: zstd through ctypes.  Loaded on first use, so that files without
# compressed chunks need no libzstd.
_zstd = None


def zstd():
    global _zstd
    if _zstd is None:
        lib = ctypes.CDLL("libzstd.so.1")
        lib.ZSTD_getFrameContentSize.restype = ctypes.c_ulonglong
        lib.ZSTD_getFrameContentSize.argtypes = [ctypes.c_char_p, ctypes.c_size_t]
        lib.ZSTD_decompress.restype = ctypes.c_size_t
        lib.ZSTD_decompress.argtypes = [ctypes.c_char_p, ctypes.c_size_t,
                                        ctypes.c_char_p, ctypes.c_size_t]
        lib.ZSTD_isError.restype = ctypes.c_uint
        lib.ZSTD_isError.argtypes = [ctypes.c_size_t]
        lib.ZSTD_createDStream.restype = ctypes.c_void_p
        lib.ZSTD_freeDStream.argtypes = [ctypes.c_void_p]
        lib.ZSTD_initDStream.argtypes = [ctypes.c_void_p]
        lib.ZSTD_initDStream.restype = ctypes.c_size_t
        lib.ZSTD_decompressStream.restype = ctypes.c_size_t
        lib.ZSTD_decompressStream.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]
        _zstd = lib
    return _zstd


ZSTD_CONTENTSIZE_UNKNOWN = (1 << 64) - 1
ZSTD_CONTENTSIZE_ERROR = (1 << 64) - 2


class _ZBuf(ctypes.Structure):  # ZSTD_inBuffer and ZSTD_outBuffer alike
    _fields_ = [("ptr", ctypes.c_void_p), ("size", ctypes.c_size_t), ("pos", ctypes.c_size_t)]


def zstd_content_size_problem(payload, raw_size, whole=True):
    """5.4: the frame header's content size is checked against raw_size before
    anything is decompressed.  None if it agrees (or is not stated, or, in a
    truncated payload, the frame header is not all there)."""
    size = zstd().ZSTD_getFrameContentSize(payload, len(payload))
    if size == ZSTD_CONTENTSIZE_ERROR:
        return "payload does not decompress" if whole else None
    if size != ZSTD_CONTENTSIZE_UNKNOWN and size != raw_size:
        return "payload does not decompress to its size"
    return None


def zstd_decompress(payload, raw_size):
    """One whole frame that must give exactly raw_size bytes (5.4).  Returns
    (bytes, None) or (None, what went wrong)."""
    problem = zstd_content_size_problem(payload, raw_size)
    if problem:
        return None, problem
    out = ctypes.create_string_buffer(raw_size + 1)
    n = zstd().ZSTD_decompress(out, raw_size + 1, payload, len(payload))
    if zstd().ZSTD_isError(n):
        return None, "payload does not decompress"
    if n != raw_size:
        return None, "payload does not decompress to its size"
    return out.raw[:n], None


def zstd_decompress_partial(payload, raw_size):
    """The bytes a truncated zstd payload gives by streaming decompression
    (8, "inside a chunk payload"): as much as the bytes present produce."""
    lib = zstd()
    ds = lib.ZSTD_createDStream()
    try:
        lib.ZSTD_initDStream(ds)
        src = ctypes.create_string_buffer(payload, len(payload))
        out = ctypes.create_string_buffer(max(raw_size, 1))
        inb = _ZBuf(ctypes.cast(src, ctypes.c_void_p), len(payload), 0)
        outb = _ZBuf(ctypes.cast(out, ctypes.c_void_p), raw_size, 0)
        while inb.pos < inb.size and outb.pos < outb.size:
            before = (inb.pos, outb.pos)
            r = lib.ZSTD_decompressStream(ds, ctypes.byref(outb), ctypes.byref(inb))
            if lib.ZSTD_isError(r) or (inb.pos, outb.pos) == before:
                break
        return out.raw[:outb.pos]
    finally:
        lib.ZSTD_freeDStream(ds)


# ---------------------------------------------------------------------------
# 6. Records

T_BRANCH, T_INSN_RUN, T_INSN, T_MEM, T_MMAP, T_CODE, T_THREAD, T_PROCESS = range(1, 9)
T_SYSCALL, T_SIGNAL, T_TIMESTAMP, T_TRACE_CTL, T_LOST, T_GAP, T_BLOCK, T_BRANCH_SEQ = range(9, 17)

REPEAT_SLOTS = 128
GOLDEN = 0x9E3779B97F4A7C15
GOLDEN2 = 0xC2B2AE3D27D4EB4F
INSN_MAX_LEN = 15
RUN_MAX = 255
PATH_MAX = 4096
BUILDID_MAX = 64
CODE_MAX = 1 << 20
GAP_CORRUPT_CHUNK = 7

THREAD_SWITCH = 2


def branch_slot(frm, to):
    """6.3: the repeat-table slot of a branch, the top 7 bits of the hash."""
    return (((frm * GOLDEN) ^ (to * GOLDEN2)) & U64) >> 57


def run_slot(start, n):
    """6.3: the repeat-table slot of a run or a block of n instructions."""
    return (((start ^ (n << 48)) * GOLDEN) & U64) >> 57


def valid_kind_flags(kf):
    """6.5.1: kind (bits 3..0) at most 9, only flag bits 4..6."""
    return kf <= 0x79 and (kf & 0xF) <= 9


class ChunkDecoder:
    """Decodes the records of one chunk (6) from its raw bytes, starting from
    the state of 5.2.  Records are yielded as dicts; a malformed record raises
    Malformed after the records before it were yielded.  `framed` counts the
    framed records decoded so far (6.6)."""

    def __init__(self, raw, hdr, mem_table_log2, features):
        self.raw = raw
        self.features = features
        # 5.2: the absolute state comes from the chunk header ...
        self.tid, self.pid, self.time = hdr.tid, hdr.pid, hdr.time_ns
        # ... and the coding state starts afresh.
        self.cur_pc = 0
        self.last_insn = 0
        self.mem_index = 0
        self.mem_shift = 64 - mem_table_log2
        self.mem_table = [0] * (1 << mem_table_log2)
        self.repeat = [None] * REPEAT_SLOTS
        self.framed = 0

    # -- helpers that deliver records with the current thread and time (6.2)

    def rec(self, rtype, **fields):
        fields["type"] = rtype
        fields["tid"], fields["pid"], fields["time"] = self.tid, self.pid, self.time
        return fields

    def mem_slot(self, insn, index):
        """6.5.4: the MEM table entry of access `index` of the instruction at
        `insn`."""
        return (((insn ^ (index << 56)) & U64) * GOLDEN & U64) >> self.mem_shift

    def read_lengths(self, c, n_uniform):
        """The n lengths of INSN_RUN and BLOCK (6.5.2): one u8 for all, or two
        nibbles a byte, instruction 2k in the low nibble of byte k."""
        n, uniform = n_uniform >> 1, n_uniform & 1
        if not 1 <= n <= RUN_MAX:
            raise Malformed()
        if uniform:
            length = c.u8()
            # 6.5.2: a uniform length too is 1 to 15.
            if not 1 <= length <= INSN_MAX_LEN:
                raise Malformed()
            return (length,) * n
        lengths = []
        for i in range(n):
            if i % 2 == 0:
                byte = c.u8()
                length = byte & 0xF
            else:
                length = byte >> 4
            if length == 0:
                raise Malformed()
            lengths.append(length)
        return tuple(lengths)

    # -- the entries of the repeat table (6.3), and how each is delivered

    def deliver_branch(self, frm, to, kf):
        self.cur_pc = to
        return self.rec("BRANCH", frm=frm, to=to, kind=kf & 0xF, flags=kf >> 4)

    def deliver_run(self, start, lengths):
        """n INSN records without bytes; cur_pc, last_insn, mem_index (6.2)."""
        out = []
        addr = start
        for length in lengths:
            out.append(self.rec("INSN", addr=addr, len=length, bytes=None))
            last = addr
            addr = (addr + length) & U64
        self.cur_pc, self.last_insn, self.mem_index = addr, last, 0
        return out

    def deliver_block(self, start, lengths, accesses, c):
        """Steps 4-6 of 6.5.15: read the m deltas from cursor c, compute the
        addresses against the MEM table, deliver instructions and MEM
        records in order."""
        # Addresses of the instructions, and the ordinal j of each access.
        insn_addr, addr = [], start
        for length in lengths:
            insn_addr.append(addr)
            addr = (addr + length) & U64
        end = addr
        mem_addrs, ordinal, prev_index = [], 0, -1
        for index, _store, _size in accesses:
            ordinal = ordinal + 1 if index == prev_index else 0
            prev_index = index
            d = c.svarint()
            slot = self.mem_slot(insn_addr[index], ordinal)
            a = (self.mem_table[slot] + d) & U64
            self.mem_table[slot] = a
            mem_addrs.append(a)
        out, k = [], 0
        for i, length in enumerate(lengths):
            out.append(self.rec("INSN", addr=insn_addr[i], len=length, bytes=None))
            while k < len(accesses) and accesses[k][0] == i:
                out.append(self.rec("MEM", store=accesses[k][1], size=accesses[k][2],
                                    addr=mem_addrs[k], flags=accesses[k][1]))
                k += 1
        last = len(lengths) - 1
        self.cur_pc, self.last_insn = end, insn_addr[last]
        self.mem_index = sum(1 for a in accesses if a[0] == last)
        return out

    def deliver_seq(self, branches):
        return [self.deliver_branch(f, t, kf) for f, t, kf in branches]

    # -- the decoder proper

    def records(self):
        """Yield the chunk's records in order (6.1)."""
        raw, end, pos = self.raw, len(self.raw), 0
        while pos < end:
            h = raw[pos]
            self.framed += 1
            if h >= 0x80:
                # 6.1: a repeat record; the entry in slot h & 0x7f again (6.3).
                entry = self.repeat[h & 0x7F]
                if entry is None:
                    raise Malformed("repeat of an empty slot")
                c = Cursor(raw, pos + 1, end)
                kind = entry[0]
                if kind == "branch":
                    yield self.deliver_branch(*entry[1:])
                elif kind == "run":
                    yield from self.deliver_run(entry[1], entry[2])
                elif kind == "block":
                    # The block's m deltas follow the repeat byte (6.5.15).
                    try:
                        out = self.deliver_block(entry[1], entry[2], entry[3], c)
                    except Malformed:
                        raise Malformed("block repeat runs past the chunk")
                    yield from out
                else:
                    yield from self.deliver_seq(entry[1])
                pos = c.pos
                continue
            if h == 0:
                raise Malformed("record type 0")
            # A sized record: type, varint size, payload (6.1).
            try:
                size = Cursor(raw, pos + 1, end)
                n = size.varint()
            except Malformed:
                raise Malformed("record size runs past the chunk")
            if n > end - size.pos:
                raise Malformed("record size runs past the chunk")
            c = Cursor(raw, size.pos, size.pos + n)
            pos = size.pos + n
            yield from self.decode_sized(h, c)

    def decode_sized(self, t, c):
        """The payloads of 6.5; any other type is skipped (6.1)."""
        if t == T_BRANCH:                                   # 6.5.1
            frm = (self.cur_pc + c.svarint()) & U64
            to = (frm + c.svarint()) & U64
            kf = c.u8()
            if not valid_kind_flags(kf):
                raise Malformed()
            self.repeat[branch_slot(frm, to)] = ("branch", frm, to, kf)
            yield self.deliver_branch(frm, to, kf)
        elif t == T_INSN_RUN:                               # 6.5.2
            start = (self.cur_pc + c.svarint()) & U64
            lengths = self.read_lengths(c, c.varint())
            self.repeat[run_slot(start, len(lengths))] = ("run", start, lengths)
            yield from self.deliver_run(start, lengths)
        elif t == T_INSN:                                   # 6.5.3
            addr = (self.cur_pc + c.svarint()) & U64
            length = c.u8()
            if not 1 <= length <= INSN_MAX_LEN or c.end - c.pos < length:
                raise Malformed()
            code = c.data[c.pos:c.pos + length]
            self.cur_pc, self.last_insn, self.mem_index = (addr + length) & U64, addr, 0
            yield self.rec("INSN", addr=addr, len=length, bytes=code)
        elif t == T_MEM:                                    # 6.5.4
            flags = c.u8()
            size = c.varint()
            d = c.svarint()
            slot = self.mem_slot(self.last_insn, self.mem_index)
            addr = (self.mem_table[slot] + d) & U64
            self.mem_table[slot] = addr
            self.mem_index += 1
            yield self.rec("MEM", flags=flags, store=flags & 1, size=size, addr=addr)
        elif t == T_MMAP:                                   # 6.5.5
            yield self.rec("MMAP", mpid=u32_of(c.varint()), start=c.varint(),
                           length=c.varint(), pgoff=c.varint(), prot=c.u8(),
                           buildid=c.bytes_field(BUILDID_MAX), path=c.bytes_field(PATH_MAX))
        elif t == T_CODE:                                   # 6.5.6
            yield self.rec("CODE", addr=c.varint(), code=c.bytes_field(CODE_MAX))
        elif t == T_THREAD:                                 # 6.5.7
            event, ttid, tpid = c.u8(), u32_of(c.varint()), u32_of(c.varint())
            other, name = c.varint(), c.bytes_field(PATH_MAX)
            if event == THREAD_SWITCH:
                # The SWITCH record already carries its new thread (6.2).
                self.tid, self.pid = ttid, tpid
            yield self.rec("THREAD", event=event, ttid=ttid, tpid=tpid, other=other, name=name)
        elif t == T_PROCESS:                                # 6.5.8
            yield self.rec("PROCESS", event=c.u8(), ppid=u32_of(c.varint()), other=c.varint(),
                           status=c.svarint(), name=c.bytes_field(PATH_MAX))
        elif t == T_SYSCALL:                                # 6.5.9
            direction, nr, ret, nargs = c.u8(), c.varint(), c.svarint(), c.u8()
            if nargs > 6:
                raise Malformed()
            args = [c.varint() for _ in range(nargs)]
            yield self.rec("SYSCALL", dir=direction, nr=nr, ret=ret, args=args)
        elif t == T_SIGNAL:                                 # 6.5.10
            yield self.rec("SIGNAL", signo=u32_of(c.varint()), code=s32_of(c.svarint()),
                           addr=c.varint(), pc=c.varint(), handler=c.varint())
        elif t == T_TIMESTAMP:                              # 6.5.11
            self.time = (self.time + c.svarint()) & U64
            yield self.rec("TIMESTAMP")
        elif t == T_TRACE_CTL:                              # 6.5.12
            on, reason, addr = c.u8(), c.u8(), c.varint()
            trigger = index = 0
            if c.pos < c.end:       # 1.1: which option fired; index comes with it
                trigger, index = c.u8(), u32_of(c.varint())
            yield self.rec("TRACE_CTL", on=on, reason=reason, addr=addr,
                           trigger=trigger, index=index)
        elif t == T_LOST:                                   # 6.5.13
            yield self.rec("LOST", reason=c.u8(), unit=c.u8(), count=c.varint())
        elif t == T_GAP:                                    # 6.5.14
            yield self.rec("GAP", reason=c.u8(), addr=c.varint(), resume=c.varint(),
                           count=c.varint())
        elif t == T_BLOCK:
            yield from self.decode_block(c)
        elif t == T_BRANCH_SEQ:
            yield from self.decode_branch_seq(c)
        # Any other type: skipped, the coding state unchanged (6.1).

    def decode_block(self, c):
        """6.5.15, steps 1-6; allowed only with the BLOCK feature (4)."""
        if not self.features & FEATURE_BLOCK:
            raise Malformed("BLOCK record in a file without the BLOCK feature")
        start = (self.cur_pc + c.svarint()) & U64
        lengths = self.read_lengths(c, c.varint())
        n, m = len(lengths), c.varint()
        if m > 255:
            raise Malformed()
        accesses, index = [], 0
        for _ in range(m):
            step, size_store = c.varint(), c.varint()
            if step > n - 1 - index:
                raise Malformed()
            index += step
            accesses.append((index, size_store & 1, size_store >> 1))
        accesses = tuple(accesses)
        self.repeat[run_slot(start, n)] = ("block", start, lengths, accesses)
        yield from self.deliver_block(start, lengths, accesses, c)

    def decode_branch_seq(self, c):
        """6.5.16, steps 1-3; allowed only with the BRANCH_SEQ feature (4)."""
        if not self.features & FEATURE_BRANCH_SEQ:
            raise Malformed("BRANCH_SEQ record in a file without the BRANCH_SEQ feature")
        frm = (self.cur_pc + c.svarint()) & U64
        slot, k = c.u8(), c.varint()
        if slot >= REPEAT_SLOTS or not 1 <= k <= 255:
            raise Malformed()
        branches = []
        for i in range(k):
            if i:
                frm = (branches[-1][1] + c.svarint()) & U64
            to = (frm + c.svarint()) & U64
            kf = c.u8()
            if not valid_kind_flags(kf):
                raise Malformed()
            branches.append((frm, to, kf))
        self.repeat[slot] = ("seq", tuple(branches))
        yield from self.deliver_seq(branches)


# ---------------------------------------------------------------------------
# 7. Footer and trailer

class Footer:
    """7.1: magic, footer_size, end_reason, end_status, chunk_count and the
    totals, then the chunk index, the CRC and the trailer."""

    def __init__(self, data, offset):
        (self.footer_size, self.end_reason, self.end_status, self.chunk_count,
         self.record_count, self.insn_count, self.branch_count, self.mem_count,
         self.lost_count, self.gap_count) = struct.unpack_from("<IB3xiQQQQQQQ", data, offset + 4)
        self.offset = offset
        self.index = [struct.unpack_from("<QQ", data, offset + 72 + 16 * i)
                      for i in range((self.footer_size - 92) // 16)]

    def __repr__(self):
        return "Footer(%s)" % ", ".join(
            "%s=%r" % kv for kv in vars(self).items() if kv[0] != "index")


def footer_valid(data, offset, size):
    """7.1: footer_size >= 92, chunk_count = (footer_size - 92) / 16, the CRC
    holds and the trailer magic is present, with the footer within data."""
    if size < 92 or (size - 92) % 16 or offset + size > len(data):
        return False
    n = (size - 92) // 16
    if struct.unpack_from("<Q", data, offset + 16)[0] != n:
        return False
    crc = struct.unpack_from("<I", data, offset + 72 + 16 * n)[0]
    if crc32c(data[offset:offset + 72 + 16 * n]) != crc:
        return False
    return data[offset + size - 8:offset + size] == TRAILER_MAGIC


def footer_from_end(data, header_size):
    """7.2, from the end of a seekable file: the trailer names the footer."""
    if len(data) < 16 or data[-8:] != TRAILER_MAGIC:
        return None
    off = struct.unpack_from("<Q", data, len(data) - 16)[0]
    if not header_size <= off < len(data) or len(data) - off > (64 << 20):
        return None
    if data[off:off + 4] != FOOTER_MAGIC:
        return None
    size = struct.unpack_from("<I", data, off + 4)[0] if len(data) - off >= 8 else 0
    if size != len(data) - off or not footer_valid(data, off, size):
        return None
    return Footer(data, off)


# ---------------------------------------------------------------------------
# The reader: chunks in file order, with the damage rules of section 8.

# 8: on a stream, a footer found by the resynchronisation scan is checked
# when it lies within the 64 KiB the reader holds; here, from the byte after
# the damaged header (a longer one is taken unchecked).
RESYNC_WINDOW = 64 << 10


class Reader:
    """Reads a whole itrace file held in memory (a pipe is read to its end
    first: simple, and the spec's forward pass is still what is done)."""

    def __init__(self, data, seekable=True):
        self.data = data
        self.seekable = seekable
        self.header, self.metadata = parse_header(data)
        self.footer = None           # the footer met, or found from the end
        self.errors = 0

    @classmethod
    def open(cls, path):
        if path == "-":
            return cls(sys.stdin.buffer.read(), seekable=False)
        with open(path, "rb") as f:
            return cls(f.read())

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def meta(self, key):
        """The value of the first entry with this key (4.4), or None."""
        for k, v in self.metadata:
            if k == key:
                return v
        return None

    # -- section 8

    def gap(self, count, tid, pid):
        """8: a synthesised GAP has reason CORRUPT_CHUNK, addr and resume 0,
        time 0, and the current thread."""
        return {"type": "GAP", "tid": tid, "pid": pid, "time": 0, "reason": GAP_CORRUPT_CHUNK,
                "addr": 0, "resume": 0, "count": count, "synthesised": True}

    def resync(self, bad):
        """8: scan from the byte after `bad` for an ICHK with a valid header
        (or with fewer than 72 bytes left), or a plausible IFTR."""
        data, n = self.data, len(self.data)
        pos = bad + 1
        while True:
            i = data.find(CHUNK_MAGIC, pos)
            j = data.find(FOOTER_MAGIC, pos)
            candidates = [x for x in (i, j) if x >= 0]
            if not candidates:
                return None
            p = min(candidates)
            if p == i:
                if n - p < CHUNK_HEADER_SIZE or chunk_header_problem(data, p) is None:
                    return p
            elif n - p < 8:
                return p  # the file ends inside what may be a footer: truncated
            else:
                # 8: only a whole valid footer (7.1) is taken; on a stream, one
                # that runs past what the reader holds is taken unchecked.
                size = struct.unpack_from("<I", data, p + 4)[0]
                if size >= 92:
                    if self.seekable:
                        if footer_valid(data, p, size):
                            return p
                    elif p + size > min(n, bad + 1 + RESYNC_WINDOW) or \
                            footer_valid(data, p, size):
                        return p
            pos = p + 1

    def events(self):
        """Yield every record (a dict) and every error (a ReadError), in the
        order a sequential read meets them (5, 7.2, 8)."""
        data, n = self.data, len(self.data)
        pos = self.header.header_size
        expected_seq = 0
        tid = pid = 0
        while True:
            left = n - pos
            if left <= 0:
                # 8: the file ends at a chunk boundary: no footer.
                yield self.error("no-footer", n, "trace ends after %d chunks without a footer: "
                                 "the writer was interrupted; every complete chunk was read"
                                 % expected_seq)
                break
            magic = data[pos:pos + 4]
            if left < 4 or (magic == CHUNK_MAGIC and left < CHUNK_HEADER_SIZE):
                yield self.error("truncated", pos, "file ends inside a chunk header")
                break
            if magic == FOOTER_MAGIC:
                yield from self.read_footer(pos, expected_seq, tid, pid)
                break
            problem = chunk_header_problem(data, pos)
            if problem:
                yield self.error("corrupt", pos, problem)
                nxt = self.resync(pos)
                if nxt is None:
                    yield self.error("corrupt", n, "no intact chunk or footer after the "
                                     "damage at offset %d" % pos)
                    break
                pos = nxt
                continue
            hdr = ChunkHeader(data, pos)
            # 8: a chunk whose header is intact sets the thread, even when its
            # payload is damaged.
            state = {"tid": hdr.tid, "pid": hdr.pid, "expected_seq": expected_seq}
            result = yield from self.read_chunk(hdr, state)
            if result != "skipped":
                tid, pid, expected_seq = state["tid"], state["pid"], state["expected_seq"]
            if result == "stop":
                break
            pos = min(n, pos + CHUNK_HEADER_SIZE + hdr.payload_size)

    def error(self, kind, offset, detail):
        self.errors += 1
        return ReadError(kind, offset, detail)

    def read_chunk(self, hdr, state):
        """One chunk whose header is valid: payload, CRC, sequence number,
        decompression, records (5.3, 5.4, 8).  Chunks missing before it (its
        seq is larger than expected) get a GAP before its first record, or
        one GAP with it when its payload cannot be read."""
        data, n = self.data, len(self.data)
        start = hdr.offset + CHUNK_HEADER_SIZE
        present = min(hdr.payload_size, n - start)
        payload = data[start:start + present]
        truncated = present < hdr.payload_size
        expected = state["expected_seq"]
        missing = max(0, hdr.seq - expected)

        def damaged(detail):
            err = self.error("corrupt", hdr.offset, "chunk %d: %s" % (hdr.seq, detail))
            return [err, self.gap(missing + 1, state["tid"], state["pid"])]

        # The CRC covers the stored bytes: checked first, before the sequence
        # number and before decompressing (5.4).  A truncated payload has no
        # CRC to check (8).
        if not truncated and crc32c(payload) != hdr.payload_crc32c:
            state["expected_seq"] = hdr.seq + 1
            yield from damaged("payload checksum mismatch")
            return "next"
        # 8, sequence numbers: a chunk from the past is skipped.
        if hdr.seq < expected:
            yield self.error("corrupt", hdr.offset, "chunk %d out of sequence (expected %d); "
                             "skipped" % (hdr.seq, expected))
            return "skipped"
        state["expected_seq"] = hdr.seq + 1
        if hdr.compression == COMP_ZSTD:
            # 5.4: the frame's content size against raw_size, before anything
            # is decompressed.
            problem = zstd_content_size_problem(payload, hdr.raw_size, not truncated)
            if problem:
                yield from damaged(problem)
                return "next"
        if truncated:
            raw = payload if hdr.compression == COMP_NONE else \
                zstd_decompress_partial(payload, hdr.raw_size)
        elif hdr.compression == COMP_ZSTD:
            raw, problem = zstd_decompress(payload, hdr.raw_size)
            if problem:
                yield from damaged(problem)
                return "next"
        else:
            raw = payload
        # The payload is readable: the GAP for chunks missing before this one
        # goes first (a GAP for damage in its records comes on its own).
        if missing:
            yield self.gap(missing, hdr.tid, hdr.pid)
        dec = ChunkDecoder(raw, hdr, self.header.mem_table_log2, self.header.incompat_features)
        cut = False    # a truncated payload stops at the record it cuts
        it = dec.records()
        while True:
            try:
                r = next(it)
            except StopIteration:
                break
            except Malformed as e:
                if truncated:
                    cut = True  # the record the truncation cut: no error of its own
                    break
                state["tid"], state["pid"] = dec.tid, dec.pid
                yield self.error("corrupt", hdr.offset, "chunk %d: record %d: %s; rest of "
                                 "chunk skipped" % (hdr.seq, dec.framed, e.why))
                yield self.gap(1, dec.tid, dec.pid)
                return "next"
            yield r
        state["tid"], state["pid"] = dec.tid, dec.pid
        if truncated:
            complete = dec.framed - 1 if cut else dec.framed
            yield self.error("truncated", n, "file ends inside chunk %d (%d of %d payload "
                             "bytes present); %d complete records of that chunk were read"
                             % (hdr.seq, present, hdr.payload_size, complete))
            return "stop"
        if dec.framed != hdr.record_count:
            yield self.error("corrupt", hdr.offset, "chunk %d holds %d records, its header "
                             "says %d" % (hdr.seq, dec.framed, hdr.record_count))
        return "next"

    def read_footer(self, pos, expected_seq, tid, pid):
        """7.2, streaming: the footer where the next chunk was expected."""
        data, n = self.data, len(self.data)
        if n - pos < 8:
            yield self.error("truncated", pos, "file ends inside the footer")
            return
        size = struct.unpack_from("<I", data, pos + 4)[0]
        if size < 92:
            yield self.error("corrupt", pos, "footer size is invalid")
            return
        if pos + size > n:
            yield self.error("truncated", pos, "file ends inside the footer")
            return
        if not footer_valid(data, pos, size):
            yield self.error("corrupt", pos, "footer is corrupt")
            return
        self.footer = Footer(data, pos)
        # 8: chunks the footer lists that were never seen: an error, then
        # a GAP for them.
        if self.footer.chunk_count > expected_seq:
            yield self.error("corrupt", pos, "footer lists %d chunks, the trace ends after %d "
                             "chunks" % (self.footer.chunk_count, expected_seq))
            yield self.gap(self.footer.chunk_count - expected_seq, tid, pid)

    def records(self):
        """Only the records; errors are counted in self.errors."""
        for ev in self.events():
            if not isinstance(ev, ReadError):
                yield ev

    def final_footer(self):
        """The footer met while reading or, failing that, the one the end of
        a seekable file names (7.2)."""
        if self.footer is None and self.seekable:
            self.footer = footer_from_end(self.data, self.header.header_size)
        return self.footer


def records(path):
    """Every record of the file at `path`, as a list of dicts."""
    return list(Reader.open(path).records())


# ---------------------------------------------------------------------------
# 7.3 and 7.4: how a trace ended, and whether it is complete.

END_COMPLETE, END_INTERRUPTED, END_CRASHED, END_ERROR, END_DETACHED, END_NOT_TRIGGERED = \
    range(1, 7)


def is_complete(f):
    """7.4, from the footer alone."""
    return (f is not None and f.end_reason in (END_COMPLETE, END_CRASHED)
            and f.lost_count == 0 and f.gap_count == 0
            and f.insn_count + f.branch_count > 0)


def _exit_words(status):
    if status < 0:
        return "the program was killed by signal %d" % -status
    return "the program exited with status %d" % status


def describe_end(f):
    """How the trace ended, in words, as the reference tools say it."""
    if f is None:
        return "truncated: no footer (the writer was killed, or the file was cut)"
    r, s = f.end_reason, f.end_status
    if r == END_COMPLETE:
        # 7.3: the exit code, whatever its sign.
        text = "the program exited with status %d" % s
    elif r == END_CRASHED:
        # 7.3: the signal number, whatever its value.
        text = "the program was killed by signal %d" % s
    elif r == END_INTERRUPTED:
        text = "the collector was interrupted by signal %d" % s
    elif r == END_ERROR:
        text = "the collector failed: %s" % os.strerror(s)
    elif r == END_DETACHED:
        text = "the collector detached; the program went on untraced"
    elif r == END_NOT_TRIGGERED:
        text = ("the start trigger never fired, nothing of the requested window or scope "
                "ran (%s)" % _exit_words(s))
    else:
        return "the end is unknown (reason %d)" % r
    if f.lost_count:
        text += "; %d lost (LOST records)" % f.lost_count
    if f.gap_count:
        text += "; %d gap%s" % (f.gap_count, "" if f.gap_count == 1 else "s")
    if f.insn_count + f.branch_count == 0:
        text += "; nothing recorded"
    return text


# ---------------------------------------------------------------------------
# The listing: one line per record, as itrace-dump prints it.

KIND_NAMES = ("cond", "uncond", "call", "return", "indirect", "indirect-call", "syscall",
              "interrupt", "sigreturn", "unknown")
LOST_REASONS = {1: "overflow", 2: "untraceable", 3: "decode", 4: "corrupt", 5: "other"}
LOST_UNITS = ("?", "records", "branches", "insns", "bytes")
GAP_REASONS = {1: "no-mapping", 2: "buildid-mismatch", 3: "no-binary", 4: "undecodable",
               5: "branch-not-reached", 6: "lost-input", 7: "corrupt-chunk", 8: "trace-off"}
THREAD_EVENTS = ("?", "create", "switch", "exit", "name")
PROCESS_EVENTS = ("?", "start", "fork", "exec", "exit")
CTL_REASONS = ("?", "start", "trigger", "attach", "detach", "scope")
CTL_TRIGGERS = ("", "start", "stop", "return", "for", "every")   # 6.5.12
ARCH_NAMES = {62: "x86-64", 3: "i386", 20: "ppc", 183: "aarch64"}


def quoted(b):
    """Text in single quotes, control bytes, DEL, quote and backslash as \\xNN."""
    out = bytearray(b"'")
    for c in b:
        if c < 0x20 or c == 0x7F or c == 0x27 or c == 0x5C:
            out += b"\\x%02x" % c
        else:
            out.append(c)
    out += b"'"
    return bytes(out)


def format_record(r):
    """One line (bytes, without the newline)."""
    t = r["type"]
    head = b"%d " % r["tid"]
    if t == "BRANCH":
        line = b"BRANCH 0x%x -> 0x%x %s %s" % (
            r["frm"], r["to"], KIND_NAMES[r["kind"]].encode(),
            b"taken" if r["flags"] & 1 else b"not-taken")
        if r["flags"] & 2:
            line += b" predicted" if r["flags"] & 4 else b" mispredicted"
    elif t == "INSN":
        line = b"INSN 0x%x len=%d" % (r["addr"], r["len"])
        if r["bytes"] is not None:
            line += b" bytes=" + r["bytes"].hex().encode()
    elif t == "MEM":
        line = b"MEM %s 0x%x size=%d" % (b"store" if r["store"] else b"load", r["addr"], r["size"])
    elif t == "MMAP":
        prot = r["prot"]
        line = b"MMAP pid=%d 0x%x-0x%x pgoff=0x%x prot=%c%c%c" % (
            r["mpid"], r["start"], (r["start"] + r["length"]) & U64, r["pgoff"],
            b"r"[0] if prot & 1 else 45, b"w"[0] if prot & 2 else 45, b"x"[0] if prot & 4 else 45)
        if r["buildid"]:
            line += b" buildid=" + r["buildid"].hex().encode()
        if r["path"]:
            line += b" " + quoted(r["path"])
    elif t == "CODE":
        line = b"CODE 0x%x len=%d" % (r["addr"], len(r["code"]))
    elif t == "THREAD":
        ev = r["event"]
        line = b"THREAD %s tid=%d pid=%d" % (
            THREAD_EVENTS[ev].encode() if ev <= 4 else b"?", r["ttid"], r["tpid"])
        if ev == 1:
            line += b" parent=%d" % r["other"]
        if ev == 3:
            line += b" status=%d" % r["other"]
        if r["name"]:
            line += b" " + quoted(r["name"])
    elif t == "PROCESS":
        ev = r["event"]
        line = b"PROCESS %s pid=%d" % (PROCESS_EVENTS[ev].encode() if ev <= 4 else b"?", r["ppid"])
        if ev == 2:
            line += b" child=%d" % r["other"]
        if ev == 4:
            line += b" status=%d" % r["status"]
        if r["name"]:
            line += b" " + quoted(r["name"])
    elif t == "SYSCALL":
        if r["dir"] == 2:
            line = b"SYSCALL exit nr=%d ret=%d" % (r["nr"], r["ret"])
        else:
            line = b"SYSCALL enter nr=%d" % r["nr"]
            if r["args"]:
                line += b" args=" + b",".join(b"0x%x" % a for a in r["args"])
    elif t == "SIGNAL":
        line = b"SIGNAL signo=%d code=%d addr=0x%x pc=0x%x handler=0x%x" % (
            r["signo"], r["code"], r["addr"], r["pc"], r["handler"])
    elif t == "TIMESTAMP":
        line = b"TIMESTAMP %d" % r["time"]
    elif t == "TRACE_CTL":
        line = b"TRACE_%s %s 0x%x" % (b"ON" if r["on"] else b"OFF",
                                      CTL_REASONS[r["reason"]].encode() if r["reason"] <= 5
                                      else b"?", r["addr"])
        if r["trigger"]:                # 6.5.12's trigger table, by=NAME
            line += b" by=%s" % (CTL_TRIGGERS[r["trigger"]].encode()
                                 if r["trigger"] < len(CTL_TRIGGERS) else b"%d" % r["trigger"])
            if r["trigger"] in (1, 2):  # START, STOP: which option
                line += b"#%d" % r["index"]
    elif t == "LOST":
        line = b"LOST %d %s reason=%s" % (
            r["count"], LOST_UNITS[r["unit"]].encode() if r["unit"] <= 4 else b"?",
            LOST_REASONS.get(r["reason"], "other").encode())
    elif t == "GAP":
        line = b"GAP reason=%s addr=0x%x resume=0x%x count=%d" % (
            GAP_REASONS.get(r["reason"], "other").encode(), r["addr"], r["resume"], r["count"])
    else:
        raise AssertionError(t)
    return head + line


def arch_name(machine, endian):
    if machine == 21:
        return "ppc64le" if endian == 1 else "ppc64"
    return ARCH_NAMES.get(machine, "unknown")


def feature_names(bits):
    names = [FEATURE_NAMES.get(1 << b, "bit%d" % b) for b in range(32) if bits >> b & 1]
    return " ".join(names) if names else "none"


def format_header(rd):
    """The header as -H and --summary print it (appendix A)."""
    h = rd.header
    lines = [
        "format: itrace %d.%d" % (h.major, h.minor),
        "features: %s" % feature_names(h.incompat_features),
    ]
    if h.compat_features:
        lines.append("compat features: 0x%x (unknown to this reader, ignored)"
                     % h.compat_features)
    lines += [
        "mem table: %d entries" % (1 << h.mem_table_log2),
        "arch: %s (e_machine %d, %s-endian)" % (arch_name(h.machine, h.target_endian), h.machine,
                                               "little" if h.target_endian == 1 else "big"),
        "level: %s" % ("branch" if h.level == 1 else "insn"),
        "flags: 0x%x" % h.flags,
    ]
    out = "".join(line + "\n" for line in lines).encode()
    for k, v in rd.metadata:
        out += b"meta: " + k + b"=" + v + b"\n"
    return out


SUMMARY_TYPES = ("BRANCH", "INSN", "MEM", "MMAP", "CODE", "THREAD", "PROCESS", "SYSCALL",
                 "SIGNAL", "TIMESTAMP", "TRACE_CTL", "LOST", "GAP")
END_NAMES = ("unknown", "complete", "interrupted", "target crashed",
             "collector error", "detached", "start never triggered")


def format_summary(rd, per_type, threads, nrecords, size):
    out = format_header(rd)
    out += b"records: %d\n" % nrecords
    for t in SUMMARY_TYPES:
        if per_type.get(t):
            out += b"  %-10s %d\n" % (t.encode(), per_type[t])
    out += b"threads: %d\n" % len(threads)
    for tid, (recs, insns, branches) in threads.items():
        out += b"  tid %d: %d records, %d insns, %d branches\n" % (tid, recs, insns, branches)
    f = rd.final_footer()
    if f is not None:
        name = END_NAMES[f.end_reason] if f.end_reason <= 6 else \
            "unknown (reason %d)" % f.end_reason
        out += b"ended: %s, status %d\nchunks: %d\n" % (name.encode(), f.end_status,
                                                       f.chunk_count)
    else:
        out += b"ended: unknown (no footer)\n"
    # 7.4: a trace whose reading met damage is not complete.
    out += b"how: %s\ncomplete: %s\n" % (describe_end(f).encode(),
                                        b"yes" if is_complete(f) and not rd.errors else b"no")
    if size:
        out += b"file bytes: %d\n" % size
        out += b"bytes per record: %.3f\n" % (size / nrecords if nrecords else 0.0)
        if per_type.get("INSN"):
            out += b"bytes per insn: %.3f\n" % (size / per_type["INSN"])
        if per_type.get("BRANCH"):
            out += b"bytes per branch: %.3f\n" % (size / per_type["BRANCH"])
    if rd.errors:
        out += b"damage: %d errors (see stderr)\n" % rd.errors
    return out


USAGE = """usage: itrace_spec_reader.py [options] FILE
Print every record of an itrace file, one per line, as itrace-dump does,
with a reader written from format/ITRACE.md alone.

  -s, --summary   header, metadata, counts per record type and thread,
                  how the trace ended, bytes per record
  -H, --header    print the header and metadata before the records
  -n, --limit N   stop after N records
  -q, --quiet     no output, only the exit status (1 if damaged)
      --help
FILE '-' reads standard input.
"""


def complain(msg):
    sys.stdout.buffer.flush()
    sys.stderr.buffer.write(b"%s: %s\n" % (PROG.encode(), msg))
    sys.stderr.buffer.flush()


def parse_args(argv):
    import getopt
    try:
        opts, args = getopt.gnu_getopt(argv, "sHn:q", ["summary", "header", "limit=", "quiet",
                                                      "help"])
    except getopt.GetoptError as e:
        complain(str(e).encode())
        sys.stderr.write(USAGE)
        sys.exit(2)
    o = {"summary": False, "header": False, "quiet": False, "limit": 0}
    for k, v in opts:
        if k in ("-s", "--summary"):
            o["summary"] = True
        elif k in ("-H", "--header"):
            o["header"] = True
        elif k in ("-q", "--quiet"):
            o["quiet"] = True
        elif k in ("-n", "--limit"):
            if not v.isdigit():
                complain(b"-n: not a count: '%s'" % v.encode())
                sys.exit(2)
            o["limit"] = int(v)
        elif k == "--help":
            sys.stdout.write(USAGE)
            sys.exit(0)
    if len(args) != 1:
        complain(b"no input file given" if not args else b"more than one input file")
        sys.exit(2)
    o["path"] = args[0]
    return o


def main(argv):
    o = parse_args(argv)
    path = o["path"]
    qpath = path.encode(errors="surrogateescape")
    try:
        rd = Reader.open(path)
    except OSError as e:
        complain(b"cannot open '%s': %s" % (qpath, e.strerror.encode()))
        return 1
    except ReadError as e:
        complain(b"cannot read '%s': offset %d: %s" % (qpath, e.offset, e.detail.encode()))
        return 1
    out = sys.stdout.buffer
    if o["header"] and not o["summary"] and not o["quiet"]:
        out.write(format_header(rd))
    per_type, threads, nrecords, reached_end = {}, {}, 0, True
    lines = []
    for ev in rd.events():
        if isinstance(ev, ReadError):
            out.write(b"".join(lines))
            lines = []
            complain(b"'%s': %s" % (qpath, str(ev).encode()))
            continue
        batch = ev if isinstance(ev, list) else [ev]
        for r in batch:
            if o["limit"] and nrecords >= o["limit"]:
                reached_end = False
                break
            nrecords += 1
            per_type[r["type"]] = per_type.get(r["type"], 0) + 1
            if o["summary"]:
                c = threads.setdefault(r["tid"], [0, 0, 0])
                c[0] += 1
                c[1] += r["type"] == "INSN"
                c[2] += r["type"] == "BRANCH"
            elif not o["quiet"]:
                lines.append(format_record(r) + b"\n")
        if not reached_end:
            break
        if len(lines) > 4096:
            out.write(b"".join(lines))
            lines = []
    out.write(b"".join(lines))
    if o["summary"] and not o["quiet"]:
        size = 0
        if path != "-":
            size = os.stat(path).st_size
        out.write(format_summary(rd, per_type, threads, nrecords, size))
    elif reached_end and rd.errors == 0:
        # 7.4: every reference tool warns about an incomplete trace (after
        # damage, the errors have said it already).
        f = rd.final_footer()
        if not is_complete(f):
            complain(b"warning: '%s' is not complete: %s" % (qpath, describe_end(f).encode()))
    out.flush()
    return 1 if rd.errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
