"""``randml data list | show NAME | fetch [NAME...] | catalog`` (``randml_core.cli`` hands ``data`` and its alias
``dataset`` here).

Every subcommand takes ``--config-dir DIR`` (repeatable, before or after the subcommand): the dataset
cards ``DIR/dataset/*.yaml`` are validated and registered first (:func:`~randml_core.data.cards.register_cards`),
as ``randml run --config-dir DIR`` sees them. Exit status: 0 on success, 1 when the data could not be
read (``show`` / ``catalog``) or ``fetch`` failed for any dataset, 2 for a usage, card or unknown-dataset error.
"""

from __future__ import annotations

import argparse
import sys

__all__ = ["main", "parser"]

EPILOG = """examples:
  randml data list                              every dataset, shipped and from the repo's cards
  randml data list --config-dir ~/my-conf       also the cards in ~/my-conf/dataset/*.yaml
  randml data show heart                        load it: shape, hash, class and NaN counts, source, notes
  randml data fetch                             download every online copy into the cache (make data)
  randml data catalog --config-dir ~/my-conf    the catalogue table, loading every dataset (cache only)
  randml data catalog --csv catalog.csv         ... and every column (licence, citation, hash) to a csv

a dataset of your own: write a card DIR/dataset/NAME.yaml (name, task, source: {kind: csv, path, target};
see randml_core/data/cards.py) and pass --config-dir DIR here and to `randml run`."""


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="randml data", description="List, describe, fetch and catalogue datasets.",
                                epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--config-dir", metavar="DIR", action="append", default=[],
                   help="a config dir with dataset cards DIR/dataset/*.yaml (repeatable)")
    sub = p.add_subparsers(dest="command", metavar="{list,show,fetch,catalog}")
    ls = sub.add_parser("list", help="registered datasets: name, task, source kind, whether it is here or needs a "
                                     "download, papers, substitute, card")
    ls.add_argument("--paper", help="only the datasets tagged with this paper or benchmark (the `papers` column)")
    ls.add_argument("--group", help="only one group of a table (the `group` of its cards, e.g. uci)")
    show = sub.add_parser("show", help="load one dataset and print its shape, hash, class counts (not for regression), "
                                       "missing values (NaN) per column, source and notes")
    show.add_argument("name")
    show.add_argument("--source", default="auto", help="auto | offline | online | a source kind (default auto)")
    fetch = sub.add_parser("fetch", help="download the online copies into the cache (exit 1 if any fails)")
    fetch.add_argument("names", nargs="*", metavar="NAME", help="datasets to fetch (default: all)")
    fetch.add_argument("--force", action="store_true", help="download again even if cached")
    cat = sub.add_parser("catalog", help="the catalogue table (loads every dataset; never downloads unless asked)")
    cat.add_argument("names", nargs="*", metavar="NAME", help="datasets (default: all)")
    cat.add_argument("--csv", metavar="PATH", help="also write every column (licence, citation, hash, ...) to PATH")
    cat.add_argument("--allow-download", action="store_true",
                     help="download online sets that are not cached (default: cache only, as report and status)")
    for sp in (ls, show, fetch, cat):  # shown in each subcommand's help; the value is taken out beforehand
        sp.add_argument("--config-dir", metavar="DIR", action="append", default=[],
                        help="a config dir with dataset cards DIR/dataset/*.yaml (repeatable)")
    return p


def _split_config_dirs(args: list[str], flags=("--config-dir",)) -> tuple[list[str], list[str]]:
    """``--config-dir DIR`` (or another of ``flags``: ``randml run`` also takes Hydra's ``-cd DIR``) /
    ``--config-dir=DIR`` anywhere in ``args`` -> (dirs as given, the other args)."""
    dirs, rest, i = [], [], 0
    while i < len(args):
        a = args[i]
        if a in flags and i + 1 < len(args):
            dirs.append(args[i + 1])
            i += 2
            continue
        if a.startswith("--config-dir="):
            dirs.append(a.split("=", 1)[1])
        else:
            rest.append(a)
        i += 1
    return dirs, rest


