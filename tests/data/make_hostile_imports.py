#!/usr/bin/python3
# Writes the crafted imports that cost memory or time out of all proportion to their
# size: overlapping zip entries, archives that declare far more than they hold, a sparse large
# .npy. Run by tests/app/import_test.cpp and tests/hostile/run.sh:
#   /usr/bin/python3 make_hostile_imports.py OUTDIR [--large]
# --large also writes a sparse 2 GiB float64 .npy (no disk space used: a hole).
import os
import struct
import sys
import zlib


def npy_header(shape, descr="<f4"):
    """A format 1.0 .npy header for `shape`, padded to 64 bytes as numpy.save pads it."""
    shape_text = "(" + ", ".join(str(n) for n in shape) + ("," if len(shape) == 1 else "") + ")"
    text = "{'descr': '%s', 'fortran_order': False, 'shape': %s, }" % (descr, shape_text)
    while (10 + len(text) + 1) % 64:
        text += " "
    text += "\n"
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(text)) + text.encode()


def deflate(data):
    """Raw deflate (zip method 8), as zipfile writes it."""
    compressor = zlib.compressobj(9, zlib.DEFLATED, -15)
    return compressor.compress(data) + compressor.flush()


def local_header(name, crc, compressed, uncompressed, method=8):
    return struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, 0, method, 0, 0, crc, compressed, uncompressed,
                       len(name), 0) + name


def central_entry(name, crc, compressed, uncompressed, offset, method=8):
    return struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 20, 20, 0, method, 0, 0, crc, compressed,
                       uncompressed, len(name), 0, 0, 0, 0, 0, offset) + name


def end_record(count, directory_size, directory_offset):
    return struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, count, count, directory_size, directory_offset, 0)


def zip_of(entries):
    """entries: (name, data bytes, deflated?) -> a well-formed zip."""
    body, directory = b"", b""
    for name, data, deflated in entries:
        payload = deflate(data) if deflated else data
        crc = zlib.crc32(data) & 0xFFFFFFFF
        method = 8 if deflated else 0
        directory += central_entry(name.encode(), crc, len(payload), len(data), len(body), method)
        body += local_header(name.encode(), crc, len(payload), len(data), method) + payload
    return body + directory + end_record(len(entries), len(directory), len(body))


def overlapping_bomb(path, entries=256):
    """One deflated float32 [4096, 4096] array of zeros (64 MiB inflated), listed `entries` times
    under the names aN_scores.npy, every directory entry pointing at the same local header."""
    data = npy_header((4096, 4096)) + bytes(4096 * 4096 * 4)
    payload = deflate(data)
    crc = zlib.crc32(data) & 0xFFFFFFFF
    first = b"a0_scores.npy"
    body = local_header(first, crc, len(payload), len(data)) + payload
    directory = b""
    for n in range(entries):
        directory += central_entry(("a%d_scores.npy" % n).encode(), crc, len(payload), len(data), 0)
    with open(path, "wb") as out:
        out.write(body + directory + end_record(entries, len(directory), len(body)))


def declared_huge(path):
    """An honest deflated float32 [16384, 16384] array of zeros: 1 GiB inflated, ~1 MB on disk."""
    header = npy_header((16384, 16384))
    compressor = zlib.compressobj(9, zlib.DEFLATED, -15)
    crc = zlib.crc32(header)
    payload = compressor.compress(header)
    zeros = bytes(1 << 24)
    for _ in range(16384 * 16384 * 4 // len(zeros)):
        payload += compressor.compress(zeros)
        crc = zlib.crc32(zeros, crc)
    payload += compressor.flush()
    size = len(header) + 16384 * 16384 * 4
    name = b"q.npy"
    body = local_header(name, crc & 0xFFFFFFFF, len(payload), size)
    directory = central_entry(name, crc & 0xFFFFFFFF, len(payload), size, 0)
    with open(path, "wb") as out:
        out.write(body + payload + directory + end_record(1, len(directory), len(body) + len(payload)))


def claims_more_than_it_holds(path):
    """A 2.2 MB deflated entry whose header and directory claim a float64 [16, 4096, 4096] array
    (2 GiB, a shape Q may have; within the 1032:1 ratio deflate allows) and that holds 2.2 MB."""
    header = npy_header((16, 4096, 4096), "<f8")
    data = header + os.urandom(2200 << 10)
    payload = deflate(data)
    size = len(header) + 16 * 4096 * 4096 * 8
    name = b"q.npy"
    crc = zlib.crc32(data) & 0xFFFFFFFF
    body = local_header(name, crc, len(payload), size) + payload
    directory = central_entry(name, crc, len(payload), size, 0)
    with open(path, "wb") as out:
        out.write(body + directory + end_record(1, len(directory), len(body)))


def sparse_npy(path, shape, descr="<f4"):
    """A .npy of `shape` whose data is a hole: valid, all zeros, no disk space."""
    header = npy_header(shape, descr)
    count = 1
    for n in shape:
        count *= n
    with open(path, "wb") as out:
        out.write(header)
        out.truncate(len(header) + count * int(descr[-1]))


def main(out, large):
    os.makedirs(out, exist_ok=True)
    overlapping_bomb(os.path.join(out, "overlap.npz"))
    declared_huge(os.path.join(out, "huge-d.npz"))
    claims_more_than_it_holds(os.path.join(out, "claims-2gib.npz"))
    sparse_npy(os.path.join(out, "q-32768x2048.npy"), (32768, 2048))
    if large:
        sparse_npy(os.path.join(out, "q-2gib.npy"), (2, 32768, 4096), "<f8")


if __name__ == "__main__":
    main(sys.argv[1], "--large" in sys.argv[2:])
