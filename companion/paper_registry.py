"""The paper registry: the one list of papers this companion reproduces (:data:`REGISTRY`, one :class:`Paper` each:
id, title, reference, notebook folder, paper text and its layout, API entries).

The ledger, the scoreboard, the notebook list, the paper texts, the source checks, the site and the README table read
it; it imports nothing of the package, so that every layer can. ``companion.papers.<module>`` holds each paper's own
code. What reads which field, and the checklist for adding a paper: ``docs/ARCHITECTURE.md``.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Paper:
    """One entry of the registry.

    ``id`` names the ledger folder ``results/<id>/``, the data folder ``data/<id>/`` and the claim ids' prefix;
    ``folder`` is the notebook folder under ``notebooks/``; ``text`` the paper's plain text in the papers folder
    (``None`` for the project's own baseline and synthesis notebooks, which reproduce no single paper).

    The ``text_*`` fields say how the paper's text was extracted, which is how :mod:`companion.papers.text` finds
    its headings, captions and table bodies (a new paper sets them here and touches no other code):

    =====================  =========================================================================================
    ``text_html``          an arXiv HTML extraction: punctuation backslash-escaped, markdown links and images, a
                           table's cells run together without separators (matched as substrings)
    ``text_headings``      ``"plain"``: numbered heading lines (``5.2 Title``, PDF line numbers allowed);
                           ``"markdown"``: ``#`` heading markers
    ``text_tables``        how a table body is printed next to its caption: ``"tab"`` (tab-separated rows),
                           ``"markdown"`` (``| ... |`` rows) or ``"run-together"`` (the HTML texts' cells)
    ``text_one_line``      the whole paper on one line: a heading's body starts right after its marker
    ``text_other_works``   mentions (``Theorem 4.2``) checked by hand to be items of another work that the citation
                           rule of the coverage map does not catch
    =====================  =========================================================================================
    """

    id: str
    title: str
    reference: str
    url: str
    folder: str
    text: str | None = None
    # -- the paper text's layout (read by companion.papers.text; see the table above) --
    text_html: bool = False
    text_headings: str = "plain"
    text_tables: str = "tab"
    text_one_line: bool = False
    text_other_works: frozenset[str] = frozenset()
    # -- end of the text layout --
    # -- the API reference (``site/api/``, written by ``python -m companion site``): the module of the paper's
    # losses, listed under "Losses" after the shared cores (``None``: none), and a section of the paper's own
    # modules, ``(title, description, modules)`` (``None``: none); both in the registry's order
    losses_module: str | None = None
    api_section: tuple[str, str, tuple[str, ...]] | None = None

    @property
    def reproduced(self) -> bool:
        """Whether the entry is a paper with its own text (its notebooks must name the section they reproduce)."""
        return self.text is not None

    @property
    def module(self) -> str:
        """The paper's subpackage name (``weighted-cl`` -> ``weighted_cl``)."""
        return self.id.replace("-", "_")


REGISTRY: tuple[Paper, ...] = (
    Paper("baselines", "Baselines", "all-MiniLM-L6-v2 zero-shot (Reimers & Gurevych 2019)",
          "https://arxiv.org/abs/1908.10084", "00-baselines"),
    Paper("circumplex", "Circumplex of affect",
          "Yamauchi & Aizawa, Mapping the Circumplex of Affect, ACL 2026 (2026.acl-long.772; an earlier version is "
          "arXiv 2601.06575)", "https://aclanthology.org/2026.acl-long.772", "circumplex", "circumplex.txt",
          losses_module="companion.losses.circumplex",
          api_section=("Circumplex heads and metrics",
                       "The GPT and nGPT heads of the circumplex paper, and its CD-r metrics.",
                       ("companion.papers.circumplex.heads", "companion.papers.circumplex.geometry"))),
    Paper("simace", "SimACE",
          "A Simple Angle-based Approach for Contrastive Learning of Unsupervised Sentence Representation "
          "(anonymous ACL submission; Findings of EMNLP 2024, 2024.findings-emnlp.318)",
          "https://aclanthology.org/2024.findings-emnlp.318", "simace", "simace.txt", text_tables="markdown",
          losses_module="companion.losses.simace"),
    Paper("weighted-cl", "Weighted CL as distance geometry",
          "Vock, Duchesnay & Dufumier, A Unified Geometric Framework for Weighted Contrastive Learning, "
          "arXiv 2605.13943", "https://arxiv.org/abs/2605.13943", "weighted-cl", "weighted-cl.txt",
          text_html=True, text_headings="markdown", text_tables="run-together",
          losses_module="companion.losses.weighted",
          api_section=("Weighted contrastive learning metrics",
                       "The weighted contrastive learning paper's distance geometry and digit morphometrics.",
                       ("companion.papers.weighted_cl.distance_geometry",
                        "companion.papers.weighted_cl.morphometrics"))),
    Paper("concepts", "Principles of concept representation",
          "Mohr, Dujany, Souquet & Freitas, Principles of Concept Representation in Sentence Encoders, "
          "arXiv 2606.06994", "https://arxiv.org/abs/2606.06994", "concepts", "concepts.txt",
          text_html=True, text_headings="markdown", text_tables="run-together", text_one_line=True,
          losses_module="companion.losses.concepts"),
    Paper("angle", "AnglE", "Li & Li, AnglE: Angle-optimized Text Embeddings, arXiv 2309.12871",
          "https://arxiv.org/abs/2309.12871", "angle", "angle.txt", text_headings="markdown",
          losses_module="companion.losses.angle"),
    Paper("synthesis", "Synthesis", "cross-paper comparisons and the errata", "", "synthesis"),
)

BY_ID: dict[str, Paper] = {p.id: p for p in REGISTRY}
#: every ledger owner, in site order
IDS: tuple[str, ...] = tuple(p.id for p in REGISTRY)
#: the five papers with a text (source checks, coverage maps, section references)
REPRODUCED: tuple[str, ...] = tuple(p.id for p in REGISTRY if p.reproduced)


def paper(paper_id: str) -> Paper:
    """The registry entry of ``paper_id`` (one clear error for an unknown id)."""
    try:
        return BY_ID[paper_id]
    except KeyError:
        raise ValueError(f"Unknown paper {paper_id!r}; choose one of {', '.join(IDS)}.") from None


def by_folder(folder: str) -> Paper | None:
    """The entry whose notebook folder is ``folder`` (``None`` if none)."""
    return next((p for p in REGISTRY if p.folder == folder), None)
