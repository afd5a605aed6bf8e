"""Per-task bookkeeping: the event-loop hooks, task records, spawn stacks (the state and its
interning: _state).

Everything here runs on the application's loop threads, inside the hooks, so it is written for
speed and must never raise into the application: every hook body catches its own exceptions and
calls fault(), which disables the agent.  Concurrency relies on the GIL (see docs/asyncio-agent.md):
the hooks update a record's fields with no call in between, so the server thread, which copies the
fields in one expression, always sees a consistent record.
"""

import asyncio
import asyncio.base_events
import asyncio.events
import asyncio.tasks
import os
import sys
import threading
import time
import types
import weakref

from ._names import module_name as _module_name
from ._state import S, MAX_DEPTH, MAX_INTERN, _ASYNCIO_DIR

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
# The spawns in progress (create_task calls that have not returned), by id(coroutine).
_spawns = {}
LOOP_ATTR = "_asynctop_loop"
THREAD_ATTR = "_asynctop_thread"

_HANDLE_RUN = asyncio.events.Handle._run.__code__


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


class _Spawn:
    """A create_task call in progress: what the new task's record will need (found by the
    id of its coroutine in _spawns while the call runs)."""

    __slots__ = ("loop", "coro", "parent", "stack", "flags", "rec", "t0", "caller")


def _is_skipped(code):
    k = id(code)
    v = S.skip.get(k)
    if v is None:
        fn = code.co_filename
        v = fn in S.skip_files or any(fn.startswith(d) for d in S.skip_dirs)
        if len(S.skip) < MAX_INTERN:
            S.skip[k] = v
            S.code_keep.append(code)
    return v


def _frame_id(f):
    code = f.f_code
    key = (id(code), f.f_lasti)
    sid = S.frame_ids.get(key)
    if sid is None:
        if len(S.strings) >= MAX_INTERN:
            S.overflow = True
            return S.other_id
        sid = next(S.str_next)
        S.strings[sid] = (code, f.f_lasti, _module_name(f))
        S.frame_ids[key] = sid
        S.code_keep.append(code)
    return sid


# Spawn stacks by the whole chain walked: (parent's stack id, then id(code) and f_lasti of each
# frame from the caller of create_task to where the walk ends).  What the walk keeps of a chain
# depends on nothing else (whether a frame is skipped is a property of its code), and every code
# of a cached chain is kept alive (in S.skip), so its id is never another code's.  A spawn whose
# chain was seen reads its frames' code and offset and makes one lookup, instead of two lookups
# and a key per frame and the stack's interning.
_chains = {}


def _spawn_stack(f, stop, pstack):
    """The stack id of a spawn from frame f (the caller of create_task), by its chain."""
    key = [pstack]
    g = f
    while g is not None:
        code = g.f_code
        if code is _HANDLE_RUN:
            break
        key.append(id(code))
        key.append(g.f_lasti)
        if g is stop or len(key) > _CHAIN_MAX:
            break
        g = g.f_back
    key = tuple(key)
    sid = _chains.get(key)
    if sid is None:
        sid = _walk_stack(f, stop, pstack)
        if len(key) <= _CHAIN_MAX and not S.overflow and len(S.skip) < MAX_INTERN and len(_chains) < MAX_INTERN:
            _chains[key] = sid
    return sid


_CHAIN_MAX = 2 * MAX_DEPTH  # a longer chain is walked every time (deep recursion only)


def _walk_stack(f, stop, pstack):
    """The stack id of a spawn from frame f, walked frame by frame and interned."""
    frames, dropped = _capture(f, stop)
    if not frames and pstack:
        return pstack  # created by asyncio machinery only: same site as the parent
    if not frames:  # nothing but asyncio machinery, and no parent
        frames = (S.intern_str("[no spawn stack]"),)
    return S.intern_stack(pstack, frames, dropped)


def _capture(f, stop):
    """(own frame ids of a spawn, root first, from frame f (the caller of create_task) up to the
    frame stop (the parent task's coroutine frame) or the loop; how many more own frames lie
    above the MAX_DEPTH kept)."""
    out = []
    skip = S.skip
    fids = S.frame_ids
    # The two lookups are inlined (their functions run only on a miss): a spawn walks a few
    # frames and every call saved is a fraction of a microsecond per spawn.
    while f is not None and len(out) < MAX_DEPTH:
        code = f.f_code
        if code is _HANDLE_RUN:
            break
        sk = skip.get(id(code))
        if sk is None:
            sk = _is_skipped(code)
        if not sk:
            sid = fids.get((id(code), f.f_lasti))
            out.append(sid if sid is not None else _frame_id(f))
        if f is stop:
            return tuple(reversed(out)), 0
        f = f.f_back
    out.reverse()
    return tuple(out), _count_above(f, stop)


