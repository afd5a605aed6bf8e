"""The endpoint: a Unix socket in a private directory, served by one daemon thread; implements
docs/asyncio-protocol.md (version 4).  Replies are built in short chunks; the socket send between
chunks releases the interpreter so the application keeps running during a read."""

import os
import selectors
import socket
import stat
import struct
import sys
import threading
import time

from . import _core, _parked
from ._endpoint import log, endpoint_path, prepare_dir, remove_stale, proc_start_ticks, _test_mode
from ._core import S, DONE, RUNNING

VERSION = 4
MAGIC = b"ATOP"
HDR = struct.Struct("<4sHHII")
T_HELLO, T_READ, T_BYE = 1, 2, 3
T_HELLO_OK, T_STRINGS, T_STACKS, T_TASKS, T_AGGS, T_END, T_ERROR = 0x81, 0x82, 0x83, 0x84, 0x85, 0x86, 0xFF
T_RETIRE = 0x87
E_PEER, E_BUSY, E_MALFORMED, E_VERSION, E_DISABLED = 1, 2, 3, 4, 5
REQ_LEN = {T_HELLO: 8, T_READ: 0, T_BYE: 0}
MAX_REQ = 64
MAX_PAYLOAD = 1 << 20
MAX_CLIENTS = 8


def _give_way_s():
    try:
        return max(0.0, float(os.environ.get("ASYNCTOP_IDLE_GIVE_WAY", "10")))
    except ValueError:
        return 10.0


IDLE_GIVE_WAY_S = _give_way_s()  # a full house: a connection silent this long gives way
IO_TIMEOUT = 2.0
MIN_READ_INTERVAL_NS = 5_000_000
CHUNK_NS = 1_000_000  # time budget for copying one chunk while holding the interpreter
FINAL_MAX = 200  # records left for the last, boundary-taking pass (with their walks, under 1 ms)
CATCH_UP = 4  # rounds copying what changed during the previous one, before the last pass
CATCH_UP_NS = 50_000_000  # no catch-up round starts later than this after the read began


def _slice_ns():
    try:
        return max(1, int(os.environ.get("ASYNCTOP_SLICE_MS", "250"))) * 1_000_000
    except ValueError:
        return 250_000_000


SLICE_NS = _slice_ns()  # a reply past this cuts its backlog short: END MORE, the reader reads again
F_MORE = 16  # END flag: a slice, the backlog goes on in the next reply (protocol §4.5)
SWITCH_S = 0.002  # the interpreter switch interval while a read is served (the default is 5 ms)
YIELD_S = 0.0001  # between chunks
TASK = struct.Struct("<QQIIIIBBHIQQQQQQQQQQQ")
AGG = struct.Struct("<IIQQQQQQQ")
END = struct.Struct("<QQQQQIIQQ")
HELLO_FIX = struct.Struct("<IIQQQQIIIIHHHH")
U32 = struct.Struct("<I")
U32x2 = struct.Struct("<II")
U32x4 = struct.Struct("<IIII")
AGENT_VERSION = "asynctop_agent 4"
F_NO_WAKER = 8  # task flag: parked on a future nothing else references (protocol §4.3)
_UNPARKED = (RUNNING, DONE)  # states whose record carries no parked-at stack


def _unpark(rec):
    """A packed task record without its parked-at stack and no-waker flag."""
    b = bytearray(rec)
    flags, = struct.unpack_from("<H", b, 34)
    struct.pack_into("<HI", b, 34, flags & ~F_NO_WAKER, 0)
    return bytes(b)

assert TASK.size == 128 and AGG.size == 64 and END.size == 64 and HELLO_FIX.size == 64


# -- per-connection state --------------------------------------------------------------------

