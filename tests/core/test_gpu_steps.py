"""One training step of each gpu path checked against the same step written out by hand from the stated settings.

Each test builds a tiny random model of the backbone's architecture class (BERT for SimACE's and AnglE's
bert-base-uncased, MPNet for the concept paper's all-mpnet-base-v2, XLM-R for the circumplex paper's
multilingual-e5-large), lets the companion take ONE step, and takes that step again by hand on a
plain Hugging Face model: the full model's forward pass, the pooling and head, the loss, gradient clipping at 1.0
over every trained parameter and AdamW's first update (``p <- p (1 - lr wd) - lr g / (|g| + eps)``: the bias
corrections cancel at step 1) at the scheduled learning rate. Every trained parameter must land where the hand
step puts it.
"""

import copy

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from companion.encoders import tiny_encoder
from companion.encoders.upper import UpperEncoder
from companion.profiles import settings
from companion.training import index_batches, seed_everything

TEXTS = ["A man is playing a guitar.", "Someone plays music on a stage tonight with friends.", "Cats sleep.",
         "The stock market fell sharply on Monday after the announcement.", "A dog runs in the park.",
         "Two women are dancing.", "The sun rises over the quiet hills every morning.", "Rain."]
ADAM_EPS = 1e-8  # torch.optim.AdamW's default, the same as Hugging Face Trainer's adam_epsilon


# slow: one full training step per gpu path, written out by hand; the cache fixture is tests/core/conftest.py's
pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("scratch_cache")]


def _full_model(enc, start):
    """A copy of ``enc``'s whole model with the embeddings and layers of a trained copy's state dict ``start`` (its
    ``embeddings.*`` and ``layers.<i>.*`` entries): the full network the step is written out on."""
    full = copy.deepcopy(enc.model)
    full.embeddings.load_state_dict({k.removeprefix("embeddings."): v for k, v in start.items()
                                     if k.startswith("embeddings.")})
    for i, layer in enumerate(full.encoder.layer):
        layer.load_state_dict({k.removeprefix(f"layers.{i}."): v for k, v in start.items()
                               if k.startswith(f"layers.{i}.")})
    return full


def _clip(grads: dict[str, torch.Tensor], max_norm: float = 1.0) -> dict[str, torch.Tensor]:
    total = torch.sqrt(sum((g.double() ** 2).sum() for g in grads.values()))
    coef = min(1.0, max_norm / (float(total) + 1e-6))
    return {k: g * coef for k, g in grads.items()}


def _adamw_first_step(p: torch.Tensor, g: torch.Tensor, lr: float, wd: float) -> torch.Tensor:
    return p * (1 - lr * wd) - lr * g / (g.abs() + ADAM_EPS)


#: A hand gradient at least this large (100 x AdamW's eps) gives the first step lr * g / (|g| + eps) a sensitivity to
#: the gradient of at most lr * eps / g**2: float noise from another summation order then moves the step by a tiny
#: fraction of the comparison's tolerance. Near eps the same noise can move the step by a good part of lr, on one CPU
#: and not on another, so such elements are held only to the step's bound.
FIRM_GRADIENT = 1e-6


def _assert_landed(model, expected: dict[str, torch.Tensor], lr: float, grads: dict[str, torch.Tensor],
                   bound: float | None = None):
    """Every parameter of ``model`` equals the hand step ``expected``.

    Where the hand gradient is firm (:data:`FIRM_GRADIENT`), to lr * 1e-3 plus two float32 ulps of the value (the
    updated value is rounded to float32 once on each side, and a LayerNorm weight near 1 has an ulp of 0.004 lr at
    lr 3e-5); where it is near AdamW's eps, within the first step's bound (each of the two steps moves an element by
    at most its rate, so they differ by at most ``bound``, default 2 * lr). At least half of the elements with a
    gradient above 10 eps must be firm, so the exact comparison is never vacuous; a wrong step (sign, rate, a missing
    or extra term) moves firm elements by about lr."""
    bound = 2 * lr if bound is None else bound
    got = dict(model.named_parameters())
    assert set(got) == set(expected), set(got) ^ set(expected)
    firm_total = above_eps = 0
    for name, want in expected.items():
        g = grads.get(name, torch.zeros_like(want)).abs()
        firm = g >= FIRM_GRADIENT
        diff = (got[name].detach() - want).abs()
        off = firm & (diff > lr * 1e-3 + 2 * torch.finfo(torch.float32).eps * want.abs())
        assert not bool(off.any()), f"{name}: {int(off.sum())} of {int(firm.sum())} firm elements differ"
        loose = ~firm & (diff > bound * (1 + 1e-3))
        assert not bool(loose.any()), f"{name}: {int(loose.sum())} elements moved past the first step's bound"
        firm_total += int(firm.sum())
        above_eps += int((g >= 10 * ADAM_EPS).sum())
    print("FIRM", firm_total, above_eps)
    assert firm_total >= max(1000, 0.1 * above_eps), f"only {firm_total} of {above_eps} elements have a firm gradient"


