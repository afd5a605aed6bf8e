"""How a frame is named in a stack: its module and its source line.

Pure functions of a code object or a frame, apart from _spawnstack, which interns frames, so that
each module stays one idea; called when a frame is first interned and when its text is first sent,
never per step.
"""

import os


def line_of(code, lasti):
    """Source line of the instruction at byte offset lasti (0 when unknown)."""
    line = 0
    for start, end, ln in code.co_lines():
        if start <= lasti < end:
            return ln or 0
        if ln is not None and start <= lasti:
            line = ln
    return line or code.co_firstlineno


def module_name(f):
    """The module a frame runs in: __main__ becomes the module run (python3 -m pkg) or the
    script's file name, so a stack says shop:main:12, not __main__:main:12."""
    g = f.f_globals
    name = g.get("__name__") or "?"
    if name == "__main__":
        spec = g.get("__spec__")
        if spec is not None and getattr(spec, "name", None):
            name = spec.name
        else:
            name = os.path.splitext(os.path.basename(f.f_code.co_filename))[0] or name
    return name
