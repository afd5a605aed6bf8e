"""A small pure-Python reader of docs/asyncio-protocol.md, used by the agent's tests.

Not the product reader (that is adapters/asyncio*.c): it exists to check the agent against the
document, so it validates what it receives and raises ProtocolError on anything out of place.
"""

import socket
import struct

MAGIC = b"ATOP"
VERSION = 4
HDR = struct.Struct("<4sHHII")
HELLO, READ, BYE = 1, 2, 3
HELLO_OK, STRINGS, STACKS, TASKS, AGGS, END, ERROR = 0x81, 0x82, 0x83, 0x84, 0x85, 0x86, 0xFF
RETIRE = 0x87
TASK = struct.Struct("<QQIIIIBBHIQQQQQQQQQQQ")
AGG = struct.Struct("<IIQQQQQQQ")
ENDS = struct.Struct("<QQQQQIIQQ")
HELLO_FIX = struct.Struct("<IIQQQQIIIIHHHH")
MAX_PAYLOAD = 1 << 20
SCHED, RUNNING, IDLE, DONE = 1, 2, 3, 4
F_UNKNOWN, F_EAGER, F_INTERNAL, F_NO_WAKER = 1, 2, 4, 8
END_FINAL, END_FIRST, END_MORE = 1, 2, 16
FIELDS = ("tid", "parent", "stack", "name", "thread", "loop", "state", "_z1", "flags", "parked",
          "created", "ended", "t_mark", "polls", "wakes", "self_wakes", "busy", "sched", "idle",
          "max_step", "_z3")


class ProtocolError(Exception):
    pass


class AgentError(Exception):
    """An ERROR frame: .code and the text."""

    def __init__(self, code, text):
        super().__init__("agent error %d: %s" % (code, text))
        self.code = code


class Task:
    __slots__ = FIELDS

    def __init__(self, vals):
        for k, v in zip(FIELDS, vals):
            setattr(self, k, v)

    def at(self, T):
        """(busy, sched, idle, polls, wakes) extrapolated to boundary T (protocol §6)."""
        b, s, i = self.busy, self.sched, self.idle
        if self.state != DONE:
            d = T - self.t_mark
            if self.state == SCHED:
                s += d
            elif self.state == RUNNING:
                b += d
            else:
                i += d
        return (b, s, i, self.polls, self.wakes)


class Snapshot:
    """The reader's view at one boundary: every known task's figures and the site aggregates."""

    def __init__(self, T, tasks, aggs, end):
        self.T = T
        self.tasks = tasks  # tid -> Task (last record)
        self.aggs = aggs  # (stack, thread) -> 7-tuple
        self.end = end

    def figures(self, tid):
        return self.tasks[tid].at(self.T)


