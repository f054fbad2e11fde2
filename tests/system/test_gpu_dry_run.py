"""The dry run of the gpu profile: every notebook's gpu code path on a CPU, in seconds.

``python -m companion run --profile gpu --dry-run`` (``COMPANION_DRY_RUN=1`` for the kernel) keeps the gpu
settings that choose a code path, cuts every size to the smoke profile's and replaces each paper backbone by a tiny
random model of its family and depth. The notebook tests below execute every notebook that way; the unit tests
check the rules on the settings themselves.
"""

import json

import pytest

from companion import profiles
from companion.encoders import load_encoder
from companion.profiles import DRY_RUN_ENV, dry_run_values, settings, stand_in
from companion.publish.notebooks import list_notebooks
from companion.publish.runner import execute, run
from companion.results import validate_claim

pytestmark = pytest.mark.slow  # the gpu profile's dry run of every notebook

NOTEBOOKS = list_notebooks()


def _settings_cell(text: str) -> dict:
    return dict(smoke=dict(model="tiny-bert", steps=2, seeds=[0], n_top=1, pooling="mean", lr=1e-4),
                cpu=dict(model="sentence-transformers/all-MiniLM-L6-v2", steps=64, seeds=[0, 1, 2], n_top=1,
                         pooling="mean", lr=2e-4),
                gpu=dict(model=text, steps=180, seeds=[0, 1, 2], n_top=12, pooling="cls", lr=2e-5),
                common=dict(tau=0.05))


def test_dry_run_keeps_the_gpu_code_path_and_cuts_every_size(monkeypatch):
    monkeypatch.setenv(DRY_RUN_ENV, "1")
    cfg = settings("gpu", **_settings_cell("bert-base-uncased"))
    assert cfg.model == "tiny-bert-L12"            # BERT-base's family and its 12 layers
    assert (cfg.n_top, cfg.pooling, cfg.lr) == (12, "cls", 2e-5)   # code path: kept from gpu
    assert (cfg.steps, cfg.seeds, cfg.tau) == (2, [0], 0.05)        # sizes: the smoke profile's


def test_without_the_variable_the_gpu_settings_are_the_papers(monkeypatch):
    monkeypatch.delenv(DRY_RUN_ENV, raising=False)
    cfg = settings("gpu", **_settings_cell("bert-base-uncased"))
    assert (cfg.model, cfg.steps, cfg.seeds) == ("bert-base-uncased", 180, [0, 1, 2])
    monkeypatch.setenv(DRY_RUN_ENV, "1")  # the dry run changes the gpu profile only
    assert settings("cpu", **_settings_cell("bert-base-uncased")).steps == 64


def test_a_backbone_smoke_already_uses_is_kept_and_unknown_ones_fail_in_one_line():
    smoke = dict(model="sentence-transformers/all-MiniLM-L6-v2", n=1)
    assert dry_run_values(dict(model="sentence-transformers/all-MiniLM-L6-v2", n=9), smoke)["model"] == smoke["model"]
    assert dry_run_values(dict(model="intfloat/multilingual-e5-large", n=9), dict(n=1)) == \
        dict(model="tiny-xlm-roberta-L24", n=1)
    with pytest.raises(ValueError, match="No dry-run stand-in for backbone 'org/unknown'.*STAND_INS"):
        stand_in("org/unknown")
    assert stand_in("tiny-gpt2") == "tiny-gpt2"


@pytest.mark.parametrize("hub_id", sorted(profiles.STAND_INS))
def test_every_stand_in_loads_with_its_depth(hub_id):
    arch, layers = profiles.STAND_INS[hub_id]
    encoder = load_encoder(stand_in(hub_id), pooling="mean", max_length=16, device="cpu")
    assert encoder.model.config.num_hidden_layers == layers
    assert encoder.embed(["a short sentence"]).shape[0] == 1


def test_gpu_workers_get_one_gpu_each_in_turn(monkeypatch):
    from companion.publish.runner import gpu_assignments, visible_gpus

    assert gpu_assignments(4, ["0", "1"]) == ["0", "1", "0", "1"]
    assert gpu_assignments(3, []) == []
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "2, 5")
    assert visible_gpus() == ["2", "5"]
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "-1")
    assert visible_gpus() == []


def test_dry_run_is_for_the_gpu_profile_only():
    with pytest.raises(ValueError, match="--dry-run is the gpu profile's dry run"):
        run("smoke", only="angle/01", dry_run=True)


@pytest.mark.notebook
@pytest.mark.parametrize("nb", NOTEBOOKS, ids=[nb.key for nb in NOTEBOOKS])
def test_notebook_gpu_dry_run(nb, tmp_path_factory):
    scratch = tmp_path_factory.getbasetemp() / "gpu-dry-run"
    before = nb.path.read_bytes()
    result = execute(nb, "gpu", output_dir=scratch, dry_run=True, gpu_grid="full")  # every gpu code path
    assert result.status == "ok", f"{nb.key} failed in {result.error}"
    assert nb.path.read_bytes() == before, "a dry run must never write the notebook back"
    assert result.output == scratch / "notebooks" / nb.paper / nb.path.name
    ledger = json.loads((scratch / "results" / nb.paper / f"{nb.stem}.json").read_text())
    assert ledger["profile"] == "gpu" and ledger["claims"]
    for claim in ledger["claims"]:
        validate_claim(claim, nb.key)
    used = json.loads((scratch / "results" / nb.paper / f"{nb.stem}.provenance.json").read_text())["settings"]
    model = used.get("model")
    assert model is None or model.startswith("tiny-") or model == "sentence-transformers/all-MiniLM-L6-v2", \
        f"{nb.key}: the dry run used backbone {model!r}, not a stand-in"
