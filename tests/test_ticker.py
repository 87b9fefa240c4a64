"""The one daemon-thread loop of the progress bar, the leases and the writer (randml_core.ticker.Ticker)."""
import threading
import time

from randml_core.ticker import Ticker


def test_a_ticker_calls_until_stopped_and_stop_waits_for_the_thread():
    calls = []
    t = Ticker(0.01, lambda: calls.append(time.monotonic()), "t").start()
    deadline = time.monotonic() + 5
    while len(calls) < 3 and time.monotonic() < deadline:
        time.sleep(0.01)
    t.stop()
    n = len(calls)
    assert n >= 3 and not t.thread.is_alive() and t.thread.daemon and t.thread.name == "t"
    time.sleep(0.05)
    assert len(calls) == n  # nothing after stop()


def test_a_tick_returning_stop_ends_the_thread_and_other_values_do_not():
    values = iter([False, None, 0, Ticker.STOP, "never"])
    seen = []
    t = Ticker(0.001, lambda: seen.append(v := next(values)) or v, "t").start()
    t.thread.join(5)
    assert not t.thread.is_alive() and seen == [False, None, 0, Ticker.STOP]
    t.stop()  # after the thread ended by itself: returns at once


def test_stop_before_the_first_tick_calls_nothing():
    called = threading.Event()
    t = Ticker(60, called.set, "t").start()
    t.stop()
    assert not called.is_set() and not t.thread.is_alive()
