"""SimACE notebooks' computed summaries: what the cpu profile scales against the paper's Table 7 settings, and the
claims of a ledger with their measured numbers, so that no notebook prose repeats a number by hand."""

from __future__ import annotations

import pandas as pd


def scale_table(cfg, n_pool: int, settings7, plm: str = "BERT-base"):
    """Ours (``cfg``, a SimACE run profile, and ``n_pool`` training sentences) beside the paper's settings for
    ``plm`` (``settings7``: ``data/simace/table7_settings.csv``, columns ``backbone, setting, value, source``), one
    row per scaled quantity. The paper's side is read from the transcription, never typed."""
    paper = settings7[settings7.backbone == plm].set_index("setting")
    missing = {"train data", "epochs", "batch size", "learning rate", "model selection", "max length",
               "pooling"} - set(paper.index)
    if missing:
        raise ValueError(f"table7_settings has no {sorted(missing)} for {plm}.")

    def p(key: str) -> str:
        return f"{paper.loc[key, 'value']} ({paper.loc[key, 'source']})"

    n_top = "all layers" if cfg.n_top is None else f"top {cfg.n_top} layer(s), [CLS] path"
    if getattr(cfg, "train_embeddings", None):  # the gpu profile
        n_top = f"all {cfg.n_top} layers and the embeddings"
    pool = "the whole file" if getattr(cfg, "wiki", None) == "full" else "the mirrored head"
    head = "MLP pooler in training only" if getattr(cfg, "mlp_head", None) else "no MLP pooler"
    passes = cfg.steps * cfg.batch_size / n_pool
    rows = [("encoder", f"{cfg.model} ({n_top})", f"{plm}, full fine-tuning"),
            ("training data", f"{n_pool} wiki1m sentences ({pool} minus {cfg.n_heldout} held out)",
             p("train data")),
            ("steps", f"{cfg.steps} ({passes:.2f} passes over the pool)",
             f"{paper.loc['epochs', 'value']} epoch(s) ({paper.loc['epochs', 'source']})"),
            ("batch size", str(cfg.batch_size), p("batch size")),
            ("learning rate (linear decay to 0)", f"{cfg.lr:g}", p("learning rate")),
            ("max length", str(cfg.max_length), p("max length")),
            ("pooling", f"{cfg.pooling}, {head}", p("pooling")),
            ("model selection", f"STS-B dev ({cfg.n_dev or 'all'} pairs) every {cfg.eval_every} steps, best "
                                f"trained checkpoint", p("model selection")),
            ("STS test", f"{cfg.n_pairs or 'all'} pairs per set (seed 0), the same for every model", "full sets"),
            ("seeds", f"{len(cfg.seeds)} paired ({', '.join(map(str, cfg.seeds))})", "5 (Table 2)")]
    return pd.DataFrame(rows, columns=["setting", "ours", "paper"]).set_index("setting")


def _ours(claim: dict) -> str:
    st = claim.get("stats")
    if st and st.get("ci"):
        lo, hi = st["ci"]
        return f"{st['estimate']:+.3f} [{lo:+.3f}, {hi:+.3f}] (n = {st['n']})"
    ours = claim.get("ours")
    if isinstance(ours, dict):
        values = list(ours.values())
        if values and all(isinstance(v, bool) for v in values):
            return f"{sum(values)} of {len(values)} true"
    if isinstance(ours, float):
        return f"{ours:.4g}"
    return str(ours)


def claims_summary(ledger, kinds=("paper", "check", "beyond")):
    """The claims of ``ledger`` (a :class:`companion.results.Ledger`) of the given kinds as a compact table: the
    paper's value, ours (the seed estimate with its 95 % CI where there is one, a count of true conditions for a
    check over several), the computed verdict and its reason."""
    unknown = set(kinds) - {"paper", "check", "beyond"}
    if unknown:
        raise ValueError(f"Unknown claim kind(s) {sorted(unknown)}; use paper, check, beyond.")
    rows = [{"id": c["id"], "kind": c["kind"], "paper": "" if c["paper_value"] is None else c["paper_value"],
             "ours": _ours(c), "verdict": c["verdict"], "reason": c.get("reason", "")}
            for c in ledger.claims if c["kind"] in kinds]
    return pd.DataFrame(rows, columns=["id", "kind", "paper", "ours", "verdict", "reason"]).set_index("id")


def paired_rows(results, pairs):
    """:func:`companion.stats.paired_table` of ``results`` over ``pairs``, without the Wilcoxon column when it is
    empty (below :data:`companion.stats.WILCOXON_MIN_N` seeds the signed-rank test is not reported)."""
    from companion import stats  # noqa: PLC0415 - loads scipy; this module imports without it

    table = stats.paired_table(results, pairs)
    if "p (Wilcoxon)" in table and table["p (Wilcoxon)"].isna().all():
        table = table.drop(columns="p (Wilcoxon)")
    return table
