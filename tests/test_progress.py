"""The run's progress line: rate limiting, ETA and the heartbeat that keeps long tasks visible."""
import io

from randml_core.progress import Progress


class Clock:
    def __init__(self):
        self.t = 0.0

    def __call__(self):
        return self.t


def test_line_counts_cells_and_estimates_eta_from_finished_cells():
    clock = Clock()
    p = Progress(4, "exp", stream=io.StringIO(), clock=clock)
    clock.t = 90.0
    p.update(1)  # 90 s per cell, 3 cells left -> 4.5 min
    assert p.line() == "exp [#######.......................] 1/4 cells 25.0% elapsed 0:01:30 ETA 0:04:30"
    assert p.stream.getvalue() == p.line() + "\n"


def test_non_terminal_output_is_rate_limited_but_always_shows_start_and_end():
    clock, out = Clock(), io.StringIO()
    p = Progress(10, "exp", stream=out, clock=clock)
    p.update(0)
    clock.t = 1.0
    p.update(3)  # within 5 s of the last line: not drawn
    clock.t = 7.0
    p.update(3)  # drawn
    clock.t = 8.0
    p.update(4)  # the last cells are always drawn
    lines = out.getvalue().splitlines()
    assert [ln.split("] ")[1].split(" cells")[0] for ln in lines] == ["0/10", "6/10", "10/10"]


def test_heartbeat_redraws_a_long_silent_task_with_its_elapsed_time():
    clock, out = Clock(), io.StringIO()
    p = Progress(5, "tiny", stream=out, clock=clock, heartbeat=60.0)
    p.update(0)
    clock.t = 59.0
    assert not p.beat()  # drawn 59 s ago: not yet
    clock.t = 61.0
    assert p.beat()
    clock.t = 1800.0
    assert p.beat()
    assert out.getvalue().splitlines()[-1].endswith("0/5 cells  0.0% elapsed 0:30:00 ETA --:--")
    p.update(5)
    clock.t = 4000.0
    assert not p.beat()  # finished: nothing more to show


def test_disabled_progress_writes_nothing_and_starts_no_thread():
    out = io.StringIO()
    with Progress(3, "exp", enabled=False, stream=out) as p:
        p.update(3)
        assert not p.beat()
    assert p._ticker is None and out.getvalue() == ""


def test_heartbeat_thread_stops_when_the_run_ends():
    with Progress(3, "exp", stream=io.StringIO(), heartbeat=0.01) as p:
        assert p._ticker.thread.is_alive()
    assert not p._ticker.thread.is_alive()
