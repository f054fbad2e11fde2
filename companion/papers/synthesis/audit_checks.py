"""The auditor's checks, paper by paper: which cells of which transcribed table each rule recomputes, and which
statement (with its location in the paper) it tests. Every number is read from ``data/`` through the
:class:`~companion.papers.synthesis.audit_book.Book`; nothing here is a paper number. A table with nothing to
recompute is listed with the reason (:class:`~companion.papers.synthesis.audit_kinds.Nothing`), so that every
transcribed table is accounted for.
"""

from __future__ import annotations

import re

from companion.papers.synthesis.audit_book import Book, C, Diff, Mean, Statement
from companion.papers.synthesis.audit_kinds import (
    Average,
    Count,
    Custom,
    Difference,
    Grid,
    Marks,
    Nothing,
    Order,
    PValue,
    Range,
    Repeated,
    RepeatedAcross,
    Result,
    Same,
    Significance,
    Total,
    Unit,
)
from companion.papers.synthesis.audit_rules import Outcome, printed, total_rule


def stated(book: Book, sid: str) -> str:
    """A statement of errata_statements.csv (its text starts with its location) as a check's statement."""
    return book.statements().loc[sid, "statement"]


def _label(row, cols) -> str:
    return " · ".join(str(row[c]) for c in cols if str(row[c]))


# ----------------------------------------------------------------------------------------------------- AnglE
A_STS = ["STS12", "STS13", "STS14", "STS15", "STS16", "STS-B", "SICR-R"]
A_T3 = ["MRPC", "STS-B", "QQP", "QNLI", "GitHub Issues."]
A_T4 = "Spearman’s Correlation"
A_T5 = "Spearman’s"
SUP = "Supervised Models"


