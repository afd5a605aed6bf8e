"""One reader's connection: what it was sent, what it is owed, and the tasks that finished unseen."""

import time


class Client:
    def __init__(self, sock):
        self.sock = sock
        self.rbuf = b""
        self.rstart = 0.0  # when the pending partial request began (monotonic s)
        self.hello = False
        self.pending = None  # dict Rec -> None: changed since the last READ (None before the first)
        self.pinned = []  # evicted Recs this connection saw alive, to deliver as DONE
        self.owed = {}  # dict Rec -> None: a sliced reply's backlog, owed by the next slices
        self.alive_ids = set()  # tids delivered alive and not yet delivered DONE
        self.done_ids = set()  # tids delivered DONE while still in the ring
        self.agg = {}  # (stack, thread name) -> tuple of 7 cumulative figures
        self.agg_dirty = set()
        self.aggregated_total = 0
        self.sent_str = set()
        self.sent_stack = set()
        # Task names the reader holds: tid -> name id of each task it keeps alive, and how many
        # of those name each id.  A name id none of them names any more, once its last DONE
        # record went out, is retired at the end of the reply (protocol §4.7).
        self.named = {}
        self.name_refs = {}
        self.unnamed = set()  # name ids whose count fell to 0 in this reply
        self.gen = 0
        self.T0 = None
        self.last_read = 0
        self.registered = False  # in the server's selector
        self.last_request = time.monotonic()  # when it last sent a complete request

    def on_evict(self, old):
        """A finished record left the ring (loop thread, S.lock held)."""
        if self.T0 is None:
            return  # this connection's first boundary is not set yet: history for it
        tid = old.tid
        if tid in self.done_ids:
            self.done_ids.discard(tid)
        elif tid in self.alive_ids:
            self.pinned.append(old)
        elif old.ended > self.T0:
            key = (old.stack, old.thread_name)
            a = self.agg.get(key, (0, 0, 0, 0, 0, 0, 0))
            self.agg[key] = (a[0] + 1, a[1] + old.polls, a[2] + old.wakes, a[3] + old.self_wakes,
                             a[4] + old.busy, a[5] + old.sched, a[6] + old.idle)
            self.agg_dirty.add(key)
            self.aggregated_total += 1
