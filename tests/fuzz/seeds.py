#!/usr/bin/env python3
"""Writes the fuzz targets' seed corpora into tests/fuzz/corpus/<target>/.

Run from the top of the source tree: python3 tests/fuzz/seeds.py
Seeds are small, valid (or nearly valid) inputs of each target's format, so
that the fuzzer starts from inputs that reach deep into the readers; the output
is deterministic, so the committed files only change when this script does.
"""
import gzip
import io
import os
import shutil
import struct

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = os.path.join(TOP, "tests", "fuzz", "corpus")


def put(target, name, data):
    d = os.path.join(OUT, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def gz(data):
    b = io.BytesIO()
    with gzip.GzipFile(fileobj=b, mode="wb", mtime=0, filename="") as f:
        f.write(data)
    return b.getvalue()


def varint(data, i):
    v, shift = 0, 0
    while True:
        b = data[i]
        i += 1
        v |= (b & 0x7F) << shift
        shift += 7
        if not b & 0x80:
            return v, i


def put_varint(v):
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        out.append(b | (0x80 if v else 0))
        if not v:
            return bytes(out)


def fields(data):
    """(field, wire type, raw value bytes, whole field bytes) of a message."""
    i = 0
    while i < len(data):
        start = i
        tag, i = varint(data, i)
        wt = tag & 7
        if wt == 0:
            _, j = varint(data, i)
        elif wt == 2:
            n, i = varint(data, i)
            j = i + n
        else:
            j = i + (8 if wt == 1 else 4)
        yield tag >> 3, wt, data[i:j], data[start:j]
        i = j


def unpacked(profile):
    """profile with each sample's packed location ids and values given one
    by one, as protobuf allows and the reader's own decoder must read."""
    out = bytearray()
    for field, wt, value, whole in fields(profile):
        if field != 2:
            out += whole
            continue
        smp = bytearray()
        for f, w, v, w_all in fields(value):
            if f in (1, 2) and w == 2:
                i = 0
                while i < len(v):
                    n, i = varint(v, i)
                    smp += put_varint(f << 3) + put_varint(n)
            else:
                smp += w_all
        out += put_varint(2 << 3 | 2) + put_varint(len(smp)) + smp
    return bytes(out)


def pprof():
    with open(os.path.join(TOP, "tests", "data", "pprof_small.pb"), "rb") as f:
        small = f.read()
    put("pprof", "small.pb", small)
    put("pprof", "small.pb.gz", gz(small))
    # two members, the second short, so the reader's room sized by the
    # last trailer must grow for the first
    half = len(small) // 2
    put("pprof", "small-members.pb.gz", gz(small[:half]) + gz(small[half:]))
    put("pprof", "small-unpacked.pb", unpacked(small))


def collapsed():
    put("collapsed", "idle", b"\x00app:main:1;app:serve:42 1500000\napp:main:1;tick 7\n")
    put("collapsed", "busy-crlf", b"\x01a;b;c 3\r\nworker 3_1 9\r\n\r\na:b 12")
    put("collapsed", "hostile", b"\x04\x1b[31mred;\xff\xfe;\xe2\x80\xae 5\n;;x 1\n")


def sample(seed, task, frames):
    return struct.pack(">H", seed) + task + b"\x1e" + b"\x1f".join(frames)


def encode():
    put("encode", "plain", b"\x00" + b"\x00".join([
        sample(0x001F, b"conn", [b"main", b"serve", b"read"]),
        sample(0x0013, b"ticker", [b"main", b"tick"]),
        sample(0x0003, b"", [])]))
    put("encode", "hostile", b"\xe1" + b"\x00".join([
        sample(0x801F, b"\x1b]0;title\x07task", [b"a;b", b"worker 3", b"\xff\xfe\xed"]),
        sample(0x101F, b"\xe2\x80\xaeevil", [b"", b"\r\n", b"x" * 5000]),
        sample(0x0007, b"deep", [b"f%d" % i for i in range(140)])]))


FRAME = {"strings": 0, "stacks": 1, "tasks": 2, "aggs": 3, "end": 4, "window": 5, "error": 6,
         "stream": 7}


def frame(kind, payload):
    return bytes([FRAME[kind]]) + struct.pack("<H", len(payload)) + payload


def strings(entries):
    out = struct.pack("<I", len(entries))
    for sid, text in entries:
        out += struct.pack("<II", sid, len(text)) + text
    return out


def stacks(entries):
    out = struct.pack("<I", len(entries))
    for sid, parent, frames in entries:
        out += struct.pack("<III", sid, parent, len(frames)) + b"".join(struct.pack("<I", f) for f in frames)
    return out


def task(tid, stack, name, state, created, ended, t_mark, figures, flags=0, thread=0):
    polls, wakes, busy, sched, idle = figures
    return struct.pack("<QQIIIIBBHIQQQQQQQQQ", tid, 0, stack, name, thread, 1, state, 0, flags, 0,
                       created, ended, t_mark, polls, wakes, 0, busy, sched, idle)


def tasks(records):
    return struct.pack("<II", len(records), 112) + b"".join(records)


def aggs(records):
    out = struct.pack("<II", len(records), 64)
    for stack, thread, n, polls, wakes, busy, sched, idle in records:
        out += struct.pack("<IIQQQQQQQ", stack, thread, n, polls, wakes, 0, busy, sched, idle)
    return out


def end(boundary, real, records, loop_threads=1, flags=0):
    return struct.pack("<QQQQQIIQQ", boundary, real, 1, 0, 0, loop_threads, flags, 0, records)


def asyncio():
    ms = 1000000
    first = (frame("strings", strings([(1, b"app:main:1"), (2, b"app:serve:42"), (3, b"conn"),
                                       (4, b"MainThread")]))
             + frame("stacks", stacks([(1, 0, [1]), (2, 1, [2])]))
             + frame("tasks", tasks([task(1, 1, 0, 3, 0, 0, 5 * ms, (1, 1, 1 * ms, 1 * ms, 3 * ms)),
                                     task(2, 2, 3, 1, ms, 0, 8 * ms, (4, 3, 2 * ms, 2 * ms, 3 * ms))]))
             + frame("end", end(10 * ms, 1700000000 * 10**9, 2)))
    second = (frame("tasks", tasks([task(2, 2, 3, 4, ms, 15 * ms, 15 * ms, (6, 5, 3 * ms, 3 * ms, 8 * ms))]))
              + frame("aggs", aggs([(2, 4, 3, 9, 9, 4 * ms, 2 * ms, 7 * ms)]))
              + frame("end", end(20 * ms, 1700000000 * 10**9 + 10 * ms, 1, loop_threads=2)))
    put("asyncio", "two-windows", first + second + frame("window", b""))
    put("asyncio", "one-reply", first)
    put("asyncio", "error", frame("error", struct.pack("<I", 1) + b"uid 1000 is not allowed"))
    # the same replies as the agent sends them on its socket, to READs 1 and 2
    wire = b""
    for seq, chunks in ((1, first), (2, second)):
        at = 0
        while at < len(chunks):
            kind, n = chunks[at], struct.unpack_from("<H", chunks, at + 1)[0]
            body = chunks[at + 3:at + 3 + n]
            wire += b"ATOP" + struct.pack("<HHII", 1, 0x82 + kind, len(body), seq) + body
            at += 3 + n
    put("asyncio", "stream", frame("stream", b"\x01" + wire))


def main():
    # tokio's seeds are packed in C (make fuzz-seeds-tokio): keep them.
    for target in ("pprof", "collapsed", "encode", "asyncio"):
        shutil.rmtree(os.path.join(OUT, target), ignore_errors=True)
    pprof()
    collapsed()
    encode()
    asyncio()


if __name__ == "__main__":
    main()