def angle(book: Book) -> list:
    p = "angle"

    def t2(model, col, group=SUP):
        return C(p, "table2.csv", col, group=group, model=model)

    def t3(model, col):
        return C(p, "table3.csv", col, model=model)

    def t4(key):
        return C(p, "table4.csv", A_T4, our_key=key)

    t4_frame, t5 = book.table(p, "table4.csv"), book.table(p, "table5.csv")
    objectives = [k for g, k in zip(t4_frame["group"], t4_frame["our_key"]) if g == "Objective" and k != "all"]
    pooling = [k for g, k in zip(t4_frame["group"], t4_frame["our_key"]) if g == "Pooling Strategy" and k != "cls"]
    unsup = t5[t5.group == "Unsupervised Models"]["model"].tolist()
    llm = t5[t5.group == "LLM-supervised Models"]["model"].tolist()
    t2_frame = book.table(p, "table2.csv")
    angle_rows = [("Supervised Models", m) for m in ("Angle-BERT", "Angle-LLaMA2-7B")]
    others = [(g, m) for g, m in zip(t2_frame["group"], t2_frame["model"]) if (g, m) not in angle_rows]

    def t5c(model, group):
        return C(p, "table5.csv", A_T5, group=group, model=model)

    def best_angle(col):  # the AnglE row that is best on col, for "state of the art on all STS sets"
        return max(angle_rows, key=lambda gm: printed(book.get(t2(gm[1], col, gm[0]))).value)

    return [
        Total(p, "table1-totals", "total", "Table 1: the Total row counts the positive and the negative pairs",
              items=[(col, [C(p, "table1.csv", col, row="#Positive"), C(p, "table1.csv", col, row="#Negative")],
                      C(p, "table1.csv", col, row="Total"), None) for col in ("Train", "Validation", "Test")]),
        Average(p, "table2-average", "average", "Table 2: Avg. is the mean of the seven STS columns",
                file="table2.csv", groups=[(A_STS, "Avg.")], label=["group", "model"]),
        Average(p, "table3-average", "average", "Table 3: Avg. is the mean of the five data-set columns",
                file="table3.csv", groups=[(A_T3, "Avg.")], label=["model"]),
        Difference(p, "s43-gains", "difference", "§4.3: average gains of 0.80 and 0.72 over SimCSE (Table 2)",
                   items=[("Angle-BERT - SimCSE-BERT", t2("Angle-BERT", "Avg."), t2("SimCSE-BERT", "Avg."),
                           Statement("angle-s43-gain-bert")),
                          ("Angle-LLaMA2-7B - SimCSE-LLaMA2-7B", t2("Angle-LLaMA2-7B", "Avg."),
                           t2("SimCSE-LLaMA2-7B", "Avg."), Statement("angle-s43-gain-llama"))]),
        Order(p, "s43-consistently", "order", stated(book, "angle-s43-consistently"),
              items=[(f"{a} > {b}", [(t2(a, c), t2(b, c)) for c in A_STS])
                     for a, b in (("Angle-BERT", "SimCSE-BERT"), ("Angle-LLaMA2-7B", "SimCSE-LLaMA2-7B"))]),
        Order(p, "s43-sota-all-sets", "order", stated(book, "angle-s43-sota-all-sets"),
              items=[(col, [(t2(best_angle(col)[1], col, best_angle(col)[0]), t2(m, col, g)) for g, m in others])
                     for col in A_STS]),
        Difference(p, "s43-gain-over-sbert", "difference", stated(book, "angle-s43-sbert-consistently"),
                   items=[("Angle-BERT - SBERT", t3("Angle-BERT", "Avg."), t3("SBERT", "Avg."),
                           Statement("angle-s43-sbert-consistently"))]),
        Order(p, "s43-above-sbert", "order", stated(book, "angle-s43-sbert-consistently"),
              items=[("Angle-BERT > SBERT", [(t3("Angle-BERT", c), t3("SBERT", c)) for c in A_T3])]),
        Order(p, "s43-simcse-poor", "order", stated(book, "angle-s43-simcse-poor"),
              items=[(f"{m} > SimCSE-BERT", [(t3(m, c), t3("SimCSE-BERT", c)) for c in A_T3])
                     for m in ("SBERT", "Angle-BERT")]),
        PValue(p, "t2-ttest-p", "p-value", stated(book, "angle-t2-ttest-p"), stated=Statement("angle-t2-ttest-p"),
               items=[(f"{a} vs {b}", [t2(a, c) for c in A_STS], [t2(b, c) for c in A_STS])
                      for a, b in (("Angle-BERT", "SimCSE-BERT"), ("Angle-LLaMA2-7B", "SimCSE-LLaMA2-7B"))]),
        Order(p, "s44-ablation", "order", "§4.4: every objective contributes (the full model is above each "
                                          "ablation); dropping angle costs more than dropping ibn; cls pools best",
              items=[("all > every objective ablation", [(t4("all"), t4(k)) for k in objectives]),
                     ("w/o ibn > w/o angle", [(t4("w/o ibn"), t4("w/o angle"))]),
                     ("cls > every other pooling", [(t4("cls"), t4(k)) for k in pooling])]),
        Same(p, "table5-vs-table2", "same", "Table 5's unsupervised rows are Table 2's models on the STS-B test set",
             items=[(m, t5c(m, "Unsupervised Models"), t2(m, "STS-B", "Unsupervised Models")) for m in unsup]),
        Order(p, "s45-llm-vs-unsupervised", "order", stated(book, "angle-s45-llm-beats-unsup"),
              items=[(f"{m} > every unsupervised row", [(t5c(m, "LLM-supervised Models"), t5c(u, "Unsupervised Models"))
                                                        for u in unsup]) for m in llm]),
        Order(p, "s45-ensemble-best", "order", "§4.5: the ensemble of LLMs gives the best result of Table 5",
              items=[("AngleE-BERT + Ensemble", [(t5c("AngleE-BERT + Ensemble", "LLM-supervised Models"),
                                                  t5c(m, "LLM-supervised Models")) for m in llm
                                                 if m != "AngleE-BERT + Ensemble"])]),
        Repeated(p, "table2-repeated", "repeated", "Table 2: each row is a different model", file="table2.csv",
                 label=["group", "model"], cols=A_STS + ["Avg."]),
        Repeated(p, "table3-repeated", "repeated", "Table 3: each row is a different model", file="table3.csv",
                 label=["model"], cols=A_T3 + ["Avg."]),
        Nothing(p, "table6", "none", "Table 6 lists similarity measures and learning algorithms: no numbers",
                file="table6.csv"),
    ]


# ------------------------------------------------------------------------------------------------ circumplex
CX_SETS = ["Emolit", "Empathetic Dialogue", "SuperEmotion", "PersonaGen"]
CX_LANGS = ["En", "Fr", "It", "Nl"]
CX_METRICS = ["V-Measure", "CD-r"]
CX_T1 = ["mE5", "Qwen3-Embedding-4B", "Llama-3.2-3B"]
CX_T6 = {"Llama-3.2-3B": "Llama-3.2-3B", "OLMo-3-7B": "Olmo-3-7B"}  # Table 6 column -> Table 4 base_model


def _cx_groups(sets):
    return [([f"{s} {m}" for s in sets], f"Average {m}") for m in CX_METRICS]


def _label_count(labels: str) -> int:
    """Labels of a Table 2 cell: comma-separated, a parenthesised group counting as one label (App. C.1:
    Empathetic Dialogue's "(trusting, faithful)" is the trust label)."""
    depth, n = 0, 1
    for ch in labels:
        depth += ch == "("
        depth -= ch == ")"
        n += ch == "," and depth == 0
    return n


