"""MeMd paper (Dukkipati et al., generative maximum entropy): Tables II and III, claims report.

``families`` registers the runner families (MeMd-J / MeMd-JS, linear SVM and DME with C chosen on
the training part); ``table2`` / ``table3`` build the tables from the stores; ``summary`` writes
``results/tables/memd_report.md`` from the two tables' CSVs.
"""

from randml_core.plugins import Benchmark

#: what the engine and the site know of this benchmark (randml_core/plugins.py: the plug-in contract)
BENCHMARK = Benchmark(
    key='memd', short='MeMd', order=4,
    title='Generative Maximum Entropy Learning for Multiclass Classification',
    authors='A. Dukkipati, G. Pandey, D. Ghoshdastidar, P. Koley, D. M. V. S. Sriram',
    config_names=('memd',), catalogue='memd', text='memd_generative_maxent.txt',
    # result tables with several datasets: `make stats` writes their statistics over datasets
    tables={
        'memd_table2': ('accuracy', 'MeMd Table II, accuracy (%)'),
    },
)
