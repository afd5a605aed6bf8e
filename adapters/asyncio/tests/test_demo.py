"""Tests of the demo workload (../demo/shop.py) under the agent: each task family answers the
question it was designed for, read through the reference client (client.py) and, when
ASYNCTOP_BIN names the built binary, through `asynctop record -f text` as well.

The demo runs for real (about 35% of one core); the only waits are the windows themselves.
Bounds are generous: on a loaded 2-core machine each designed leader wins by a factor of 4 or more.
"""

import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from client import Reader, window  # noqa: E402

PKG_DIR = os.path.dirname(HERE)
SHOP = os.path.join(PKG_DIR, "demo", "shop.py")
README = os.path.join(PKG_DIR, "demo", "README.md")
WINDOW = 1.5  # seconds per window
TIMEOUT = 30.0  # for the demo to start or stop; far beyond what it needs
METRICS = ("idle", "busy", "scheduled", "polls", "wakes")  # the text report's sections
FIG = {"busy": 0, "scheduled": 1, "idle": 2, "polls": 3, "wakes": 4}  # index in client.window's tuple


def spawn_lines():
    """The line numbers of the demo's spawn sites, found by their text so that edits to shop.py
    do not break the test: name -> line (1-based)."""
    marks = {
        "module": "sys.exit(run())",
        "run": "asyncio.run(main(",
        "db": 'db_worker(shop, i), name="db-worker"',
        "poller": 'cache_poller(shop), name="cache-poller"',
        "metrics": "asyncio.create_task(report_metrics(shop, i))",
        "storefront": 'storefront(shop), name="storefront"',
        "checkout": "group.create_task(checkout(",
        "gather": "await asyncio.gather(reserve_stock(",
    }
    with open(SHOP, encoding="utf-8") as f:
        lines = f.read().splitlines()
    found = {}
    for key, text in marks.items():
        hits = [i + 1 for i, ln in enumerate(lines) if text in ln]
        if len(hits) != 1:
            raise AssertionError("shop.py: %r found on %d lines, expected 1" % (text, len(hits)))
        found[key] = hits[0]
    return found


def family_stacks():
    """Each family's full spawn stack, root first, as the agent names frames (module:qualname:line,
    the script's module being 'shop')."""
    n = spawn_lines()
    root = ["shop:[module]:%d" % n["module"], "shop:run:%d" % n["run"]]
    store = root + ["shop:main:%d" % n["storefront"]]
    return {
        "workers": root + ["shop:main:%d" % n["db"]],
        "poller": root + ["shop:main:%d" % n["poller"]],
        "metrics": root + ["shop:main:%d" % n["metrics"]],
        "storefront": store,
        "checkout": store + ["shop:storefront:%d" % n["checkout"]],
        "backends": store + ["shop:storefront:%d" % n["checkout"], "shop:checkout:%d" % n["gather"]],
    }


# The family (a key of family_stacks()) each question should rank first.
LEADER = {"idle": "workers", "busy": "checkout", "scheduled": "metrics", "polls": "poller", "wakes": "poller"}


