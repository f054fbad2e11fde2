"""SimACE's tables as transcribed in data/simace from the paper's text: shape, averages recomputed from their rows,
and every cross-reference (the same number in two tables, text or caption vs table). Verified inconsistencies of the
paper are pinned here (listed explicitly), so a transcription error shows up as a failing test."""

import math

import numpy as np
import pandas as pd
import pytest

from companion.papers.tables import paper_table
from companion.settings import REPO_ROOT

DATA = REPO_ROOT / "data" / "simace"
STS = ["STS12", "STS13", "STS14", "STS15", "STS16", "STS-B", "SICK-R"]
TRANSFER = ["MR", "CR", "SUBJ", "MPQA", "SST", "TREC", "MRPC"]
MTEB_COUNTS = {"Clas": 12, "Clus": 11, "Pair": 3, "Rank": 4, "Retr": 15, "STS": 10, "Sum": 1}  # §4.5 / Table 12
# a printed average of 2-decimal cells can differ from the mean of its printed cells by at most 0.005 (cells rounded)
# + 0.005 (average rounded)
ROUNDING = 0.01
PLMS = ["BERT-base", "BERT-large", "RoBERTa-base", "RoBERTa-large"]


def read(name):
    return paper_table("simace", name)


def num(x):
    return float(x) if x not in ("", "N/A", "-") else math.nan


@pytest.mark.parametrize("name", sorted(p.name for p in DATA.glob("*.csv")
                                        if p.name not in ("coverage.csv", "statements.csv")))
def test_every_csv_has_rows_and_sources(name):
    df = read(name)
    assert len(df) > 0, name
    assert "source" in df.columns, name
    assert (df["source"].str.strip() != "").all(), name


def test_every_printed_table_is_transcribed():
    text = (REPO_ROOT.parent / "shared" / "papers" / "simace.txt")
    numbers = range(1, 15)
    if text.exists():
        import re

        numbers = sorted({int(n) for n in re.findall(r"^Table (\d+):", text.read_text(encoding="utf-8"), re.M)})
        assert numbers == list(range(1, 15))
    for n in numbers:
        assert (DATA / f"table{n}.csv").exists(), n


def mismatches(df, cols, weights=None):
    out = {}
    for _, r in df.iterrows():
        printed = num(r["Avg."])
        if math.isnan(printed):
            continue
        vals = np.array([num(r[c]) for c in cols])
        mean = float(vals @ np.array([weights[c] for c in cols]) / sum(weights.values())) if weights else vals.mean()
        if abs(mean - printed) > ROUNDING:
            out[(r["PLMs"], r["Method"])] = (printed, round(mean, 3))
    return out


def test_sts_averages_recomputed():
    t1, t4, t14 = read("table1.csv"), read("table4.csv"), read("table14.csv")
    assert len(t1) == 14 and len(t4) == 20 and len(t14) == 12
    assert mismatches(t1, STS) == {}
    assert mismatches(t14, STS) == {}
    # Table 4: RankCSE-listMLE's printed averages are off (BERT-base clearly, BERT-large just beyond rounding)
    assert mismatches(t4, STS) == {("BERT-base", "RankCSE-listMLE"): (80.06, 80.097),
                                   ("BERT-large", "RankCSE-listMLE"): (80.11, 80.123)}
    # the two Table 1 rows whose Avg. cell the extraction lost are left empty, not invented
    lost = t1[t1["Avg."] == ""]
    assert set(zip(lost.PLMs, lost.Method)) == {("RoBERTa-base", "first-last [♣]"), ("RoBERTa-large", "SimCSE [♣]")}


def test_transfer_averages_recomputed():
    t13 = read("table13.csv")
    assert len(t13) == 24
    # ArcCon's printed averages (BERT-base 85.41, BERT-large 87.94) are not the means of their rows
    assert mismatches(t13, TRANSFER) == {("BERT-base", "ArcCon"): (85.41, 85.843),
                                         ("BERT-large", "ArcCon"): (87.94, 87.701)}


def test_mteb_average_is_the_dataset_weighted_mean():
    t12 = read("table12.csv")
    assert sum(MTEB_COUNTS.values()) == 56
    # weighted by data-set counts every row matches to rounding but BERT-base SimCSE (by 0.011); the plain mean of
    # the seven columns matches none
    assert mismatches(t12, list(MTEB_COUNTS), MTEB_COUNTS) == {("BERT-base", "SimCSE"): (46.16, 46.149)}
    assert len(mismatches(t12, list(MTEB_COUNTS))) == len(t12)


