"""App. J's auxiliary MLM objective (companion.papers.simace.masked_lm) on tiny random BERT and RoBERTa models
(MiniLM's tokenizer, no download): BERT's masking rule, the MLM term against a hand computation and against the
Hugging Face masked-LM model's own loss, the head's copy, the run cache and a whole run with the term."""

import copy
import math

import pytest
import torch
from transformers import AutoModelForMaskedLM

from companion.encoders import tiny_encoder
from companion.encoders.upper import UpperEncoder
from companion.papers.simace.masked_lm import (
    IGNORE,
    MLM_PROBABILITY,
    MLM_WEIGHT,
    MLMUpperEncoder,
    mask_tokens,
    masked_lm_head,
    mlm_base,
)

TEXTS = ["A man is playing a guitar.", "Someone plays music on a stage tonight with friends.", "Cats sleep.",
         "The stock market fell sharply on Monday after the announcement.", "A dog runs in the park.",
         "Two women are dancing.", "The sun rises over the quiet hills every morning.", "Rain."]


def _base(arch="bert", **kwargs):
    enc = tiny_encoder(arch, pooling="cls", layers=2, max_length=32)
    return UpperEncoder(enc, n_top=2, pooling="cls", mlp_pooler=True, mlp_init="normal", train_embeddings=True,
                        **kwargs)


def test_the_papers_weight_and_masking_are_simcse_s_defaults():
    assert (MLM_WEIGHT, MLM_PROBABILITY) == (0.1, 0.15)


def test_mask_tokens_follows_bert_s_rule_and_never_masks_special_tokens():
    tok = tiny_encoder("bert").tokenizer
    batch = tok(TEXTS * 200, padding=True, return_tensors="pt")["input_ids"]
    special = torch.isin(batch, torch.tensor(tok.all_special_ids))
    inputs, labels = mask_tokens(batch, tok, 0.15, torch.Generator().manual_seed(0))
    chosen = labels != IGNORE
    assert not bool((chosen & special).any())                      # [CLS], [SEP] and padding are never chosen
    assert torch.equal(labels[chosen], batch[chosen])                # a label is the original token
    assert torch.equal(inputs[~chosen], batch[~chosen])              # nothing else changes
    share = chosen.sum() / (~special).sum()
    assert abs(float(share) - 0.15) < 0.01
    masked = (inputs == tok.mask_token_id) & chosen
    kept = (inputs == batch) & chosen
    other = chosen & ~masked & ~kept
    n = int(chosen.sum())
    assert abs(int(masked.sum()) / n - 0.8) < 0.03
    assert abs(int(other.sum()) / n - 0.1) < 0.03                    # a random token (rarely the same one: kept)
    assert abs(int(kept.sum()) / n - 0.1) < 0.03
    again = mask_tokens(batch, tok, 0.15, torch.Generator().manual_seed(0))
    assert torch.equal(again[0], inputs) and torch.equal(again[1], labels)  # the generator decides it all
    with pytest.raises(ValueError, match="probability"):
        mask_tokens(batch, tok, 1.5)


def test_mask_tokens_default_rate_and_shares_on_200k_tokens():
    """The default masking (no probability given) on 200,000 ordinary tokens: 15 % chosen, and of those 80 % the
    mask token, 10 % a random token, 10 % unchanged (BERT's rule), each within 6 binomial standard errors (0.15 +-
    0.005; 0.8 +- 0.014 and 0.1 +- 0.011 of about 30,000 chosen). A random token that equals the original (or the
    mask token) has probability 1/30,522 and moves the shares by about 3e-6, well inside the tolerance."""
    tok = tiny_encoder("bert").tokenizer
    special_ids = set(tok.all_special_ids)
    rows, width = 1000, 200
    ids = torch.randint(1000, len(tok), (rows, width), generator=torch.Generator().manual_seed(1))
    assert not any(int(i) in special_ids for i in ids.unique())
    inputs, labels = mask_tokens(ids, tok, generator=torch.Generator().manual_seed(0))
    chosen = labels != IGNORE
    n, m = rows * width, int(chosen.sum())

    def within(successes, trials, p):
        return abs(successes / trials - p) <= 6 * math.sqrt(p * (1 - p) / trials)

    assert within(m, n, 0.15)
    masked = int((inputs[chosen] == tok.mask_token_id).sum())
    kept = int((inputs[chosen] == ids[chosen]).sum())
    other = m - masked - kept
    assert within(masked, m, 0.8) and within(other, m, 0.1) and within(kept, m, 0.1)


