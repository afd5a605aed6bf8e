"""Where a task is parked: its await chain, walked from the server thread at a read.

From the task's own coroutine down through cr_await (coroutines), gi_yieldfrom (generator-based
coroutines, asyncio's __sleep0), ag_await (async generators), the asend / anext wrappers and
Cython coroutines (uvloop), to the innermost suspension point; then a last frame naming what the
task awaits when it is a known primitive.  Every read here is one attribute access under the GIL,
so a walk never crashes and never tears a field; a chain may still mix states from before and
after a step when the loop thread runs during the walk, which the caller detects by the task's
step counter (docs/asyncio-agent.md, "Where each task is parked").

Never reads f_locals (on 3.11-3.12 that pins a dict of the locals on the frame) and keeps no
reference to a frame, coroutine or future after the walk.
"""

import gc
import os
import sys
import types

import asyncio

from ._core import S, MAX_DEPTH, MAX_INTERN, _frame_id, _ASYNCIO_DIR
from ._timers import Timer as _Timer

_CORO = types.CoroutineType
_GEN = types.GeneratorType
_AGEN = types.AsyncGeneratorType
_Future = asyncio.Future
_Task = asyncio.Task
_getrefcount = sys.getrefcount
_referents = gc.get_referents
MAX_WALK = 1 << 20  # awaits followed down a chain: all of any real one, so the cut is counted

# What a task awaits, by the qualname of a frame of asyncio (or of uvloop) at the end of its
# chain.  The outermost match of the chain's last run of such frames wins: Queue.join waits on
# an Event inside, and is still a Queue.join.
PRIMITIVES = {
    "Lock.acquire": "Lock",
    "Event.wait": "Event",
    "Condition.wait": "Condition",
    "Condition.wait_for": "Condition",
    "Semaphore.acquire": "Semaphore",
    "Barrier.wait": "Barrier",
    "Queue.get": "Queue.get",
    "Queue.put": "Queue.put",
    "Queue.join": "Queue.join",
    "sleep": "sleep",
    "__sleep0": "sleep 0",
    "gather": "gather",
    "wait": "wait",
    "wait_for": "wait_for",
    "as_completed": "as_completed",
    "shield": "shield",
    "TaskGroup.__aexit__": "TaskGroup",
    "to_thread": "thread",
    "StreamReader._wait_for_data": "socket read",
    "StreamWriter.drain": "socket write",
    "BaseSelectorEventLoop.sock_recv": "socket read",
    "BaseSelectorEventLoop.sock_recv_into": "socket read",
    "BaseSelectorEventLoop.sock_recvfrom": "socket read",
    "BaseSelectorEventLoop.sock_sendall": "socket write",
    "BaseSelectorEventLoop.sock_accept": "socket accept",
    "BaseSelectorEventLoop.sock_connect": "socket connect",
    "Loop.sock_recv": "socket read",
    "Loop.sock_recv_into": "socket read",
    "Loop.sock_sendall": "socket write",
    "Loop.sock_accept": "socket accept",
    "Loop.sock_connect": "socket connect",
    "Process.wait": "subprocess",
    "Server.serve_forever": "server",
}

_LABELS = {}  # text -> string id, so that a label costs one dict lookup after the first time
_qual_of = {}  # string id of a frame -> (qualname, in asyncio or uvloop)


def label(text):
    sid = _LABELS.get(text)
    if sid is None:
        sid = S.intern_str("[awaits %s]" % text)
        _LABELS[text] = sid
    return sid


def _lib_dirs():
    return (_ASYNCIO_DIR,) + tuple(d for d in S.skip_dirs[2:])


def _frame_info(fid, code):
    """(qualname, lives in asyncio or uvloop) of a frame string id, cached."""
    v = _qual_of.get(fid)
    if v is None:
        fn = code.co_filename
        v = (code.co_qualname, any(fn.startswith(d) for d in _lib_dirs()))
        _qual_of[fid] = v
    return v


def _cython_id(obj):
    """A frame string for a coroutine without a frame (Cython): module:qualname, no line."""
    mod = getattr(obj, "__module__", None) or "?"
    qn = getattr(obj, "__qualname__", None) or type(obj).__name__
    return S.intern_str("%s:%s" % (mod, qn)), qn


def _inner(obj):
    """The awaitable an asend / anext / Cython wrapper holds, else None."""
    for x in _referents(obj):
        tx = type(x)
        if tx is _CORO or tx is _GEN or tx is _AGEN or hasattr(x, "cr_await") or \
                tx.__name__ in ("async_generator_asend", "anext_awaitable", "coroutine_wrapper"):
            return x
    return None


