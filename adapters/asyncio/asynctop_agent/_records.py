"""Task records: what the agent keeps of each task, from its first sight to its retirement.

A record is made when a task is first seen (bound to its spawn, adopted, or found running at
start), its figures are added by the hooks in _core, and it ends in the ring of finished records
or is retired once its task is collected unfinished.  Apart from _core, which holds the hooks that
time the steps, because this is what the server thread reads (the record's fields, S.live, the
ring under S.lock), and it changes with the protocol's record rather than with asyncio's
internals.  The loops' and threads' ids a record carries are assigned here too.

Everything here runs on the application's loop threads (reap_dead also on the server thread) and
must never raise into the application: the hooks that call it catch and call fault().
"""

import asyncio
import threading
import time
import weakref

from ._patching import _check_loop_class
from ._state import S, _ASYNCIO_DIR

_now = time.monotonic_ns

# Task states (wire values, docs/asyncio-protocol.md §4.3).
SCHED, RUNNING, IDLE, DONE = 1, 2, 3, 4
# Task flags.
F_UNKNOWN, F_EAGER, F_INTERNAL = 1, 2, 4


# The record of each task with one, by id(task): a task's id is its own until its memory is freed,
# and the record's finaliser (_gone) forgets it before that.  One dictionary entry per task where
# an attribute on the task made the task a dictionary of its own.
_recs = S.recs
_rec_get = _recs.get
LOOP_ATTR = "_asynctop_loop"
THREAD_ATTR = "_asynctop_thread"


class Rec(weakref.ref):
    """One task's cumulative figures (wire record fields plus bookkeeping).  The record is the
    task's weak reference itself (one object per task for the garbage collector, not two): calling
    it gives the task, or None once the task is gone.  Built by _new_rec, which sets every field."""

    __slots__ = (
        "tid", "parent", "stack", "loop_id", "thread_name", "state", "flags",
        "created", "ended", "t_mark", "polls", "wakes", "self_wakes", "busy", "sched", "idle",
        "pending", "eager_sub", "dirty", "evicted", "key", "name_raw", "name_id", "fin_name",
        "coro_name", "max_step", "parked", "walked", "no_waker",
    )

    # Records are keys of the server's tables: by identity, never by their task as weak
    # references compare and hash (which fails once the task is gone).
    __hash__ = object.__hash__
    __eq__ = object.__eq__
    __ne__ = object.__ne__

    @property
    def ref(self):
        """The weak reference to the task (the record itself)."""
        return self


# -- loops and threads -----------------------------------------------------------------------

def thread_token(th):
    """A number of the thread's own: idents are reused once a thread ends, so two loop threads
    that ran one after the other could otherwise count as one."""
    tok = getattr(th, THREAD_ATTR, None)
    if tok is None:
        tok = next(S.thread_tokens)
        try:
            setattr(th, THREAD_ATTR, tok)
        except Exception:
            pass
    return tok


def _loop_info(loop):
    """(loop id, thread name string id) of a loop, assigned at first sight in its thread."""
    info = getattr(loop, LOOP_ATTR, None)
    if info is None:
        th = threading.current_thread()
        info = (next(S.loop_ids), S.intern_str(th.name))
        S.loop_threads.add(thread_token(th))
        try:
            setattr(loop, LOOP_ATTR, info)
        except Exception:
            pass
        _check_loop_class(type(loop))
    return info


# -- records ---------------------------------------------------------------------------------

def _mark(rec):
    """Journal a changed record for the server (once per drain).  Call after the mutation."""
    if S.tracking and not rec.dirty:
        rec.dirty = True
        S.journal.append(rec)


def _new_rec(task, coro, loop, parent, stack, flags, now, state):
    info = getattr(loop, LOOP_ATTR, None)
    loop_id, thread_name = info if info is not None else _loop_info(loop)
    code = getattr(coro, "cr_code", None)
    if code is not None and code.co_filename.startswith(_ASYNCIO_DIR):
        flags |= F_INTERNAL
    rec = Rec(task, _gone)
    rec.key = key = id(task)
    rec.tid = tid = next(S.tids)
    rec.parent = parent
    rec.stack = stack
    rec.loop_id = loop_id
    rec.thread_name = thread_name
    rec.state = state
    rec.flags = flags
    rec.created = rec.t_mark = now
    rec.ended = rec.polls = rec.wakes = rec.self_wakes = rec.busy = rec.sched = rec.idle = 0
    rec.eager_sub = rec.name_id = rec.max_step = 0
    rec.parked = rec.walked = 0  # parked-at stack id, and polls when it was walked
    rec.pending = rec.dirty = rec.evicted = rec.no_waker = False
    rec.name_raw = None
    rec.fin_name = None  # the task's name, captured when it finished
    rec.coro_name = getattr(coro, "__qualname__", None)  # captured at creation
    _recs[key] = rec
    S.live[tid] = rec
    if not S.first_task_seen or S.need_server:
        S.first_task_seen = True
        cb = S.on_first_task
        if cb is not None:
            cb()
    if S.tracking:  # _mark(rec), inlined (a new record is never dirty)
        rec.dirty = True
        S.journal.append(rec)
    return rec


def _gone(rec):
    """Finaliser: the task was collected (its memory is not yet freed, so its id is still its
    own).  Forget it; if it never finished (destroyed pending, or its loop was closed), queue its
    record to be retired outside the garbage collector."""
    if _recs.get(rec.key) is rec:
        del _recs[rec.key]
    if rec.state != DONE:
        S.dead.append(rec)


def reap_dead():
    """Retire records of tasks collected while unfinished (called from hooks and the server)."""
    dead = S.dead
    while dead:
        rec = dead.pop()
        if rec.state != DONE:
            _finish(rec, _now())


def _finish(rec, now):
    """A task ended at now: state DONE, out of the live table, into the ring."""
    st = rec.state
    d = now - rec.t_mark
    if st == SCHED:
        rec.sched += d
    elif st == IDLE:
        rec.idle += d
    elif st == RUNNING:
        rec.busy += d
    rec.state = DONE
    rec.ended = rec.t_mark = now
    if S.tracking and not rec.dirty:  # _mark(rec), inlined: no call between update and journal
        rec.dirty = True
        S.journal.append(rec)
    S.live.pop(rec.tid, None)
    with S.lock:
        S.finished_total += 1
        ring = S.ring
        ring.append(rec)
        if len(ring) > S.ring_cap:
            _evict(ring.popleft())


def _evict(old):
    """A finished record leaves the ring (S.lock held): per connection, pin it or aggregate it."""
    old.evicted = True
    for c in S.clients:
        c.on_evict(old)


def _adopt(task, loop, now, state):
    """First sight of a task created before the agent or outside create_task."""
    # Only called for a task that is not done (3.12.0-1 crash in get_coro() on a task that
    # finished eagerly), so get_coro() is safe here.
    return _new_rec(task, task.get_coro(), loop, 0, S.unknown_stack, F_UNKNOWN, now, state)


def adopt_running(loop):
    """At install inside a running loop: every existing task becomes spawn-site unknown."""
    now = _now()
    for t in asyncio.all_tasks(loop):
        if _rec_get(id(t)) is None:
            _adopt(t, loop, now, IDLE)
