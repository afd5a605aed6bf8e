"""The event-loop hooks: call_soon (a task's wake, and its step timed), create_task (the spawn in
progress, bound to the new task's record).

The records these hooks fill are in _records, the spawn stacks in _spawnstack, the patching of loop
classes and fault() in _patching; the state and its interning in _state.  The names other modules
and the tests read from here (S, the task states, fault, reap_dead...) are imported below and
stay readable here.

Everything here runs on the application's loop threads, inside the hooks, so it is written for
speed and must never raise into the application: every hook body catches its own exceptions and
calls fault(), which disables the agent.  Concurrency relies on the GIL (see docs/asyncio-agent.md):
the hooks update a record's fields with no call in between, so the server thread, which copies the
fields in one expression, always sees a consistent record.
"""

import asyncio
import asyncio.base_events
import asyncio.tasks
import sys
import types

from ._patching import fault
from ._records import SCHED, RUNNING, IDLE, DONE, F_EAGER
from ._records import _now, _rec_get, _mark, _new_rec, _finish, _adopt, reap_dead
from ._spawnstack import _spawn_stack
from ._state import S

# Read from here by the package (start, stop), the server, _parked and the tests: kept importable
# from here so that none of them changed with the split.
from ._patching import patch_loop_class, unpatch_all  # noqa: F401
from ._records import thread_token, adopt_running  # noqa: F401
from ._spawnstack import _frame_id  # noqa: F401
from ._state import MAX_DEPTH, MAX_INTERN, _ASYNCIO_DIR  # noqa: F401


# -- spawns in progress ----------------------------------------------------------------------

# The spawns in progress (create_task calls that have not returned), by id(coroutine).
_spawns = {}


class _Spawn:
    """A create_task call in progress: what the new task's record will need (found by the
    id of its coroutine in _spawns while the call runs)."""

    __slots__ = ("loop", "coro", "parent", "stack", "flags", "rec", "t0", "caller")


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
