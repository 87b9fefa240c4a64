"""The trust model (README "Trust", randml_core/trust.py): a config or a dataset card is data. Each probe of
the trust issue is run as a user would, through `randml plan` on a config folder of their own, and must
be refused with exit 2 before anything is called: the directory `_target_: shutil.rmtree` names still
exists, the file a `subprocess:run` generator would create does not."""
import subprocess
import sys

import pytest

from randml_core.config import ConfigError
from randml_core.trust import check_data_path, check_target_node


def _plan(conf, tmp_path, cli_env, *extra):
    return subprocess.run([sys.executable, "-m", "randml_core", "plan", "--config-dir", str(conf), *extra,
                           f"store_dir={tmp_path}/store", f"hydra.run.dir={tmp_path}/logs"],
                          cwd=tmp_path, env=cli_env, capture_output=True, text=True, timeout=600)


def _experiment(conf, estimator: str, exp_extra: str = "", datasets: str = "[heart]"):
    (conf / "experiment").mkdir(parents=True, exist_ok=True)
    (conf / "experiment" / "probe.yaml").write_text(
        "# @package _global_\n"
        f"models:\n  m:\n    estimator: {estimator}\n"
        f"experiment:\n  name: probe\n  datasets: {datasets}\n{exp_extra}")


def test_target_shutil_rmtree_is_refused_at_plan_and_deletes_nothing(tmp_path, cli_env):
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "keep.txt").write_text("precious")
    conf = tmp_path / "conf"
    _experiment(conf, f"{{_target_: shutil.rmtree, _args_: ['{victim}']}}")
    out = _plan(conf, tmp_path, cli_env, "experiment=probe")
    assert out.returncode == 2, out.stderr[-2000:]
    assert "'shutil.rmtree' is refused" in out.stderr and "Trust" in out.stderr
    assert (victim / "keep.txt").read_text() == "precious"


@pytest.mark.parametrize("estimator, says", [
    # a pickle loader of a third-party package: a function, not an estimator class
    ("{_target_: pandas.read_pickle, filepath_or_buffer: /nonexistent.pkl}", "it is a function but not an estimator"),
    ("{_target_: joblib.load, filename: /nonexistent.pkl}", "it is a function but not an estimator"),
    ("{_target_: numpy.load, file: /nonexistent.npy, allow_pickle: true}", "it is a function but not an estimator"),
    ("{_target_: os.remove, _args_: [/nonexistent]}", "the standard library has no estimator"),
    ("{_target_: urllib.request.urlopen, url: 'http://127.0.0.1:9'}", "the standard library has no estimator"),
    # a nested target is checked like the outer one
    ("{_target_: sklearn.pipeline.make_pipeline, _args_: [{_target_: os.system, _args_: ['true']}]}",
     "'os.system' is refused"),
    # a class that is not an estimator, and _partial_ (which would hand a callable on)
    ("{_target_: subprocess.Popen, args: ['true']}", "the standard library has no estimator"),
    ("{_target_: pathlib.Path, _args_: [/tmp]}", "the standard library has no estimator"),
    ("{_target_: sklearn.svm.SVC, _partial_: true}", "_partial_ is not allowed"),
])
def test_targets_that_are_not_estimator_classes_are_config_errors(tmp_path, cli_env, estimator, says):
    conf = tmp_path / "conf"
    _experiment(conf, estimator)
    out = _plan(conf, tmp_path, cli_env, "experiment=probe")
    assert out.returncode == 2, out.stderr[-2000:]
    assert says in out.stderr, out.stderr[-2000:]
    assert "Traceback" not in out.stderr


def test_a_target_that_builds_no_estimator_is_a_config_error_not_a_traceback(tmp_path, cli_env):
    conf = tmp_path / "conf"
    _experiment(conf, "{_target_: sklearn.compose.make_column_selector, dtype_include: number}")
    out = _plan(conf, tmp_path, cli_env, "experiment=probe")
    assert out.returncode == 2, out.stderr[-2000:]
    assert "built a make_column_selector, not a scikit-learn estimator" in out.stderr
    assert "Traceback" not in out.stderr


