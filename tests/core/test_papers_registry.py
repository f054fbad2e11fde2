"""The paper registry is the one list of papers: the ledger, the notebook list, the paper texts and site read it."""

import pytest

from companion import paper_registry as papers
from companion import results
from companion.papers import text
from companion.publish import notebooks
from companion.publish.site import common


def test_registry_is_read_everywhere():
    assert results.PAPERS == papers.IDS
    assert text.PAPERS == papers.REPRODUCED == ("circumplex", "simace", "weighted-cl", "concepts", "angle")
    assert list(common.PAPERS) == list(papers.IDS)
    assert {nb.paper for nb in notebooks.list_notebooks()} == set(papers.IDS)


def test_every_registered_folder_exists_and_holds_notebooks():
    for entry in papers.REGISTRY:
        folder = notebooks.NOTEBOOK_ROOT / entry.folder
        assert folder.is_dir() and list(folder.glob("[0-9][0-9]-*.ipynb")), entry.id


def test_unknown_paper_is_one_clear_error():
    with pytest.raises(ValueError, match="Unknown paper 'nope'; choose one of baselines, circumplex"):
        papers.paper("nope")
    assert papers.by_folder("00-baselines").id == "baselines" and papers.by_folder("x") is None
    assert papers.paper("weighted-cl").module == "weighted_cl"