@pytest.mark.parametrize("arch", ["bert", "roberta"])
def test_the_mlm_term_is_the_masked_lm_cross_entropy(arch):
    """The term by hand (log-softmax of the head's scores at the chosen tokens, their mean) and as the Hugging Face
    masked-LM model with the same weights computes it from ``labels``."""
    model = mlm_base(_base(arch)).fresh()
    model.eval()  # no dropout: one forward pass to compare with
    with torch.no_grad():
        loss = model.mlm_loss(TEXTS)
    inputs, labels = model.last_mlm
    ids, mask = model.lower(TEXTS)
    chosen = labels != IGNORE
    assert bool(chosen.any()) and torch.equal(inputs[~chosen], ids[~chosen])

    config = copy.deepcopy(model.encoder.model.config)
    config.tie_word_embeddings = False  # the head's output layer is its own copy (as SimCSE's)
    hf = AutoModelForMaskedLM.from_config(config).eval()
    base = getattr(hf, hf.base_model_prefix)
    base.embeddings.load_state_dict(model.embeddings.state_dict())
    for mine, theirs in zip(model.layers, base.encoder.layer):
        theirs.load_state_dict(mine.state_dict())
    head_name = next(n for n, _ in hf.named_children() if n != hf.base_model_prefix)
    getattr(hf, head_name).load_state_dict(model.lm_head.state_dict())
    with torch.no_grad():
        out = hf(input_ids=inputs, attention_mask=mask, labels=labels)
        scores = out.logits
        by_hand = -torch.log_softmax(scores[chosen], dim=-1).gather(1, labels[chosen][:, None]).mean()
    torch.testing.assert_close(loss, by_hand, atol=1e-5, rtol=1e-5)
    torch.testing.assert_close(loss, out.loss, atol=1e-5, rtol=1e-5)


def test_auxiliary_loss_masks_both_views_and_weights_the_term():
    model = mlm_base(_base(), mlm_weight=0.3).fresh()
    model.eval()
    gen = copy.deepcopy(model.mask_generator)
    with torch.no_grad():
        aux = model.auxiliary_loss(TEXTS[:3])
    inputs, labels = model.last_mlm
    assert inputs.shape[0] == 6                                      # two masked copies of each sentence
    ids, _ = model.lower(TEXTS[:3] * 2)
    expected_inputs, expected_labels = mask_tokens(ids, model.encoder.tokenizer, MLM_PROBABILITY, copy.deepcopy(gen))
    assert torch.equal(inputs, expected_inputs) and torch.equal(labels, expected_labels)
    model.mask_generator = copy.deepcopy(gen)  # the same masks again
    with torch.no_grad():
        torch.testing.assert_close(aux, 0.3 * model.mlm_loss(TEXTS[:3] * 2))


def test_the_head_is_a_trained_copy_and_fresh_copies_start_from_the_same_head():
    base = _base()
    first = mlm_base(base)
    second = first.fresh()
    assert isinstance(second, MLMUpperEncoder) and second.store is base.store
    heads = [dict(m.lm_head.named_parameters()) for m in (first, second)]
    assert all(torch.equal(heads[0][k], heads[1][k]) for k in heads[0])
    assert all(heads[0][k] is not heads[1][k] for k in heads[0])
    decoder = next(p for k, p in heads[1].items() if k.endswith("decoder.weight"))
    assert decoder is not second.embeddings.word_embeddings.weight   # not tied (SimCSE's copied head)
    assert {"mlm_weight", "mlm_probability"} <= set(second._init_args)  # the run cache keys on them
    names = {n for n, _ in second.named_parameters()}
    assert any(n.startswith("lm_head.") for n in names) and any(n.startswith("embeddings.") for n in names)
    state = torch.get_rng_state()
    masked_lm_head(base.encoder)
    assert torch.equal(torch.get_rng_state(), state)                  # building a head draws nothing


def test_the_mlm_term_needs_the_full_fine_tuning_path():
    enc = tiny_encoder("bert", pooling="cls", layers=2, max_length=32)
    with pytest.raises(ValueError, match="train_embeddings"):
        MLMUpperEncoder(enc, n_top=2, pooling="cls")
    with pytest.raises(ValueError, match="mlm_weight"):
        mlm_base(_base(), mlm_weight=0.0)


def test_a_run_with_the_mlm_term_trains_and_caches_apart(tmp_path):
    from companion.dropout_views import run_dropout_views

    base = _base()
    kwargs = dict(steps=2, batch_size=4, lr=1e-4, seed=0, cache=str(tmp_path), progress=False)
    plain = run_dropout_views(base, TEXTS, "simace", 0.06, 10.0, **kwargs)
    with_mlm = run_dropout_views(mlm_base(base), TEXTS, "simace", 0.06, 10.0, **kwargs)
    assert plain["key"] != with_mlm["key"]
    assert with_mlm["model"].last_mlm is not None                     # the term entered training
    assert with_mlm["history"][0]["loss"] > plain["history"][0]["loss"]  # + 0.1 x about ln(vocab)
    again = run_dropout_views(mlm_base(base), TEXTS, "simace", 0.06, 10.0, **kwargs)
    assert again["from_cache"] and again["key"] == with_mlm["key"]
    state = with_mlm["model"].state_dict()
    assert all(torch.equal(v, state[k]) for k, v in again["model"].state_dict().items())


def test_token_states_are_the_last_layer_s_output():
    base = _base()
    base.eval()
    ids, mask = base.lower(TEXTS)
    full = base.to_encoder().model
    with torch.no_grad():
        want = full(input_ids=ids, attention_mask=mask).last_hidden_state
        got = base.token_states(ids, mask)
    keep = mask.bool()
    torch.testing.assert_close(got[keep], want[keep], atol=1e-5, rtol=1e-5)