def _count_above(f, stop):
    """The frames a spawn stack would have kept from f up (only deep recursion gets here)."""
    n = 0
    while f is not None and f.f_code is not _HANDLE_RUN:
        sk = S.skip.get(id(f.f_code))
        n += not (_is_skipped(f.f_code) if sk is None else sk)
        if f is stop:
            break
        f = f.f_back
    return n


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


def _bind(task, sp, now, state):
    """Create the record of the task a pending spawn sp was creating."""
    stack = sp.stack
    rec = _new_rec(task, sp.coro, sp.loop, sp.parent, stack, sp.flags, sp.t0, state)
    if state == RUNNING:  # an eager first step, begun at sp.t0
        rec.flags |= F_EAGER
        rec.polls = 1
    sp.rec = rec
    return rec


def _rec_of(task, loop, now, adopt_state):
    """The record of task; binds a pending spawn or adopts the task as spawn-site unknown."""
    rec = _rec_get(id(task))
    if rec is None:
        rec = _first_sight(task, loop, now, adopt_state)
    return rec


def _first_sight(task, loop, now, adopt_state):
    """A new record for a task that has none: the spawn in progress that creates it (matched by
    coroutine) if there is one, else spawn site unknown."""
    if _spawns:
        try:
            coro = task.get_coro()
        except Exception:  # a Task subclass of its own: no spawn to match
            coro = None
        sp = _spawns.get(id(coro))
        if sp is not None and sp.rec is None and sp.coro is coro:
            return _bind(task, sp, now, RUNNING if _current_task(loop) is task else SCHED)
    return _adopt(task, loop, now, adopt_state)


# -- step timing -----------------------------------------------------------------------------

def _step(cb, task, rec, *args):
    """A task's step callback, timed.  call_soon schedules it in place of cb, with cb, the task
    and its record ahead of cb's own arguments: no wrapper object per step (a partial was one
    more object to allocate, free and call through)."""
    try:
        now = _now()
        st = rec.state
        if st == SCHED:
            rec.sched += now - rec.t_mark
        elif st == IDLE:
            rec.idle += now - rec.t_mark
        elif st == RUNNING:  # an unwrapped step we never saw end (adopted mid-step)
            rec.busy += now - rec.t_mark
        rec.polls += 1  # eager_sub is 0 here: every step's end resets it
        rec.state = RUNNING
        rec.t_mark = now
        if S.tracking and not rec.dirty:  # _mark(rec), inlined
            rec.dirty = True
            S.journal.append(rec)
    except BaseException:
        fault()
    try:
        return cb(*args)
    finally:
        try:  # _step_end(task, rec) for the common case, inlined: one call fewer per step
            done = task.done()
            now = _now()
            if rec.state == RUNNING and not rec.eager_sub and not done:
                d = now - rec.t_mark
                rec.busy += d
                if d > rec.max_step:
                    rec.max_step = d
                if rec.pending:
                    rec.pending = False
                    rec.state = SCHED
                else:
                    rec.state = IDLE
                rec.t_mark = now
                if S.tracking and not rec.dirty:
                    rec.dirty = True
                    S.journal.append(rec)
            else:
                _step_end(task, rec, done, now)
        except BaseException:
            fault()


def _step_end(task, rec, done, now):
    if rec.state != RUNNING:
        rec.eager_sub = 0
        return  # finished by other means (should not happen)
    sub = rec.eager_sub
    d = now - rec.t_mark - sub
    rec.busy += d
    if d > rec.max_step:
        rec.max_step = d
    rec.sched += sub  # eager children ran while this task waited, ready
    rec.eager_sub = 0
    if done:
        rec.t_mark = now
        try:
            rec.fin_name = task.get_name()
        except Exception:
            pass
        _finish(rec, now)
        return
    if rec.pending:
        rec.pending = False
        rec.state = SCHED
    else:
        rec.state = IDLE
    rec.t_mark = now
    if S.tracking and not rec.dirty:  # _mark(rec), inlined: no call between update and journal
        rec.dirty = True
        S.journal.append(rec)


# -- the hooks -------------------------------------------------------------------------------

_STEP_TYPE = None  # the C TaskStepMethWrapper type, probed before patching
_WAKEUP_NAME = "task_wakeup"
_PY_STEP_FUNCS = ()  # pure-Python Task step/wakeup functions
_BUILTIN_METHOD = types.BuiltinMethodType
_METHOD = types.MethodType
_originals = []  # (class, name, original value or _MISSING)
_MISSING = object()

