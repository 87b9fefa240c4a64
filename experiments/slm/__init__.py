"""SLM paper (Fu, Yang, Mishra, Kuo, arXiv 2205.05296): Tables I-III, Figure 5 and the claims report.

- ``models.py``: runner families (SLM/SLR tree, Forest, Boost; DT, RF, XGBoost, linear / RBF SVM,
  LSVR, SVR-RBF) with probabilities, staged predictions and Table II model-size counts.
- ``common.py``: published numbers (``published.csv``), nested selection, cell formatting.
- ``table1.py``, ``table2.py``, ``fig5.py``: from the cells of ``conf/experiment/slm_table1.yaml``
  (Table II and Figure 5 share its store); ``table3.py``: ``slm_table3.yaml``.
- ``summary.py``: ``results/tables/slm_report.md`` from the table CSVs.

``make slm`` runs everything; ``make slm-table1 slm-table2 slm-table3 slm-fig5`` one artefact each;
``make bench-slm`` the fit-time benchmark (``scripts/bench_slm.py``).
"""

from randml_core.plugins import Benchmark

#: what the engine and the site know of this benchmark (randml_core/plugins.py: the plug-in contract)
BENCHMARK = Benchmark(
    key='slm', short='SLM', order=3,
    title='Subspace Learning Machine (SLM): Methodology and Performance',
    authors='H. Fu, Y. Yang, V. K. Mishra, C.-C. J. Kuo (arXiv 2205.05296)',
    config_names=('slm',), catalogue='slm', text='slm_subspace_learning_machine.txt',
    # result tables with several datasets: `make stats` writes their statistics over datasets
    tables={
        'slm_table1': ('accuracy', 'SLM Table I, accuracy (%)'),
        'slm_table3': ('rmse', 'SLM Table III, RMSE'),
    },
)