# ----------------------------------------------------------------------------------------- SimACE (BERT, RoBERTa)
def _simace_cfg(**extra):
    from companion.papers.simace.settings import with_runs

    cfg = dict(with_runs("simace/runs")("gpu"))
    cfg.update(n_top=2, **extra)
    return settings("gpu", smoke={}, cpu={}, gpu=cfg)


def _simace_step(arch: str, cfg, tau: float, mlm: bool = False):
    """One companion step of the gpu path on a tiny 2-layer ``arch`` against the hand step: the whole network and
    the Linear + tanh head trained on the first token of two dropout views (max_seq 32), InfoNCE over cosines at
    ``tau``, with ``mlm`` plus 0.1 x the masked-LM cross-entropy of the backbone's head on the masked copies of both
    views (a third forward pass, the masking the companion drew), AdamW at ``cfg.lr`` without weight decay or
    warm-up, gradients clipped at 1.0 over every trained parameter."""
    from companion.dropout_views import train_dropout_views
    from companion.papers.simace import make_base
    from companion.papers.simace.masked_lm import MLM_WEIGHT, mlm_base

    enc = tiny_encoder(arch, pooling="cls", layers=2, max_length=cfg.max_length)  # the first token, as [CLS]/<s>
    seed_everything(0)
    model = make_base(enc, cfg)
    if mlm:
        model = mlm_base(model).fresh()
    start = copy.deepcopy(model.state_dict())
    batch = 4

    torch.manual_seed(123)  # the dropout stream of the step (the masking draws from the model's own generator)
    result = train_dropout_views(model, model.embed, TEXTS, "simcse", tau, 0.0, steps=1, batch_size=batch,
                                 lr=cfg.lr, seed=0, progress=False, aux=getattr(model, "auxiliary_loss", None))
    assert result.history[0]["lr"] == pytest.approx(0.0)  # linear decay over the one scheduled step: 0 after it

    full = _full_model(enc, start)
    weight = start["mlp.0.weight"].clone().requires_grad_(True)
    bias = start["mlp.0.bias"].clone().requires_grad_(True)
    idx = next(index_batches(len(TEXTS), batch, seed=0, epochs=None))
    tok = enc.tokenizer([TEXTS[int(i)] for i in idx], padding=True, truncation=True, max_length=cfg.max_length,
                        return_tensors="pt")
    full.train()
    torch.manual_seed(123)
    views = []
    for _ in range(2):
        first = full(input_ids=tok["input_ids"], attention_mask=tok["attention_mask"]).last_hidden_state[:, 0]
        views.append(torch.tanh(first @ weight.T + bias))
    z1, z2 = views
    logits = F.cosine_similarity(z1[:, None], z2[None], dim=-1) / tau
    loss = F.cross_entropy(logits, torch.arange(batch))
    head = {}
    if mlm:
        inputs, labels = model.last_mlm  # the companion's masking of both views (its rule: test_masked_lm)
        assert inputs.shape[0] == 2 * batch and bool((labels != -100).any())
        assert torch.equal(inputs[labels == -100], torch.cat([tok["input_ids"]] * 2)[labels == -100])
        lm_head = copy.deepcopy(model.lm_head)
        lm_head.load_state_dict({k.removeprefix("lm_head."): v for k, v in start.items() if k.startswith("lm_head.")})
        states = full(input_ids=inputs, attention_mask=torch.cat([tok["attention_mask"]] * 2)).last_hidden_state
        scores = lm_head(states)
        chosen = labels != -100
        mlm_term = -torch.log_softmax(scores[chosen], dim=-1).gather(1, labels[chosen][:, None]).mean()
        loss = loss + MLM_WEIGHT * mlm_term
        head = {f"lm_head.{k}": p for k, p in lm_head.named_parameters()}
    loss.backward()

    hand = {f"embeddings.{k}": p for k, p in full.embeddings.named_parameters()}
    hand.update({f"layers.{i}.{k}": p for i, layer in enumerate(full.encoder.layer)
                 for k, p in layer.named_parameters()})
    hand.update(head)
    grads = {k: p.grad for k, p in hand.items() if p.grad is not None}
    grads.update({"mlp.0.weight": weight.grad, "mlp.0.bias": bias.grad})
    grads = _clip(grads)
    values = {**{k: p.detach() for k, p in hand.items()}, "mlp.0.weight": weight.detach(), "mlp.0.bias": bias.detach()}
    expected = {k: _adamw_first_step(values[k], grads.get(k, torch.zeros_like(values[k])), cfg.lr, 0.0)
                for k in values}
    assert "embeddings.word_embeddings.weight" in grads  # the embeddings are trained
    if mlm:
        assert any(k.startswith("lm_head.") for k in grads)  # the head is trained with the encoder
    # the masked pass sums in another order than the hand model: elements with a gradient near AdamW's eps may land
    # apart (within the step's bound); every element with a firm gradient lands exactly
    _assert_landed(model, expected, cfg.lr, grads)