class Client:
    def __init__(self, sock):
        self.sock = sock
        self.rbuf = b""
        self.rstart = 0.0  # when the pending partial request began (monotonic s)
        self.hello = False
        self.pending = None  # dict Rec -> None: changed since the last READ (None before the first)
        self.pinned = []  # evicted Recs this connection saw alive, to deliver as DONE
        self.owed = {}  # dict Rec -> None: a sliced reply's backlog, owed by the next slices
        self.alive_ids = set()  # tids delivered alive and not yet delivered DONE
        self.done_ids = set()  # tids delivered DONE while still in the ring
        self.agg = {}  # (stack, thread name) -> tuple of 7 cumulative figures
        self.agg_dirty = set()
        self.aggregated_total = 0
        self.sent_str = set()
        self.sent_stack = set()
        # Task names the reader holds: tid -> name id of each task it keeps alive, and how many
        # of those name each id.  A name id none of them names any more, once its last DONE
        # record went out, is retired at the end of the reply (protocol §4.7).
        self.named = {}
        self.name_refs = {}
        self.unnamed = set()  # name ids whose count fell to 0 in this reply
        self.gen = 0
        self.T0 = None
        self.last_read = 0
        self.registered = False  # in the server's selector
        self.last_request = time.monotonic()  # when it last sent a complete request

    def on_evict(self, old):
        """A finished record left the ring (loop thread, S.lock held)."""
        if self.T0 is None:
            return  # this connection's first boundary is not set yet: history for it
        tid = old.tid
        if tid in self.done_ids:
            self.done_ids.discard(tid)
        elif tid in self.alive_ids:
            self.pinned.append(old)
        elif old.ended > self.T0:
            key = (old.stack, old.thread_name)
            a = self.agg.get(key, (0, 0, 0, 0, 0, 0, 0))
            self.agg[key] = (a[0] + 1, a[1] + old.polls, a[2] + old.wakes, a[3] + old.self_wakes,
                             a[4] + old.busy, a[5] + old.sched, a[6] + old.idle)
            self.agg_dirty.add(key)
            self.aggregated_total += 1


def _linger_close(sock):
    """Close after an ERROR frame so that the peer can read it: closing with unread request bytes
    in our receive queue would make the peer's recv fail with ECONNRESET before it sees the frame.
    Waits at most 0.1 s for the peer to close its side."""
    try:
        sock.shutdown(socket.SHUT_WR)
        sock.settimeout(0.1)
        for _ in range(64):
            if not sock.recv(4096):
                break
    except OSError:
        pass
    try:
        sock.close()
    except OSError:
        pass


