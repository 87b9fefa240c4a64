"""The run's one-line progress bar with ETA and heartbeat (:class:`Progress`), used by the runner's rounds."""
from __future__ import annotations

import math
import sys
import threading
import time

from .ticker import Ticker

__all__ = ["Progress"]


class Progress:
    """A one-line progress bar with ETA on stderr (plain periodic lines when not a terminal).

    Used as a context manager it also keeps a heartbeat: a daemon thread re-draws the line every
    ``heartbeat`` seconds (every second on a terminal), so a task that runs for half an hour (one
    Fashion-MNIST boosting fit) still shows its elapsed time instead of a frozen 0 %.

    Written here, not tqdm (installed as a dependency of other packages): tqdm redraws only when
    ``update`` is called, so the heartbeat would need this timer thread anyway, and on a stream that is
    not a terminal it writes carriage-return frames into log files instead of a line every few seconds;
    what would remain of tqdm is the line format.
    """

    def __init__(self, total: int, label: str, enabled: bool = True, stream=None,
                 heartbeat: float | None = None, clock=time.monotonic):
        self.total, self.label, self.enabled = total, label, enabled and total > 0
        self.stream = stream or sys.stderr
        self.clock = clock
        self.done, self.t0, self.last = 0, clock(), -math.inf
        self.tty = getattr(self.stream, "isatty", lambda: False)()
        self.heartbeat = heartbeat if heartbeat is not None else (1.0 if self.tty else 60.0)
        self._lock = threading.Lock()
        self._ticker: Ticker | None = None

    @staticmethod
    def _fmt(seconds: float) -> str:
        if not math.isfinite(seconds):
            return "--:--"
        m, s = divmod(int(seconds), 60)
        h, m = divmod(m, 60)
        return f"{h}:{m:02d}:{s:02d}"

    def line(self) -> str:
        elapsed = self.clock() - self.t0
        eta = elapsed / self.done * (self.total - self.done) if self.done else float("inf")
        frac = self.done / self.total if self.total else 1.0
        bar = "#" * int(30 * frac) + "." * (30 - int(30 * frac))
        return (f"{self.label} [{bar}] {self.done}/{self.total} cells {frac:5.1%} "
                f"elapsed {self._fmt(elapsed)} ETA {self._fmt(eta)}")

    def _draw(self) -> None:
        self.last = self.clock()
        line = self.line()
        self.stream.write(("\r" + line) if self.tty else line + "\n")
        if self.tty and self.done >= self.total:
            self.stream.write("\n")
        self.stream.flush()

    def update(self, n: int) -> None:
        with self._lock:
            self.done += n
            if not self.enabled:
                return
            if not self.tty and self.clock() - self.last < 5 and 0 < self.done < self.total:
                return
            self._draw()

    def beat(self) -> bool:
        """Re-draw if nothing was drawn for ``heartbeat`` seconds and work is left; True if drawn."""
        with self._lock:
            if not self.enabled or self.done >= self.total or self.clock() - self.last < self.heartbeat:
                return False
            self._draw()
            return True

    def __enter__(self) -> "Progress":
        if self.enabled:
            self._ticker = Ticker(min(self.heartbeat, 1.0), self.beat, "randml-progress").start()
        return self

    def __exit__(self, *exc) -> None:
        if self._ticker is not None:
            self._ticker.stop()
