"""Probing asyncio before the hooks go in: the C Task's step wrapper type and the pure-Python
Task's step functions, which the call_soon hooks recognise (see _core._make_call_soon)."""

import asyncio
import types

from . import _core


async def _probe_coro():
    pass


def probe():
    """Find the C step wrapper type and the pure-Python step functions (before patching)."""
    seen = []

    class _Probe(asyncio.SelectorEventLoop):
        def call_soon(self, callback, *args, context=None):
            seen.append(callback)
            return super().call_soon(callback, *args, context=context)

    # The probe never runs the loop (start() may be called from inside a running one): the
    # Task constructor's own call_soon hands over the step wrapper.
    loop = _Probe()
    coro = _probe_coro()
    try:
        t = asyncio.Task(coro, loop=loop)
        t._log_destroy_pending = False
    finally:
        coro.close()
        loop.close()
    for cb in seen:
        if getattr(cb, "__self__", None) is t and not isinstance(cb, (types.MethodType, types.FunctionType)):
            _core._STEP_TYPE = type(cb)
            break
    funcs = []
    py = getattr(asyncio.tasks, "_PyTask", None)
    if py is not None:
        for n in ("_Task__step", "_Task__wakeup", "_Task__step_run_and_handle_result"):
            fn = py.__dict__.get(n)
            if fn is not None:
                funcs.append(fn)
    _core._PY_STEP_FUNCS = tuple(funcs)