def test_cross_references():
    t1, t2, t3 = read("table1.csv"), read("table2.csv").set_index("PLMs"), read("table3.csv").set_index("PLMs")
    t4, t10, t11 = read("table4.csv"), read("table10.csv").set_index("PLMs"), read("table11.csv").set_index("Method")
    t12, t14 = read("table12.csv"), read("table14.csv")
    for plm in PLMS:
        # Table 11's SimACE row repeats Table 2's 5-seed means
        assert num(t11.loc["Ours(SimACE)", plm]) == num(t2.loc[plm, "SimACE"])
        # Table 3 repeats Table 12's averages
        for method in ("SimCSE", "SimACE"):
            row = t12[(t12.PLMs == plm) & (t12.Method == method)].iloc[0]
            assert num(row["Avg."]) == num(t3.loc[plm, method])
        # Table 14's SimACE rows are Table 1's SimACE rows (seed 42)
        a = t14[(t14.PLMs == plm) & (t14.Method == "SimACE")][STS + ["Avg."]].to_numpy()
        b = t1[(t1.PLMs == plm) & (t1.Method == "SimACE [*]")][STS + ["Avg."]].to_numpy()
        assert (a == b).all(), plm
    # Table 10's means are Table 4's averages (original = the method row, ours = its "+ angle" row)
    methods = {"PCL": "PCL", "RankCSE-listNet": "RankCSE-listNet", "RankCSE-listMLE": "RankCSE-listMLE"}
    for plm in PLMS:
        rows = t4[t4.PLMs == plm].reset_index(drop=True)
        for i, r in rows.iterrows():
            if r.Method in methods:
                assert num(t10.loc[plm, f"{r.Method} Original"]) == num(r["Avg."])
                assert num(t10.loc[plm, f"{r.Method} Ours"]) == num(rows.loc[i + 1, "Avg."])
            elif r.Method != "+ angle":
                raise AssertionError(r.Method)
        if plm.endswith("large"):
            assert t10.loc[plm, "PCL Original"] == "N/A" and "PCL" not in set(rows.Method)


def test_text_and_captions_against_tables():
    t1, t14 = read("table1.csv"), read("table14.csv")
    text, figs = read("text.csv"), read("figures.csv")
    sec43 = text[text.source == "§4.3"]
    for plm in PLMS:
        row = sec43[sec43.PLMs == plm].set_index("model")["value"].astype(float)
        simace = t1[(t1.PLMs == plm) & (t1.Method == "SimACE [*]")].iloc[0]
        simcse = t1[(t1.PLMs == plm) & (t1.Method == "SimCSE [♣]")].iloc[0]
        assert row["SimACE"] == num(simace["Avg."])  # §4.3's SimACE averages are Table 1's
        simcse_avg = num(simcse["Avg."]) if simcse["Avg."] else round(np.mean([num(simcse[c]) for c in STS]), 2)
        # ... but its SimCSE averages are not Table 1's (76.95 vs 76.25, 78.46 vs 78.41, 76.64 vs 76.57, 78.53 vs
        # 78.90 from the row whose Avg. cell is lost)
        assert abs(row["SimCSE"] - simcse_avg) > ROUNDING, plm
    # Fig. 9's caption against Table 14 (BERT-base): m = 10 and m = -10 agree, m = 0 does not (76.69 vs 77.08)
    fig9 = figs[figs.figure == "Fig. 9"].set_index("setting")["value"].astype(float)
    t14b = t14[t14.PLMs == "BERT-base"].set_index("Method")["Avg."].astype(float)
    assert fig9["m = 10 (original)"] == t14b["SimACE"]
    assert fig9["m = -10 (additive margin)"] == t14b["+ m = -10"]
    assert abs(fig9["m = 0 (no margin)"] - t14b["+ m = 0"]) > ROUNDING
    # Fig. 7's tau 0.05 / 0.07 bracket Table 7's BERT tau 0.06
    t7 = read("table7.csv").set_index("PLMs")
    assert float(t7.loc["BERT-base", "temperature"]) == 0.06 and float(t7.loc["RoBERTa-base", "temperature"]) == 0.05


def test_significance_statements_against_table9():
    t9 = read("table9.csv").set_index("PLMs")
    p = t9.drop(columns="source").map(num)
    # Table 2's caption calls every baseline comparison p < 0.001, but Table 9's ArcCon column has 0.05 and 0.01
    assert (p["SimCSE"] <= 0.001).all()
    assert set(p.loc[p["ArcCon"] > 0.001, "ArcCon"]) == {0.05, 0.01}
    # App. E names only two PCL results and RankCSE-listMLE on BERT-large as not significant; Table 9 also has
    # RankCSE-listMLE at 0.04 (RoBERTa-base) and 0.05 (RoBERTa-large)
    assert p.loc["BERT-large", "RankCSE-listMLE"] == 0.85
    assert set(p.loc[["RoBERTa-base", "RoBERTa-large"], "RankCSE-listMLE"]) == {0.04, 0.05}


def test_mteb_prose_against_table12():
    t12 = read("table12.csv")
    worse = {}
    for plm in PLMS:
        a = t12[(t12.PLMs == plm) & (t12.Method == "SimACE")].iloc[0]
        b = t12[(t12.PLMs == plm) & (t12.Method == "SimCSE")].iloc[0]
        worse[plm] = sorted(c for c in MTEB_COUNTS if num(a[c]) < num(b[c]))
    # App. G: "the base models are better on all tasks" -- BERT-base is worse on Sum; for the large models the
    # exceptions are said to be classification, reranking and summarization -- BERT-large is better on Clas
    assert worse == {"BERT-base": ["Sum"], "BERT-large": ["Rank", "Sum"], "RoBERTa-base": [],
                     "RoBERTa-large": ["Clas", "Rank", "Sum"]}


