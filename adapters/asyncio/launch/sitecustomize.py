"""asynctop's launcher hook (`asynctop -- COMMAND`): on PYTHONPATH ahead of everything, it starts
the asyncio agent in every Python process of the command, then runs the sitecustomize it hides
(Debian ships one).  The agent announces itself when the process creates its first asyncio task.
"""

import os
import sys


def _start():
    try:
        import asynctop_agent

        asynctop_agent.start()
    except BaseException as e:  # never break the program
        try:
            sys.stderr.write("asynctop agent: not started (%s)\n" % e)
        except Exception:
            pass


def _chain():
    """Import the next sitecustomize on sys.path, as if ours had not been there."""
    here = os.path.dirname(os.path.abspath(__file__))
    ours = sys.modules.pop("sitecustomize", None)
    # Our directory leaves sys.path for good (PYTHONPATH keeps it for child processes).
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != here]
    try:
        import importlib

        importlib.import_module("sitecustomize")
    except ImportError as e:
        if e.name != "sitecustomize":
            _warn(e)
        if ours is not None:
            sys.modules["sitecustomize"] = ours
    except BaseException as e:
        _warn(e)
        if ours is not None:
            sys.modules["sitecustomize"] = ours


def _warn(e):
    try:
        sys.stderr.write("Error in sitecustomize; set PYTHONVERBOSE for traceback:\n%s: %s\n"
                         % (type(e).__name__, e))
    except Exception:
        pass


_start()
_chain()