def where_from(spec) -> tuple[str, str]:
    """``(source kind, here)`` of a dataset without loading it: the first source usable on this machine without
    a download and ``offline`` (or ``cached``: an online source's copy in the cache), else the first source
    and ``needs download`` (an online one exists: ``make data``) or ``not installed``."""
    from .sources import no_downloads

    with no_downloads():
        for source in spec.sources:
            if source.available():
                return source.kind, "cached" if source.online else "offline"
    online = [s for s in spec.sources if s.online]
    return (online or spec.sources)[0].kind, "needs download" if online else "not installed"


def _list(ns) -> int:
    from . import get_spec, list_datasets

    names = list_datasets(ns.paper, ns.group)
    print(f"{'name':28s} {'task':10s} {'source':16s} {'here':15s} {'papers':12s} substitute, card")
    here_counts: dict = {}
    for name in names:
        spec = get_spec(name)
        kind, here = where_from(spec)
        here_counts[here] = here_counts.get(here, 0) + 1
        sub = f"substitute for {spec.substitute_of}" if spec.substitute_of else ""
        card = f"card {spec.card}" if spec.card is not None else ""
        print(f"{name:28s} {spec.task:10s} {kind:16s} {here:15s} {','.join(spec.papers):12s} "
              f"{sub}{'  ' if sub and card else ''}{card}".rstrip())
    print(f"\n{len(names)} datasets: " + ", ".join(f"{n} {h}" for h, n in sorted(here_counts.items()))
          + " (here: usable on this machine without a download; needs download: `make data` or `randml data fetch "
          "NAME`). Model configs and the tasks they handle (which do regression): `randml model list`")
    return 0


def class_counts_line(ds) -> str | None:
    """``class counts (2 classes): 0 = 'absent': 150, 1 = 'present': 120`` (a binary set's original names with its
    0/1 labels); None for a regression target."""
    import numpy as np

    if ds.task == "regression":
        return None
    labels, counts = np.unique(ds.y, return_counts=True)
    names = ds.label_names or {}
    parts = [f"{lab} = {names[lab]!r}: {c}" if lab in names and str(names[lab]) != str(lab) else f"{lab}: {c}"
             for lab, c in zip(labels.tolist(), counts.tolist())]
    return f"class counts ({len(parts)} classes): " + ", ".join(parts)


def nan_counts_line(ds) -> str:
    """``NaN (missing values): none``, or ``NaN (missing values): 7 in 2 of 5 columns: age: 5, bmi: 2`` (the
    features' missing values, per column with any, by name where the data names its columns, else x<0-based index>)."""
    import numpy as np

    from .checks import issparse

    X = ds.X
    if issparse(X):  # a sparse matrix's NaN are among its stored values
        per = np.bincount(X.indices[np.isnan(X.data)], minlength=X.shape[1])
    else:
        per = np.isnan(X).sum(axis=0)
    cols = np.flatnonzero(per)
    if not cols.size:
        return "NaN (missing values): none"
    names = ds.feature_names if len(ds.feature_names) == X.shape[1] else tuple(f"x{i}" for i in range(X.shape[1]))
    shown = ", ".join(f"{names[i]}: {int(per[i])}" for i in cols[:30]) + (", ..." if cols.size > 30 else "")
    return f"NaN (missing values): {int(per.sum())} in {cols.size} of {X.shape[1]} columns: {shown}"


def _show(ns) -> int:
    from . import load_dataset

    ds = load_dataset(ns.name, source=ns.source)
    classes = class_counts_line(ds)
    print(f"{ds.name}: {ds.X.shape[0]} x {ds.X.shape[1]}, task {ds.task}, hash {ds.data_hash}\n"
          + (f"{classes}\n" if classes else "") + f"{nan_counts_line(ds)}\n"
          f"source: {ds.source}\nnotes: {ds.notes}")
    return 0