class Reader:
    def __init__(self, path, timeout=5.0):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(timeout)
        self.sock.connect(path)
        self.seq = 0
        self.strings = {}
        self.retired = {}  # id -> text of names the agent retired (kept here for the tests' lookups)
        self.stacks = {}  # id -> (parent, frames)
        self.tasks = {}
        self.aggs = {}
        self.hello = None
        self.closed = False

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass

    # -- framing -------------------------------------------------------------------------

    def _recv_exact(self, n):
        buf = bytearray()
        while len(buf) < n:
            b = self.sock.recv(n - len(buf))
            if not b:
                raise EOFError("agent closed the connection")
            buf += b
        return bytes(buf)

    def recv_frame(self):
        magic, ver, typ, length, seq = HDR.unpack(self._recv_exact(HDR.size))
        if magic != MAGIC:
            raise ProtocolError("bad magic %r" % magic)
        if ver != VERSION:
            raise ProtocolError("agent speaks protocol version %d, this reader speaks %d" % (ver, VERSION))
        if length > MAX_PAYLOAD:
            raise ProtocolError("frame of %d bytes exceeds 1 MiB" % length)
        payload = self._recv_exact(length)
        if typ == ERROR:
            if length < 4:
                raise ProtocolError("short ERROR frame")
            raise AgentError(struct.unpack_from("<I", payload)[0], payload[4:].decode("utf-8", "replace"))
        return typ, seq, payload

    def send(self, typ, payload=b""):
        self.seq += 1
        self.sock.sendall(HDR.pack(MAGIC, VERSION, typ, len(payload), self.seq) + payload)
        return self.seq

    # -- requests ------------------------------------------------------------------------

    def do_hello(self):
        seq = self.send(HELLO, struct.pack("<HHI", VERSION, VERSION, 0))
        typ, rseq, p = self.recv_frame()
        if typ != HELLO_OK or rseq != seq:
            raise ProtocolError("expected HELLO_OK for seq %d, got type %#x seq %d" % (seq, typ, rseq))
        if len(p) < HELLO_FIX.size:
            raise ProtocolError("short HELLO_OK")
        v = HELLO_FIX.unpack_from(p)
        lp, lc, la = v[10], v[11], v[12]
        if len(p) != HELLO_FIX.size + lp + lc + la or lp > 256 or lc > 1024 or la > 64:
            raise ProtocolError("HELLO_OK string lengths do not match the payload")
        o = HELLO_FIX.size
        self.hello = dict(pid=v[0], flags=v[1], start_ticks=v[2], agent_start=v[3], now=v[4], real=v[5],
                          ring=v[6], max_payload=v[7], clk_tck=v[8], uid=v[9],
                          python=p[o:o + lp].decode(), cmdline=p[o + lp:o + lp + lc].decode(),
                          agent=p[o + lp + lc:].decode())
        return self.hello

    def read(self, whole=True):
        """One READ (and, when whole, READs again while the agent answers in slices, as asynctop
        does): returns a Snapshot at the last reply's boundary; end["slices"] counts the replies."""
        slices = 0
        while True:
            snap = self.collect(self.send(READ))
            slices += 1
            snap.end["slices"] = slices
            if not whole or not snap.end["flags"] & END_MORE or snap.end["flags"] & END_FINAL:
                return snap

    def collect(self, seq):
        """Receive frames of one reply (seq, or 0 for the final push) up to its END."""
        ntask = 0
        while True:
            typ, rseq, p = self.recv_frame()
            if rseq != seq and rseq != 0:
                raise ProtocolError("reply seq %d, expected %d" % (rseq, seq))
            if typ == STRINGS:
                self._strings(p)
            elif typ == STACKS:
                self._stacks(p)
            elif typ == TASKS:
                ntask += self._tasks(p)
            elif typ == AGGS:
                self._aggs(p)
            elif typ == RETIRE:
                self._retire(p)
            elif typ == END:
                if len(p) != ENDS.size:
                    raise ProtocolError("END of %d bytes" % len(p))
                e = ENDS.unpack(p)
                end = dict(T=e[0], real=e[1], gen=e[2], finished_total=e[3], live=e[4], loop_threads=e[5],
                           flags=e[6], aggregated=e[7], task_records=e[8], seq=rseq)
                if e[8] != ntask:
                    raise ProtocolError("END counts %d task records, received %d" % (e[8], ntask))
                for t in self.tasks.values():
                    if t.t_mark > e[0]:
                        raise ProtocolError("task %d t_mark after the boundary" % t.tid)
                snap = Snapshot(e[0], dict(self.tasks), dict(self.aggs), end)
                if end["flags"] & END_FINAL:
                    self.closed = True
                return snap
            else:
                raise ProtocolError("unexpected frame type %#x" % typ)

    def bye(self):
        self.send(BYE)
        self.close()

    # -- chunks --------------------------------------------------------------------------

    def _strings(self, p):
        if len(p) < 4:
            raise ProtocolError("short STRINGS")
        (n,), o = struct.unpack_from("<I", p), 4
        for _ in range(n):
            if o + 8 > len(p):
                raise ProtocolError("STRINGS truncated")
            sid, ln = struct.unpack_from("<II", p, o)
            o += 8
            if ln > 4096 or o + ln > len(p) or sid == 0 or sid in self.strings:
                raise ProtocolError("bad string entry %d" % sid)
            self.strings[sid] = p[o:o + ln].decode("utf-8")
            o += ln
        if o != len(p):
            raise ProtocolError("STRINGS has trailing bytes")

    def _retire(self, p):
        if len(p) < 4:
            raise ProtocolError("short RETIRE")
        (n,) = struct.unpack_from("<I", p)
        if len(p) != 4 + 4 * n:
            raise ProtocolError("RETIRE size mismatch")
        ids = struct.unpack_from("<%dI" % n, p, 4)
        live = {t.name for t in self.tasks.values() if t.state != DONE}
        live.update(t.thread for t in self.tasks.values())
        for parent, frames, _ in self.stacks.values():
            live.update(frames)
        for sid in ids:
            if sid not in self.strings:
                raise ProtocolError("RETIRE of undefined string %d" % sid)
            if sid in live:
                raise ProtocolError("RETIRE of string %d, still in use" % sid)
            self.retired[sid] = self.strings.pop(sid)

    def _stacks(self, p):
        if len(p) < 4:
            raise ProtocolError("short STACKS")
        (n,), o = struct.unpack_from("<I", p), 4
        for _ in range(n):
            if o + 16 > len(p):
                raise ProtocolError("STACKS truncated")
            sid, parent, k, dropped = struct.unpack_from("<IIII", p, o)
            o += 16
            if not 1 <= k <= 128 or o + 4 * k > len(p):
                raise ProtocolError("bad stack frame count %d" % k)
            frames = struct.unpack_from("<%dI" % k, p, o)
            o += 4 * k
            if sid == 0 or sid in self.stacks or parent >= sid or (parent and parent not in self.stacks):
                raise ProtocolError("bad stack id %d parent %d" % (sid, parent))
            if any(f not in self.strings for f in frames):
                raise ProtocolError("stack %d uses an undefined string" % sid)
            self.stacks[sid] = (parent, frames, dropped)
        if o != len(p):
            raise ProtocolError("STACKS has trailing bytes")

    def _tasks(self, p):
        if len(p) < 8:
            raise ProtocolError("short TASKS")
        n, size = struct.unpack_from("<II", p)
        if size != TASK.size or len(p) != 8 + n * size:
            raise ProtocolError("TASKS size mismatch")
        for i in range(n):
            t = Task(TASK.unpack_from(p, 8 + i * size))
            if t.tid == 0 or not 1 <= t.state <= 4:
                raise ProtocolError("bad task record")
            if (t.stack == 0) != bool(t.flags & F_UNKNOWN) and t.stack != 0:
                pass
            for sid in (t.stack, t.parked):
                if sid and sid not in self.stacks:
                    raise ProtocolError("task %d uses undefined stack %d" % (t.tid, sid))
            if t.parked and (self.stacks[t.parked][0] != 0 or t.state in (RUNNING, DONE)):
                raise ProtocolError("task %d: bad parked-at stack %d" % (t.tid, t.parked))
            if t._z1 or t._z3:
                raise ProtocolError("task %d: reserved fields not 0" % t.tid)
            for sid in (t.name, t.thread):
                if sid and sid not in self.strings:
                    raise ProtocolError("task %d uses undefined string %d" % (t.tid, sid))
            if t.created > t.t_mark or (t.state == DONE) != (t.ended != 0):
                raise ProtocolError("task %d times inconsistent" % t.tid)
            self.tasks[t.tid] = t
        return n

    def _aggs(self, p):
        if len(p) < 8:
            raise ProtocolError("short AGGS")
        n, size = struct.unpack_from("<II", p)
        if size != AGG.size or len(p) != 8 + n * size:
            raise ProtocolError("AGGS size mismatch")
        for i in range(n):
            v = AGG.unpack_from(p, 8 + i * size)
            if v[0] and v[0] not in self.stacks:
                raise ProtocolError("aggregate uses undefined stack %d" % v[0])
            self.aggs[(v[0], v[1])] = v[2:]

    # -- helpers for tests ---------------------------------------------------------------

    def stack_text(self, sid):
        """The full spawn stack of stack id sid, root first, as a list of frame names."""
        chain = []
        while sid:
            parent, frames, _ = self.stacks[sid]
            chain.append(frames)
            sid = parent
        out = []
        for frames in reversed(chain):
            out.extend(self.strings[f] for f in frames)
        return out

    def stack_frames(self, sid):
        """(frames received, frames the agent left out) of stack id sid's whole chain."""
        got = left = 0
        while sid:
            parent, frames, dropped = self.stacks[sid]
            got += len(frames)
            left += dropped
            sid = parent
        return got, left

    def parked_text(self, t):
        """Where task t is parked, root first (its own coroutine first), or [] when unknown."""
        return self.stack_text(t.parked) if t.parked else []

    def name(self, t):
        if not t.name:
            return "<unnamed>"
        return self.strings.get(t.name) or self.retired.get(t.name, "<unnamed>")

    def find(self, name):
        """Tasks whose name is name."""
        return [t for t in self.tasks.values() if self.name(t) == name]


def window(a, b, tid):
    """A task's (busy, sched, idle, polls, wakes) over the window (a.T, b.T] (protocol §6)."""
    after = b.tasks[tid].at(b.T)
    before = a.tasks[tid].at(a.T) if tid in a.tasks else (0, 0, 0, 0, 0)
    return tuple(x - y for x, y in zip(after, before))


def lifetime_in(a, b, t):
    """The part of task t's life inside (a.T, b.T]."""
    start = max(t.created, a.T)
    end = min(t.ended, b.T) if t.ended else b.T
    return max(0, end - start)
