"""A dataset of arrays a test makes (``temp_dataset`` in conftest.py registers one by name)."""
from randml_core.data.sources import LoadResult, Source


class ArraySource(Source):
    kind = "synthetic"

    def __init__(self, X, y):
        self.X, self.y = X, y

    def describe(self):
        return "arrays made by the test"

    def available(self):
        return True

    def load_detailed(self, name="<dataset>"):
        return LoadResult(self.X, self.y, self.kind, self.describe())
