"""Answering a READ: changed records copied in short chunks, with the definitions they need, then
the END (docs/asyncio-protocol.md §4).  The socket send and a short sleep between chunks release
the interpreter, so the application keeps running during a read."""

import os
import struct
import time

from . import _parked
from ._core import S, DONE, RUNNING
from ._wire import MAGIC, VERSION, HDR, T_TASKS, T_AGGS, T_END, T_RETIRE, T_STRINGS, T_STACKS, MAX_PAYLOAD
from ._wire import TASK, AGG, END, U32, U32x2, U32x4, F_MORE, F_NO_WAKER

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
YIELD_S = 0.0001  # between chunks
# A larger backlog (a first read of many live tasks, whose first frame must come within the
# reader's timeout) is swept in journal order: grouping costs 0.3-0.45 µs a record.
GROUP_MAX = 65536
DRAIN_CHUNKS = 64  # chunks of the journal drained before a read's backlog is taken
_UNPARKED = (RUNNING, DONE)  # states whose record carries no parked-at stack


def _unpark(rec):
    """A packed task record without its parked-at stack and no-waker flag."""
    b = bytearray(rec)
    flags, = struct.unpack_from("<H", b, 34)
    struct.pack_into("<HI", b, 34, flags & ~F_NO_WAKER, 0)
    return bytes(b)


def _by_address(pend):
    """pend's records grouped by 64 KiB of address, lowest first: about the order their tasks
    were created in.  A walk reads a task's objects, which in journal order (the order the tasks
    woke in) are scattered over the heap; in address order a read's CPU per record fell by about
    a tenth (docs/asyncio-agent.md, "Costs").  A loop, not one sort: the interpreter can switch
    to a loop thread between any two of its bytecodes, and one sort of 7 000 records held it
    2.6 ms.  It yields the interpreter every CHUNK_NS as a chunk does: the first read after a
    quiet spell groups every task that woke in it (10 000: several ms in one stretch)."""
    groups = {}
    deadline = time.monotonic_ns() + CHUNK_NS
    for i, r in enumerate(pend):
        k = id(r) >> 16
        g = groups.get(k)
        if g is None:
            groups[k] = [r]
        else:
            g.append(r)
        if not i & 1023 and time.monotonic_ns() > deadline:
            time.sleep(YIELD_S)
            deadline = time.monotonic_ns() + CHUNK_NS
    out = []
    for k in sorted(groups):
        out += groups[k]
    return dict.fromkeys(out)


class Reply:
    """The READ side of the server (a mixin of _server.Server): every method runs on the server
    thread, with the server's lock held."""

    def _send(self, c, typ, seq, payload):
        c.sock.sendall(HDR.pack(MAGIC, VERSION, typ, len(payload), seq) + payload)

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
        # The journal in chunks too, never chasing it: what a loop thread adds while this one
        # yields is fewer records than a chunk drains, and the last pass drains what is left.
        for _ in range(DRAIN_CHUNKS):
            if self._drain(time.monotonic_ns() + CHUNK_NS):
                break
            time.sleep(YIELD_S)
        last = len(c.pending) + len(c.pinned)  # the backlog; each catch-up round must shrink it
        if len(c.pending) <= GROUP_MAX:
            c.pending = _by_address(c.pending)
        T, Treal, aggs, aggregated, ntasks, more = self._rounds(c, seq, first, last, final)
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

