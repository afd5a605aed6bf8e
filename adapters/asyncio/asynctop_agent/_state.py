"""The agent's one mutable state and its interning of strings, names and stacks.

The loop threads (through _core's hooks) and the server thread share it; see the comments in
State for what may race and why that is harmless.
"""

import asyncio
import collections
import itertools
import os
import runpy
import threading

from ._names import line_of as _line_of

MAX_DEPTH = 128  # own frames per captured stack
MAX_INTERN = 65536  # strings and stacks
MAX_NAME = 4096  # bytes per string

_ASYNCIO_DIR = os.path.dirname(asyncio.__file__) + os.sep
_AGENT_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep


class State:
    """All mutable agent state, one instance (reset in a forked child)."""

    def __init__(self):
        self.enabled = False
        self.disabled_by_fault = False
        self.tids = itertools.count(1)  # own task ids (atomic under the GIL, never reused)
        self.live = {}  # tid -> Rec, unfinished tasks
        self.recs = {}  # id(task) -> Rec, every task with a record that still exists
        self.due = None  # the _timers.Timer (loop, due ns) whose callback runs on that loop
        self.ring = collections.deque()  # finished Recs, oldest first
        self.ring_cap = 4096
        self.finished_total = 0
        self.boundary = 0  # the latest reply's boundary_ns: no wake is backdated before it
        self.dead = []  # Recs whose task was collected while unfinished (finaliser)
        self.lock = threading.RLock()  # eviction vs. delivery (server)
        self.clients = []  # server connections that have done a first READ
        self.tracking = False  # a client wants change journaling
        self.journal = []  # Recs changed since the last drain (each once)
        # Interning.  Ids come from counters (atomic under the GIL) and tables are dicts, so the
        # loop threads and the server thread can intern concurrently without a lock (two threads
        # racing on the same new text may give it two ids, which is harmless).
        self.str_next = itertools.count(1)
        self.strings = {}  # id -> text, or a lazy (code, lasti, module) for frames
        self.str_ids = {}  # text -> id
        self.frame_ids = {}  # (id(code), lasti) -> string id
        self.code_keep = []  # interned code objects, kept alive so their ids stay unique
        self.skip = {}  # id(code) -> bool (frame skipped in spawn stacks)
        self.name_ids = {}  # task name text -> id: an id space of its own, retired (protocol §4.7)
        self.stack_next = itertools.count(1)
        self.stacks = {}  # id -> (parent id, tuple of frame string ids, frames left out above)
        self.stack_ids = {}  # (parent id, frames, left out) -> id
        self.overflow = False
        self.loop_threads = set()  # thread_token() of each thread that ran a loop
        self.thread_tokens = itertools.count(1)
        self.loop_ids = itertools.count(1)
        self.first_task_seen = False
        self.need_server = False  # a forked child opens its endpoint at its next new task
        self.skip_dirs = [_ASYNCIO_DIR, _AGENT_DIR]
        # runpy runs `-m asynctop_agent app.py`; since 3.11 it is a frozen module whose
        # frames name "<frozen runpy>", not its file.
        self.skip_files = {runpy.__file__, "<frozen runpy>"}
        self.on_first_task = None  # callable, set by the package (launch rendezvous hook)
        self.on_fault = None
        self.uvloop_patched = False
        self.other_id = 0
        self.other_stack = 0
        self.unknown_stack = 0

    def init_sentinels(self):
        self.other_id = self.intern_str("[other]")
        self.other_stack = self.intern_stack(0, (self.other_id,))
        unknown = self.intern_str("[spawn site unknown]")
        self.unknown_stack = self.intern_stack(0, (unknown,))

    # -- interning ---------------------------------------------------------------------------

    def _clip(self, text):
        """A new text as it is interned: None when the table is full (the caller answers
        other_id), else the text cut at MAX_NAME bytes on a character boundary."""
        if len(self.strings) >= MAX_INTERN:
            self.overflow = True
            return None
        b = text.encode("utf-8", "replace")
        return b[:MAX_NAME].decode("utf-8", "ignore") if len(b) > MAX_NAME else text

    def intern_str(self, text):
        sid = self.str_ids.get(text)
        if sid is None:
            text = self._clip(text)
            if text is None:
                return self.other_id
            sid = next(self.str_next)
            self.strings[sid] = text
            self.str_ids[text] = sid
        return sid

    def intern_name(self, text):
        """A task name's id (server thread only).  Ids of names come from the strings' counter
        but never stand for anything else, so a name can be retired without touching a frame
        or a thread that has the same text; an id is never given to another text."""
        sid = self.name_ids.get(text)
        if sid is None:
            text = self._clip(text)
            if text is None:
                return self.other_id
            sid = self.name_ids.get(text)  # a long name cut to one already interned
            if sid is not None:
                return sid
            sid = next(self.str_next)
            self.strings[sid] = text
            self.name_ids[text] = sid
        return sid

    def drop_names(self, used):
        """Forget every task name whose id is not in used (server thread)."""
        for text, sid in list(self.name_ids.items()):
            if sid not in used:
                del self.name_ids[text]
                self.strings.pop(sid, None)

    def intern_stack(self, parent, frames, dropped=0):
        key = (parent, frames, dropped)
        sid = self.stack_ids.get(key)
        if sid is None:
            if len(self.stacks) >= MAX_INTERN:
                self.overflow = True
                return self.other_stack
            sid = next(self.stack_next)
            self.stacks[sid] = key
            self.stack_ids[key] = sid
        return sid

    def string_text(self, sid):
        """The text of a string id, resolving a lazily interned frame (server thread)."""
        v = self.strings[sid]
        if type(v) is tuple:
            code, lasti, module = v
            # pprof readers drop <...> from names (shop:<module>:9 read shop::9): brackets stay.
            qn = code.co_qualname.replace("<", "[").replace(">", "]")
            v = "%s:%s:%d" % (module, qn, _line_of(code, lasti))
            b = v.encode("utf-8", "replace")
            if len(b) > MAX_NAME:
                v = b[:MAX_NAME].decode("utf-8", "ignore")
            self.strings[sid] = v
        return v


S = State()
