"""A notebook's settings in one place (:class:`companion.profiles.Profiles`): each profile's values, the gpu
profile's two grids, the notebook's parameters as overrides, fresh values on every call, no process-wide record."""

import pytest

from companion import profiles
from companion.profiles import DRY_RUN_ENV, GPU_GRIDS, Profiles, Settings

SPEC = Profiles("angle/01-x", smoke=dict(steps=2, seeds=[0]), cpu=dict(steps=400, seeds=[0, 1, 2]),
                gpu=dict(steps=8000, seeds=[42], model="bert-base-uncased"),
                common=dict(lr=3e-5, steps=1, pooling="cls"), full=dict(seeds=[42, 43, 44, 45, 46]),
                grid_reason="one seed decides the claims of this toy")


def test_each_profile_is_common_updated_by_its_own_values():
    cpu = SPEC("cpu")
    assert dict(cpu) == {"lr": 3e-5, "steps": 400, "pooling": "cls", "seeds": [0, 1, 2], "profile": "cpu"}
    assert SPEC("smoke").steps == 2 and isinstance(cpu, Settings)


def test_the_gpu_profile_runs_its_default_grid_unless_the_full_grid_is_asked_for():
    assert GPU_GRIDS == ("day", "full")
    day, full = SPEC("gpu"), SPEC("gpu", gpu_grid="full")
    assert (day.seeds, day.gpu_grid, day.steps) == ([42], "day", 8000)
    assert (full.seeds, full.gpu_grid, full.steps) == ([42, 43, 44, 45, 46], "full", 8000)
    assert SPEC.profile_values("gpu", "full")["seeds"] == [42, 43, 44, 45, 46] and "gpu_grid" not in SPEC.profile_values("gpu")
    assert "gpu_grid" not in SPEC("cpu")  # the cpu and smoke settings are exactly their values
    with pytest.raises(ValueError, match="gpu profile's"):
        SPEC("cpu", gpu_grid="full")
    with pytest.raises(ValueError, match="Unknown gpu grid 'week'"):
        SPEC("gpu", gpu_grid="week")
    with pytest.raises(ValueError, match="does not define"):
        Profiles("angle/01-x", smoke={}, cpu={}, gpu=dict(steps=1), full=dict(stepz=2))


def test_parameters_override_and_none_leaves_a_value_alone():
    assert SPEC("cpu", steps=10, seeds=None).steps == 10
    assert SPEC("gpu", gpu_grid="full", seeds=[7]).seeds == [7]  # a parameter wins over the grid
    with pytest.raises(ValueError, match="Unknown override 'stepz'"):
        SPEC("cpu", stepz=3)
    with pytest.raises(TypeError, match="steps='10'"):
        SPEC("cpu", steps="10")


def test_every_call_gets_fresh_values():
    first = SPEC("cpu")
    first.seeds.append(99)  # a notebook that mutates its list does not change the module's values
    assert SPEC("cpu").seeds == [0, 1, 2] and SPEC.cpu["seeds"] == [0, 1, 2]
    with pytest.raises(TypeError):
        SPEC.cpu["steps"] = 1  # the module's values are read-only


def test_the_dry_run_starts_from_the_asked_grid(monkeypatch):
    monkeypatch.setenv(DRY_RUN_ENV, "1")
    dry = SPEC("gpu", gpu_grid="full")
    assert (dry.steps, dry.seeds, dry.model, dry.gpu_grid) == (2, [0], "tiny-bert-L12", "full")


def test_no_settings_are_remembered_between_calls():
    assert not hasattr(profiles, "_LAST") and not hasattr(profiles, "last_settings")


def test_a_notebook_name_is_paper_slash_stem():
    with pytest.raises(ValueError, match="<paper>/<stem>"):
        Profiles("01-x", smoke={}, cpu={}, gpu={})