class Demo:
    """The demo running under the agent, with its own runtime directory (hence its own socket)."""

    def __init__(self):
        self.tmp = tempfile.mkdtemp(prefix="atdemo-")
        env = dict(os.environ)
        env["XDG_RUNTIME_DIR"] = self.tmp
        env.pop("ASYNCTOP_SOCKET", None)
        env["PYTHONPATH"] = os.pathsep.join([PKG_DIR] + [p for p in [env.get("PYTHONPATH")] if p])
        # stdout is unused; stderr carries the start and stop lines (a few hundred bytes in all,
        # far below a pipe's buffer, so nobody needs to drain it while the demo runs).
        self.p = subprocess.Popen([sys.executable, "-m", "asynctop_agent", SHOP], stdin=subprocess.DEVNULL,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
        first = self.first_line()
        want = "demo: shop running, pid %d" % self.p.pid
        if first != want:
            err = self.stop()[1]
            raise AssertionError("demo's first line %r, expected %r; stderr: %s" % (first, want, err))
        self.path = os.path.join(self.tmp, "asynctop", "%d.sock" % self.p.pid)

    def first_line(self):
        """The first line the demo writes on stderr (it announces itself once its tasks exist)."""
        fd = self.p.stderr.fileno()
        buf = b""
        deadline = time.monotonic() + TIMEOUT
        while b"\n" not in buf:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                return buf.decode(errors="replace")
            chunk = os.read(fd, 4096)
            if not chunk:
                break
            buf += chunk
        line, _, self.rest = buf.partition(b"\n")
        return line.decode(errors="replace")

    def stop(self, sig=signal.SIGTERM):
        """Sends sig, waits for the exit: returns (status, the rest of stderr).  Kills on timeout."""
        if self.p.poll() is None:
            self.p.send_signal(sig)
        try:
            _, err = self.p.communicate(timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            self.p.kill()
            _, err = self.p.communicate()
        shutil.rmtree(self.tmp, True)
        return self.p.returncode, (getattr(self, "rest", b"") + err).decode(errors="replace")


def fold(r, a, b):
    """The window (a.T, b.T] folded per spawn stack, as the viewer and the text report fold it:
    stack text tuple -> [busy, sched, idle, polls, wakes, tasks]."""
    rows = {}
    for tid, t in b.tasks.items():
        figs = window(a, b, tid)
        alive = t.ended == 0 or t.ended > a.T
        if not alive:
            continue
        row = rows.setdefault(tuple(r.stack_text(t.stack)), [0, 0, 0, 0, 0, 0])
        for i, v in enumerate(figs):
            row[i] += v
        row[5] += 1
    return rows


class DemoShape(unittest.TestCase):
    """One demo process for the whole class: two windows read in setUpClass, checked by each test."""

    @classmethod
    def setUpClass(cls):
        cls.fam = family_stacks()
        cls.demo = Demo()
        r = Reader(cls.demo.path)
        try:
            r.do_hello()
            snaps = [r.read()]
            for _ in range(2):
                time.sleep(WINDOW)  # the window itself, not a synchronisation
                snaps.append(r.read())
        except BaseException:
            r.close()
            cls.demo.stop(signal.SIGKILL)
            raise
        cls.reader, cls.snaps = r, snaps
        cls.windows = [fold(r, a, b) for a, b in zip(snaps, snaps[1:])]

    @classmethod
    def tearDownClass(cls):
        cls.reader.close()
        cls.demo.stop()

    def row(self, rows, family):
        key = tuple(self.fam[family])
        self.assertIn(key, rows, "no row for %s (%s); rows: %s" % (family, " ← ".join(key), sorted(rows)))
        return rows[key]

    def test_each_question_has_its_designed_leader(self):
        names = {tuple(v): k for k, v in self.fam.items()}
        for w, rows in enumerate(self.windows):
            for metric, family in LEADER.items():
                i = FIG[metric]
                top = max(rows, key=lambda k: rows[k][i])
                got = names.get(top, " ← ".join(top))
                self.assertEqual(got, family, "window %d, top by %s: %s" % (w + 1, metric, rows[top]))

    def test_figures_are_in_the_designed_ranges(self):
        span = [(b.T - a.T) for a, b in zip(self.snaps, self.snaps[1:])]
        for w, rows in enumerate(self.windows):
            ns = span[w]
            busy = self.row(rows, "checkout")[0]
            # 25 ms of CPU per order, an order every 90 ms on average: about 28% of the window.
            self.assertGreater(busy, 0.10 * ns)
            self.assertLess(busy, 0.60 * ns)
            workers = self.row(rows, "workers")
            self.assertEqual(workers[5], 24)
            self.assertGreater(workers[2], 24 * 0.6 * ns)  # idle: waiting on the database
            self.assertGreater(self.row(rows, "metrics")[1], 0.1 * ns)  # scheduled, behind checkout
            self.assertEqual(self.row(rows, "metrics")[5], 8)
            poller = self.row(rows, "poller")
            self.assertGreater(poller[3], 1000 * ns / 1e9)  # thousands of polls a second
            self.assertEqual(self.row(rows, "poller")[5], 1)

    def test_named_and_unnamed_tasks(self):
        r = self.reader
        for name, family, count in (("db-worker", "workers", 24), ("cache-poller", "poller", 1),
                                    ("storefront", "storefront", 1), ("report_metrics", "metrics", 8)):
            ts = r.find(name)
            self.assertEqual(len(ts), count, name)
            self.assertTrue(all(r.stack_text(t.stack) == self.fam[family] for t in ts), name)
        checkouts = [t for t in r.tasks.values() if r.name(t).startswith("checkout-")]
        self.assertGreater(len(checkouts), 10)
        numbers = [int(r.name(t)[len("checkout-"):]) for t in checkouts]
        self.assertEqual(len(set(numbers)), len(numbers))  # unique names, one per order
        self.assertTrue(all(tuple(r.stack_text(t.stack)) == tuple(self.fam["checkout"]) for t in checkouts))
        # gather's tasks are unnamed: shown by their coroutine's qualname.
        self.assertGreater(len(r.find("reserve_stock")), 10)
        self.assertGreater(len(r.find("charge_card")), 10)
        self.assertEqual(len(r.find("main")), 1)

    def test_nested_spawn_three_levels_below_main(self):
        r = self.reader
        leaves = r.find("charge_card") + r.find("reserve_stock")
        self.assertTrue(leaves)
        for t in leaves:
            self.assertEqual(r.stack_text(t.stack), self.fam["backends"])  # root first
            chain = []
            p = t.parent
            while p:
                parent = r.tasks[p]
                chain.append(r.name(parent))
                p = parent.parent
            self.assertEqual(len(chain), 3, chain)
            self.assertTrue(chain[0].startswith("checkout-"), chain)
            self.assertEqual(chain[1:], ["storefront", "main"])

    def test_real_binary_text_report(self):
        binary = os.environ.get("ASYNCTOP_BIN")
        if not binary or not os.access(binary, os.X_OK):
            print("test_demo: skipping the real binary: ASYNCTOP_BIN is not set to the built asynctop",
                  file=sys.stderr)
            self.skipTest("ASYNCTOP_BIN is not set")
        cmd = [binary, "record", "-a", "asyncio", "-e", str(self.demo.p.pid), "-w", str(WINDOW), "-n", "1",
               "-f", "text", "-o", "-"]
        out = subprocess.run(cmd, capture_output=True, timeout=TIMEOUT)
        self.assertEqual(out.returncode, 0, out.stderr.decode(errors="replace"))
        text = out.stdout.decode()
        sections = parse_text(text)
        self.assertEqual(sorted(sections), sorted(METRICS), text)
        for metric, family in LEADER.items():
            stack, tasks = sections[metric][0]
            want = " ← ".join(reversed(self.fam[family]))  # the report prints the leaf first
            self.assertEqual(stack, want, "top by %s:\n%s" % (metric, text))
        self.assertEqual(sections["idle"][0][1], 24)


def parse_text(text):
    """`record -f text` output -> metric -> [(stack, tasks)] in printed order (formats.md, Text)."""
    sections, current = {}, None
    for line in text.splitlines():
        if line.startswith("top ") and " by " in line:
            current = sections.setdefault(line.rsplit(" by ", 1)[1], [])
        elif current is not None and line.strip() and not line.lstrip().startswith("IDLE"):
            cols = line.split(None, 6)
            current.append((cols[6], int(cols[5])))
        elif not line.strip():
            current = None
    return sections


class DemoLifecycle(unittest.TestCase):
    def test_signals_stop_it_cleanly(self):
        for sig in (signal.SIGTERM, signal.SIGINT):
            demo = Demo()
            status, err = demo.stop(sig)
            self.assertEqual(status, 0, err)
            self.assertIn("demo: shop stopped after", err)
            self.assertNotIn("Traceback", err)

    def test_readme_names_the_spawn_sites(self):
        """The README tells which row is which by its leaf frame: it must match shop.py's lines."""
        with open(README, encoding="utf-8") as f:
            readme = f.read()
        for family, stack in family_stacks().items():
            self.assertIn("`%s`" % stack[-1], readme, family)


if __name__ == "__main__":
    unittest.main()
