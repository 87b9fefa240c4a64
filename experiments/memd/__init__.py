"""MeMd paper (Dukkipati et al., generative maximum entropy): Tables II and III, claims report.

``families`` registers the runner families (MeMd-J / MeMd-JS, linear SVM and DME with C chosen on
the training part); ``table2`` / ``table3`` build the tables from the stores; ``summary`` writes
``results/tables/memd_report.md`` from the two tables' CSVs.
"""
