"""Putting the hooks on loop classes and taking them off: patch_loop_class, unpatch_all, and
fault(), which takes them off when the agent itself fails.

Apart from _core, which defines the hooks, because every part of the agent calls fault() and the
records need _check_loop_class on a loop's first sight: this module imports neither, so those
imports make no cycle.  patch_loop_class imports the hooks' makers when it is called instead.
"""

import os
import sys

from ._state import S

_originals = []  # (class, name, original value or _MISSING)
_MISSING = object()


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
    from ._core import _make_call_soon, _make_create_task  # here: _core imports this module

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