_walks = {}  # chain key -> parked stack id, for chains whose stack their frames alone decide
# (id(code), type awaited) -> instruction offset, for coroutines of asyncio and uvloop: where such
# a coroutine waits, learnt from the first one walked (see _lib_frame).
_lib_lasti = {}


def _lib_frame(code, nxt):
    """The frame string id of a library coroutine of code awaiting nxt, when learnt, else None.

    Reading cr_frame makes a frame object that lives as long as the coroutine: one more container
    for the garbage collector per walked task, since each sleep() or Lock.acquire() is a new
    coroutine, and a read of thousands of them brought the application's collections forward
    (docs/asyncio-agent.md, "Costs").  A function of asyncio or uvloop waits at one place per type
    it awaits (sleep: its sleep(0) generator or its future), learnt from the first one walked."""
    lasti = _lib_lasti.get((id(code), type(nxt)))
    fid = None if lasti is None else S.frame_ids.get((id(code), lasti))
    return fid if fid in _qual_of else None  # learnt from a walk, which named its frame


def _learn(f, fid, nxt):
    """After walking a library frame f (string id fid) awaiting nxt: where its kind waits."""
    if fid != S.other_id and len(_lib_lasti) < MAX_INTERN:
        _lib_lasti[(id(f.f_code), type(nxt))] = f.f_lasti


def walk(task, timers):
    """(parked stack id or 0, no_waker) of a task that is not running.

    Most tasks park where they parked before (a worker at its queue, a poller at its sleep): the
    chain's (code, instruction) pairs are read first, and when they are a chain already walked
    whose stack its frames alone decide (its label comes from an asyncio frame, not from the
    awaited future or task), that stack is the answer without naming anything again.  Every code
    object of a stored key was interned by the walk that stored it and is kept alive, so its id
    is never reused.

    timers: a per-read cache of the tasks a loop's pending timeouts target ({} to start)."""
    if task.done():
        return 0, False
    obj = task._coro
    key = []
    while obj is not None:
        tp = type(obj)
        if tp is _CORO:
            code = obj.cr_code
            nxt = obj.cr_await
            lasti = _lib_lasti.get((id(code), type(nxt)))
            if lasti is None:
                f = obj.cr_frame
                if f is None:
                    break
                lasti = f.f_lasti
        elif tp is _GEN:
            code = obj.gi_code
            nxt = obj.gi_yieldfrom
            lasti = _lib_lasti.get((id(code), type(nxt)))
            if lasti is None:
                f = obj.gi_frame
                if f is None:
                    break
                lasti = f.f_lasti
        else:
            break
        key.append(id(code))
        key.append(lasti)
        obj = nxt
    key.append(type(obj))
    key = tuple(key)
    sid = _walks.get(key)
    if sid is not None:
        return sid, False
    sid, nw, cacheable = _walk(task, timers)
    if cacheable and len(_walks) < MAX_INTERN:
        _walks[key] = sid
    return sid, nw


def _walk(task, timers):
    """walk() in full: (parked stack id or 0, no_waker, whether the frames alone decide it)."""
    obj = task._coro
    frames = []
    chain = []
    plain = True  # coroutines and generators only: what walk()'s key reads
    lab = None  # the label from the chain's trailing run of library frames
    while obj is not None and len(chain) < MAX_WALK:
        chain.append(obj)
        tp = type(obj)
        fid = None
        if tp is _CORO:
            nxt = obj.cr_await
            fid = _lib_frame(obj.cr_code, nxt)
            f = obj.cr_frame if fid is None else None
        elif tp is _GEN:
            nxt = obj.gi_yieldfrom
            fid = _lib_frame(obj.gi_code, nxt)
            f = obj.gi_frame if fid is None else None
        elif tp is _AGEN:
            f = obj.ag_frame
            nxt = obj.ag_await
            plain = False
        else:
            f = None
            if hasattr(obj, "cr_await") and not isinstance(obj, _Future):  # Cython coroutine
                plain = False
                fid, qn = _cython_id(obj)
                frames.append(fid)
                p = PRIMITIVES.get(qn)
                lab = p if p is not None else lab
                nxt = obj.cr_await
            elif tp.__name__ in ("async_generator_asend", "anext_awaitable", "coroutine_wrapper"):
                plain = False
                nxt = _inner(obj)
            else:
                break  # a FutureIter (or a Future's own __await__): the bottom is _fut_waiter
        if fid is not None:  # a library frame already learnt: no frame object made
            qn = _qual_of[fid][0]
            frames.append(fid)
            if lab is None:
                lab = PRIMITIVES.get(qn)
        elif f is not None:
            fid = _frame_id(f)
            qn, lib = _frame_info(fid, f.f_code)
            frames.append(fid)
            if lib:
                _learn(f, fid, nxt)
                if lab is None:
                    lab = PRIMITIVES.get(qn)
            else:
                lab = None
        elif tp is _CORO or tp is _GEN or tp is _AGEN:
            break  # finished mid-chain (the loop thread ran during the walk)
        obj = nxt
    if not frames:
        return 0, False, False
    # Its frames alone decide the stack when an asyncio frame named what it awaits, the chain
    # was walked whole (no finished coroutine met) and nothing outside it was asked.
    cacheable = plain and lab is not None and (obj is None or type(obj).__name__ == "FutureIter")
    fut = task._fut_waiter
    no_waker = False
    if isinstance(fut, _Task):
        cacheable = False
    if fut is not None:
        if isinstance(fut, _Task):
            lab = "task " + task_name(fut)
        elif lab is None:
            lab = _future_label(fut)
        if not fut.done() and lab == "Future":
            no_waker = _orphan(task, fut, chain, timers)
    if lab is not None:
        frames.append(label(lab))
    dropped = max(len(frames) - MAX_DEPTH, 0)  # the innermost are kept: where it waits matters
    sid = S.intern_stack(0, tuple(frames[dropped:]), dropped)
    return sid, no_waker, cacheable and not no_waker and sid != S.other_stack