def test_simace_gpu_step_is_simcse_s_step():
    """Unsupervised SimCSE as SimACE's Table 7 runs it on BERT-base: lr 3e-5, tau 0.05 (:func:`_simace_step`)."""
    cfg = _simace_cfg()
    assert cfg.lr == 3e-5
    _simace_step("bert", cfg, 0.05)


def test_simace_gpu_roberta_step_is_table_7_s_roberta_base_step():
    """The RoBERTa-base runs of notebook 02's gpu profile on a tiny RoBERTa: Table 7's RoBERTa-base row (lr 1e-5,
    SimACE at the baselines' tau 0.05; first-token <s> pooling with the training-only Linear + tanh head), the rest
    as the BERT-base runs."""
    from companion.papers.simace import roberta_settings
    from companion.publish.notebooks import notebook_settings

    gpu = notebook_settings("simace/02-sts-experiments")("gpu", gpu_grid="full")  # the RoBERTa runs: the full grid
    assert (gpu.roberta_model, gpu.roberta_lr, gpu.roberta_batch_size) == ("roberta-base", 1e-5, 128)
    rcfg = roberta_settings(_simace_cfg(**{k: gpu[k] for k in ("roberta_model", "roberta_lr", "roberta_batch_size",
                                                                  "roberta_steps")}))
    assert (rcfg.model, rcfg.lr, rcfg.batch_size, rcfg.pooling, rcfg.mlp_head) == ("roberta-base", 1e-5, 128, "cls",
                                                                                    True)
    _simace_step("roberta", rcfg, 0.05)


@pytest.mark.parametrize("arch", ["bert", "roberta"])
def test_simace_gpu_step_with_the_mlm_term(arch):
    """App. J's MLM runs (Table 13 'with MLM'): the step above plus 0.1 x the masked-LM term, the head trained."""
    _simace_step(arch, _simace_cfg(), 0.05, mlm=True)


# ----------------------------------------------------------------------------------------------- concepts (MPNet)
def _rows(n: int, d2d: bool = False):
    from companion.papers.concepts.data import TrainingRows

    terms = np.array(["guitar", "market", "sunrise", "dancer"][:n])
    masked = np.array(["a stringed instrument played by plucking", "a place where goods are sold and bought",
                       "the time in the morning when light first appears", "a person who moves to music"][:n])
    extra = {}
    if d2d:  # another definition of the term for rows 0, 1 and 3 (the d2d pairs of the gpu recipe)
        partner = np.array(["an instrument with six strings", "the world of buying and selling", "",
                            "one who performs a dance for an audience"][:n], dtype=object)
        extra = dict(d2d=partner, has_d2d=partner != "")
    return TrainingRows(sid=np.arange(n), term=terms, masked=masked, syn_a=np.array([""] * n),
                        syn_b=np.array([""] * n), has_syn=np.zeros(n, dtype=bool),
                        negatives=np.array([[""]] * n), neg_mask=np.zeros((n, 1), dtype=bool), rules=("negate",),
                        **extra)