class Server:
    def __init__(self):
        self.path = None
        self.listen = None
        self.thread = None
        self.clients = []  # every connection (S.clients holds those past their first READ)
        self.serve_lock = threading.Lock()
        self.closing = False
        self.wake_r = self.wake_w = None
        self.hello_flags = 0
        self.sel = None
        self.timers = {}

    # -- lifecycle -------------------------------------------------------------------------

    def start(self):
        d, path = endpoint_path()
        if d is not None:
            prepare_dir(d)
            remove_stale(d)
        else:
            try:
                if stat.S_ISSOCK(os.lstat(path).st_mode):
                    os.unlink(path)
            except FileNotFoundError:
                pass
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            s.bind(path)
            os.chmod(path, 0o666 if _test_mode() else 0o600)
            s.listen(16)
        except BaseException:
            s.close()
            raise
        self.path = path
        self.listen = s
        self.wake_r, self.wake_w = os.pipe()
        self.thread = threading.Thread(target=self._run, name="asynctop-agent", daemon=True)
        self.thread.start()

    def abandon(self):
        """In a forked child: drop the parent's sockets without touching its socket file."""
        for c in self.clients:
            try:
                c.sock.close()
            except Exception:
                pass
        self.clients = []
        for fd in (self.wake_r, self.wake_w):
            if fd is not None:
                try:
                    os.close(fd)
                except OSError:
                    pass
        if self.listen is not None:
            try:
                self.listen.close()
            except Exception:
                pass
        self.listen = None
        self.closing = True

    def stop(self, final):
        """Push a final snapshot to every client (when final), close everything, remove the file."""
        got = self.serve_lock.acquire(timeout=IO_TIMEOUT)
        try:
            self.closing = True
            if final and got:  # without the lock a reply may be half sent: only close then
                for c in list(self.clients):
                    if c.hello:
                        try:
                            self._serve_read(c, 0, True)
                        except Exception:
                            pass
            for c in list(self.clients):
                self._drop(c)
            if self.listen is not None:
                try:
                    self.listen.close()
                except Exception:
                    pass
                self.listen = None
            if self.path:
                try:
                    os.unlink(self.path)
                except OSError:
                    pass
            if self.wake_w is not None:
                try:
                    os.write(self.wake_w, b"x")
                except OSError:
                    pass
        finally:
            if got:
                self.serve_lock.release()

    # -- the thread ------------------------------------------------------------------------

    def _run(self):
        sel = selectors.DefaultSelector()
        try:
            sel.register(self.listen, selectors.EVENT_READ, None)
            sel.register(self.wake_r, selectors.EVENT_READ, "wake")
            self.sel = sel
            while not self.closing:
                for c in self.clients:
                    if not c.registered:
                        sel.register(c.sock, selectors.EVENT_READ, c)
                        c.registered = True
                events = sel.select(0.25)
                if self.closing:
                    break
                with self.serve_lock:
                    if self.closing:
                        break
                    for key, _ in events:
                        if key.data is None:
                            self._accept()
                        elif key.data == "wake":
                            pass
                        else:
                            self._readable(key.data)
                    self._tick()
        except Exception as e:  # the server must never take the application down
            if not self.closing:
                log("endpoint thread stopped: %s" % e)
        finally:
            try:
                sel.close()
            except Exception:
                pass

    def _tick(self):
        """Housekeeping: retire collected tasks, bound the journal, drop stalled requests."""
        _core.reap_dead()
        self._sweep_names()
        if S.tracking:
            self._drain(None)
            live_bound = 2 * (len(S.live) + S.ring_cap) + 1024
            for c in S.clients:
                if c.pending is not None and len(c.pending) > live_bound:
                    c.pending = {r: None for r in list(c.pending) if not r.evicted}
        now = time.monotonic()
        for c in list(self.clients):
            if c.rbuf and now - c.rstart > IO_TIMEOUT:
                self._drop(c)

    def _sweep_names(self):
        """Forget the task names no record references any more, once they outnumber the records
        that can by max(records / 4, 1024): each sweep, which costs about as much as the records,
        then forgets at least a quarter as many names, and the table stays within about 1.25
        times the tasks it names.  The margin is the application's memory: its interpreter settles
        at the table's fullest size.  Names are interned on this thread only, so nothing races."""
        records = len(S.live) + len(S.ring) + sum(len(c.pinned) for c in S.clients)
        if len(S.name_ids) <= records + max(records >> 2, 1024):
            return
        used = {r.name_id for r in list(S.live.values())}
        used.update(r.name_id for r in list(S.ring))
        used.update(r.name_id for r in list(S.dead))
        for c in S.clients:
            used.update(r.name_id for r in c.pinned)
            used.update(c.name_refs)
        S.drop_names(used)

    def _accept(self):
        try:
            sock, _ = self.listen.accept()
        except OSError:
            return
        try:
            cred = sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
            _pid, uid, _gid = struct.unpack("3i", cred)
        except OSError:
            uid = -1
        sock.settimeout(IO_TIMEOUT)
        if uid != os.geteuid() and uid != 0:
            self._error(sock, 0, E_PEER, "peer uid %d refused: only uid %d or root may read this agent"
                        % (uid, os.geteuid()))
            _linger_close(sock)
            return
        if len(self.clients) >= MAX_CLIENTS and not self._make_room():
            self._error(sock, 0, E_BUSY, "too many connections (%d), all of them active" % MAX_CLIENTS)
            _linger_close(sock)
            return
        self.clients.append(Client(sock))

    def _make_room(self):
        """All connections are taken: the one idle the longest gives way, if it has sent nothing
        for IDLE_GIVE_WAY_S.  A reader that went quiet (stopped, or forgotten by a script) then
        never locks the others out; one that reads at least that often keeps its place."""
        now = time.monotonic()
        c = min(self.clients, key=lambda x: x.last_request)
        if now - c.last_request < IDLE_GIVE_WAY_S:
            return False
        self._fail(c, 0, E_BUSY, "connection idle for %.0f s, closed to make room for another reader"
                   % (now - c.last_request))
        return True

    def _unregister(self, c):
        """Take c's socket out of the selector before it is closed: once closed, its fd number
        can be given to the next connection at once, and registering that one would then fail
        with "already registered" and stop the thread."""
        if c.registered:
            c.registered = False
            try:
                self.sel.unregister(c.sock)
            except (KeyError, ValueError, OSError):
                pass

    def _drop(self, c):
        self._unregister(c)
        if c in self.clients:
            self.clients.remove(c)
        with S.lock:
            if c in S.clients:
                S.clients.remove(c)
            if not S.clients and S.tracking:
                S.tracking = False
        if not S.tracking:
            self._drain(None)  # clears the dirty flags so a later client's journal starts clean
        try:
            c.sock.close()
        except Exception:
            pass

    def _error(self, sock, seq, code, text):
        payload = U32.pack(code) + text.encode("utf-8", "replace")[:256]
        try:
            sock.sendall(HDR.pack(MAGIC, VERSION, T_ERROR, len(payload), seq) + payload)
        except OSError:
            pass

    def _readable(self, c):
        try:
            data = c.sock.recv(4096)
        except OSError:
            data = b""
        if not data:
            self._drop(c)
            return
        if not c.rbuf:
            c.rstart = time.monotonic()
        c.rbuf += data
        while len(c.rbuf) >= HDR.size and c in self.clients:
            magic, ver, typ, length, seq = HDR.unpack_from(c.rbuf)
            if magic != MAGIC:
                return self._fail(c, seq, E_MALFORMED, "bad magic")
            if ver != VERSION:
                return self._fail(c, seq, E_VERSION, "agent speaks protocol version %d, request has %d"
                                  % (VERSION, ver))
            if typ not in REQ_LEN or length > MAX_REQ or length != REQ_LEN[typ]:
                return self._fail(c, seq, E_MALFORMED,
                                  "unknown request type %d or bad length %d" % (typ, length))
            if len(c.rbuf) < HDR.size + length:
                return
            payload = c.rbuf[HDR.size:HDR.size + length]
            c.rbuf = c.rbuf[HDR.size + length:]
            c.rstart = c.last_request = time.monotonic()
            self._request(c, typ, seq, payload)

    def _fail(self, c, seq, code, text):
        self._unregister(c)
        self._error(c.sock, seq, code, text)
        if c in self.clients:
            self.clients.remove(c)
        _linger_close(c.sock)
        self._drop(c)

    def _request(self, c, typ, seq, payload):
        try:
            if typ == T_BYE:
                self._drop(c)
            elif typ == T_HELLO:
                vmin, vmax, flags = struct.unpack("<HHI", payload)
                if c.hello:
                    self._fail(c, seq, E_MALFORMED, "HELLO twice")
                elif flags:
                    self._fail(c, seq, E_MALFORMED, "HELLO flags must be 0")
                elif not vmin <= VERSION <= vmax:
                    self._fail(c, seq, E_VERSION, "agent speaks protocol version %d, reader asked %d..%d"
                               % (VERSION, vmin, vmax))
                else:
                    c.hello = True
                    self._send(c, T_HELLO_OK, seq, self._hello_payload())
            elif typ == T_READ:
                if not c.hello:
                    self._fail(c, seq, E_MALFORMED, "READ before HELLO")
                    return
                wait = c.last_read + MIN_READ_INTERVAL_NS - time.monotonic_ns()
                if wait > 0:
                    time.sleep(wait / 1e9)
                self._serve_read(c, seq, False)
                c.last_read = time.monotonic_ns()
        except OSError:
            self._drop(c)  # the reader went away or stopped draining its socket

    def _hello_payload(self):
        py = ("%s %s" % (sys.implementation.name, sys.version.split()[0])).encode()[:256]
        argv = " ".join(getattr(sys, "orig_argv", sys.argv)).encode("utf-8", "replace")
        if len(argv) > 1024:
            argv = argv[:1024].decode("utf-8", "ignore").encode("utf-8")
        agent = AGENT_VERSION.encode()
        flags = self.hello_flags | (8 if S.disabled_by_fault else 0) | (2 if S.uvloop_patched else 0)
        fix = HELLO_FIX.pack(os.getpid(), flags, proc_start_ticks(), S_START[0], time.monotonic_ns(),
                             time.time_ns(), S.ring_cap, MAX_PAYLOAD, os.sysconf("SC_CLK_TCK"),
                             os.geteuid(), len(py), len(argv), len(agent), 0)
        return fix + py + argv + agent

    def _send(self, c, typ, seq, payload):
        c.sock.sendall(HDR.pack(MAGIC, VERSION, typ, len(payload), seq) + payload)

    # -- READ --------------------------------------------------------------------------------

    def _drain(self, deadline):
        """Move journaled records into every tracking connection's pending set."""
        j = S.journal
        while j:
            n = min(len(j), 4096)
            batch = j[:n]
            del j[:n]
            targets = [c.pending for c in S.clients if c.pending is not None]
            for r in batch:
                r.dirty = False
                if not r.evicted:
                    for p in targets:
                        p[r] = None
            if deadline is not None and time.monotonic_ns() > deadline:
                return False
        return True

    def _serve_read(self, c, seq, final):
        """Answer one READ (or push the final snapshot) on connection c.

        Changed records are copied and sent in chunks of at most CHUNK_NS each; the socket send
        and a short sleep between chunks let the loop threads run.  First the backlog (what
        changed before the read began) is swept; then at most CATCH_UP rounds copy what changed
        during the previous round; then the last pass (drain the journal, copy what is left,
        take the boundary) runs right after re-acquiring the interpreter, so in practice no loop
        thread runs during it; if one did (the journal is not empty after the boundary was
        taken), the copies are sent and the pass is repeated, at most 20 times.  The number of
        rounds is bounded whatever the churn, so a read answers the state as of one instant
        instead of chasing tasks that keep coming and going.
        """
        first = c.pending is None
        self.timers = {}  # per loop, the tasks its pending timeouts target (for lost wakers)
        if first:
            # Journal first, then snapshot the live table: a task created in between is then
            # both journaled and (maybe) in the snapshot, never in neither.
            c.pending = {}
            with S.lock:
                S.clients.append(c)
                S.tracking = True
            c.pending.update(dict.fromkeys(list(S.live.values())))
        self._drain(None)
        last = len(c.pending) + len(c.pinned)  # the backlog; each catch-up round must shrink it
        # While this thread wants the interpreter between chunks, a loop thread hands it over
        # after SWITCH_S instead of the default 5 ms: the read ends sooner, each pause stays short.
        switch = sys.getswitchinterval()
        sys.setswitchinterval(min(switch, SWITCH_S))
        try:
            T, Treal, aggs, aggregated, ntasks, more = self._rounds(c, seq, first, last, final)
        finally:
            sys.setswitchinterval(switch)
        self._send_end(c, seq, final, first, T, Treal, aggs, aggregated, ntasks, more)

    def _rounds(self, c, seq, first, last, final):
        """The chunks of a read (see _serve_read); returns what the END needs."""
        ntasks = 0
        passes = 0
        rounds = 0
        more = False
        # Catching up is worth it only while rounds are short: once a read has taken longer (a
        # slow reader, a large backlog), every round would copy again what keeps changing.
        late = time.monotonic_ns() + CATCH_UP_NS
        # A backlog too large for one reply within the reader's timeout (a first read of a
        # million live tasks) is answered in slices: past SLICE_NS the sweep stops, what is left
        # of the backlog becomes owed, the reply ends as usual and says MORE, and the reader
        # reads again at once.  The next slices sweep the owed records first, then what changed
        # meanwhile, all within SLICE_NS; what a continuation leaves of the latter waits for the
        # next reply (as records beyond the last pass do) and is never owed: owed records only
        # ever decrease, and the slices end however fast tasks change.  A final push has no
        # reader to ask again: it sweeps everything.
        cut = None if final else time.monotonic_ns() + SLICE_NS
        cont = bool(c.owed)  # a continuation: it never makes more owed
        while True:
            # Yield the interpreter: sleep(0) may retake it before a waiting loop thread wakes
            # (it would then wait for the 5 ms forced switch); 0.1 ms is enough for it to take over.
            time.sleep(YIELD_S)
            deadline = time.monotonic_ns() + CHUNK_NS
            parts, out = [], []
            past = cut is not None and time.monotonic_ns() > cut
            if c.owed and not more:
                if past:
                    more = True  # the rest is owed by the next slice
                    continue
                with S.lock:
                    self._take(c, deadline, parts, out, pend=c.owed)
                done = False
            elif (c.pending or c.pinned) and not more and past:
                if not cont:
                    with S.lock:
                        c.owed, c.pending = c.pending, {}
                more = True  # a continuation leaves the rest for the next reply, never owed
                continue
            elif (c.pending or c.pinned) and not more:
                # Sweeping a round's set: what changes meanwhile waits in the journal.
                with S.lock:
                    self._take(c, deadline, parts, out)
                done = False
            elif not more and rounds < CATCH_UP and time.monotonic_ns() < late and not self._drain(deadline):
                continue
            else:
                with S.lock:
                    size = len(c.pending) + len(c.pinned)
                    if (not more and rounds < CATCH_UP and FINAL_MAX < size < last
                            and time.monotonic_ns() < late):
                        rounds += 1
                        last = size
                        self._take(c, deadline, parts, out)
                        done = False
                    else:
                        # The last pass: at most FINAL_MAX records, so it never holds the
                        # interpreter long.  What changed beyond that (tasks churning faster
                        # than a read) goes in the next reply; the reader's rules (protocol §6)
                        # take a late record as the baseline it missed.
                        self._drain(None)
                        self._take(c, None, parts, out, FINAL_MAX)
                        T = S.boundary = time.monotonic_ns()
                        Treal = time.time_ns()
                        done = not S.journal or passes >= 20 or bool(c.pending)
                        if done:
                            if first:
                                c.T0 = T
                            aggs = [(k, c.agg[k]) for k in c.agg_dirty]
                            c.agg_dirty.clear()
                            aggregated = c.aggregated_total
                        passes += 1
                        rounds = CATCH_UP
            if parts or out:
                ntasks += len(parts)
                self._send_tasks(c, seq, parts, out)
            if done:
                break
        return T, Treal, aggs, aggregated, ntasks, bool(c.owed)

    def _send_end(self, c, seq, final, first, T, Treal, aggs, aggregated, ntasks, more=False):
        out = []
        for (stack, thread_name), a in aggs:
            self._need_stack(c, stack, out)
            self._need_str(c, thread_name, out)
        self._flush_defs(c, seq, out)
        for i in range(0, len(aggs), 8000):
            part = aggs[i:i + 8000]
            body = [U32x2.pack(len(part), AGG.size)]
            body += [AGG.pack(k[0], k[1], *a) for k, a in part]
            self._send(c, T_AGGS, seq, b"".join(body))
        retired = self._retired(c)
        for i in range(0, len(retired), 200_000):
            part = retired[i:i + 200_000]
            self._send(c, T_RETIRE, seq, U32.pack(len(part)) + struct.pack("<%dI" % len(part), *part))
        c.gen += 1
        flags = ((1 if final else 0) | (2 if first else 0) | (4 if S.overflow else 0)
                 | (8 if S.disabled_by_fault else 0) | (F_MORE if more else 0))
        self._send(c, T_END, seq, END.pack(T, Treal, c.gen, S.finished_total, len(S.live),
                                           len(S.loop_threads), flags, aggregated, ntasks))

    def _take(self, c, deadline, parts, out, limit=None, pend=None):
        """Pack changed records (S.lock held): pinned ones first, then pending, until the deadline
        (None: all of them).  Appends packed records to parts and the definitions they need to
        out; returns the number packed.  Packs straight into bytes (no per-record tuple), so a
        large read adds little work for the application's garbage collector."""
        n = 0
        while c.pinned:
            self._pack(c, c.pinned.pop(), True, parts, out)
            n += 1
        if pend is None:
            pend = c.pending
        while pend:
            r = pend.popitem()[0]
            if r.evicted:
                continue  # counted by on_evict: pinned for this connection or aggregated
            self._pack(c, r, False, parts, out)
            n += 1
            if deadline is not None and not n & 63 and time.monotonic_ns() > deadline:
                break
            if limit is not None and n >= limit:
                break
        return n

    def _parked_of(self, r):
        """(parked-at stack id, no waker) of a record's task: walked again only when the task
        stepped since its last walk; 0 while it runs, before its first step and once done."""
        polls = r.polls
        if r.state == RUNNING or r.state == DONE or not polls:
            return 0, False
        if r.walked == polls:
            return r.parked, r.no_waker
        t = r.ref()
        if t is None:
            return 0, False
        try:
            sid, nw = _parked.walk(t, self.timers)
        except Exception:  # a chain torn by the loop thread mid-walk: unknown this time
            return 0, False
        if r.polls == polls:  # it did not step during the walk: keep it until it steps again
            r.parked, r.walked, r.no_waker = sid, polls, nw
        return sid, nw

    def _pack(self, c, r, pinned, parts, out):
        name_id = _parked.record_name(r)
        st = r.state
        if st == RUNNING or st == DONE or not r.polls:
            parked, nw = 0, False
        elif r.walked == r.polls:  # did not step since its last walk: _parked_of's answer, inline
            parked, nw = r.parked, r.no_waker
        else:
            parked, nw = self._parked_of(r)
        # The fields are loaded as the call's arguments with no call in between, so the loop
        # thread cannot change r half-way through them.
        parts.append(TASK.pack(r.tid, r.parent, r.stack, name_id, r.thread_name, r.loop_id, r.state, 0,
                               r.flags | (F_NO_WAKER if nw else 0), parked, r.created, r.ended, r.t_mark,
                               r.polls, r.wakes, r.self_wakes, r.busy, r.sched, r.idle, r.max_step, 0))
        r.max_step = 0
        if parked and parts[-1][32] in _UNPARKED:
            # The loop thread ran the task between the state read above and the pack: a task
            # that runs or is done is parked nowhere, and says so (the reader refuses otherwise).
            parts[-1] = _unpark(parts[-1])
            parked = 0
        sent_stack, sent_str = c.sent_stack, c.sent_str
        if parked and parked not in sent_stack:
            self._need_stack(c, parked, out)
        tid = r.tid
        old = c.named.get(tid, 0)
        if parts[-1][32] == DONE:
            c.alive_ids.discard(tid)
            if not pinned:
                c.done_ids.add(tid)
            if old:
                del c.named[tid]
                self._unname(c, old)
            if name_id:
                c.unnamed.add(name_id)  # this record names it last, unless a live one does
        else:
            c.alive_ids.add(tid)
            if old != name_id:
                if name_id:
                    c.named[tid] = name_id
                    c.name_refs[name_id] = c.name_refs.get(name_id, 0) + 1
                else:
                    c.named.pop(tid, None)
                if old:
                    self._unname(c, old)
        # What a record needs defined, looked up inline: after a connection's first records,
        # nearly every record needs nothing.
        if r.stack not in sent_stack:
            self._need_stack(c, r.stack, out)
        if name_id and name_id not in sent_str:
            self._need_str(c, name_id, out)
        if r.thread_name not in sent_str:
            self._need_str(c, r.thread_name, out)

    @staticmethod
    def _unname(c, sid):
        n = c.name_refs[sid] - 1
        if n:
            c.name_refs[sid] = n
        else:
            del c.name_refs[sid]
            c.unnamed.add(sid)

    def _retired(self, c):
        """The name ids to retire at this reply's end: sent, and named by no task the reader
        keeps.  The reader forgets them; a task named so again later gets the definition again."""
        other = S.other_id  # a full table names tasks [other], a frame too: never retired
        out = [sid for sid in c.unnamed if sid not in c.name_refs and sid in c.sent_str and sid != other]
        c.unnamed.clear()
        for sid in out:
            c.sent_str.discard(sid)
        return out

    def _send_tasks(self, c, seq, parts, out):
        """Send the definitions, then the packed records, at most 8000 (< 1 MiB) per frame."""
        self._flush_defs(c, seq, out)
        for i in range(0, len(parts), 8000):
            part = parts[i:i + 8000]
            self._send(c, T_TASKS, seq, U32x2.pack(len(part), TASK.size) + b"".join(part))

    def _need_str(self, c, sid, out):
        if sid and sid not in c.sent_str:
            c.sent_str.add(sid)
            out.append(("s", sid))

    def _need_stack(self, c, sid, out):
        chain = []
        while sid and sid not in c.sent_stack:
            chain.append(sid)
            sid = S.stacks[sid][0]
        for s in reversed(chain):
            c.sent_stack.add(s)
            for f in S.stacks[s][1]:
                self._need_str(c, f, out)
            out.append(("k", s))

    def _flush_defs(self, c, seq, out):
        """Send the strings, then the stacks, that out lists, in frames of at most 1 MiB."""
        strs = [sid for kind, sid in out if kind == "s"]
        stacks = [sid for kind, sid in out if kind == "k"]
        self._frames(c, seq, T_STRINGS, [self._str_entry(sid) for sid in strs])
        self._frames(c, seq, T_STACKS, [self._stack_entry(sid) for sid in stacks])

    def _str_entry(self, sid):
        b = S.string_text(sid).encode("utf-8", "replace")
        return U32x2.pack(sid, len(b)) + b

    def _stack_entry(self, sid):
        parent, frames, dropped = S.stacks[sid]
        return U32x4.pack(sid, parent, len(frames), dropped) + struct.pack("<%dI" % len(frames), *frames)

    def _frames(self, c, seq, typ, entries):
        i = 0
        while i < len(entries):
            size = 4
            j = i
            while j < len(entries) and size + len(entries[j]) <= MAX_PAYLOAD:
                size += len(entries[j])
                j += 1
            self._send(c, typ, seq, U32.pack(j - i) + b"".join(entries[i:j]))
            i = j


S_START = [0]