def test_estimators_pipelines_and_kernels_pass_and_the_whitelist_is_the_validated_list():
    pipe = {"_target_": "sklearn.pipeline.make_pipeline",
            "_args_": [{"_target_": "sklearn.preprocessing.StandardScaler"},
                       {"_target_": "sklearn.gaussian_process.GaussianProcessClassifier",
                        "kernel": {"_target_": "sklearn.gaussian_process.kernels.RBF"}}]}
    # the names the config wrote, and the canonical names of what they resolve to (Hydra checks both)
    assert check_target_node(pipe, "estimator") == [
        "sklearn.gaussian_process.GaussianProcessClassifier", "sklearn.gaussian_process._gpc.GaussianProcessClassifier",
        "sklearn.gaussian_process.kernels.RBF", "sklearn.pipeline.make_pipeline", "sklearn.preprocessing.StandardScaler",
        "sklearn.preprocessing._data.StandardScaler"]
    from randml_core.family import target_family
    est = target_family(pipe).estimator()
    assert [type(s).__name__ for _, s in est.steps] == ["StandardScaler", "GaussianProcessClassifier"]
    with pytest.raises(ConfigError, match="'builtins.eval' is refused"):
        target_family({"_target_": "builtins.eval", "_args_": ["1"]})


def _card(conf, name: str, source: str):
    (conf / "dataset").mkdir(parents=True, exist_ok=True)
    (conf / "dataset" / f"{name}.yaml").write_text(f"name: {name}\ntask: binary\nsource: {source}\n")


def test_a_generated_card_naming_subprocess_run_is_refused_and_runs_nothing(tmp_path, cli_env):
    marker = tmp_path / "ran"
    conf = tmp_path / "conf"
    _card(conf, "evil", f"{{kind: generated, generator: 'subprocess:run', args: {{args: [touch, '{marker}']}}}}")
    _experiment(conf, "{_target_: sklearn.linear_model.LogisticRegression}", datasets="[evil]")
    out = _plan(conf, tmp_path, cli_env, "experiment=probe")
    assert out.returncode == 2, out.stderr[-2000:]
    assert "generator='subprocess:run' is refused" in out.stderr and "not a randml plug-in module" in out.stderr
    assert not marker.exists()


def test_a_generated_card_naming_an_unregistered_function_of_a_plugin_is_refused(tmp_path, cli_env):
    conf = tmp_path / "conf"
    # a shipped module (randml's own: a plug-in module), a function that returns two arrays, but one no one
    # registered as a generator
    _card(conf, "sneaky", "{kind: generated, generator: 'randml_core.models.hidden:draw_hidden'}")
    _experiment(conf, "{_target_: sklearn.linear_model.LogisticRegression}", datasets="[sneaky]")
    out = _plan(conf, tmp_path, cli_env, "experiment=probe")
    assert out.returncode == 2
    assert "no plug-in registered it with @register_generator" in out.stderr


def test_a_registered_generator_of_a_users_plugin_module_in_the_config_dir_loads(tmp_path, cli_env):
    conf = tmp_path / "conf"
    conf.mkdir()
    (conf / "mygen.py").write_text(
        "import numpy as np\nfrom randml_core.data.sources.generated import register_generator\n\n"
        "@register_generator\ndef blobs(n=40, seed=0):\n    rng = np.random.default_rng(seed)\n"
        "    y = np.arange(n) % 2\n    return rng.normal(size=(n, 3)) + y[:, None], y\n")
    _card(conf, "mine", "{kind: generated, generator: 'mygen:blobs', args: {n: 40}}")
    _experiment(conf, "{_target_: sklearn.linear_model.LogisticRegression}", datasets="[mine]")
    env = dict(cli_env, PYTHONPATH=f"{conf}:{cli_env['PYTHONPATH']}")
    out = _plan(conf, tmp_path, env, "experiment=probe")
    assert out.returncode == 0, out.stderr[-2000:]
    assert "mine" in out.stdout