def test_concepts_gpu_step_is_the_papers_recipe_on_mpnet():
    """§4.4's recipe on the whole of an MPNet (all-mpnet-base-v2's class), B1 (last-layer mean pooling): the t2d
    InfoNCE plus 0.7 x the d2d InfoNCE (§4.3) over the rows that have a second definition, at tau 0.05, AdamW
    (weight decay 0.01) at the warm-up's first rate lr / 100 (100 warm-up steps), a
    layer-wise decay of 0.9 per layer below the top (the embeddings and the relative-position table one step below
    the lowest layer), gradients clipped at 1.0. Dropout is switched off here so that the hand forward pass needs no
    shared random stream (its use in training is tested in test_gpu_path)."""
    from companion.papers.concepts.readouts import TopLayerConceptModel, train_concept_model

    enc = tiny_encoder("mpnet", pooling="mean", layers=2, max_length=64)
    with torch.no_grad():
        enc.model.encoder.relative_attention_bias.weight.normal_(0.0, 1.0)
    for module in enc.model.modules():
        if isinstance(module, torch.nn.Dropout):
            module.p = 0.0
    seed_everything(0)
    model = TopLayerConceptModel(enc, "mean", n_top=2, k=3, train_embeddings=True)
    start = copy.deepcopy(model.state_dict())
    rows = _rows(4, d2d=True)
    lr, decay, warmup, wd, tau = 2e-4, 0.9, 100, 0.01, 0.05
    train_concept_model(model, rows, "bce", steps=1, batch=4, lr=lr, layer_decay=decay, warmup_steps=warmup,
                        weight_decay=wd, temperature=tau, seed=0, progress=False)

    mp = _full_model(enc, start)
    mp.encoder.relative_attention_bias.weight.data.copy_(start["position_bias.relative_attention_bias.weight"])
    mp.train()

    def mean_pooled(texts):
        tok = enc.tokenizer(list(texts), padding=True, truncation=True, max_length=64, return_tensors="pt")
        h = mp(input_ids=tok["input_ids"], attention_mask=tok["attention_mask"]).last_hidden_state
        m = tok["attention_mask"].unsqueeze(-1).float()
        return (h * m).sum(1) / m.sum(1)

    idx = next(index_batches(len(rows), 4, seed=0, epochs=None)).numpy()
    q, d = mean_pooled(rows.term[idx]), mean_pooled(rows.masked[idx])
    logits = F.normalize(q, dim=-1) @ F.normalize(d, dim=-1).T / tau
    pairs = idx[rows.has_d2d[idx]]
    assert len(pairs) == 3
    a, b = mean_pooled(rows.masked[pairs]), mean_pooled(rows.d2d[pairs])
    d2d = F.normalize(a, dim=-1) @ F.normalize(b, dim=-1).T / tau
    (F.cross_entropy(logits, torch.arange(4)) + 0.7 * F.cross_entropy(d2d, torch.arange(3))).backward()

    n_layers = len(mp.encoder.layer)
    hand, rate = {}, {}
    for i, layer in enumerate(mp.encoder.layer):
        for k, p in layer.named_parameters():
            hand[f"layers.{i}.{k}"], rate[f"layers.{i}.{k}"] = p, lr * decay ** (n_layers - 1 - i)
    for k, p in mp.embeddings.named_parameters():
        hand[f"embeddings.{k}"], rate[f"embeddings.{k}"] = p, lr * decay ** n_layers
    name = "position_bias.relative_attention_bias.weight"
    hand[name], rate[name] = mp.encoder.relative_attention_bias.weight, lr * decay ** n_layers
    grads = _clip({k: p.grad for k, p in hand.items() if p.grad is not None})
    first = 1 / warmup  # the warm-up's factor at the first step
    expected = {k: _adamw_first_step(p.detach(), grads.get(k, torch.zeros_like(p)), rate[k] * first, wd)
                for k, p in hand.items()}
    assert grads[name].abs().sum() > 0  # the position bias is part of the forward pass and is trained
    _assert_landed(model, expected, lr * first * decay ** n_layers, grads, bound=2 * lr * first)


