"""The endpoint's file-system side: where the socket lives (protocol §1), the private directory
checked before it is used, sockets of processes that are gone, and this process's start time."""

import os
import stat
import sys


def log(msg):
    try:
        sys.stderr.write("asynctop agent: %s\n" % msg)
    except Exception:
        pass


def endpoint_path():
    """(directory or None, socket path) by the rules of protocol §1."""
    explicit = os.environ.get("ASYNCTOP_SOCKET")
    if explicit:
        return None, explicit
    launched = os.environ.get("ASYNCTOP_SOCKET_DIR", "")
    if launched.startswith("/"):  # asynctop -- COMMAND's private directory
        return launched, os.path.join(launched, "%d.sock" % os.getpid())
    xdg = os.environ.get("XDG_RUNTIME_DIR", "")
    if xdg.startswith("/"):
        d = os.path.join(xdg, "asynctop")
    else:
        d = "/tmp/asynctop-%d" % os.geteuid()
    return d, os.path.join(d, "%d.sock" % os.getpid())


def _test_mode():
    return os.environ.get("ASYNCTOP_TEST_SOCKET_MODE") == "0666"


def prepare_dir(d):
    """Create or check the private directory; raises OSError with a clear message."""
    test = _test_mode()
    try:
        os.mkdir(d, 0o755 if test else 0o700)
        if test:
            os.chmod(d, 0o755)
    except FileExistsError:
        pass
    st = os.lstat(d)
    if not stat.S_ISDIR(st.st_mode):
        raise OSError("%s is not a directory (a symlink or file planted there?); refusing" % d)
    if st.st_uid != os.geteuid():
        raise OSError("%s is owned by uid %d, not %d; refusing" % (d, st.st_uid, os.geteuid()))
    allowed = 0o755 if test else 0o700
    if stat.S_IMODE(st.st_mode) & ~allowed & 0o777 or (not test and stat.S_IMODE(st.st_mode) & 0o077):
        raise OSError("%s has mode %o, expected 0700; refusing" % (d, stat.S_IMODE(st.st_mode)))


def remove_stale(d):
    """Remove <pid>.sock files of processes that no longer exist, and our own old one."""
    try:
        names = os.listdir(d)
    except OSError:
        return
    for n in names:
        if not n.endswith(".sock") or not n[:-5].isdigit():
            continue
        pid = int(n[:-5])
        dead = pid == os.getpid()
        if not dead:
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                dead = True
            except OSError:
                pass
        if dead:
            p = os.path.join(d, n)
            try:
                if stat.S_ISSOCK(os.lstat(p).st_mode):
                    os.unlink(p)
            except OSError:
                pass


def proc_start_ticks():
    try:
        with open("/proc/self/stat", "rb") as f:
            data = f.read()
        # Field 2 (comm) may contain spaces and parentheses: split after the last ')'.
        rest = data[data.rindex(b")") + 2:].split()
        return int(rest[19])  # field 22 is the 20th after comm
    except Exception:
        return 0
