"""`randml verify` over ELM boosting: its family declares the shared pass's seconds, levels and rate volatile (they
depend on which cells a task holds), so verify does not compare them; the engine's test of ``Family.volatile``
(tests/test_frames.py) uses a family of its own."""
from randml_core import verify as V
from randml_core.results import compose_spec


def test_elmboost_declares_its_shared_pass_volatile():
    assert V._volatile(compose_spec("elmboost")) == {"x_shared_seconds", "x_shared_levels", "x_gflops_per_s"}