def test_concepts_gpu_recipe_trains_saves_and_reloads_the_whole_mpnet():
    """The notebooks' route (top_layer_recipe -> train_condition -> save_trained -> load_or_train) on the gpu
    profile's settings: the embeddings and the relative-position table are trained, saved and reloaded."""
    from companion.papers.concepts.finetune import (
        load_or_train,
        top_layer_recipe,
        train_condition,
        with_recipe_pairs,
    )
    from companion.papers.concepts.readouts import recipe_path, save_trained

    enc = tiny_encoder("mpnet", pooling="mean", layers=2, max_length=32)
    common = dict(model="tiny-mpnet-L2", max_length=32, n_top=2, k=3, batch=4, lr=2e-4, pooling_lr_mult=5.0,
                  layer_decay=0.9, tau=0.05, warmup_frac=0.5, steps=2, n_train=4, max_negatives=None)
    recipe = top_layer_recipe(settings("gpu", smoke={}, cpu={}, gpu=common), ["negate"])
    assert recipe["d2d"]  # the gpu recipe's objective has the d2d term: its rows get WordNet definition pairs
    paired = with_recipe_pairs(_rows(4), recipe)
    assert paired.d2d is not None and paired.has_d2d.any()  # guitar, market, sunrise, dancer: other senses
    model, result, _ = train_condition(enc, None, _rows(4), "B1", 0, recipe)
    assert len(result.history) == 2
    start = dict(enc.model.embeddings.named_parameters())
    assert not torch.equal(model.embeddings.word_embeddings.weight, start["word_embeddings.weight"])
    assert not torch.equal(model.position_bias.relative_attention_bias.weight,
                           enc.model.encoder.relative_attention_bias.weight)
    full = dict(recipe, condition="B1", seed=0)
    save_trained(model, full)
    assert recipe_path(full).is_file()
    again, where = load_or_train(enc, None, recipe, "B1", 0)
    assert where.startswith("reloaded")
    texts = list(_rows(4).term)
    torch.testing.assert_close(again.encode(texts), model.encode(texts))


def test_a_top_layers_only_run_of_the_gpu_recipe_keeps_the_embeddings_frozen():
    """The gpu recipe trains the embeddings with every layer; a run of fewer top layers (§5.1's earlier-layer run
    in the dry run's sizes) keeps them frozen instead of failing."""
    from companion.papers.concepts.finetune import _trains_embeddings

    enc = tiny_encoder("mpnet", pooling="mean", layers=4, max_length=32)
    assert _trains_embeddings(enc, {"train_embeddings": True, "n_top": 4})
    assert not _trains_embeddings(enc, {"train_embeddings": True, "n_top": 2})
    assert not _trains_embeddings(enc, {"n_top": 4})


# -------------------------------------------------------------------------------------------------- AnglE (BERT)
def test_angle_gpu_step_is_the_papers_recipe_on_bert():
    """AnglE's gpu path (notebooks 02 and 03) on a BERT (bert-base-uncased's class): the whole network trained, the
    embeddings included, on the [CLS] vector at the stated length, the AnglE objective (CoSENT + in-batch negatives
    + angle, weights 1/1/1, the settings' temperatures, STS-B positives as the released code counts them), AdamW
    without weight decay at the warm-up's first rate lr / warmup, gradients clipped at 1.0. Dropout is switched off
    so that the hand forward pass needs no shared random stream. The objective itself is checked against the
    paper's equations in the loss tests; here it is the one the settings build."""
    from companion.losses.angle import AnglEObjective
    from companion.papers.angle.pairs import PairData, interleave, upper_experiment
    from companion.publish.notebooks import notebook_settings

    cfg = notebook_settings("angle/03-ablation-and-analysis")("gpu")
    assert cfg.train_embeddings and cfg.pooling == "cls" and cfg.stsb_positive == 1.0
    enc = tiny_encoder("bert", pooling="cls", layers=2, max_length=cfg.max_length)
    for module in enc.model.modules():
        if isinstance(module, torch.nn.Dropout):
            module.p = 0.0
    base = UpperEncoder(enc, n_top=2, pooling=cfg.pooling, train_embeddings=cfg.train_embeddings)
    start = copy.deepcopy(base.state_dict())
    data = PairData(TEXTS[:4], TEXTS[4:], [4.6, 0.4, 1.2, 3.0])  # graded, as STS-B
    objective = AnglEObjective(1, 1, 1, tau_cos=cfg.tau_cos, tau_ibn=cfg.tau_ibn, tau_angle=cfg.tau_angle,
                               positive_threshold=cfg.stsb_positive, positives=cfg.ibn_positives)
    evals = {"STS-B": PairData(TEXTS, TEXTS[3:] + TEXTS[:3], [0.5 * i for i in range(len(TEXTS))])}
    run = upper_experiment(base, data, evals, objective, seed=0, steps=1, batch_size=4, lr=cfg.lr,
                           warmup_steps=cfg.warmup, buckets=cfg.buckets, return_model=True)

    bert = _full_model(enc, start)
    bert.train()
    idx = next(index_batches(len(data), 4, seed=0, epochs=None)).tolist()
    texts = interleave([data.sentence1[i] for i in idx], [data.sentence2[i] for i in idx])
    tok = enc.tokenizer(texts, padding=True, truncation=True, max_length=cfg.max_length, return_tensors="pt")
    cls = bert(input_ids=tok["input_ids"], attention_mask=tok["attention_mask"]).last_hidden_state[:, 0]
    objective(cls, data.labels[idx], texts).backward()

    hand = {f"embeddings.{k}": p for k, p in bert.embeddings.named_parameters()}
    hand.update({f"layers.{i}.{k}": p for i, layer in enumerate(bert.encoder.layer)
                 for k, p in layer.named_parameters()})
    grads = _clip({k: p.grad for k, p in hand.items() if p.grad is not None})
    rate = cfg.lr / cfg.warmup  # the linear warm-up's first step
    expected = {k: _adamw_first_step(p.detach(), grads.get(k, torch.zeros_like(p)), rate, 0.0)
                for k, p in hand.items()}
    assert "embeddings.word_embeddings.weight" in grads  # the embeddings are trained
    _assert_landed(run["model"], expected, rate, grads)