def circumplex_marks(book: Book, file: str, name: str, statement: str) -> Marks:
    """The underline check of a circumplex results table (``data/circumplex/<file>``, its ``underlined`` column),
    both ways: each model's minimum over its configurations, a model being a backbone (§4.1 calls the backbones the
    models; Table 4 underlines about one cell per backbone and column, 58 for 60 such groups, where one per backbone
    and head would give 120) and its configurations the three losses with either head; Pretrained, which Table 1's
    caption excludes and which is no configuration, is left out. Tables 1 and 6 put the backbones in columns (one
    group: every trained row), Tables 4 and 5 in a ``base_model`` column (one group per backbone)."""
    p = "circumplex"
    frame = book.table(p, file)
    cols = [c for c in frame.columns if c.endswith(("V-Measure", "CD-r"))]
    label = [c for c in ("base_model", "method", "head") if c in frame.columns]
    per_backbone = "base_model" in frame.columns

    def groups(f):
        trained = f[f.method != "Pretrained"]
        return trained.groupby("base_model", sort=False) if per_backbone else [("all", trained)]

    return Marks(p, name, "marks", statement, file=file, label=label, mark_col="underlined", group_rows=groups,
                 cols=cols)


def circumplex(book: Book) -> list:
    p = "circumplex"
    t1 = book.table(p, "table1.csv")
    trained = [(m, h) for m, h in zip(t1["method"], t1["head"]) if m != "Pretrained"]

    def c1(method, head, col):
        return C(p, "table1.csv", col, method=method, head=head)

    def c4(base, method, head, col):
        return C(p, "table4.csv", col, base_model=base, method=method, head=head)

    def sizes(b: Book):
        t2 = b.table(p, "table2.csv")
        prose = b.table(p, "prose.csv").set_index("quantity")["value"]
        for _, r in t2.iterrows():
            n = _label_count(r["labels"])
            per = prose["training texts per label (SuperEmotion)"] if r["dataset"] == "SuperEmotion" else \
                prose["training texts per label"]
            for split, each in (("train", per), ("test", prose["test texts per label"])):
                yield Result(f"{r['dataset']} · {split}", f"Table 2 [{r['dataset']}, {split}] = {r[split]}; {n} "
                                                          f"labels x {each} per label (§4.1)",
                             total_rule([each], r[split], [n]))

    same_t1 = Same(p, "table1-vs-table4", "same", "Table 1 (§4.3) is the average over Table 4's four data sets",
                   items=[(f"{m} · {h} · {bb} {metric}", c1(m, h, f"{bb} {metric}"),
                           c4(bb, m, h, f"Average {metric}"))
                          for m, h in zip(t1["method"], t1["head"]) for bb in CX_T1 for metric in CX_METRICS])
    t6 = book.table(p, "table6.csv")
    same_t6 = Same(p, "table6-vs-table4", "same", "Table 6 (App. G) repeats Table 4's averages for the decoder-only "
                                                  "backbones that Table 4 has",
                   items=[(f"{m} · {h} · {c6} {metric}", C(p, "table6.csv", f"{c6} {metric}", method=m, head=h),
                           c4(c4b, m, h, f"Average {metric}"))
                          for m, h in zip(t6["method"], t6["head"]) for c6, c4b in CX_T6.items()
                          for metric in CX_METRICS])
    t5 = book.table(p, "table5.csv")
    same_t5 = Same(p, "table5-vs-table4", "same", "Table 5's English subset (App. F) is Table 4's Emolit",
                   items=[(f"{b} · {m} · {h} · {metric}", C(p, "table5.csv", f"En {metric}", base_model=b, method=m,
                                                             head=h), c4(b, m, h, f"Emolit {metric}"))
                          for b, m, h in zip(t5["base_model"], t5["method"], t5["head"]) for metric in CX_METRICS])
    results_cols = lambda file: [c for c in book.table(p, file).columns if c.endswith(("V-Measure", "CD-r"))]  # noqa: E731
    return [
        Average(p, "table4-average", "average", "Table 4: the Average columns are the means of the four data sets",
                file="table4.csv", groups=_cx_groups(CX_SETS), label=["base_model", "method", "head"]),
        Average(p, "table5-average", "average", "Table 5: the Average columns are the means of the four languages",
                file="table5.csv", groups=_cx_groups(CX_LANGS), label=["base_model", "method", "head"]),
        same_t1, same_t6, same_t5,
        Order(p, "s43-objectives", "order", "§4.3 on Table 1: SINCERE and SoftCSE give higher V-Measure than "
                                            "CircularCSE; for CD-r SINCERE is low and CircularCSE higher",
              items=[(f"{bb} · {h}", [(c1(a, h, f"{bb} V-Measure"), c1("CircularCSE", h, f"{bb} V-Measure"))
                                      for a in ("SINCERE", "SoftCSE")]
                      + [(c1("CircularCSE", h, f"{bb} CD-r"), c1("SINCERE", h, f"{bb} CD-r"))])
                     for bb in CX_T1 for h in ("GPT", "nGPT")]),
        Order(p, "s43-llama-ngpt", "order", "§4.3 on Table 1: for Llama-3.2-3B the nGPT head has the lower "
                                            "V-Measure",
              items=[(m, [(c1(m, "GPT", "Llama-3.2-3B V-Measure"), c1(m, "nGPT", "Llama-3.2-3B V-Measure"))])
                     for m in dict.fromkeys(m for m, _ in trained)]),
        circumplex_marks(book, "table1.csv", "table1-marks",
                         "Table 1 caption: the worst result of each model, excluding Pretrained, is underlined (a "
                         "model: a backbone, as §4.1 calls them; its configurations: the three losses with either "
                         "head)"),
        circumplex_marks(book, "table4.csv", "table4-marks",
                         "Table 4 caption: underlined = the minimum across the configurations of each model (a "
                         "model: a backbone, as §4.1 calls them; its configurations: the three losses with either "
                         "head; Pretrained, not a configuration, left out as in Table 1's caption)"),
        Custom(p, "table2-sizes", "total", "Table 2 with §4.1: 500 training and 100 test texts per label (450 "
                                           "training texts for SuperEmotion)", files=["table2.csv"], fn=sizes),
        *[Repeated(p, f"{f.removesuffix('.csv')}-repeated", "repeated", f"Table {f[5]}: each row a configuration",
                   file=f, label=[c for c in ("base_model", "method", "head") if c in book.table(p, f).columns],
                   cols=results_cols(f)) for f in ("table1.csv", "table4.csv", "table5.csv", "table6.csv")],
        RepeatedAcross(p, "across-tables", "repeated", "Tables 1, 4, 5, 6: runs of identical cells that no "
                                                       "cross-reference explains",
                       sources=[(f, [c for c in ("base_model", "method", "head") if c in book.table(p, f).columns],
                                 results_cols(f)) for f in ("table1.csv", "table4.csv", "table5.csv", "table6.csv")],
                       declared=[same_t1, same_t6, same_t5]),
        Nothing(p, "table3", "none", "Table 3 lists hyperparameters: nothing to recompute", file="table3.csv"),
    ]