def test_settings_and_paper_numbers():
    settings = read("table7_settings.csv")
    assert list(settings.columns) == ["backbone", "setting", "value", "source"]
    t7 = read("table7.csv").set_index("PLMs")
    bert = settings[settings.backbone == "BERT-base"].set_index("setting")["value"]
    assert int(bert["batch size"]) == int(t7.loc["BERT-base", "batch_size"])
    assert float(bert["temperature"]) == float(t7.loc["BERT-base", "temperature"])
    assert bert["learning rate"] == t7.loc["BERT-base", "learning_rate"]
    numbers = read("paper_numbers.csv")
    assert list(numbers.columns) == ["table", "model", "backbone", "quantity", "value", "source", "note"]
    t4 = read("table4.csv")
    rank = t4[(t4.PLMs == "BERT-base") & (t4.Method == "RankCSE-listMLE")].iloc[0]
    listed = numbers[numbers.model == "RankCSE-listMLE"].set_index("quantity")["value"].astype(float)
    assert listed["avg (as printed)"] == num(rank["Avg."])
    assert listed["mean of the 7 printed scores"] == round(np.mean([num(rank[c]) for c in STS]), 2)


def statements():
    path = REPO_ROOT / "data" / "synthesis" / "errata_statements.csv"
    df = pd.read_csv(path, comment="#", keep_default_na=False, dtype=str)
    return df[df.paper == "simace"].set_index("id")


def test_grid_of_s42_against_table7():
    st, t7 = statements(), read("table7.csv").set_index("PLMs")
    hi_tau, hi_batch = float(st.loc["simace-s42-tau-grid", "value"]), int(st.loc["simace-s42-batch-grid", "value"])
    grid_tau, grid_batch = {0.06, hi_tau}, {32, hi_batch}  # §4.2: tau in [0.06, 0.07], batch size in {32, 128}
    taus = t7["temperature"].astype(float)
    # the RoBERTa runs use tau 0.05, below the grid; BERT-base uses batch 64, not in the grid
    assert sorted(taus[taus < min(grid_tau)].index) == ["RoBERTa-base", "RoBERTa-large"]
    assert float(st.loc["simace-table7-tau-roberta", "value"]) == taus["RoBERTa-base"] == 0.05
    batches = t7["batch_size"].astype(int)
    assert sorted(batches[~batches.isin(grid_batch)].index) == ["BERT-base"]
    assert int(st.loc["simace-table7-batch-bert-base", "value"]) == batches["BERT-base"]


def test_table10_caption_against_table9():
    st, t9 = statements(), read("table9.csv").set_index("PLMs")
    p = t9[["PCL", "RankCSE-listNet", "RankCSE-listMLE"]].map(num)
    bound = float(st.loc["simace-table10-p-all-significant", "value"])
    # Table 10's caption: every p-value of Table 4's methods < 0.001; Table 9: five are not
    above = {(plm, m) for plm in p.index for m in p.columns if not math.isnan(p.loc[plm, m]) and p.loc[plm, m] > bound}
    assert above == {("BERT-base", "PCL"), ("RoBERTa-base", "PCL"), ("BERT-large", "RankCSE-listMLE"),
                     ("RoBERTa-base", "RankCSE-listMLE"), ("RoBERTa-large", "RankCSE-listMLE")}
    assert float(st.loc["simace-table9-pcl-bert-base", "value"]) == p.loc["BERT-base", "PCL"]
    assert float(st.loc["simace-table9-listmle-roberta-base", "value"]) == p.loc["RoBERTa-base", "RankCSE-listMLE"]
    # the two captions give different reasons for PCL's missing large-model results
    assert "memory" in st.loc["simace-table4-pcl-large-reason", "statement"]
    assert "gradient explosion" in st.loc["simace-table10-pcl-large-reason", "statement"]


def test_table1_seed42_runs_against_table2_means():
    t1, t2 = read("table1.csv"), read("table2.csv").set_index("PLMs")
    z = {}
    for plm in PLMS:
        for method in ("ArcCon", "SimACE"):
            cell = t1[(t1.PLMs == plm) & (t1.Method == f"{method} [*]")]["Avg."].iloc[0]
            if cell and t2.loc[plm, method] != "N/A":
                z[(plm, method)] = (num(cell) - num(t2.loc[plm, method])) / num(t2.loc[plm, f"{method}_std"])
    # the authors' seed-42 runs (Table 1) are consistent with their 5-seed means (Table 2): within 2 sds; and
    # every one lies above its mean (not an inconsistency, but Table 1 shows a favourable seed)
    assert len(z) == 7 and all(0 < v < 2 for v in z.values()), z
