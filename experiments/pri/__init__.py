"""PRI-SMO paper (Sanchez Giraldo, Section 6): the sample-size / tolerance / lambda sweep.

- ``sweep.py``: the analysis family ``pri_smo_sweep`` (registered on import, loaded through the
  experiment's ``plugins``): one cell draws the Section 6.1 mixture and solves it with ``PRISMO``.
- ``report.py``: Figures 1-2, the support-point scatter and ``results/tables/pri_report.md``.

Configs: ``conf/experiment/pri_sweep.yaml`` (the paper's scale) and ``pri_quick.yaml`` (under a
minute), model ``conf/model/pri_smo.yaml``.
"""

from randml_core.plugins import Benchmark

#: what the engine and the site know of this benchmark (randml_core/plugins.py: the plug-in contract)
BENCHMARK = Benchmark(
    key='pri', short='PRI-SMO', order=2,
    title='A Sequential Minimal Optimization for the Principle of Relevant Information',
    authors='L. G. Sánchez Giraldo',
    config_names=('pri_smo', 'pri'), catalogue='pri', text='pri_smo.txt',
)
