"""randml test suite (a regular package, so that a dependency shipping a top-level `tests` package cannot shadow it)."""
