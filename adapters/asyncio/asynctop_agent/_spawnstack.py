"""Where a task was spawned from: the spawn stack of a create_task call, walked from its caller.

Apart from _core because it is one question with its own caches (which code is skipped, frame
ids, whole chains already walked), asked once per create_task and answered without the records or
the hooks; _core's create_task hook calls _spawn_stack, and _parked reads frames' ids through
_frame_id.  The cap on the intern tables is read from _state at each use (a miss only, never the
chain's hit) so that a test that lowers _state.MAX_INTERN caps these tables too.
"""

import asyncio.events

from . import _state
from ._names import module_name as _module_name
from ._state import S, MAX_DEPTH

_HANDLE_RUN = asyncio.events.Handle._run.__code__


def _is_skipped(code):
    k = id(code)
    v = S.skip.get(k)
    if v is None:
        fn = code.co_filename
        v = fn in S.skip_files or any(fn.startswith(d) for d in S.skip_dirs)
        if len(S.skip) < _state.MAX_INTERN:
            S.skip[k] = v
            S.code_keep.append(code)
    return v


def _frame_id(f):
    code = f.f_code
    key = (id(code), f.f_lasti)
    sid = S.frame_ids.get(key)
    if sid is None:
        if len(S.strings) >= _state.MAX_INTERN:
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
        cap = _state.MAX_INTERN
        if len(key) <= _CHAIN_MAX and not S.overflow and len(S.skip) < cap and len(_chains) < cap:
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
