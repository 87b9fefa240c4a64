

from randml_core.plugins import Benchmark

#: what the engine and the site know of this benchmark (randml_core/plugins.py: the plug-in contract)
BENCHMARK = Benchmark(
    key='eem', short='EEM', order=1,
    title='Extreme Entropy Machines: robust information theoretic classification',
    authors='W. M. Czarnecki, J. Tabor',
    config_names=('eem',), catalogue='eem', text='eem_extreme_entropy_machines.txt',
    # result tables with several datasets: `make stats` writes their statistics over datasets
    tables={
        'eem_table4': ('gmean', "EEM Table 4 (UCI part), best mean CV GMean over the grid (the paper's rule)"),
        'eem_table4_nested': ('gmean', 'EEM Table 4 (UCI part), nested CV selection'),
        'eem_table4_unbalanced': ('gmean', 'EEM Table 4 (unbalanced part), best mean CV GMean'),
    },
)
