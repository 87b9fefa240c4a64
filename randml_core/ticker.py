"""A daemon thread that calls a function every few seconds until stopped (:class:`Ticker`): the progress bar's
heartbeat, the leases' refresh and the writer's timed flush each run one.

Written here rather than taken from a library: it is the standard library's ``Event.wait`` loop, six lines, which
the three places had each written out; ``threading.Timer`` fires once, and a scheduler package would add a
dependency for less.
"""
from __future__ import annotations

import threading
from typing import Callable


class Ticker:
    """Calls ``tick()`` every ``seconds`` (measured from the end of the last call) in a daemon thread named ``name``,
    from :meth:`start` until :meth:`stop` (which waits for a call in progress) or until ``tick`` returns
    :data:`STOP` (any other value is ignored)."""

    STOP = object()

    def __init__(self, seconds: float, tick: Callable[[], object], name: str):
        self.seconds, self.tick, self.name = seconds, tick, name
        self._stop = threading.Event()
        self.thread: threading.Thread | None = None

    def _loop(self) -> None:
        while not self._stop.wait(self.seconds):
            if self.tick() is Ticker.STOP:
                return

    def start(self) -> "Ticker":
        self.thread = threading.Thread(target=self._loop, name=self.name, daemon=True)
        self.thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self.thread is not None:
            self.thread.join()
