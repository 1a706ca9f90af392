#!/usr/bin/python3
"""itr_draft_to_1_0.py - rewrite the header of an itrace file of a pre-1.0
draft (read versions 1..5, a 48-byte fixed part) as a format 1.0 header
(ITRACE.md 4), leaving the metadata and the chunks as they are.

This is how the fuzz corpora under tests/fuzz/corpus/ were carried over
to format 1.0 (they hold many hand-made and fuzzer-made .itr inputs, most
of them damaged on purpose), so that they keep their coverage past the
header.  It is not a tool for users: libitrace refuses draft files and
asks for the trace to be re-recorded, since a draft's records are not
always those of 1.0 (read version 1 coded MEM addresses another way).

The mapping:
  read version at offset 8  -> major 1 (another value is kept: refused
                               then, refused now), minor 0
  write version at 10, 12   -> dropped (1.0 has no writer version)
  read version >= 3         -> incompatible feature BLOCK (bit 0)
  read version >= 4         -> incompatible feature BRANCH_SEQ (bit 1)
  read version 5            -> mem_table_log2 10, else 7
  fixed_size (48)           -> 64 (a larger one grows by 16 the same way)
  header_size               -> + 16
  bytes 12..13, 36..43 (reserved), 48..63 -> as 1.0 says (zero, features)
  header CRC-32C            -> recomputed; a file whose old CRC was wrong
                               gets a new one wrong by the same bits
Everything after the old fixed part moves 16 bytes on, so the footer's
chunk offsets and the trailer's footer offset (absolute file offsets,
ITRACE.md 7) move too when they are there; the footer's CRC is
recomputed the same way as the header's.  Inputs too short or not
starting with the magic are copied unchanged.

usage: itr_draft_to_1_0.py FILE... (rewritten in place; files that are
not drafts are left alone and named on stderr)
"""
import struct
import sys

MAGIC = b"\x89ITR\r\n\x1a\n"
OLD_FIXED = 48
GROW = 16


def _crc32c_table():
    table = []
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
        table.append(c)
    return table


_TABLE = _crc32c_table()


def crc32c(data):
    c = 0xFFFFFFFF
    for b in data:
        c = _TABLE[(c ^ b) & 0xFF] ^ (c >> 8)
    return c ^ 0xFFFFFFFF


def header_crc(h, size):
    """CRC-32C of h[0:size) with bytes 44..47 taken as zero."""
    z = bytearray(h[:size])
    z[44:48] = b"\0\0\0\0"
    return crc32c(bytes(z))


def convert(data):
    """The 1.0 file for draft bytes `data`, or None if they are not a draft."""
    if len(data) < 16 or data[:8] != MAGIC:
        return None
    (read_version,) = struct.unpack_from("<H", data, 8)
    (old_fixed,) = struct.unpack_from("<H", data, 14)
    if old_fixed < OLD_FIXED:
        return None  # a damaged fixed size: refused before, kept
    if len(data) < OLD_FIXED:
        # cut inside the fixed part: convert what is there, cut as far
        padded = bytes(data) + bytes(OLD_FIXED - len(data))
        return convert_full(padded, read_version, old_fixed)[: len(data) + GROW]
    return convert_full(bytes(data), read_version, old_fixed)


def convert_full(data, read_version, old_fixed):
    old = data
    (hsize,) = struct.unpack_from("<I", old, 16)
    (old_crc,) = struct.unpack_from("<I", old, 44)
    old_ok = hsize <= len(old) and header_crc(old, hsize) == old_crc
    crc_error = 0 if old_ok or hsize > len(old) else old_crc ^ header_crc(old, hsize)
    major = 1 if 1 <= read_version <= 5 else read_version
    features = (1 if read_version >= 3 else 0) | (2 if read_version >= 4 else 0)
    log2 = 10 if read_version == 5 else 7
    fixed = bytearray(64)
    fixed[0:8] = MAGIC
    struct.pack_into("<HHBBH", fixed, 8, major, 0, log2, 0, old_fixed + GROW)
    struct.pack_into("<I", fixed, 16, (hsize + GROW) & 0xFFFFFFFF)
    fixed[20:36] = old[20:36]  # machine, endian, level, flags, meta_size, meta_count
    struct.pack_into("<II", fixed, 36, features, 0)
    # the old fixed part's bytes past 48 (a longer draft fixed part) follow
    out = bytearray(fixed) + old[OLD_FIXED:]
    new_hsize = hsize + GROW
    if new_hsize <= len(out):
        struct.pack_into("<I", out, 44, header_crc(out, new_hsize) ^ crc_error)
    shift_footer(out, hsize)
    return bytes(out)


def shift_footer(out, old_hsize):
    """Move the trailer's footer offset and the footer's index by GROW."""
    if len(out) < 16 or out[-8:] != b"ITREND\0\0":
        return
    (foff,) = struct.unpack_from("<Q", out, len(out) - 16)
    if foff < old_hsize or foff + GROW >= len(out):
        return
    struct.pack_into("<Q", out, len(out) - 16, foff + GROW)
    f = foff + GROW
    if out[f : f + 4] != b"IFTR" or f + 72 > len(out):
        return
    (n,) = struct.unpack_from("<Q", out, f + 16)
    crc_at = f + 72 + 16 * n
    if crc_at + 4 > len(out):
        return
    (old_crc,) = struct.unpack_from("<I", out, crc_at)
    crc_error = old_crc ^ crc32c(bytes(out[f:crc_at]))
    for i in range(n):
        (off,) = struct.unpack_from("<Q", out, f + 72 + 16 * i)
        if off >= old_hsize:
            struct.pack_into("<Q", out, f + 72 + 16 * i, off + GROW)
    struct.pack_into("<I", out, crc_at, crc32c(bytes(out[f:crc_at])) ^ crc_error)


def main(paths):
    for p in paths:
        with open(p, "rb") as f:
            data = f.read()
        out = convert(data)
        if out is None:
            print("%s: not a draft itrace file, left alone" % p, file=sys.stderr)
            continue
        with open(p, "wb") as f:
            f.write(out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