# ---------------------------------------------------------------------------------------------------- SimACE
S_STS = ["STS12", "STS13", "STS14", "STS15", "STS16", "STS-B", "SICK-R"]
S_TRANSFER = ["MR", "CR", "SUBJ", "MPQA", "SST", "TREC", "MRPC"]
PLMS = ["BERT-base", "BERT-large", "RoBERTa-base", "RoBERTa-large"]
S_T4_METHODS = ["PCL", "RankCSE-listNet", "RankCSE-listMLE"]


def simace(book: Book) -> list:
    p = "simace"
    tasks = book.table(p, "table12_tasks.csv")
    weights = {t: float(printed(n).value) for t, n in zip(tasks["task"], tasks["datasets"])}
    t1, t4, t12, t13, t14 = (book.table(p, f) for f in ("table1.csv", "table4.csv", "table12.csv", "table13.csv",
                                                         "table14.csv"))
    t9 = book.table(p, "table9.csv")

    def row(file, plm, method, col):
        return C(p, file, col, PLMs=plm, Method=method)

    def t9c(plm, method):
        return C(p, "table9.csv", method, PLMs=plm)

    def text(model, plm):
        return C(p, "text.csv", "value", section="§4.3", model=model, PLMs=plm)

    def t1_avg(plm, method):
        ref = row("table1.csv", plm, method, "Avg.")
        return ref if printed(book.get(ref)) is not None else Mean(tuple(row("table1.csv", plm, method, c)
                                                                         for c in S_STS))

    # Table 4's rows: each method row is followed by its "+ angle" row (the PLM labels come from Table 10)
    t4_pairs = []
    for plm in PLMS:
        rows = t4[t4.PLMs == plm].reset_index(drop=True)
        for i, r in rows.iterrows():
            if r.Method in S_T4_METHODS:
                t4_pairs.append((plm, r.Method, i + 1))

    def t4_row(plm, k):  # the k-th row of plm in Table 4: a "+ angle" row, the n-th of that PLM's
        method = t4[t4.PLMs == plm].reset_index(drop=True).Method[k]
        nth = int((t4[t4.PLMs == plm].reset_index(drop=True).Method[:k] == method).sum())
        return C(p, "table4.csv", "Avg.", PLMs=plm, Method=method, **{"#": str(nth)})

    same_t10 = Same(p, "table10-vs-table4", "same", "Table 10 gives the mean and std of Table 4's five-seed runs "
                                                    "(Original = the method row, Ours = its '+ angle' row)",
                    items=[it for plm, m, k in t4_pairs for it in (
                        (f"{plm} · {m} · Original", C(p, "table10.csv", f"{m} Original", PLMs=plm),
                         row("table4.csv", plm, m, "Avg.")),
                        (f"{plm} · {m} · Ours", C(p, "table10.csv", f"{m} Ours", PLMs=plm), t4_row(plm, k)))])
    same_t14 = Same(p, "table14-vs-table1", "same", "Table 14 caption: the results use the default seed (42) as in "
                                                    "Table 1, so its SimACE rows are Table 1's",
                    items=[(f"{plm} · {c}", row("table14.csv", plm, "SimACE", c), row("table1.csv", plm, "SimACE [*]", c))
                           for plm in PLMS for c in S_STS + ["Avg."]])
    same_t11 = Same(p, "table11-vs-table2", "same", "Table 11 caption: averaged over seeds as in Table 2, so its "
                                                    "SimACE row is Table 2's",
                    items=[(plm, C(p, "table11.csv", plm, Method="Ours(SimACE)"), C(p, "table2.csv", "SimACE", PLMs=plm))
                           for plm in PLMS])
    same_t3 = Same(p, "table3-vs-table12", "same", "Table 3 caption: the MTEB averages detailed in Table 12",
                   items=[(f"{plm} · {m}", C(p, "table3.csv", m, PLMs=plm), row("table12.csv", plm, m, "Avg."))
                          for plm in PLMS for m in ("SimCSE", "SimACE")])
    t7 = book.table(p, "table7_settings.csv")
    t7_cols = {"batch size": "batch_size", "learning rate": "learning_rate", "temperature": "temperature",
               "max length": "max_seq"}
    same_t7 = Same(p, "table7-settings", "same", "Table 7's settings as the companion's settings file repeats them",
                   items=[(f"{b} · {s}", C(p, "table7_settings.csv", "value", backbone=b, setting=s),
                           C(p, "table7.csv", t7_cols[s], PLMs=b))
                          for b, s in zip(t7["backbone"], t7["setting"]) if s in t7_cols
                          and printed(book.get(C(p, "table7.csv", t7_cols[s], PLMs=b))) is not None])

    def base_large(plms, exceptions):
        return [(plm, [(row("table12.csv", plm, "SimACE", c), row("table12.csv", plm, "SimCSE", c))
                       for c in weights if c not in exceptions]) for plm in plms]

    excepted = _named_columns(book.statements().loc["simace-appG-large-exceptions", "statement"])
    t11 = book.table(p, "table11.csv")
    t11_others = [m for m in t11["Method"] if m != "Ours(SimACE)"]
    return [
        Average(p, "table1-average", "average", "Table 1: Avg. is the mean of the seven STS columns",
                file="table1.csv", groups=[(S_STS, "Avg.")], label=["PLMs", "Method"]),
        Average(p, "table4-average", "average", "Table 4: Avg. is the mean of the seven STS columns",
                file="table4.csv", groups=[(S_STS, "Avg.")], label=["PLMs", "Method"]),
        Average(p, "table13-average", "average", "Table 13: Avg. is the mean of the seven transfer tasks",
                file="table13.csv", groups=[(S_TRANSFER, "Avg.")], label=["PLMs", "Method"]),
        Average(p, "table14-average", "average", "Table 14: Avg. is the mean of the seven STS columns",
                file="table14.csv", groups=[(S_STS, "Avg.")], label=["PLMs", "Method"]),
        Average(p, "table12-average", "average", "Table 12 and Table 3 captions: the MTEB average over its 56 data "
                                                 "sets, i.e. the task columns weighted by their data-set counts",
                file="table12.csv", groups=[(list(weights), "Avg.")], label=["PLMs", "Method"], weights=weights,
                also=["table12_tasks.csv"]),
        Same(p, "s43-vs-table1", "same", "§4.3: SimCSE -> SimACE STS averages per PLM, read from Table 1",
             items=[(f"{m} · {plm}", text(m, plm), t1_avg(plm, f"{m} {mark}"))
                    for plm in PLMS for m, mark in (("SimCSE", "[♣]"), ("SimACE", "[*]"))]),
        Same(p, "fig9-vs-table14", "same", "Fig. 9 caption: averaged STS of the BERT-base margin runs, which Table 14 "
                                           "prints",
             items=[(s, C(p, "figures.csv", "value", figure="Fig. 9", setting=s), row("table14.csv", "BERT-base", m, "Avg."))
                    for s, m in (("m = 10 (original)", "SimACE"), ("m = 0 (no margin)", "+ m = 0"),
                                 ("m = -10 (additive margin)", "+ m = -10"))]),
        same_t14, same_t10, same_t11, same_t3, same_t7,
        Unit(p, "margin-unit", "unit", stated(book, "simace-margin-text"),
             items=[("Table 7 margin", Statement("simace-margin-text"), C(p, "table7.csv", "margin", PLMs=PLMS[0]))]),
        Grid(p, "s42-temperature-grid", "grid", stated(book, "simace-s42-tau-grid"), item="temperature",
             cells=[C(p, "table7.csv", "temperature", PLMs=plm) for plm in PLMS],
             low=C(p, "text.csv", "value", quantity="temperature grid low"),
             high=C(p, "text.csv", "value", quantity="temperature grid high")),
        Grid(p, "s42-batch-grid", "grid", stated(book, "simace-s42-batch-grid"), item="batch size",
             cells=[C(p, "table7.csv", "batch_size", PLMs=plm) for plm in PLMS],
             allowed=lambda b: _bracketed(b.statements().loc["simace-s42-batch-grid", "statement"])),
        Significance(p, "table2-caption-p", "p-value", stated(book, "simace-table2-p-all-significant"),
                     item="SimCSE and ArcCon", cells=[t9c(plm, m) for m in ("SimCSE", "ArcCon") for plm in PLMS],
                     bound=Statement("simace-table2-p-all-significant")),
        Significance(p, "table10-caption-p", "p-value", stated(book, "simace-table10-p-all-significant"),
                     item="Table 4's methods", cells=[t9c(plm, m) for m in S_T4_METHODS for plm in PLMS],
                     bound=Statement("simace-table10-p-all-significant")),
        Significance(p, "table4-caption-p", "p-value", stated(book, "simace-table4-p-exceptions"),
                     item="Table 4's methods", cells=[t9c(plm, m) for m in S_T4_METHODS for plm in PLMS],
                     bound=Statement("simace-table4-p-exceptions"),
                     exceptions=[t9c(plm, "PCL") for plm in PLMS] + [t9c("BERT-large", "RankCSE-listMLE")]),
        Significance(p, "appE-p", "p-value", stated(book, "simace-appE-p-exceptions"), item="Table 9",
                     cells=[t9c(plm, m) for m in t9.columns if m not in ("PLMs", "source") for plm in PLMS],
                     bound=Statement("simace-table4-p-exceptions"),
                     exceptions=[t9c(plm, "PCL") for plm in PLMS] + [t9c("BERT-large", "RankCSE-listMLE")]),
        Order(p, "appG-base-all-tasks", "order", stated(book, "simace-appG-base-all-tasks"),
              items=base_large(["BERT-base", "RoBERTa-base"], ())),
        Order(p, "appG-large-most-tasks", "order", stated(book, "simace-appG-large-exceptions"),
              items=base_large(["BERT-large", "RoBERTa-large"], excepted)),
        Order(p, "appF-table11", "order", "App. F on Table 11: SimACE is mostly best, except on BERT-base",
              items=[(plm, [(C(p, "table11.csv", plm, Method="Ours(SimACE)"), C(p, "table11.csv", plm, Method=m))
                            for m in t11_others]) for plm in PLMS if plm != "BERT-base"]),
        *[Repeated(p, f"{f.removesuffix('.csv')}-repeated", "repeated", f"Table {f[5:].removesuffix('.csv')}: each "
                                                                         "row a different run", file=f, label=label,
                   cols=cols)
          for f, label, cols in (("table1.csv", ["PLMs", "Method"], S_STS + ["Avg."]),
                                 ("table4.csv", ["PLMs", "Method"], S_STS + ["Avg."]),
                                 ("table13.csv", ["PLMs", "Method"], S_TRANSFER + ["Avg."]),
                                 ("table14.csv", ["PLMs", "Method"], S_STS + ["Avg."]),
                                 ("table12.csv", ["PLMs", "Method"], list(weights) + ["Avg."]),
                                 ("table11.csv", ["Method"], PLMS),
                                 ("table2.csv", ["PLMs"], ["SimCSE", "ArcCon", "SimACE"]),
                                 ("table10.csv", ["PLMs"], [f"{m} {v}" for m in S_T4_METHODS
                                                            for v in ("Original", "Ours")]))],
        RepeatedAcross(p, "across-tables", "repeated", "Tables 1, 4, 13, 14: runs of identical cells that no "
                                                       "cross-reference explains",
                       sources=[("table1.csv", ["PLMs", "Method"], S_STS + ["Avg."]),
                                ("table4.csv", ["PLMs", "Method"], S_STS + ["Avg."]),
                                ("table14.csv", ["PLMs", "Method"], S_STS + ["Avg."]),
                                ("table13.csv", ["PLMs", "Method"], S_TRANSFER + ["Avg."])],
                       declared=[same_t14]),
        Nothing(p, "table5", "none", "Table 5 gives the STS data-set sizes: nothing stated to recompute them",
                file="table5.csv"),
        Nothing(p, "table6", "none", "Table 6 gives the transfer data-set sizes: nothing stated to recompute them",
                file="table6.csv"),
        Nothing(p, "table8", "none", "Table 8 gives training times; the text states no sum or ratio of them",
                file="table8.csv"),
    ]


