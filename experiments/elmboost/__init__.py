"""ELM ridge-regression boosting (Andrecut 2023): Figures 1-2 and the claims table.

- ``family.py``: the family ``elm_ridge_boost`` (registered on import, loaded through the
  experiment's ``plugins``): Eq. (21) normalisation + ``ELMBoostClassifier`` with staged test
  accuracy per level, a seeded 10%-pixels-zeroed copy of the test set (noise variants) scored in
  the same pass, and settings that differ only in ``n_levels`` sharing one fit.
- ``report.py``: ``figures/elmboost_fig1|fig2.png|pdf`` and ``tables/elmboost_claims.md``.

Configs: ``conf/experiment/elmboost*.yaml``, ``conf/model/elmboost_*.yaml``; targets in
``mk/elmboost.mk``; benchmark ``scripts/bench_elmboost.py``.
"""