def test_angle_gpu_positives_are_the_released_codes_and_the_cpu_keeps_gold_4():
    """The in-batch term's positives on graded STS-B labels: every pair labelled 1 or more on the gpu path (the
    released loss casts labels to integers), gold >= 4 on the cpu path (unchanged)."""
    from companion.losses.angle import ibn_targets
    from companion.publish.notebooks import notebook_settings

    labels = torch.tensor([4.6, 0.4, 1.2, 3.0])
    for profile, want in (("gpu", [True, False, True, True]), ("cpu", [True, False, False, False])):
        cfg = notebook_settings("angle/02-sts-experiments")(profile)
        pos, _ = ibn_targets(labels, None, cfg.stsb_positive)
        assert [bool(pos[2 * k, 2 * k + 1]) for k in range(4)] == want, profile


# ------------------------------------------------------------------------------------------- circumplex (XLM-R)
@pytest.mark.parametrize("kind", ["GPT", "nGPT"])
def test_circumplex_gpu_step_on_an_xlm_r_is_the_head_recipe(kind):
    """The circumplex gpu path as it runs today on an XLM-R (multilingual-e5-large's class): the backbone frozen (a
    departure its settings table names), its last-layer token states under a head as wide as the backbone, pooled
    at [CLS] (Table 3), the SINCERE loss at tau 0.05, AdamW at the constant lr (Table 3) without weight decay or
    warm-up, gradients clipped at 1.0 (App. D), nGPT's weights re-normalised after the step. The hand step runs the
    full model on the texts and a copy of the untrained head; the cache keeps token states in float16, as the
    hand step rounds them."""
    from functools import partial

    from companion.losses.circumplex import LOSSES
    from companion.papers.circumplex.heads import NGPTHead, frozen_features, make_head, train_head
    from companion.publish.notebooks import notebook_settings

    cfg = notebook_settings("circumplex/02-experiments")("gpu")
    assert cfg.pooling == "cls" and not cfg.head_dim and cfg.clip_norm == 1.0
    enc = tiny_encoder("xlm-roberta", pooling="mean", layers=2, max_length=cfg.max_tokens)
    labels = ["joy", "anger", "joy", "sadness", "anger", "joy", "sadness", "anger"]
    feats, _, _ = frozen_features(enc, {"train": TEXTS}, head_dim=None, max_tokens=cfg.max_tokens,
                                  pretrained_pooling=cfg.pooling)
    n_heads, seed, loss = 4, 42, partial(LOSSES["SINCERE"], tau=cfg.tau)
    seed_everything(seed)
    start = make_head(kind, enc.dim, pooling=cfg.pooling, n_heads=n_heads, base_scale=cfg.base_scale,
                      backbone_dim=enc.dim)
    head, _ = train_head(kind, loss, feats["train"], labels, steps=1, batch_size=8, lr=cfg.lr, seed=seed,
                         pooling=cfg.pooling, clip_norm=cfg.clip_norm, base_scale=cfg.base_scale, n_heads=n_heads)

    idx = next(index_batches(len(TEXTS), 8, seed=seed, epochs=2)).tolist()
    tok = enc.tokenizer([TEXTS[i] for i in idx], padding=True, truncation=True, max_length=cfg.max_tokens,
                        return_tensors="pt")
    enc.model.eval()
    with torch.no_grad():
        states = enc.model(**tok).last_hidden_state.half().float()
    hand = copy.deepcopy(start)
    hand.train()
    loss(hand(states, tok["attention_mask"].bool()), [labels[i] for i in idx]).backward()
    params = dict(hand.named_parameters())
    grads = _clip({k: p.grad for k, p in params.items() if p.grad is not None}, cfg.clip_norm)
    expected = {k: _adamw_first_step(p.detach(), grads.get(k, torch.zeros_like(p)), cfg.lr, 0.0)
                for k, p in params.items()}
    if isinstance(hand, NGPTHead):
        with torch.no_grad():
            for k, p in params.items():
                p.copy_(expected[k])
            hand.normalize_weights()
        expected = {k: p.detach().clone() for k, p in hand.named_parameters()}
    _assert_landed(head, expected, cfg.lr, grads)  # the head's parameters are all the step trains: the backbone is frozen