def test_card_paths_stay_in_the_config_dir_unless_the_user_lists_a_data_root(tmp_path, monkeypatch):
    card = tmp_path / "conf" / "dataset" / "x.yaml"
    monkeypatch.delenv("RANDML_DATA_ROOTS", raising=False)
    assert check_data_path(card, "x.csv") == tmp_path / "conf" / "dataset" / "x.csv"
    assert check_data_path(card, "../data/x.csv") == tmp_path / "conf" / "data" / "x.csv"
    assert check_data_path(card, "/etc/passwd") is None
    assert check_data_path(card, "../../x.csv") is None
    assert check_data_path(card, "../data/../../x.csv") is None
    monkeypatch.setenv("RANDML_DATA_ROOTS", f"/nonexistent-root{':'}{tmp_path / 'shared'}")
    assert check_data_path(card, str(tmp_path / "shared" / "big.csv")) == tmp_path / "shared" / "big.csv"
    assert check_data_path(card, "/etc/passwd") is None


def test_a_card_reading_etc_passwd_is_refused(tmp_path, cli_env):
    conf = tmp_path / "conf"
    _card(conf, "pw", "{kind: csv, path: /etc/passwd, target: root, sep: ':'}")
    _experiment(conf, "{_target_: sklearn.linear_model.LogisticRegression}", datasets="[pw]")
    out = _plan(conf, tmp_path, cli_env, "experiment=probe")
    assert out.returncode == 2
    assert "path='/etc/passwd' lies outside the card's config dir" in out.stderr


@pytest.mark.parametrize("extra, says", [
    ("  plugins: [os]\n", "experiment.plugins='os' is not a randml plug-in module"),
    ("  report: antigravity\n", "experiment.report='antigravity' is not a randml plug-in module"),
])
def test_modules_a_config_names_must_be_plugin_modules(tmp_path, cli_env, extra, says):
    conf = tmp_path / "conf"
    _experiment(conf, "{_target_: sklearn.linear_model.LogisticRegression}", exp_extra=extra)
    out = _plan(conf, tmp_path, cli_env, "experiment=probe")
    assert out.returncode == 2, out.stderr[-2000:]
    assert says in out.stderr


@pytest.mark.parametrize("name", ["../../x", "", "a/b", ".."])
def test_experiment_name_is_a_plain_name(tmp_path, cli_env, name):
    conf = tmp_path / "conf"
    _experiment(conf, "{_target_: sklearn.linear_model.LogisticRegression}")
    out = _plan(conf, tmp_path, cli_env, "experiment=probe", f"experiment.name='{name}'")
    assert out.returncode == 2, out.stderr[-2000:]
    assert "is invalid: a plain name" in out.stderr


@pytest.mark.parametrize("target, args", [("builtins.open", "[{f},w]"), ("numpy.savetxt", "[{f},[1]]")])
def test_hydra_callbacks_named_by_an_override_run_nothing(tmp_path, cli_env, target, args):
    """Hydra instantiates `hydra.callbacks` itself; only Hydra's and installed hydra_plugins may be named."""
    victim = tmp_path / "written"
    out = subprocess.run([sys.executable, "-m", "randml_core", "plan", "experiment=tiny", "dataset=heart",
                          "model=knn", f"+hydra.callbacks.x._target_={target}",
                          f"+hydra.callbacks.x._args_={args.format(f=victim)}", f"hydra.run.dir={tmp_path}/logs"],
                         cwd=tmp_path, env=cli_env, capture_output=True, text=True, timeout=600)
    assert out.returncode == 2, out.stderr[-2000:]
    assert "not in the Hydra execution whitelist" in out.stderr
    assert not victim.exists()