def _bracketed(text: str) -> list[str]:
    """The printed members of the first ``{...}`` or ``[...]`` list in a statement."""
    m = re.search(r"[\[{]([^\]}]+)[\]}]", text)
    if not m:
        raise ValueError(f"no bracketed list in {text!r}")
    return [x.strip() for x in m.group(1).split(",")]


def _named_columns(text: str) -> list[str]:
    """The Table 12 columns a statement names in its closing "(Table 12: Clas, Rank, Sum)"."""
    m = re.search(r"\(Table 12: ([^)]+)\)", text)
    if not m:
        raise ValueError(f"no '(Table 12: ...)' in {text!r}")
    return [x.strip() for x in m.group(1).split(",")]


# ---------------------------------------------------------------------------------------------- weighted CL
def weighted_cl(book: Book) -> list:
    p = "weighted-cl"

    def t1(target, col):
        return C(p, "table1.csv", col, Target=target)

    targets = book.table(p, "table1.csv")["Target"].tolist()
    others = [t for t in targets if t != "MiniLM"]
    quantities = book.table(p, "prose.csv")["quantity"]

    def prose(start):  # the prose.csv row whose quantity starts with ``start`` (exactly one)
        match = [q for q in quantities if q.startswith(start)]
        if len(match) != 1:
            raise KeyError(f"weighted-cl/prose.csv: {len(match)} rows start with {start!r}")
        return C(p, "prose.csv", "value", quantity=match[0])

    return [
        Order(p, "appE-reading", "order", stated(book, "weighted-cl-appE-reading"),
              items=[("MiniLM has the best r2_Proc", [(t1("MiniLM", "r2_Proc_test"), t1(t, "r2_Proc_test"))
                                                       for t in others]),
                     ("MiniLM has the lowest loss error", [(t1(t, "Delta_W_test (%)"), t1("MiniLM", "Delta_W_test (%)"))
                                                           for t in others]),
                     ("the best metrics give the best Top-1", [(t1("MiniLM", "Top-1 (%)"), t1(t, "Top-1 (%)"))
                                                               for t in others]),
                     ("the best metrics give the best Top-3", [(t1("MiniLM", "Top-3 (%)"), t1(t, "Top-3 (%)"))
                                                               for t in others])]),
        Order(p, "table1-top3-above-top1", "order", "Table 1: top-3 accuracy cannot be below top-1 (definition)",
              items=[(t, [(t1(t, "Top-3 (%)"), t1(t, "Top-1 (%)"))]) for t in targets]),
        Grid(p, "fig3b-q-vs-appG", "grid", "App. G, Table 2, §4.1 column: latent dimension d = 2 or d in [5..12] (d "
                                           "is the embedding dimension there, as in §4.2's d = C = 10 for Fig. 4's "
                                           "10-dimensional embeddings); Fig. 3(b) caption: its sweep is q in [7..13]",
             item="Fig. 3(b) sweep", cells=[prose("Fig. 3(b): smallest latent dimension of the sweep"),
                                            prose("Fig. 3(b): largest latent dimension of the sweep")],
             low=prose("App. G: smallest latent dimension of the §4.1 sweeps"),
             high=prose("App. G: largest latent dimension of the §4.1 sweeps")),
        Nothing(p, "table2", "none", "Table 2 (App. G) lists implementation details as text; the §4.1 column's latent "
                                     "dimensions are in prose.csv as numbers, checked against Fig. 3(b) "
                                     "(fig3b-q-vs-appG)", file="table2.csv"),
    ]


