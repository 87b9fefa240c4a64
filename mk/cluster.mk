# Beyond one machine (docs/cluster.md): the Hydra launchers of the `cluster` extra.
.PHONY: cluster

# Install hydra-submitit-launcher and hydra-joblib-launcher into the venv (SLURM and local sweeps).
cluster: $(STAMP)
	$(PY) -m pip install --quiet -c constraints.txt -e '.[cluster]'