@pytest.mark.parametrize("kind", ["GPT", "nGPT"])
def test_circumplex_gpu_step_fine_tunes_the_whole_xlm_r_with_its_head(kind):
    """The circumplex gpu path's default for mE5 (§4.1, Table 3: a BERT-like backbone fine-tuned whole): on a tiny
    XLM-R, every parameter of the encoder (embeddings included) and of a head as wide as the backbone trained
    together, the head pooled at [CLS], the texts with E5's prefix at the settings' length, the SINCERE loss at
    tau 0.05, AdamW at the constant lr without weight decay or warm-up, the global gradient norm over the encoder and
    the head clipped at 1.0, nGPT's weights re-normalised after the step. Dropout is switched off (the encoder's
    and the head's) so that the hand forward pass needs no shared random stream; the head dropout's presence is
    checked below. The hand step runs the plain Hugging Face model and a copy of the untrained head."""
    from functools import partial

    from companion.losses.circumplex import LOSSES
    from companion.papers.circumplex.finetune import TunedHead, backbone_options
    from companion.papers.circumplex.heads import NGPTHead, frozen_features, make_head, train_head
    from companion.publish.notebooks import notebook_settings

    cfg = notebook_settings("circumplex/02-experiments")("gpu")
    assert cfg.backbone_training == "full" and cfg.pooling == "cls" and cfg.max_tokens == 512
    assert cfg.precision == "bf16" and cfg.head_dropout == dict.fromkeys(LOSSES, 0.1) and cfg.clip_norm == 1.0
    enc = tiny_encoder("xlm-roberta", layers=2, max_length=64, prefix="query: ")
    for module in enc.model.modules():
        if isinstance(module, torch.nn.Dropout):
            module.p = 0.0
    labels = ["joy", "anger", "joy", "sadness", "anger", "joy", "sadness", "anger"]
    feats, _, info = frozen_features(enc, {"train": TEXTS}, max_tokens=cfg.max_tokens, pretrained_pooling=cfg.pooling,
                                     **backbone_options(cfg))
    assert info["max_tokens"] == 512 and feats["train"].max_length == 512
    n_heads, seed, loss = 4, 42, partial(LOSSES["SINCERE"], tau=cfg.tau)
    seed_everything(seed)
    start = make_head(kind, enc.dim, pooling=cfg.pooling, n_heads=n_heads, base_scale=cfg.base_scale,
                      backbone_dim=enc.dim)
    model, result = train_head(kind, loss, feats["train"], labels, steps=1, batch_size=8, lr=cfg.lr, seed=seed,
                               pooling=cfg.pooling, clip_norm=cfg.clip_norm, base_scale=cfg.base_scale,
                               n_heads=n_heads)
    assert isinstance(model, TunedHead) and result.history[0]["lr"] == cfg.lr  # constant rate

    idx = next(index_batches(len(TEXTS), 8, seed=seed, epochs=2)).tolist()
    tok = enc.tokenizer(["query: " + TEXTS[i] for i in idx], padding=True, truncation=True,
                        max_length=cfg.max_tokens, return_tensors="pt")
    xlmr = copy.deepcopy(enc.model)
    xlmr.train()
    hand = copy.deepcopy(start)
    hand.train()
    states = xlmr(**tok).last_hidden_state
    loss(hand(states, tok["attention_mask"].bool()), [labels[i] for i in idx]).backward()
    params = {f"backbone.embeddings.{k}": p for k, p in xlmr.embeddings.named_parameters()}
    params.update({f"backbone.layers.{i}.{k}": p for i, layer in enumerate(xlmr.encoder.layer)
                   for k, p in layer.named_parameters()})
    params.update({f"head.{k}": p for k, p in hand.named_parameters()})
    grads = _clip({k: p.grad for k, p in params.items() if p.grad is not None}, cfg.clip_norm)
    assert "backbone.embeddings.word_embeddings.weight" in grads  # the embeddings are trained
    expected = {k: _adamw_first_step(p.detach(), grads.get(k, torch.zeros_like(p)), cfg.lr, 0.0)
                for k, p in params.items()}
    if isinstance(hand, NGPTHead):
        with torch.no_grad():
            for k, p in hand.named_parameters():
                p.copy_(expected[f"head.{k}"])
            hand.normalize_weights()
        expected.update({f"head.{k}": p.detach().clone() for k, p in hand.named_parameters()})
    _assert_landed(model, expected, cfg.lr, grads)  # every parameter of the encoder and the head


