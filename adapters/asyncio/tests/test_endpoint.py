"""The endpoint: the private directory, the peer check, hostile requests, connections that come
and go, and the launcher.

Shared helpers: agentcase.py."""

import os
import shutil
import socket
import stat
import struct
import subprocess
import sys
import tempfile
import unittest

from agentcase import client, PKG_DIR, TIMEOUT, Child, AgentCase
from client import Reader


class Endpoint(AgentCase):
    def raw(self, path):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(5)
        s.connect(path)
        self.addCleanup(s.close)
        return s

    def expect_error_then_close(self, s, code):
        hdr = b""
        while len(hdr) < 16:
            chunk = s.recv(16 - len(hdr))
            self.assertTrue(chunk, "closed without an ERROR frame")
            hdr += chunk
        magic, ver, typ, length, seq = struct.unpack("<4sHHII", hdr)
        self.assertEqual((magic, ver, typ), (b"ATOP", client.VERSION, 0xFF))
        body = b""
        while len(body) < length:
            body += s.recv(length - len(body))
        self.assertEqual(struct.unpack_from("<I", body)[0], code, body)
        self.assertEqual(s.recv(1), b"")

    def test_hostile_requests_close_only_that_connection(self):
        c = Child(self, "idle")
        good = self.reader(c.path)
        good.read()
        hdr = struct.Struct("<4sHHII")
        cases = [
            (b"GARBAGE!" * 2, 3),
            (hdr.pack(b"ATOP", 4, 2, 1 << 20, 1), 3),  # oversized
            (hdr.pack(b"ATOP", 4, 0x77, 0, 1), 3),  # unknown type
            (hdr.pack(b"ATOP", 4, 2, 0, 1), 3),  # READ before HELLO
            (hdr.pack(b"ATOP", 9, 1, 8, 1) + b"\0" * 8, 4),  # wrong version
            (hdr.pack(b"ATOP", 3, 1, 8, 1) + struct.pack("<HHI", 3, 3, 0), 4),  # a version 3 reader
            (hdr.pack(b"ATOP", 4, 1, 8, 1) + struct.pack("<HHI", 5, 6, 0), 4),  # no common version
        ]
        for data, code in cases:
            s = self.raw(c.path)
            s.sendall(data)
            self.expect_error_then_close(s, code)
        s = self.raw(c.path)
        s.sendall(bytes(range(256)) * 4)
        self.expect_error_then_close(s, 3)
        snap = good.read()
        self.assertEqual(snap.end["gen"], 2)
        other = self.reader(c.path)
        self.assertEqual(other.read().end["gen"], 1)
        c.send("go")
        c.until_done(on_mark=lambda _: None)
        c.finish()

    def test_connections_closed_back_to_back(self):
        """A connection closing followed at once by another (discovery's probe, every retry)
        reuses the departed one's fd: the endpoint must keep answering."""
        c = Child(self, "idle")
        for i in range(40):
            s = self.raw(c.path)
            if i % 2:
                s.sendall(struct.pack("<4sHHII", b"ATOP", 2, 1, 8, 1) + struct.pack("<HHI", 2, 2, 0))
            s.close()
            r = Reader(c.path)
            r.do_hello()
            r.close()
        last = self.reader(c.path)
        self.assertEqual(last.read().end["gen"], 1)
        c.send("go")
        c.until_done(on_mark=lambda _: None)
        c.finish()

    def test_idle_connections_give_way(self):
        c = Child(self, "idle", env={"ASYNCTOP_IDLE_GIVE_WAY": "0"})
        idle = [self.reader(c.path) for _ in range(8)]
        for r in idle[1:]:
            r.read()  # the first connection is the one idle the longest
        ninth = self.reader(c.path)
        self.assertEqual(ninth.read().end["gen"], 1)
        with self.assertRaises(client.AgentError) as e:
            idle[0].recv_frame()
        self.assertEqual(e.exception.code, 2)
        self.assertEqual(idle[1].read().end["gen"], 2)
        c.send("go")
        c.until_done(on_mark=lambda _: None)
        c.finish()

    def test_active_connections_are_not_displaced(self):
        c = Child(self, "idle")
        full = [self.reader(c.path) for _ in range(8)]
        with self.assertRaises(client.AgentError) as e:
            self.reader(c.path)
        self.assertEqual(e.exception.code, 2)
        for r in full:
            self.assertEqual(r.read().end["gen"], 1)
        c.send("go")
        c.until_done(on_mark=lambda _: None)
        c.finish()

    def test_other_uid_refused(self):
        if os.geteuid() != 0:
            self.skipTest("needs root to drop a child to nobody")
        base = tempfile.mkdtemp(prefix="atest-uid-")
        self.addCleanup(shutil.rmtree, base, True)
        os.chmod(base, 0o755)
        c = Child(self, "idle", env={"XDG_RUNTIME_DIR": base, "ASYNCTOP_TEST_SOCKET_MODE": "0666"})
        self.assertEqual(stat.S_IMODE(os.stat(c.path).st_mode), 0o666)
        rfd, wfd = os.pipe()
        pid = os.fork()
        if pid == 0:
            try:
                os.close(rfd)
                os.setgroups([])
                os.setgid(65534)
                os.setuid(65534)
                s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                s.settimeout(5)
                s.connect(c.path)
                s.sendall(struct.pack("<4sHHII", b"ATOP", 2, 1, 8, 1) + struct.pack("<HHI", 2, 2, 0))
                data = b""
                while True:
                    b = s.recv(4096)
                    if not b:
                        break
                    data += b
                os.write(wfd, data)
            except BaseException as e:
                os.write(wfd, ("EXC %r" % e).encode())
            finally:
                os._exit(0)
        os.close(wfd)
        with os.fdopen(rfd, "rb") as f:
            data = f.read()
        os.waitpid(pid, 0)
        self.assertGreaterEqual(len(data), 20, data)
        self.assertFalse(data.startswith(b"EXC"), data)
        self.assertEqual(struct.unpack_from("<4sHHII", data)[2], 0xFF)
        self.assertEqual(struct.unpack_from("<I", data, 16)[0], 1)
        self.assertIn(b"uid 65534 refused", data)
        c.send("go")
        c.until_done(on_mark=lambda _: None)
        c.finish()

    def start_in(self, xdg, extra=""):
        env = dict(os.environ, XDG_RUNTIME_DIR=xdg, PYTHONPATH=PKG_DIR)
        env.pop("ASYNCTOP_SOCKET", None)
        code = "import asynctop_agent as a, sys; p = a.start(); print(p)" + extra
        return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                              timeout=TIMEOUT)

    def test_planted_directory_or_symlink_refused(self):
        base = tempfile.mkdtemp(prefix="atest-")
        self.addCleanup(shutil.rmtree, base, True)
        target = os.path.join(base, "elsewhere")
        os.mkdir(target, 0o700)
        os.symlink(target, os.path.join(base, "asynctop"))
        r = self.start_in(base)
        self.assertEqual(r.stdout.strip(), "None")
        self.assertIn("refusing", r.stderr)
        self.assertEqual(os.listdir(target), [])
        os.unlink(os.path.join(base, "asynctop"))
        os.mkdir(os.path.join(base, "asynctop"), 0o755)
        os.chmod(os.path.join(base, "asynctop"), 0o755)
        r = self.start_in(base)
        self.assertEqual(r.stdout.strip(), "None")
        self.assertIn("expected 0700", r.stderr)

    def test_explicit_socket_path(self):
        base = tempfile.mkdtemp(prefix="atest-")
        self.addCleanup(shutil.rmtree, base, True)
        path = os.path.join(base, "app.sock")
        env = dict(os.environ, ASYNCTOP_SOCKET=path, PYTHONPATH=PKG_DIR)
        code = ("import asynctop_agent as a, os; p = a.start(); "
                "print(p, oct(os.stat(p).st_mode & 0o777))")
        r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=TIMEOUT)
        self.assertEqual(r.stdout.split(), [path, "0o600"], r.stderr)
        self.assertFalse(os.path.exists(path), "removed at exit")

    def test_stale_sockets_removed(self):
        base = tempfile.mkdtemp(prefix="atest-")
        self.addCleanup(shutil.rmtree, base, True)
        d = os.path.join(base, "asynctop")
        os.mkdir(d, 0o700)
        dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                              text=True).stdout.strip()
        stale = os.path.join(d, "%s.sock" % dead)
        s = socket.socket(socket.AF_UNIX)
        s.bind(stale)
        s.close()
        live = os.path.join(d, "1.sock")  # pid 1 is alive: left alone
        s = socket.socket(socket.AF_UNIX)
        s.bind(live)
        s.close()
        r = self.start_in(base)
        self.assertTrue(r.stdout.strip().endswith(".sock"), r.stderr)
        self.assertFalse(os.path.exists(stale))
        self.assertTrue(os.path.exists(live))