# ------------------------------------------------------------------------------------------------- concepts
def concepts(book: Book) -> list:
    p = "concepts"

    def L(file, r, col):  # noqa: N802 - a long-format cell (row, column, value)
        return C(p, file, "value", row=r, column=col)

    t12 = book.table(p, "table12.csv")
    families = list(dict.fromkeys(t12["Family"]))

    def ranks_descending(b: Book):
        frame = b.table(p, "table12.csv")
        for fam in families:
            ranks = frame[frame.Family == fam]["Rank"].tolist()
            ok = all(printed(a).value > printed(c).value for a, c in zip(ranks, ranks[1:]))
            yield Result(fam, f"Table 12 [{fam}, Rank] = {', '.join(ranks)}",
                         Outcome(not ok, f"ranks {', '.join(ranks)} {'' if ok else 'not '}in descending order"))

    hn = "hard negatives (P3)"
    return [
        Difference(p, "table4-differences", "difference", "§5.4: the M1 - B3 changes, stated beside both values",
                   items=[(col, L("table4.csv", "M1", col), L("table4.csv", "B3", col), L("table4.csv", "M1 - B3", col))
                          for col in ("t2d R@10", "Negate ROC-AUC", "type-swap ROC-AUC")]),
        Difference(p, "table6-difference", "difference", "§5.6: in-domain DBpedia steps add a further 0.196 over B1",
                   items=[("in-domain - B1", L("table6.csv", "in-domain (300 DBpedia steps)", "DBpedia R@10"),
                           L("table6.csv", "B1", "DBpedia R@10"), L("table6.csv", "in-domain - B1", "DBpedia R@10"))]),
        Range(p, "p3-range", "range", "§1, P3: hard negatives improve discrimination by ROC-AUC +0.19 to +0.46",
              low=L("table4.csv", hn, "ROC-AUC gain (low end)"), high=L("table4.csv", hn, "ROC-AUC gain (high end)"),
              items=[("pair ROC-AUC (M1 - B3)", Diff(L("table2.csv", "M1", "pair ROC-AUC"),
                                                     L("table2.csv", "B3", "pair ROC-AUC"))),
                     ("Negate ROC-AUC (M1 - B3)", L("table4.csv", "M1 - B3", "Negate ROC-AUC")),
                     ("type-swap ROC-AUC (M1 - B3)", L("table4.csv", "M1 - B3", "type-swap ROC-AUC"))]),
        Same(p, "table2-vs-table4", "same", "§5.2 and §5.4 state B3's and M1's cells twice",
             items=[(f"{r} · {col}", L("table2.csv", r, col), L("table4.csv", r, col))
                    for r in ("B3", "M1") for col in ("t2d R@10", "Negate ROC-AUC")]),
        Same(p, "s55-two-gains", "same", "§5.5: B1's intersective gain and relational change, then 'the aggregate "
                                         "results' for the same families",
             items=[(col, L("table5.csv", "B1 - B0", col), L("table5.csv", "aggregate (extensional supervision)", col))
                    for col in ("intersective R@1", "relational R@1")]),
        Same(p, "dbpedia-sizes", "same", "§1, §4.5 and the Table 6 and 13 captions: the DBpedia benchmark's sizes",
             items=[("test pairs §1 vs §4.5", L("table6.csv", "DBpedia benchmark", "test pairs"),
                     L("table6.csv", "DBpedia benchmark", "test pairs (manually reviewed)")),
                    ("test queries Table 6 vs §4.5", L("table6.csv", "DBpedia test", "queries"),
                     L("table6.csv", "DBpedia benchmark", "test pairs (manually reviewed)")),
                    ("test queries Table 13 vs Table 6", L("table13.csv", "DBpedia test", "queries"),
                     L("table6.csv", "DBpedia test", "queries")),
                    ("candidates Table 13 vs Table 6", L("table13.csv", "DBpedia test", "candidates"),
                     L("table6.csv", "DBpedia test", "candidates")),
                    ("DBpedia steps Table 13 vs Table 6", L("table13.csv", "fine-tuned backbones", "DBpedia steps"),
                     L("table6.csv", "in-domain condition", "DBpedia steps")),
                    ("training queries §1 vs §4.5", Statement("concepts-dbpedia-train-contrib"),
                     L("table6.csv", "DBpedia benchmark", "training queries"))]),
        Total(p, "table7-pairs", "total", "§4.5: 3.3M pairs, WordNet 527K (315K syn + 212K t2d) and Wiktionary "
                                          "2.8M (590K syn + 2.2M t2d)",
              items=[("WordNet", [L("table7.csv", "WordNet", "syn pairs"), L("table7.csv", "WordNet", "t2d pairs")],
                      L("table7.csv", "WordNet", "all pairs"), None),
                     ("Wiktionary", [L("table7.csv", "Wiktionary", "syn pairs"),
                                     L("table7.csv", "Wiktionary", "t2d pairs")],
                      L("table7.csv", "Wiktionary", "all pairs"), None),
                     ("both sources", [L("table7.csv", "WordNet", "all pairs"),
                                       L("table7.csv", "Wiktionary", "all pairs")],
                      L("table7.csv", "both sources", "all pairs"), None)]),
        Total(p, "table8-np-pairs", "total", "§4.5: 4,000 NP pairs over the five families",
              items=[("all families", [L("table8.csv", f, "NP pairs") for f in
                                       ("intersective", "subsective", "relational", "modal", "privative")],
                      L("table8.csv", "all families", "NP pairs"), None)]),
        Order(p, "p1-anisotropy", "order", stated(book, "concepts-p1"),
              items=[(f"B0 > {c}", [(L("table11.csv", "B0", "anisotropy"), L("table11.csv", c, "anisotropy"))])
                     for c in ("B1", "B3", "M1")]),
        Order(p, "appH-layers", "order", "App. H: frozen layer-12 anisotropy far below layers 5-11",
              items=[("layers 5-11 > layer 12", [(L("table11.csv", "B0 layers 5-11 (frozen)", "anisotropy (low end)"),
                                                  L("table11.csv", "B0 layer 12 (frozen)", "anisotropy"))])]),
        Custom(p, "table12-order", "order", "App. I: Table 12's failures sorted by the rank of the correct "
                                            "candidate, descending", files=["table12.csv"], fn=ranks_descending),
        Count(p, "table12-per-family", "count", stated(book, "concepts-table12-up-to-three"), file="table12.csv",
              group_col="Family", stated=Statement("concepts-table12-up-to-three"), at_most=True),
        *[Nothing(p, f.removesuffix(".csv"), "none", reason, file=f) for f, reason in (
            ("table1.csv", "Table 1 (encoder conditions) has no numbers beyond its caption's settings"),
            ("table3.csv", "Table 3's body is not in the text; the one stated difference (M2 - B1) has no levels"),
            ("table9.csv", "Table 9 lists hyperparameters: nothing to recompute"),
            ("table10.csv", "Table 10's body is not in the text; App. F states only the differences"))],
    ]


def checks(book: Book) -> list:
    """Every check of the five papers."""
    out = []
    for build in (angle, circumplex, simace, weighted_cl, concepts):
        out.extend(build(book))
    return out