def test_circumplex_fine_tuned_heads_drop_their_input_and_the_frozen_option_stays():
    """Every head of the gpu profile reads its input through dropout 0.1, as the authors' released code runs every
    loss (SoftCSE's configuration sets it, the others take the default); the cpu profile of notebook 05 keeps
    SoftCSE's alone; the frozen-head path is the named option (``backbone_training="frozen"``), the cpu profile's
    setting."""
    from companion.losses.circumplex import LOSSES
    from companion.papers.circumplex.experiments import head_settings, head_settings_table
    from companion.papers.circumplex.finetune import backbone_options
    from companion.papers.circumplex.heads import frozen_features, train_head
    from companion.publish.notebooks import notebook_settings

    cfg = notebook_settings("circumplex/02-experiments")("gpu")
    enc = tiny_encoder("xlm-roberta", layers=1, max_length=32)
    labels = ["joy", "anger"] * 4
    feats, _, _ = frozen_features(enc, {"train": TEXTS}, max_tokens=cfg.max_tokens, pretrained_pooling="cls",
                                  **backbone_options(cfg))
    for loss in ("SoftCSE", "SINCERE", "CircularCSE"):
        settings_ = head_settings("GPT", loss, feats["train"], steps=1, batch_size=8, lr=1e-3, seed=0, n_heads=4,
                                  pooling="cls")
        assert settings_["head_dropout"] == 0.1 and settings_["backbone_training"] == "full"
    five = notebook_settings("circumplex/05-fine-tuned-backbone")
    assert five("cpu").head_dropout == {"SoftCSE": 0.1} and five("gpu").head_dropout == {loss: 0.1 for loss in LOSSES}
    shown = head_settings_table(("GPT",), feats["train"], loss="SoftCSE", steps=1, batch_size=8, lr=1e-3, seed=0,
                                n_heads=4, pooling="cls")["GPT"]
    assert (shown["backbone_training"], shown["max_length"], shown["precision"]) == ("full", 512, "bf16")
    model, _ = train_head("GPT", LOSSES["SoftCSE"], feats["train"], labels, steps=1, batch_size=8, lr=1e-3,
                          n_heads=4, pooling="cls", head_dropout=0.1)
    assert model.dropout.p == 0.1
    ids, mask = feats["train"].batch(range(8))
    model.eval()
    torch.testing.assert_close(model(ids, mask), model(ids, mask))
    model.train()
    assert not torch.allclose(model(ids, mask), model(ids, mask))  # training mode: dropout draws
    cpu = notebook_settings("circumplex/02-experiments")("cpu")
    assert backbone_options(cpu) == {}  # the cpu profile: the head over frozen, cached states
    frozen, _, _ = frozen_features(enc, {"train": TEXTS}, max_tokens=32, backbone_training="frozen")
    assert "backbone_training" not in head_settings("GPT", "SoftCSE", frozen["train"], steps=1, batch_size=8,
                                                    lr=1e-3, seed=0, n_heads=4)
