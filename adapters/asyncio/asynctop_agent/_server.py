"""The endpoint: a Unix socket in a private directory, served by one daemon thread; implements
docs/asyncio-protocol.md (version 4).  This module keeps the connections (accept, requests,
housekeeping); _reply answers the READs, _client holds each connection's state, _wire the
frames."""

import os
import selectors
import socket
import stat
import struct
import sys
import threading
import time

from . import _core
from ._client import Client
from ._endpoint import log, endpoint_path, prepare_dir, remove_stale, proc_start_ticks, _test_mode
from ._core import S
from ._reply import Reply
from ._wire import MAGIC, VERSION, HDR, T_HELLO, T_READ, T_BYE, T_HELLO_OK, T_ERROR, REQ_LEN, MAX_REQ
from ._wire import E_PEER, E_BUSY, E_MALFORMED, E_VERSION, MAX_PAYLOAD, HELLO_FIX, U32, AGENT_VERSION

MAX_CLIENTS = 8


def _give_way_s():
    try:
        return max(0.0, float(os.environ.get("ASYNCTOP_IDLE_GIVE_WAY", "10")))
    except ValueError:
        return 10.0


IDLE_GIVE_WAY_S = _give_way_s()  # a full house: a connection silent this long gives way
IO_TIMEOUT = 2.0
MIN_READ_INTERVAL_NS = 5_000_000
SWITCH_S = 0.002  # the interpreter's switch interval at most, while a reader is connected


def _linger_close(sock):
    """Close after an ERROR frame so that the peer can read it: closing with unread request bytes
    in our receive queue would make the peer's recv fail with ECONNRESET before it sees the frame.
    Waits at most 0.1 s for the peer to close its side."""
    try:
        sock.shutdown(socket.SHUT_WR)
        sock.settimeout(0.1)
        for _ in range(64):
            if not sock.recv(4096):
                break
    except OSError:
        pass
    try:
        sock.close()
    except OSError:
        pass