def _fetch(ns) -> int:
    from . import fetch, get_spec, list_datasets

    names = ns.names or list_datasets()
    for name in names:
        get_spec(name)  # an unknown name is a usage error, before any download
    failed = []
    for name in names:
        try:
            print(f"{name}: {fetch(name, force=ns.force)}")
        except Exception as exc:  # keep going: report every dataset
            failed.append(name)
            print(f"{name}: FAILED ({type(exc).__name__}: {exc})")
    if failed:
        print(f"randml data fetch: {len(failed)} of {len(names)} failed: {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


CATALOG_SHOWN = ["name", "task", "papers", "n", "d", "class_counts", "imbalance_ratio", "n_duplicate_rows",
                 "constant", "source_kind", "substitute_of", "status"]


def _short(text: str, width: int) -> str:
    return text if len(text) <= width else text[:width - 3] + "..."


def _catalog(ns) -> int:
    """The catalogue, one screen-width row per dataset (every column with ``--csv``). Exit 1 when a set
    failed to load for a reason other than needing a download (a broken card or file)."""
    import contextlib

    import pandas as pd

    from .catalog import catalog_frame, needs_download
    from .sources import no_downloads

    with contextlib.nullcontext() if ns.allow_download else no_downloads():
        frame = catalog_frame(ns.names or None)
    if ns.csv:
        from ..artefacts import atomic_write
        atomic_write(ns.csv, frame.to_csv(index=False))
    missing = frame["status"].map(needs_download)
    broken = (frame["status"] != "ok") & ~missing
    shown = frame.assign(
        constant=[len([c for c in v.split(",") if c]) if ok == "ok" else pd.NA
                  for v, ok in zip(frame["constant_features"], frame["status"])],
        class_counts=frame["class_counts"].map(lambda v: _short(v, 24)),
        status=["needs download (make data)" if m else _short(st, 70) for m, st in zip(missing, frame["status"])])
    shown["constant"] = shown["constant"].astype("Int64")
    with pd.option_context("display.max_rows", None, "display.width", 250):
        print(shown[CATALOG_SHOWN].rename(columns={"imbalance_ratio": "IR", "n_duplicate_rows": "dup_rows",
                                                    "constant": "const_feats"}).to_string(index=False, na_rep="-"))
    note = f"{len(frame)} datasets: {int((frame['status'] == 'ok').sum())} loaded"
    if missing.any():
        note += f", {int(missing.sum())} need a download ({'allowed' if ns.allow_download else 'not attempted'}; " \
                "`make data` or --allow-download)"
    if broken.any():
        note += f", {int(broken.sum())} failed: " + "; ".join(f"{n}: {st}" for n, st in
                                                          zip(frame["name"][broken], frame["status"][broken]))
    if ns.csv:
        note += f"; every column in {ns.csv}"
    print(note, file=sys.stderr)
    return 1 if broken.any() else 0


def main(args: list[str]) -> int:
    """Run ``randml data <args>``; returns the exit status."""
    from . import DataSourceError, UnknownDatasetError
    from .cards import CardError, config_dirs, register_cards

    dirs, rest = _split_config_dirs(list(args))
    ns = parser().parse_args(rest or ["list"])  # `randml data` alone lists
    command = ns.command
    try:
        register_cards(config_dirs(dirs))
        return {"list": _list, "show": _show, "fetch": _fetch, "catalog": _catalog}[command](ns)
    except (CardError, UnknownDatasetError, ValueError) as exc:  # a bad card, name or value: a usage error
        msg = exc.args[0] if isinstance(exc, UnknownDatasetError) and exc.args else exc
        print(f"randml data {command}: {msg}", file=sys.stderr)
        return 2
    except DataSourceError as exc:  # the data could not be read here (not installed, offline, corrupt cache)
        print(f"randml data {command}: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1
