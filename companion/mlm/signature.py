r"""The raw-encoder signature that SimACE and AnglE argue from, measured before any fine-tuning.

For each encoder (the random-init network, the raw MLM encoder, all-MiniLM-L6-v2):

* **anisotropy**: the mean cosine between the embeddings of unrelated sentences (the first sentences of distinct
  STS-B test pairs, every pair of them off the diagonal). A raw MLM encoder puts them in a narrow cone (mean cosine
  far above 0); a contrastively trained one spreads them (MiniLM: near 0).
* **saturation-zone shares**: the share of STS pairs whose cosine lies where the cosine's gradient is small. AnglE
  draws the zones without numbers: Fig. 1 (``angle.txt`` line 20, "The saturation zones of the cosine function. The
  gradient at saturation zones is close to zero"), §1 (line 22, "if two points ... fall within the saturation zone
  ... the gradient ... will vanish") and Fig. 2b (line 69, "Angle optimization in cosine saturation zones"), both
  at the two ends, θ → 0 and θ → π. The project's Fig. 1 analogue (notebook ``angle/01``, §1) shades
  :math:`\|\nabla_u \cos(u, v)\| = \sin\theta < 0.3`, that is :math:`|\cos\theta| > \sqrt{1 - 0.3^2} \approx
  0.954`; the same threshold is used here (``grad_below``), with the mean :math:`\sin\theta` over the pairs (the
  mean gradient norm of the cosine at unit length) beside it.
* **zero-shot STS**: Spearman × 100 of the pair cosines on the seven STS sets (:func:`companion.sts.score_pairs`).

Measured (``python -m companion.mlm signature --profile cpu``; 500 unrelated sentences, all 25,606 pairs of the
seven sets; random-init and raw at length 64, MiniLM at 128):

=============================  ==========  ==================  ===========  ========
encoder                        anisotropy  pairs in the zones  mean sin θ   STS avg
=============================  ==========  ==================  ===========  ========
random-init network, mean      0.937       80.7 %              0.236        48.84
raw MLM encoder, mean          0.710       19.8 %              0.427        39.23
raw MLM encoder, [CLS]         0.913       78.2 %              0.230        30.67
all-MiniLM-L6-v2, mean         0.022       5.6 %               0.696        78.87
=============================  ==========  ==================  ===========  ========

All the pairs in the zones are in the high one (cos > 0.954). The raw encoder has the signature the papers
describe (:func:`has_raw_signature` against MiniLM: all three parts, for both poolings); so does the untrained
network, more strongly, and its mean-pooled embeddings (an average of random token vectors, a lexical-overlap
score) beat the raw encoder's zero-shot STS: pretraining *lowered* the zero-shot STS of the network it started
from by about 10 points (39.0 against 48.9 on the notebooks' 500 pairs per set), and its held-out MLM loss, 5.84,
is about one nat below the unigram entropy of its pieces (7.00). So this encoder is a weak stand-in for a raw
BERT, and is not shown to behave like one: :func:`regime_signature` shows the gap to the random start
(``sts_vs_random``) and the held-out loss (``mlm_loss``) beside the signature, and :func:`raw_regime` writes the
regime label that every claim from it carries, with those numbers as measured.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
import torch

from companion._io import cache_key, write_atomic
from companion.encoders import MINILM, load_encoder
from companion.mlm import build_info, random_encoder, raw_encoder, raw_model_path
from companion.mlm.pretrain import GPU_BACKBONE, unigram_entropy
from companion.settings import cache_dir

GRAD_BELOW = 0.3  # the project's Fig. 1 zone: |d cos / d u| = sin(theta) < 0.3 (notebook angle/01, §1)


def unrelated_sentences(n: int = 500, seed: int = 0) -> list[str]:
    """The first sentences of ``n`` distinct STS-B test pairs drawn with ``seed`` (distinct texts only)."""
    from companion.sts import load_pairs  # noqa: PLC0415 - loads scipy; this module imports without it

    s1, _, _ = load_pairs("STSBenchmark", split="test")
    rng = np.random.default_rng(seed)
    picked = [s1[i] for i in np.sort(rng.choice(len(s1), size=min(n, len(s1)), replace=False))]
    return list(dict.fromkeys(picked))


def mean_offdiagonal_cosine(emb: torch.Tensor) -> float:
    """Mean cosine over all pairs ``i != j`` of the rows of ``emb``."""
    x = torch.nn.functional.normalize(emb.double(), dim=-1)
    n = x.shape[0]
    if n < 2:
        raise ValueError("need at least two embeddings.")
    s = x.sum(dim=0)
    return float(((s @ s) - n) / (n * (n - 1)))


def cosine_zone_shares(cosines: np.ndarray, grad_below: float = GRAD_BELOW) -> dict[str, float]:
    """Shares of ``cosines`` in the high zone (cos > sqrt(1 - g²)), the low zone (cos < -sqrt(1 - g²)), both,
    and the mean cosine gradient norm sin θ."""
    c = np.clip(np.asarray(cosines, dtype=np.float64), -1.0, 1.0)
    edge = math.sqrt(1.0 - grad_below**2)
    high, low = float(np.mean(c > edge)), float(np.mean(c < -edge))
    return {"zone_high": high, "zone_low": low, "zone": high + low,
            "mean_grad": float(np.mean(np.sqrt(1.0 - c**2)))}


def signature(encoder, n_unrelated: int = 500, n_per_set: int | None = None, seed: int = 0,
              grad_below: float = GRAD_BELOW, cache: bool = True) -> dict[str, float]:
    """The signature of one encoder (:class:`companion.encoders.Encoder` or a callable ``texts -> N x d``):
    ``anisotropy``, the pair-cosine mean and standard deviation, the zone shares over the STS pairs of all seven
    sets (``n_per_set`` pairs each, ``None``: all), and the zero-shot Spearman × 100 per set and ``avg``."""
    from companion.sts import _encode_fn, score_pairs, sts_pairs_subset  # noqa: PLC0415 - loads scipy; this module imports without it

    encode = _encode_fn(encoder, None, cache)
    anis = mean_offdiagonal_cosine(encode(unrelated_sentences(n_unrelated, seed)))
    pairs = sts_pairs_subset(n_per_set, seed=seed)
    scores, cosines = score_pairs(encode, pairs, average=True, return_cosines=True)
    allc = np.concatenate([np.asarray(v) for v in cosines.values()])
    out = {"anisotropy": anis, "pair_cos_mean": float(allc.mean()), "pair_cos_std": float(allc.std()),
           **cosine_zone_shares(allc, grad_below)}
    out.update({f"sts_{k}": float(v) for k, v in scores.items()})
    return out


def signature_table(encoders: Mapping[str, object], **kwargs):
    """:func:`signature` of each named encoder, one row each (a pandas DataFrame)."""
    return pd.DataFrame({name: signature(enc, **kwargs) for name, enc in encoders.items()}).T


def has_raw_signature(row: Mapping[str, float], reference: Mapping[str, float], min_anisotropy: float = 0.5,
                      ) -> dict[str, bool]:
    """Which parts of the raw-encoder signature ``row`` shows against ``reference`` (MiniLM): unrelated sentences
    in a narrow cone (anisotropy at least ``min_anisotropy`` and above the reference's), more STS pairs in the
    saturation zones and a smaller mean cosine gradient than the reference, and a lower zero-shot STS average."""
    return {"anisotropic": row["anisotropy"] >= min_anisotropy and row["anisotropy"] > reference["anisotropy"],
            "more_saturated": row["zone"] > reference["zone"] and row["mean_grad"] < reference["mean_grad"],
            "weaker_sts": row["sts_avg"] < reference["sts_avg"]}


def describe(names: Sequence[str], table) -> str:
    """One line per encoder: anisotropy, zone share, mean gradient, STS avg."""
    return "\n".join(f"{n}: anisotropy {table.loc[n, 'anisotropy']:.3f}, pairs in the zones "
                     f"{100 * table.loc[n, 'zone']:.1f} %, mean sin θ {table.loc[n, 'mean_grad']:.3f}, "
                     f"STS avg {table.loc[n, 'sts_avg']:.2f}" for n in names)


#: the signature's sizes per profile in the notebooks: unrelated sentences and STS pairs per set (``None``: all
#: 25,606 pairs, as in the table above; ``cpu``: 500 per set, simace/02's STS subset, to stay within minutes)
SIGNATURE_SIZES = {"smoke": {"n_unrelated": 40, "n_per_set": 20}, "cpu": {"n_unrelated": 500, "n_per_set": 500},
                   "gpu": {"n_unrelated": 500, "n_per_set": None}}
#: the rows of :func:`regime_signature`, in order
SIGNATURE_ROWS = ("random-init network (mean)", "raw MLM encoder (mean)", "raw MLM encoder ([CLS])",
                  "all-MiniLM-L6-v2 (mean)")


def regime_signature(profile: str = "cpu", cache: bool = True, log=print):
    """The signature table of the raw-encoder regime, one row per :data:`SIGNATURE_ROWS`: the untrained network the
    build of ``profile`` started from, the raw encoder with mean and [CLS] pooling, and all-MiniLM-L6-v2 (a smoke
    profile's stand-in: ``tiny-bert``), measured with :data:`SIGNATURE_SIZES`. Cached as JSON under the cache folder
    (``mlm/signature-<key>.json``, the key naming the build's weights hash and the sizes), so the notebooks that show
    it measure it once. Returns a pandas DataFrame with a ``raw signature`` column (:func:`has_raw_signature`
    against the MiniLM row, all three parts), ``sts_vs_random`` (the STS average minus the random-init network's:
    where the raw encoder's is negative, pretraining lowered the zero-shot STS of the network it started from) and
    ``mlm_loss`` (the build's held-out MLM loss: at step 0 for the random-init row, at the end for the raw rows)."""
    sizes = SIGNATURE_SIZES[profile]
    path = raw_model_path(profile, log=log)
    weights = build_info(path)["weights_hash"] if profile != "gpu" else path
    minilm = "tiny-bert" if profile == "smoke" else MINILM
    key = cache_key({"weights": weights, "profile": profile, "minilm": minilm, **sizes, "grad_below": GRAD_BELOW})
    file = cache_dir() / "mlm" / f"signature-{key}.json"
    if cache and file.is_file():
        rows = json.loads(file.read_text(encoding="utf-8"))
    else:
        makers = {SIGNATURE_ROWS[0]: lambda: random_encoder(profile, pooling="mean", log=log),
                  SIGNATURE_ROWS[1]: lambda: raw_encoder(profile, pooling="mean", device="cpu", log=log),
                  SIGNATURE_ROWS[2]: lambda: raw_encoder(profile, pooling="cls", device="cpu", log=log),
                  SIGNATURE_ROWS[3]: lambda: load_encoder(minilm, pooling="mean", max_length=128, device="cpu")}
        rows = {name: signature(make(), **sizes) for name, make in makers.items()}
        if cache:
            write_atomic(file, lambda fh: fh.write(json.dumps(rows, indent=1).encode("utf-8")))
    table = pd.DataFrame(rows).T.loc[list(SIGNATURE_ROWS)]
    reference = table.loc[SIGNATURE_ROWS[3]]
    table["raw signature"] = [all(has_raw_signature(table.loc[n], reference).values()) for n in table.index]
    table["sts_vs_random"] = table["sts_avg"] - table.loc[SIGNATURE_ROWS[0], "sts_avg"]
    loss = {SIGNATURE_ROWS[0]: float("nan"), SIGNATURE_ROWS[3]: float("nan")}
    if profile != "gpu":
        heldout = build_info(path)["heldout"]
        loss = {SIGNATURE_ROWS[0]: heldout[0]["loss"], SIGNATURE_ROWS[3]: float("nan")}
        loss[SIGNATURE_ROWS[1]] = loss[SIGNATURE_ROWS[2]] = heldout[-1]["loss"]
    table["mlm_loss"] = [loss.get(n, float("nan")) for n in table.index]
    return table


#: the columns of :func:`regime_signature` a notebook shows, in order
SIGNATURE_COLUMNS = ("anisotropy", "zone", "mean_grad", "sts_avg", "sts_vs_random", "mlm_loss", "raw signature")


def raw_regime(profile: str, table, log=print) -> str:
    """What the raw encoder of ``profile`` is, in the words a claim's ``regime`` field carries, from its build record
    and its signature ``table`` (:func:`regime_signature`): its size and pretraining, its corpus and how that was
    decontaminated, its held-out MLM loss against the unigram entropy of its pieces (the loss of a model that
    ignores the context), and its zero-shot STS average (mean pooling) against the random network it started
    from (one decimal). Where it is not above that random start it says so, and that a verdict from this encoder is
    no evidence about raw BERT; where the held-out loss is not below the unigram entropy, that it predicts no better
    than piece frequencies."""
    if profile == "gpu":
        return f"{GPU_BACKBONE} (the papers' raw BERT)"
    folder = raw_model_path(profile, log=log)
    info = build_info(folder)
    cfg = info["config"]
    sources = ("the data mirror's wiki head" if set(cfg["sources"]) == {"wiki"} else
               "WordNet glosses, training splits of the data mirror and Debian prose")
    rule = cfg.get("decontamination", "exact")
    rule = ("exact-match decontamination only, so near-copies of evaluation sentences can remain" if rule == "exact"
            else f"{rule} decontamination")
    loss = info["heldout"][-1]["loss"]
    unigram = unigram_entropy(folder, log=log)
    if unigram is None:
        against = "(the unigram entropy of its pieces not measured: its corpus is no longer cached)"
    else:
        against = f"against a unigram entropy of {unigram:.2f}" + (
            ", no better than predicting each piece by its frequency" if loss >= unigram else "")
    raw, rand = float(table.loc[SIGNATURE_ROWS[1], "sts_avg"]), float(table.loc[SIGNATURE_ROWS[0], "sts_avg"])
    above = round(raw, 1) > round(rand, 1)
    where = "above" if above else ("level with" if round(raw, 1) == round(rand, 1) else "below")
    verdict = ("; it is not BERT-base" if above else
               "; it is not shown to behave like raw BERT, and a verdict from it is no evidence about raw BERT")
    return (f"raw MLM encoder built here (companion.mlm, {profile} build: {cfg['layers']} layers of width "
            f"{cfg['hidden']}, {cfg['steps']:,} masked-LM steps of {cfg['batch_size']} x {cfg['max_len']} tokens "
            f"from random initialisation on {_words(info['corpus']['words'])} of {sources}, {rule}; held-out MLM "
            f"loss {loss:.2f} nats {against}); its zero-shot STS average with mean pooling, {raw:.1f}, is {where} "
            f"the {rand:.1f} of the random network it started from{verdict}")


def _words(n: int) -> str:
    return f"{n / 1e6:.1f} million words" if n >= 1e6 else f"{n:,} words"