class Server(Reply):
    def __init__(self):
        self.path = None
        self.listen = None
        self.thread = None
        self.clients = []  # every connection (S.clients holds those past their first READ)
        self.serve_lock = threading.Lock()
        self.closing = False
        self.wake_r = self.wake_w = None
        self.hello_flags = 0
        self.sel = None
        self.timers = {}
        self.app_switch = None  # the application's switch interval, while SWITCH_S replaces it

    # -- lifecycle -------------------------------------------------------------------------

    def start(self):
        d, path = endpoint_path()
        if d is not None:
            prepare_dir(d)
            remove_stale(d)
        else:
            try:
                if stat.S_ISSOCK(os.lstat(path).st_mode):
                    os.unlink(path)
            except FileNotFoundError:
                pass
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            s.bind(path)
            os.chmod(path, 0o666 if _test_mode() else 0o600)
            s.listen(16)
        except BaseException:
            s.close()
            raise
        self.path = path
        self.listen = s
        self.wake_r, self.wake_w = os.pipe()
        self.thread = threading.Thread(target=self._run, name="asynctop-agent", daemon=True)
        self.thread.start()

    def abandon(self):
        """In a forked child: drop the parent's sockets without touching its socket file."""
        for c in self.clients:
            try:
                c.sock.close()
            except Exception:
                pass
        self.clients = []
        self._switch(False)  # the parent's readers are not the child's
        for fd in (self.wake_r, self.wake_w):
            if fd is not None:
                try:
                    os.close(fd)
                except OSError:
                    pass
        if self.listen is not None:
            try:
                self.listen.close()
            except Exception:
                pass
        self.listen = None
        self.closing = True

    def stop(self, final):
        """Push a final snapshot to every client (when final), close everything, remove the file."""
        got = self.serve_lock.acquire(timeout=IO_TIMEOUT)
        try:
            self.closing = True
            if final and got:  # without the lock a reply may be half sent: only close then
                for c in list(self.clients):
                    if c.hello:
                        try:
                            self._serve_read(c, 0, True)
                        except Exception:
                            pass
            for c in list(self.clients):
                self._drop(c)
            self._switch(False)
            if self.listen is not None:
                try:
                    self.listen.close()
                except Exception:
                    pass
                self.listen = None
            if self.path:
                try:
                    os.unlink(self.path)
                except OSError:
                    pass
            if self.wake_w is not None:
                try:
                    os.write(self.wake_w, b"x")
                except OSError:
                    pass
        finally:
            if got:
                self.serve_lock.release()

    # -- the thread ------------------------------------------------------------------------

    def _run(self):
        sel = selectors.DefaultSelector()
        try:
            sel.register(self.listen, selectors.EVENT_READ, None)
            sel.register(self.wake_r, selectors.EVENT_READ, "wake")
            self.sel = sel
            while not self.closing:
                for c in self.clients:
                    if not c.registered:
                        sel.register(c.sock, selectors.EVENT_READ, c)
                        c.registered = True
                events = sel.select(0.25)
                if self.closing:
                    break
                with self.serve_lock:
                    if self.closing:
                        break
                    for key, _ in events:
                        if key.data is None:
                            self._accept()
                        elif key.data == "wake":
                            pass
                        else:
                            self._readable(key.data)
                    self._tick()
                    self._switch(bool(self.clients))
        except Exception as e:  # the server must never take the application down
            if not self.closing:
                log("endpoint thread stopped: %s" % e)
        finally:
            self._switch(False)
            try:
                sel.close()
            except Exception:
                pass

    def _switch(self, hold):
        """Hold the interpreter's switch interval at SWITCH_S at most while a reader is connected,
        and give the application its own back when the last one leaves.

        This thread takes the interpreter again after every wait (the socket, a chunk's yield).
        CPython hands it over only once the waiter has waited a whole switch interval without
        any thread taking it in between; a loop thread that lets go and takes it back more often
        than that (each select() of a busy loop does) keeps it, and the waiter waits on.  With
        the default 5 ms and a loop stepping every 2-5 ms, a read waited up to 2.4 s, past the
        reader's timeout; at 2 ms the same reads wait tens of ms (docs/asyncio-agent.md, "Costs").
        The interval matters only while two threads want the interpreter: the loop thread alone,
        or with this one asleep, runs as before.  An application that sets its own interval
        meanwhile keeps it."""
        now = sys.getswitchinterval()
        if hold and self.app_switch is None and now > SWITCH_S:
            self.app_switch = now
            sys.setswitchinterval(SWITCH_S)
        elif not hold and self.app_switch is not None:
            if abs(now - SWITCH_S) < 1e-7:
                sys.setswitchinterval(self.app_switch)
            self.app_switch = None

    def _tick(self):
        """Housekeeping: retire collected tasks, bound the journal, drop stalled requests."""
        _core.reap_dead()
        self._sweep_names()
        if S.tracking:
            self._drain(None)
            live_bound = 2 * (len(S.live) + S.ring_cap) + 1024
            for c in S.clients:
                if c.pending is not None and len(c.pending) > live_bound:
                    c.pending = {r: None for r in list(c.pending) if not r.evicted}
        now = time.monotonic()
        for c in list(self.clients):
            if c.rbuf and now - c.rstart > IO_TIMEOUT:
                self._drop(c)

    def _sweep_names(self):
        """Forget the task names no record references any more, once they outnumber the records
        that can by max(records / 4, 1024): each sweep, which costs about as much as the records,
        then forgets at least a quarter as many names, and the table stays within about 1.25
        times the tasks it names.  The margin is the application's memory: its interpreter settles
        at the table's fullest size.  Names are interned on this thread only, so nothing races."""
        records = len(S.live) + len(S.ring) + sum(len(c.pinned) for c in S.clients)
        if len(S.name_ids) <= records + max(records >> 2, 1024):
            return
        used = {r.name_id for r in list(S.live.values())}
        used.update(r.name_id for r in list(S.ring))
        used.update(r.name_id for r in list(S.dead))
        for c in S.clients:
            used.update(r.name_id for r in c.pinned)
            used.update(c.name_refs)
        S.drop_names(used)

    def _accept(self):
        try:
            sock, _ = self.listen.accept()
        except OSError:
            return
        try:
            cred = sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
            _pid, uid, _gid = struct.unpack("3i", cred)
        except OSError:
            uid = -1
        sock.settimeout(IO_TIMEOUT)
        if uid != os.geteuid() and uid != 0:
            self._error(sock, 0, E_PEER, "peer uid %d refused: only uid %d or root may read this agent"
                        % (uid, os.geteuid()))
            _linger_close(sock)
            return
        if len(self.clients) >= MAX_CLIENTS and not self._make_room():
            self._error(sock, 0, E_BUSY, "too many connections (%d), all of them active" % MAX_CLIENTS)
            _linger_close(sock)
            return
        self.clients.append(Client(sock))

    def _make_room(self):
        """All connections are taken: the one idle the longest gives way, if it has sent nothing
        for IDLE_GIVE_WAY_S.  A reader that went quiet (stopped, or forgotten by a script) then
        never locks the others out; one that reads at least that often keeps its place."""
        now = time.monotonic()
        c = min(self.clients, key=lambda x: x.last_request)
        if now - c.last_request < IDLE_GIVE_WAY_S:
            return False
        self._fail(c, 0, E_BUSY, "connection idle for %.0f s, closed to make room for another reader"
                   % (now - c.last_request))
        return True

    def _unregister(self, c):
        """Take c's socket out of the selector before it is closed: once closed, its fd number
        can be given to the next connection at once, and registering that one would then fail
        with "already registered" and stop the thread."""
        if c.registered:
            c.registered = False
            try:
                self.sel.unregister(c.sock)
            except (KeyError, ValueError, OSError):
                pass

    def _drop(self, c):
        self._unregister(c)
        if c in self.clients:
            self.clients.remove(c)
        with S.lock:
            if c in S.clients:
                S.clients.remove(c)
            if not S.clients and S.tracking:
                S.tracking = False
        if not S.tracking:
            self._drain(None)  # clears the dirty flags so a later client's journal starts clean
        try:
            c.sock.close()
        except Exception:
            pass

    def _error(self, sock, seq, code, text):
        payload = U32.pack(code) + text.encode("utf-8", "replace")[:256]
        try:
            sock.sendall(HDR.pack(MAGIC, VERSION, T_ERROR, len(payload), seq) + payload)
        except OSError:
            pass

    def _readable(self, c):
        try:
            data = c.sock.recv(4096)
        except OSError:
            data = b""
        if not data:
            self._drop(c)
            return
        if not c.rbuf:
            c.rstart = time.monotonic()
        c.rbuf += data
        while len(c.rbuf) >= HDR.size and c in self.clients:
            magic, ver, typ, length, seq = HDR.unpack_from(c.rbuf)
            if magic != MAGIC:
                return self._fail(c, seq, E_MALFORMED, "bad magic")
            if ver != VERSION:
                return self._fail(c, seq, E_VERSION, "agent speaks protocol version %d, request has %d"
                                  % (VERSION, ver))
            if typ not in REQ_LEN or length > MAX_REQ or length != REQ_LEN[typ]:
                return self._fail(c, seq, E_MALFORMED,
                                  "unknown request type %d or bad length %d" % (typ, length))
            if len(c.rbuf) < HDR.size + length:
                return
            payload = c.rbuf[HDR.size:HDR.size + length]
            c.rbuf = c.rbuf[HDR.size + length:]
            c.rstart = c.last_request = time.monotonic()
            self._request(c, typ, seq, payload)

    def _fail(self, c, seq, code, text):
        self._unregister(c)
        self._error(c.sock, seq, code, text)
        if c in self.clients:
            self.clients.remove(c)
        _linger_close(c.sock)
        self._drop(c)

    def _request(self, c, typ, seq, payload):
        try:
            if typ == T_BYE:
                self._drop(c)
            elif typ == T_HELLO:
                vmin, vmax, flags = struct.unpack("<HHI", payload)
                if c.hello:
                    self._fail(c, seq, E_MALFORMED, "HELLO twice")
                elif flags:
                    self._fail(c, seq, E_MALFORMED, "HELLO flags must be 0")
                elif not vmin <= VERSION <= vmax:
                    self._fail(c, seq, E_VERSION, "agent speaks protocol version %d, reader asked %d..%d"
                               % (VERSION, vmin, vmax))
                else:
                    c.hello = True
                    self._send(c, T_HELLO_OK, seq, self._hello_payload())
            elif typ == T_READ:
                if not c.hello:
                    self._fail(c, seq, E_MALFORMED, "READ before HELLO")
                    return
                wait = c.last_read + MIN_READ_INTERVAL_NS - time.monotonic_ns()
                if wait > 0:
                    time.sleep(wait / 1e9)
                self._serve_read(c, seq, False)
                c.last_read = time.monotonic_ns()
        except OSError:
            self._drop(c)  # the reader went away or stopped draining its socket

    def _hello_payload(self):
        py = ("%s %s" % (sys.implementation.name, sys.version.split()[0])).encode()[:256]
        argv = " ".join(getattr(sys, "orig_argv", sys.argv)).encode("utf-8", "replace")
        if len(argv) > 1024:
            argv = argv[:1024].decode("utf-8", "ignore").encode("utf-8")
        agent = AGENT_VERSION.encode()
        flags = self.hello_flags | (8 if S.disabled_by_fault else 0) | (2 if S.uvloop_patched else 0)
        fix = HELLO_FIX.pack(os.getpid(), flags, proc_start_ticks(), S_START[0], time.monotonic_ns(),
                             time.time_ns(), S.ring_cap, MAX_PAYLOAD, os.sysconf("SC_CLK_TCK"),
                             os.geteuid(), len(py), len(argv), len(agent), 0)
        return fix + py + argv + agent


S_START = [0]