class Launcher(unittest.TestCase):
    def test_module_entry_points(self):
        tmp = tempfile.mkdtemp(prefix="atest-")
        self.addCleanup(shutil.rmtree, tmp, True)
        app = ("import asyncio, sys, asynctop_agent\n"
               "async def main(): print(asynctop_agent.is_enabled(), sys.argv[1:])\n"
               "asyncio.run(main())\n")
        with open(os.path.join(tmp, "app.py"), "w") as f:
            f.write(app)
        os.mkdir(os.path.join(tmp, "pkg"))
        with open(os.path.join(tmp, "pkg", "__init__.py"), "w") as f:
            f.write("")
        with open(os.path.join(tmp, "pkg", "__main__.py"), "w") as f:
            f.write(app)
        env = dict(os.environ, XDG_RUNTIME_DIR=tmp, PYTHONPATH=PKG_DIR)
        r = subprocess.run([sys.executable, "-m", "asynctop_agent", os.path.join(tmp, "app.py"), "x", "-y"],
                           capture_output=True, text=True, env=env, cwd=tmp, timeout=TIMEOUT)
        self.assertEqual(r.stdout.strip(), "True ['x', '-y']", r.stderr)
        r = subprocess.run([sys.executable, "-m", "asynctop_agent", "-m", "pkg", "z"],
                           capture_output=True, text=True, env=env, cwd=tmp, timeout=TIMEOUT)
        self.assertEqual(r.stdout.strip(), "True ['z']", r.stderr)
        r = subprocess.run([sys.executable, os.path.join(tmp, "app.py")], capture_output=True, text=True,
                           env=env, timeout=TIMEOUT)
        self.assertEqual(r.stdout.strip(), "False []", "nothing is measured without opting in")


if __name__ == "__main__":
    unittest.main()
