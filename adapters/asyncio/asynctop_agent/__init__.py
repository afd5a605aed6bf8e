"""asynctop's asyncio agent: opt-in per-task measurements served on a private Unix socket.

    import asynctop_agent; asynctop_agent.start()
    python3 -m asynctop_agent app.py ARGS...      python3 -m asynctop_agent -m pkg ARGS...

Pure standard library, CPython 3.11+, stdlib loops and uvloop.  See docs/asyncio-agent.md for what
is measured and docs/asyncio-protocol.md for the wire protocol.
"""

import asyncio
import asyncio.base_events
import atexit
import importlib.machinery
import os
import sys
import threading

from . import _core, _probe, _server
from ._core import S

__all__ = ["start", "stop", "socket_path", "is_enabled"]

_lock = threading.Lock()
_srv = None  # the _server.Server, once started
_uvloop_finder = None


def _announce():
    """Called once, when the process creates (or first meets) its first asyncio task.

    Under `asynctop -- COMMAND` ($ASYNCTOP_RENDEZVOUS set), appends "PID SOCKETPATH\n" to the
    rendezvous file in one write: the first line is the process asynctop attaches to, later ones
    (forks) are listed (docs/launch.md).  Announcing at the first task, not at interpreter start,
    means a wrapper's helper interpreter never wins.  The file is written only when its directory
    is still ours (mode 0700, owned by us) and it is a regular file of ours, never through a link:
    a kept program outlives asynctop, and another user could plant a link where its directory
    was.  Never raises.
    """
    if S.need_server:
        _restart_after_fork()
    try:
        where = os.environ.get("ASYNCTOP_RENDEZVOUS")
        sock = socket_path()
        if not where or not sock:
            return
        line = ("%d %s\n" % (os.getpid(), sock)).encode("utf-8", "surrogateescape")
        me = os.geteuid()
        dfd = os.open(os.path.dirname(where) or ".",
                      os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
        try:
            st = os.fstat(dfd)
            if st.st_uid != me or (st.st_mode & 0o777) != 0o700:
                return
            fd = os.open(os.path.basename(where),
                         os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC,
                         0o600, dir_fd=dfd)
        finally:
            os.close(dfd)
        try:
            st = os.fstat(fd)
            if st.st_uid == me and st.st_nlink == 1 and (st.st_mode & 0o170000) == 0o100000:
                os.write(fd, line)
        finally:
            os.close(fd)
    except BaseException:
        pass


def _ring_cap():
    try:
        v = int(os.environ.get("ASYNCTOP_RING", "4096"))
        return max(16, min(v, 1 << 20))
    except ValueError:
        return 4096


def start():
    """Install the hooks and open the endpoint.  Idempotent.  Returns the socket path, or None
    when the endpoint could not be opened (the reason is logged; measurement still runs)."""
    global _srv
    with _lock:
        if S.enabled or S.disabled_by_fault:
            return socket_path()
        try:
            _probe.probe()
            S.ring_cap = _ring_cap()
            S.init_sentinels()
            S.on_first_task = _announce
            timers = os.environ.get("ASYNCTOP_TIMER_HOOK", "1") != "0"
            _core.patch_loop_class(asyncio.base_events.BaseEventLoop, timers)
            flags = 1 if timers else 0
            if "uvloop" in sys.modules:
                if _patch_uvloop(sys.modules["uvloop"]):
                    flags |= 2
            else:
                _install_uvloop_finder()
            if sys.version_info >= (3, 12):
                flags |= 4
            _server.S_START[0] = _core._now()
            S.enabled = True
            try:
                loop = asyncio.get_running_loop()
            except RuntimeError:
                loop = None
            if loop is not None:
                _core.adopt_running(loop)
        except BaseException as e:
            _core.unpatch_all()
            S.enabled = False
            _server.log("could not install the hooks (%s); agent not started" % e)
            return None
        if not getattr(start, "_registered", False):
            start._registered = True
            atexit.register(_at_exit)
            os.register_at_fork(after_in_child=_after_fork_child)
        _srv = _server.Server()
        _srv.hello_flags = flags
        try:
            _srv.start()
        except OSError as e:
            _server.log("endpoint not opened: %s" % e)
            _srv = None
        return socket_path()


def stop(final=True):
    """Push a final snapshot to connected readers (when final), close the endpoint and remove
    the hooks.  Tasks already running keep their (now frozen) records."""
    global _srv
    with _lock:
        S.enabled = False
        _core.unpatch_all()
        if _srv is not None:
            _srv.stop(final)
            _srv = None


def socket_path():
    """The endpoint's path, or None when no endpoint is open."""
    return _srv.path if _srv is not None else None


def is_enabled():
    """True while the hooks are installed and measuring."""
    return S.enabled


def _at_exit():
    try:
        if _srv is not None:
            _srv.stop(True)
    except BaseException:
        pass


def _fault_hook():
    pass  # the server keeps answering with the DISABLED flag


S.on_fault = _fault_hook


def _after_fork_child():
    """In a forked child: no connections, no server thread; reopen under the new pid lazily."""
    global _srv
    try:
        S.lock = threading.RLock()
        S.clients = []
        S.tracking = False
        for r in S.journal:
            r.dirty = False
        S.journal = []
        # Only the forking thread lives on in the child.
        me = _core.thread_token(threading.current_thread())
        S.loop_threads = {me} if S.loop_threads else set()
        if _srv is not None:
            _srv.abandon()
            _srv = None
            S.need_server = True
    except BaseException:
        pass


def _restart_after_fork():
    global _srv
    S.need_server = False
    srv = _server.Server()
    srv.hello_flags = 1 if os.environ.get("ASYNCTOP_TIMER_HOOK", "1") != "0" else 0
    try:
        srv.start()
        _srv = srv
    except OSError as e:
        _server.log("endpoint not opened in the forked child: %s" % e)


def _patch_uvloop(mod):
    loop_cls = getattr(mod, "Loop", None)
    if loop_cls is None:
        return False
    # uvloop's clock has millisecond resolution: no timer-due hook there.
    _core.patch_loop_class(loop_cls, False)
    S.uvloop_patched = True
    d = os.path.dirname(getattr(mod, "__file__", "") or "")
    if d:
        S.skip_dirs.append(d + os.sep)
    return True


class _UvloopLoader:
    """Wraps uvloop's own loader: after the module runs, patch uvloop.Loop."""

    def __init__(self, inner):
        self.inner = inner

    def create_module(self, spec):
        return self.inner.create_module(spec)

    def exec_module(self, module):
        self.inner.exec_module(module)
        try:
            if S.enabled:
                _patch_uvloop(module)
        except BaseException:
            _core.fault()


class _UvloopFinder:
    """A meta-path finder that only watches for `import uvloop` (it never imports it itself)."""

    @classmethod
    def find_spec(cls, name, path=None, target=None):
        if name != "uvloop":
            return None
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        if spec is None or spec.loader is None:
            return None
        spec.loader = _UvloopLoader(spec.loader)
        return spec


def _install_uvloop_finder():
    if _UvloopFinder not in sys.meta_path:
        sys.meta_path.insert(0, _UvloopFinder)