def record_name(rec):
    """Refresh rec.name_id from the task, as the reader shows it (a default Task-N becomes the coroutine's name).

    Never calls task.get_coro(): on 3.12.0-1 it crashes for a task that finished eagerly; the
    coroutine's name was captured at creation instead."""
    t = rec.ref()
    if t is not None:
        try:
            name = t.get_name()
        except Exception:
            return rec.name_id
    elif rec.fin_name is not None:
        name = rec.fin_name
    else:
        return rec.name_id
    if name == rec.name_raw and rec.name_id:
        return rec.name_id
    rec.name_raw = name
    shown = name
    qn = rec.coro_name
    if isinstance(name, str) and name.startswith("Task-") and name[5:].isdigit():
        if isinstance(qn, str) and qn:
            shown = qn
    rec.name_id = S.intern_name(str(shown)) if shown is not None else 0
    return rec.name_id


def task_name(t):
    """An awaited task's name as the reader shows it (a default Task-N becomes the coroutine's)."""
    try:
        name = t.get_name()
        if name.startswith("Task-") and name[5:].isdigit() and not t.done():
            qn = getattr(t._coro, "__qualname__", None)
            if qn:
                return qn
        return name
    except Exception:
        return "?"


def _future_label(fut):
    tn = type(fut).__name__
    if tn == "_GatheringFuture":
        return "gather"
    if tn.startswith("_") and tn.endswith("Future") and "Socket" in tn:
        return "socket read" if "Reader" in tn else "socket"  # uvloop's socket futures
    try:
        for cb in fut._callbacks or ():
            cb = cb[0] if type(cb) is tuple else cb
            qn = getattr(cb, "__qualname__", "") or getattr(getattr(cb, "func", None), "__qualname__", "")
            if "_call_check_cancel" in qn:
                return "executor"
            if "_outer_done_callback" in qn:
                return "shield"
    except Exception:
        pass
    return "Future"


def _orphan(task, fut, chain, timers):
    """True when nothing but the task's own chain references fut and no timeout targets the
    task: only a cancellation can wake it (a lost waker).  A hint, not a proof: a waker that
    holds the future only weakly looks the same."""
    # Ours: getrefcount's argument, this parameter, walk()'s local, and task._fut_waiter.
    n = _getrefcount(fut) - 4
    for x in chain:
        for y in _referents(x):
            if y is fut:
                n -= 1
    if n > 0:
        return False
    return id(task) not in _timed(task, timers)


def _timed(task, timers):
    """ids of the tasks a pending timeout (asyncio.timeout, 3.12+ wait_for) of the task's loop
    will cancel, computed once per loop and read."""
    try:
        loop = task.get_loop()
    except Exception:
        return ()
    got = timers.get(id(loop))
    if got is None:
        got = set()
        for h in list(getattr(loop, "_scheduled", ())):  # one C call: atomic under the GIL
            cb = getattr(h, "_callback", None)
            if type(cb) is _Timer:  # our call_at wrapper: look inside
                cb = cb.cb
            owner = getattr(cb, "__self__", None)
            t = getattr(owner, "_task", None)
            if t is not None:
                got.add(id(t))
        if not hasattr(loop, "_scheduled"):
            got = None  # uvloop: no list of timers to look at, so never claim a lost waker
        timers[id(loop)] = got
    return got if got is not None else _ALL


class _All:
    def __contains__(self, x):
        return True


_ALL = _All()
