"""``python -m randml_core``: the ``randml`` command line."""
from .cli import main

main()
