"""ELM-Boost's Fashion-MNIST (Debian's IDX files): hidden from the suite unless a test opts in (moved from
tests/test_data.py)."""

import pytest

from randml_core.data import load_dataset


def test_system_data_is_hidden_from_the_suite():
    """Optional Debian Fashion-MNIST is invisible unless a test opts in: the same answer on every machine."""
    from randml_papers.elmboost.datasets import IDXSource
    from randml_core.data.sources import SourceUnavailableError

    assert not IDXSource().available()
    with pytest.raises(SourceUnavailableError, match="fashion-mnist"):
        load_dataset("fashion-mnist")  # no Debian files, no cache, no download


@pytest.mark.system_data
def test_debian_fashion_mnist_when_installed():
    """Opt-in: Debian's dataset-fashion-mnist, where installed, has the published split and class counts."""
    from randml_papers.elmboost.datasets import IDXSource

    if not IDXSource().available():
        pytest.skip(f"Debian dataset-fashion-mnist is not installed here ({IDXSource().path()})")
    ds = load_dataset("fashion-mnist")
    assert ds.X.shape == (70000, 784) and ds.class_counts() == {c: 7000 for c in range(10)}
    assert ds.source_kind == "offline-debian"
