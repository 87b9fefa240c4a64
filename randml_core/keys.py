"""Cell keys: the one module that says what a cell's key hashes (:func:`cell_key`, the reference recipe) and how the
planner hashes it fast (:func:`key_hashers` + :func:`finish_key`: the same JSON, its common head hashed once per
split and variant), with the canonical JSON of a setting (:func:`canonical_params`) that the searches share
(:mod:`randml_core.search` plans settings from stored scores without importing the planner).

A key is a content hash of everything that determines a cell's result: the data hash, the preprocessing, the split
definition, the family with its options and code version, the canonical parameters and the model seed.
"""
from __future__ import annotations

import hashlib
import json

import numpy as np

from .family import family_of, is_registered, target_key
from .preprocess import preprocessing_of

__all__ = ["canonical_params", "cell_key", "family_parts", "key_hashers", "finish_key", "OUTCOME_OPTIONS"]


def canonical_params(params: dict) -> str:
    """``params`` as sorted-key JSON with numpy scalars as Python numbers (a setting's identity in cell keys)."""
    def norm(v):
        if isinstance(v, (np.floating, float)):
            return float(v)
        if isinstance(v, (np.integer, int)) and not isinstance(v, bool):
            return int(v)
        return v
    return json.dumps({k: norm(params[k]) for k in sorted(params)}, sort_keys=True)


#: run options that change a cell's outcome but are not a family's own (``<family>_*``) option: in the key's
#: options when set (a cell failed under ``cell_timeout=0.01`` is not the cell of a run without that limit)
OUTCOME_OPTIONS = ("cell_timeout",)


def family_parts(spec, variant) -> tuple[str, str, str]:
    """JSON of the key's family, options and version fields. A family's options are the experiment
    options named ``<family>_*``; a ``_target_`` model's are its whole estimator node (import path
    and fixed arguments); its version names the installed package versions."""
    limits = {k: spec.options[k] for k in OUTCOME_OPTIONS if spec.options.get(k) is not None}
    if variant.target is not None:
        tkey = target_key(variant.target)
        version = spec.family_versions.get(tkey)  # from the checks memo: no import of the estimator
        if version is None:
            version = family_of(variant.family, variant.target).version
        if limits:  # only when set: every key without such an option is unchanged
            tkey = json.dumps({"estimator": json.loads(tkey), **limits}, sort_keys=True)
        return json.dumps(variant.family), tkey, json.dumps(version)
    family = variant.family
    options = {k: spec.options[k] for k in sorted(spec.options) if k.startswith(family + "_")}
    options.update(limits)
    version = None if is_registered(family) else spec.family_versions.get(family)  # from the checks memo
    return (json.dumps(family), json.dumps(options, sort_keys=True),
            json.dumps(family_of(family).version if version is None else version))


def split_definition(p, split) -> list:
    """The key's ``split`` field: the protocol's kind, sizes and seed and the split's place in it."""
    # inner_splits only defines inner cells: outer cells are shared by nested and plain runs
    return [p.kind, p.n_splits, p.test_size, p.seed, p.inner_splits if split.inner >= 0 else 0,
            split.repeat, split.fold, split.inner]


def cell_key(data_hash: str, spec, split, variant, params_json: str,
             prep: str | None = None) -> str:
    """The reference recipe of a cell's key (the planner hashes the same JSON through :func:`key_hashers`).
    ``prep``: the dataset's description (:func:`~randml_core.preprocess.dataset_prep`); default the experiment's."""
    p = spec.protocol
    family, options, version = family_parts(spec, variant)
    payload = json.dumps({
        "data": data_hash, "prep": preprocessing_of(spec.options) if prep is None else prep,
        "split": split_definition(p, split),
        "family": json.loads(family), "version": json.loads(version), "params": params_json,
        "model_seed": split.model_seed, "options": json.loads(options),
    }, sort_keys=True)
    return hashlib.sha256(payload.encode()).hexdigest()[:24]


def key_hashers(p, data_hash: str, split, preps: list, parts: list) -> list[tuple]:
    """Per variant (``parts[i]``: its :func:`family_parts`; ``preps[i]``: its preprocessing JSON), the hash state of
    :func:`cell_key`'s JSON before the ``params`` field on ``split`` and the bytes after it: the fields before
    ``params`` (in sort_keys order) are the same for every setting of a (split, variant), so they are hashed once
    and the state copied (:func:`finish_key`)."""
    data = '{"data": ' + json.dumps(data_hash) + ', "family": '
    seed = json.dumps(split.model_seed)
    split_def = json.dumps(split_definition(p, split))
    tails = {pr: ', "prep": ' + pr + ', "split": ' + split_def + ', "version": ' for pr in set(preps)}
    out = []
    for pr, (family, options, version) in zip(preps, parts):
        head = hashlib.sha256((data + family + ', "model_seed": ' + seed + ', "options": ' + options
                               + ', "params": ').encode())
        out.append((head, (tails[pr] + version + "}").encode()))
    return out


def finish_key(head, end: bytes, params_bytes: bytes) -> str:
    """The key of one setting (``params_bytes``: ``json.dumps`` of its :func:`canonical_params`) from a
    :func:`key_hashers` pair."""
    h = head.copy()
    h.update(params_bytes)
    h.update(end)
    return h.hexdigest()[:24]