if sys.version_info < (3, 12) and isinstance(getattr(asyncio.tasks, "_current_tasks", None), dict):
    _cur_map = asyncio.tasks._current_tasks

    def _current_task(loop):
        return _cur_map.get(loop)
else:
    _current_task = asyncio.current_task


def _make_call_soon(orig):
    if orig is _BASE_CALL_SOON and sys.version_info < (3, 14):
        return _make_fast_call_soon(orig)

    def call_soon(self, callback, *args, context=None):
        if S.enabled:
            tp = type(callback)  # a task's step or wakeup? (every call_soon pays this test)
            # Written out in both call_soon hooks, not shared: a helper costs a Python call per wake.
            if tp is _STEP_TYPE or (tp is _BUILTIN_METHOD and callback.__name__ == _WAKEUP_NAME) or \
                    (tp is _METHOD and callback.__func__ in _PY_STEP_FUNCS):
                try:
                    task = callback.__self__
                    args = (callback, task, _on_wake(self, task)) + args
                    callback = _step
                except BaseException:
                    fault()
        return orig(self, callback, *args, context=context)

    call_soon._asynctop = True
    return call_soon


_BASE_CALL_SOON = asyncio.base_events.BaseEventLoop.call_soon


def _make_fast_call_soon(orig):
    """The stdlib loop's call_soon with the hook inside: the same body as 3.11-3.13's (checked
    closed; debug checks through the original; then _call_soon), one Python call fewer per wake,
    and the step types recognised inline."""

    def call_soon(self, callback, *args, context=None):
        if S.enabled:
            tp = type(callback)
            # Written out in both call_soon hooks, not shared: a helper costs a Python call per wake.
            if tp is _STEP_TYPE or (tp is _BUILTIN_METHOD and callback.__name__ == _WAKEUP_NAME) or \
                    (tp is _METHOD and callback.__func__ in _PY_STEP_FUNCS):
                try:
                    task = callback.__self__
                    args = (callback, task, _on_wake(self, task)) + args
                    callback = _step
                except BaseException:
                    fault()
        if self._debug:
            return orig(self, callback, *args, context=context)
        if self._closed:
            raise RuntimeError("Event loop is closed")
        return self._call_soon(callback, args, context)

    call_soon._asynctop = True
    return call_soon


def _on_wake(loop, task):
    """A step of task is being scheduled on loop: stamp the wake.  Returns the task's record."""
    now = _now()
    rec = _rec_get(id(task))
    if rec is None:
        rec = _first_sight(task, loop, now, SCHED)
        if rec.state == RUNNING:  # an eager child waking itself inside its first step
            rec.wakes += 1
            rec.self_wakes += 1
            rec.pending = True
            _mark(rec)
        return rec
    st = rec.state
    if st == IDLE:
        t = now
        due = S.due  # the _timers.Timer whose callback runs, if any (its loop, its due time)
        if due is not None and due.loop is loop and rec.t_mark <= due.due < now:
            t = due.due  # a timer's wake, dated at its due time (lateness counts as scheduled)
            floor = S.boundary  # but never before a reply that reported the task idle
            if t < floor:
                t = floor if floor < now else now
        rec.idle += t - rec.t_mark
        rec.wakes += 1
        rec.t_mark = t
        rec.state = SCHED
    elif st == RUNNING:
        rec.wakes += 1
        rec.self_wakes += 1
        rec.pending = True
    elif st == SCHED:
        rec.wakes += 1
    if S.tracking and not rec.dirty:  # _mark(rec), inlined: no call between update and journal
        rec.dirty = True
        S.journal.append(rec)
    return rec


def _make_create_task(orig):
    def create_task(self, coro, *args, **kwargs):
        if not S.enabled:
            return orig(self, coro, *args, **kwargs)
        try:
            sp = _begin_spawn(self, coro, sys._getframe(1))
            key = id(coro)
            _spawns[key] = sp
        except BaseException:
            fault()
            return orig(self, coro, *args, **kwargs)
        sp.t0 = _now()
        task = None
        try:
            task = orig(self, coro, *args, **kwargs)
            return task
        finally:
            try:
                _spawns.pop(key, None)
                rec = sp.rec  # bound by the task's first call_soon unless it ran eagerly
                if task is not None and S.enabled and (rec is None or rec.flags & F_EAGER):
                    _end_spawn(sp, task)
            except BaseException:
                fault()

    create_task._asynctop = True
    return create_task


