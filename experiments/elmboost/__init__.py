"""ELM ridge-regression boosting (Andrecut 2023): Figures 1-2 and the claims table.

- ``family.py``: the family ``elm_ridge_boost`` (registered on import, loaded through the
  experiment's ``plugins``): Eq. (21) normalisation + ``ELMBoostClassifier`` with staged test
  accuracy per level, a seeded 10%-pixels-zeroed copy of the test set (noise variants) scored in
  the same pass, and settings that differ only in ``n_levels`` sharing one fit.
- ``report.py``: ``figures/elmboost_fig1|fig2.png|pdf`` and ``tables/elmboost_claims.md``; the claims
  also from the committed levels csv alone (``python -m randml_papers.elmboost.report --from-levels
  results/tables/elmboost_levels.csv``, ``make elmboost-claims``).
- ``sensitivity.py``: the readings the paper leaves open (ridge scaling, noise protocol, Eq. 21 mean) on
  mnist-5k at reduced scale, ``tables/elmboost_sensitivity.md`` (``make elmboost-sensitivity``).

Configs: ``conf/experiment/elmboost*.yaml``, ``conf/model/elmboost_*.yaml``; targets in
``elmboost.mk``; benchmark ``scripts/bench_elmboost.py``.
"""

from randml_core.plugins import Benchmark

#: what the engine and the site know of this benchmark (randml_core/plugins.py: the plug-in contract)
BENCHMARK = Benchmark(
    key='elmboost', short='ELM boosting', order=5,
    title='ELM Ridge Regression Boosting',
    authors='M. Andrecut (2023)',
    config_names=('elm_ridge_boosting', 'elmboost'), catalogue='elmboost', text='elm_ridge_boosting.txt',
    slow_to_verify={'elmboost': 'a cell is a whole boosting run (20 levels on 60,000 images: minutes on mnist-5k, '
                                'an hour on MNIST)', 'elmboost_fig1': 'as elmboost', 'elmboost_fig2': 'as elmboost'},
)