def _begin_spawn(loop, coro, f):
    if S.dead:
        reap_dead()
    sp = _Spawn()
    sp.caller = f
    sp.loop = loop
    sp.coro = coro
    sp.rec = None
    sp.flags = 0
    parent = _current_task(loop)
    if parent is not None:
        prec = _rec_get(id(parent))
        if prec is None:
            prec = _rec_of(parent, loop, _now(), IDLE)
        sp.parent = prec.tid
        sp.stack = _spawn_stack(f, getattr(parent.get_coro(), "cr_frame", None), prec.stack)
    else:
        sp.parent = 0
        sp.stack = _spawn_stack(f, None, 0)
    return sp


def _end_spawn(sp, task):
    """After the original create_task returned: finish an eager first step if there was one."""
    now = _now()
    rec = sp.rec
    if rec is None:
        rec = _rec_get(id(task))
        if rec is not None:
            return  # bound elsewhere (a task factory that wraps coroutines, say)
        # No call_soon and nobody asked for it: the task ran eagerly (or a factory built it
        # without scheduling it).  Count its first step from t0.
        if task.done() or _ran_eagerly(task):
            rec = _bind(task, sp, now, RUNNING)
        else:
            _bind(task, sp, now, IDLE)
            return
    if rec.state == RUNNING and (rec.flags & F_EAGER):
        _step_end(task, rec, task.done(), _now())
        if rec.state == DONE:
            rec.fin_name = _late_name(sp.caller, task)
        parent = S.live.get(sp.parent)
        if parent is not None and parent.state == RUNNING:
            parent.eager_sub += now - sp.t0


def _late_name(caller, task):
    """The name of a task that finished inside create_task.  asyncio.create_task and
    TaskGroup.create_task (3.12) name the task only after loop.create_task returned, and the
    task may be gone by the time it is read: take the name they are about to set."""
    if caller is not None and caller.f_code in _NAMING_CALLERS:
        name = caller.f_locals.get("name")
        if name is not None:
            return str(name)
    return task.get_name()


_NAMING_CALLERS = {asyncio.tasks.create_task.__code__}
if hasattr(asyncio, "TaskGroup"):
    _NAMING_CALLERS.add(asyncio.TaskGroup.create_task.__code__)


def _ran_eagerly(task):
    # An unfinished task that was never scheduled and is not waiting on anything was not started.
    return getattr(task, "_fut_waiter", None) is not None


# -- install, uninstall, fault ---------------------------------------------------------------

def _patch(cls, name, maker):
    """Replace cls.name by maker(original), remembering the original for unpatch_all.  A method
    that is already ours (defined here or inherited) is left alone."""
    orig = getattr(cls, name)
    if getattr(orig, "_asynctop", False):
        return
    cur = cls.__dict__.get(name, _MISSING)
    _originals.append((cls, name, cur))
    setattr(cls, name, maker(orig))


def patch_loop_class(cls, timers):
    _patch(cls, "call_soon", _make_call_soon)
    _patch(cls, "create_task", _make_create_task)
    if timers:
        from ._timers import make_call_at  # here: _timers imports this module

        _patch(cls, "call_at", make_call_at)


def _check_loop_class(cls):
    """A loop class overriding call_soon or create_task without calling ours: patch it too."""
    for name in ("call_soon", "create_task"):
        if not getattr(getattr(cls, name, None), "_asynctop", False):
            try:
                patch_loop_class(cls, False)
            except Exception:
                pass
            return


def unpatch_all():
    while _originals:
        cls, name, cur = _originals.pop()
        try:
            if cur is _MISSING:
                delattr(cls, name)
            else:
                setattr(cls, name, cur)
        except Exception:
            pass


def fault():
    """An internal error: disable the agent, restore the hooks, log one line.  Never raises."""
    if S.disabled_by_fault:
        return
    S.disabled_by_fault = True
    S.enabled = False
    try:
        unpatch_all()
        et, ev, tb = sys.exc_info()
        where = ""
        while tb is not None:
            where = "%s:%d" % (os.path.basename(tb.tb_frame.f_code.co_filename), tb.tb_lineno)
            tb = tb.tb_next
        sys.stderr.write("asynctop agent: internal error (%s: %s at %s); agent disabled, "
                         "application unaffected\n" % (et.__name__ if et else "?", ev, where))
        if S.on_fault is not None:
            S.on_fault()
    except BaseException:
        pass


def adopt_running(loop):
    """At install inside a running loop: every existing task becomes spawn-site unknown."""
    now = _now()
    for t in asyncio.all_tasks(loop):
        if _rec_get(id(t)) is None:
            _adopt(t, loop, now, IDLE)
