"""Masked-language-model pretraining of a small BERT on the corpus of :mod:`companion.mlm.corpus`, cached.

The model is Hugging Face's ``BertForMaskedLM`` (post-LN BERT, tied input / output embeddings) with a lower-cased
WordPiece vocabulary trained on the same corpus with ``tokenizers``. Units (sentences) of one source are packed
greedily into sequences ``[CLS] u1 [SEP] u2 [SEP] …`` of at most ``max_len`` tokens (a unit longer than that is cut);
15 % of the non-special tokens are chosen for prediction (80 % of them replaced by ``[MASK]``, 10 % by a random token,
10 % kept) and only the chosen positions go through the output layer (the vocabulary projection of every position
costs more than the encoder at this size). AdamW, linear warm-up and decay, gradient clipping, one thread; the
sequences are shuffled once per epoch with the seed, and the masks come from a generator seeded with it: the same
profile and seed give the same weights (:func:`weights_hash`).

The build folder (``cache_dir()/mlm/raw-<profile>-<key>``) holds what ``save_pretrained`` writes for the model and
the tokenizer, so :func:`companion.encoders.load_encoder` loads it by path like any local model folder (the MLM head
is left out of ``AutoModel``'s ``BertModel``), and ``build.json``: the settings, the corpus statistics, the loss
curve (training loss per logging window, held-out loss at fixed masks), the wall and CPU time and the weights hash.
"""

from __future__ import annotations

import heapq
import json
import math
import os
import shutil
import time
from collections import Counter
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

import numpy as np
import torch

from companion._io import cache_key, write_atomic
from companion.encoders import weights_fingerprint
from companion.mlm.corpus import Corpus, build_corpus
from companion.settings import cache_dir

PRETRAIN_VERSION = 1  # bump when the training recipe changes: it is part of the cache key
SPECIAL_TOKENS = ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]")
GPU_BACKBONE = "bert-base-uncased"  # the papers' raw backbone (SimACE §4.1, AnglE §4); hub id, gpu profile only


@dataclass(frozen=True)
class BuildConfig:
    """Everything that determines a build (and so its cache key)."""

    sources: tuple[str, ...]
    limit: int | None  # units per source (None: all)
    vocab_size: int
    hidden: int
    layers: int
    heads: int
    intermediate: int
    max_len: int
    batch_size: int
    steps: int
    lr: float
    warmup_steps: int
    weight_decay: float = 0.01
    mask_prob: float = 0.15
    clip: float = 1.0
    heldout: int = 256  # packed sequences kept out of training for the held-out loss
    eval_every: int = 100
    log_every: int = 20
    seed: int = 0
    extra: dict = field(default_factory=dict)
    #: how evaluation text is kept out of the corpus (:mod:`companion.mlm.decontaminate`): ``"exact"`` (the rule
    #: the cached cpu build was made with) or ``"near-duplicate"``; ``"exact"`` stays out of the cache key, so
    #: builds made before this setting existed keep their folders
    decontamination: str = "exact"

    @property
    def tokens_per_step(self) -> int:
        return self.batch_size * self.max_len


ALL_SOURCES = ("wordnet", "wiki", "mrpc-train", "goemotions-train", "emolit-train", "emobank-train", "python-docs",
               "debian-reference", "gnu-standards", "fortunes")

#: ``cpu``: 4 layers of width 256 (4 heads, 1024 feed-forward), an 8,192-piece vocabulary, sequences of 64 tokens,
#: 128 sequences a step; ``steps`` x 8,192 token positions in all (see the module docstring of
#: :mod:`companion.mlm` for why). ``smoke``: the first 1,500 sentences of the data mirror's wiki head
#: (no system package needed: CI and the smoke notebooks build it anywhere), a 2-layer width-32 model, a few steps.
#: ``cpu`` keeps the ``"exact"`` decontamination it was built with (its cached folder and every run cached from it
#: stay valid); ``smoke`` uses ``"near-duplicate"``, the rule a rebuild should take.
PROFILES: dict[str, BuildConfig] = {
    "smoke": BuildConfig(sources=("wiki",), limit=1500, vocab_size=600, hidden=32, layers=2, heads=2,
                         intermediate=64, max_len=32, batch_size=16, steps=6, lr=1e-3, warmup_steps=2, heldout=16,
                         eval_every=3, log_every=2, decontamination="near-duplicate"),
    "cpu": BuildConfig(sources=ALL_SOURCES, limit=None, vocab_size=8192, hidden=256, layers=4, heads=4,
                       intermediate=1024, max_len=64, batch_size=128, steps=1000, lr=7e-4, warmup_steps=80,
                       eval_every=100, log_every=20),
}


def profile_config(profile: str, **overrides) -> BuildConfig:
    if profile not in PROFILES:
        raise ValueError(f"Unknown raw-encoder profile {profile!r}; valid: {', '.join(PROFILES)} (and 'gpu', which "
                         f"loads {GPU_BACKBONE}).")
    return replace(PROFILES[profile], **overrides)


# --------------------------------------------------------------------------------------------- tokenizer
def _bert_pre_tokenizer():
    from tokenizers import normalizers, pre_tokenizers  # noqa: PLC0415 - tokenizers is heavy; this module imports without it

    return (normalizers.BertNormalizer(clean_text=True, handle_chinese_chars=True, strip_accents=True,
                                       lowercase=True), pre_tokenizers.BertPreTokenizer())


def learn_wordpiece(units: list[str], vocab_size: int, min_frequency: int = 2, max_alphabet: int = 500) -> list[str]:
    """A WordPiece vocabulary of ``units``, learned the way ``tokenizers``' ``WordPieceTrainer`` learns one (BERT's
    normaliser and pre-tokeniser from ``tokenizers``; words start as characters, continuation characters written
    ``##c``; the most frequent adjacent pair is merged until the vocabulary is full or no pair occurs
    ``min_frequency`` times), with every tie broken by the pieces' text instead of hash-map order, which the
    ``tokenizers`` trainer uses and which changes from process to process (two trainings of the cpu corpus differed
    in about 100 of 8,192 pieces). Returns the pieces, special tokens first."""
    normaliser, pre = _bert_pre_tokenizer()
    counts: Counter = Counter()
    for unit in units:
        counts.update(w for w, _ in pre.pre_tokenize_str(normaliser.normalize_str(unit)))
    chars: Counter = Counter()
    for word, n in counts.items():
        for c in word:
            chars[c] += n
    alphabet = {c for c, _ in sorted(chars.items(), key=lambda kv: (-kv[1], kv[0]))[:max_alphabet]}
    words: list[list[str]] = []
    freq: list[int] = []
    for word, n in sorted(counts.items()):
        if any(c not in alphabet for c in word):
            continue  # the encoder maps such a word to [UNK]; it takes no part in the merges
        words.append([word[0]] + ["##" + c for c in word[1:]])
        freq.append(n)
    vocab = list(SPECIAL_TOKENS)
    seen = set(vocab)
    for piece in sorted({p for w in words for p in w}):
        if piece not in seen:
            vocab.append(piece)
            seen.add(piece)
    pair_count: Counter = Counter()
    where: dict[tuple[str, str], set[int]] = {}
    for i, w in enumerate(words):
        for pair in zip(w, w[1:]):
            pair_count[pair] += freq[i]
            where.setdefault(pair, set()).add(i)
    heap = [(-n, pair) for pair, n in pair_count.items()]
    heapq.heapify(heap)

    def merged(a: str, b: str) -> str:
        return a + b[2:]

    while len(vocab) < vocab_size and heap:
        neg, pair = heapq.heappop(heap)
        if pair_count.get(pair, 0) != -neg:
            continue  # stale entry
        if -neg < min_frequency:
            break
        new = merged(*pair)
        if new not in seen:
            vocab.append(new)
            seen.add(new)
        touched: Counter = Counter()
        for i in sorted(where.pop(pair, ())):
            w, n = words[i], freq[i]
            if len(w) < 2:
                continue
            for old in zip(w, w[1:]):
                pair_count[old] -= n
                touched[old] += 0
            out, k = [], 0
            while k < len(w):
                if k + 1 < len(w) and w[k] == pair[0] and w[k + 1] == pair[1]:
                    out.append(new)
                    k += 2
                else:
                    out.append(w[k])
                    k += 1
            words[i] = out
            for p in zip(out, out[1:]):
                pair_count[p] += n
                touched[p] += 0
                where.setdefault(p, set()).add(i)
        pair_count.pop(pair, None)
        for p in touched:
            c = pair_count.get(p, 0)
            if c > 0:
                heapq.heappush(heap, (-c, p))
            else:
                pair_count.pop(p, None)
    return vocab


def train_tokenizer(units: list[str], vocab_size: int, max_len: int, folder: Path):
    """The :func:`learn_wordpiece` vocabulary of ``units`` in ``folder`` (``vocab.txt``), read by ``tokenizers``'
    BERT WordPiece tokenizer (lower-cased); returns the ``BertTokenizerFast``."""
    from tokenizers import BertWordPieceTokenizer  # noqa: PLC0415 - tokenizers is heavy; this module imports without it
    from transformers import BertTokenizerFast  # noqa: PLC0415 - transformers is heavy; this module imports without it

    folder.mkdir(parents=True, exist_ok=True)
    vocab_file = folder / "vocab.txt"
    vocab_file.write_text("".join(p + "\n" for p in learn_wordpiece(units, vocab_size)), encoding="utf-8")
    wp = BertWordPieceTokenizer(str(vocab_file), lowercase=True, strip_accents=True, clean_text=True,
                                handle_chinese_chars=True)
    return BertTokenizerFast(tokenizer_object=wp._tokenizer, unk_token="[UNK]", pad_token="[PAD]",
                             cls_token="[CLS]", sep_token="[SEP]", mask_token="[MASK]", do_lower_case=True,
                             model_max_length=max_len)


# --------------------------------------------------------------------------------------------- packing
def pack(blocks: list[list[list[int]]], max_len: int, cls_id: int, sep_id: int) -> list[list[int]]:
    """Greedy packing of each block's token-id units into ``[CLS] u1 [SEP] u2 [SEP] …`` of at most ``max_len``."""
    out: list[list[int]] = []
    room = max_len - 2
    for units in blocks:
        seq: list[int] = [cls_id]
        for ids in units:
            ids = ids[:room]
            if not ids:
                continue
            if len(seq) + len(ids) + 1 > max_len and len(seq) > 1:
                out.append(seq)
                seq = [cls_id]
            seq.extend(ids)
            seq.append(sep_id)
        if len(seq) > 1:
            out.append(seq)
    return out


def _batch(seqs: list[list[int]], pad_id: int) -> tuple[torch.Tensor, torch.Tensor]:
    T = max(len(s) for s in seqs)
    ids = torch.full((len(seqs), T), pad_id, dtype=torch.long)
    att = torch.zeros((len(seqs), T), dtype=torch.long)
    for i, s in enumerate(seqs):
        ids[i, : len(s)] = torch.tensor(s)
        att[i, : len(s)] = 1
    return ids, att


def mask_tokens(ids: torch.Tensor, special: torch.Tensor, vocab_size: int, prob: float,
                gen: torch.Generator) -> tuple[torch.Tensor, torch.Tensor]:
    """BERT's masking: ``prob`` of the non-special positions are chosen (at least one per batch); 80 % of those
    become ``[MASK]`` (``special[-1]`` is the mask id), 10 % a random piece, 10 % stay. Returns the corrupted ids and
    the boolean choice."""
    mask_id = int(special[-1])
    candidate = ~torch.isin(ids, special[:-1])
    chosen = (torch.rand(ids.shape, generator=gen) < prob) & candidate
    if not chosen.any():
        first = candidate.nonzero()[0]
        chosen[first[0], first[1]] = True
    corrupt = ids.clone()
    action = torch.rand(ids.shape, generator=gen)
    rand_ids = torch.randint(len(SPECIAL_TOKENS), vocab_size, ids.shape, generator=gen)
    corrupt[chosen & (action < 0.8)] = mask_id
    swap = chosen & (action >= 0.8) & (action < 0.9)
    corrupt[swap] = rand_ids[swap]
    return corrupt, chosen


def mlm_loss(model, ids: torch.Tensor, att: torch.Tensor, corrupt: torch.Tensor, chosen: torch.Tensor):
    """Cross-entropy of the original pieces at the chosen positions, decoded only there."""
    hidden = model.bert(input_ids=corrupt, attention_mask=att).last_hidden_state
    logits = model.cls(hidden[chosen])
    return torch.nn.functional.cross_entropy(logits, ids[chosen])


# --------------------------------------------------------------------------------------------- the build
def key_config(cfg: BuildConfig) -> dict:
    """The settings that name a build: :func:`asdict` of ``cfg``, without ``decontamination`` when it is
    ``"exact"`` (the key every build had before the rule was a setting)."""
    out = asdict(cfg)
    if out["decontamination"] == "exact":
        del out["decontamination"]
    return out


def build_key(cfg: BuildConfig, corpus_sha: str) -> str:
    return cache_key({"config": key_config(cfg), "corpus": corpus_sha, "version": PRETRAIN_VERSION})


def build_dir(profile: str, cfg: BuildConfig | None = None, root: Path | None = None) -> Path:
    """Where ``profile``'s build lives (built or not)."""
    cfg = cfg or profile_config(profile)
    root = Path(root) if root is not None else cache_dir() / "mlm"
    corpus = build_corpus(cfg.sources, cfg.limit, root=root, decontamination=cfg.decontamination)
    return root / f"raw-{profile}-{build_key(cfg, corpus.sha256)}"


def is_built(folder: Path) -> bool:
    return (folder / "build.json").is_file() and (folder / "config.json").is_file()


def weights_hash(model: torch.nn.Module) -> str:
    """:func:`companion.encoders.weights_fingerprint` of the in-memory weights (every byte at this size)."""
    return weights_fingerprint(model)


def model_config(cfg: BuildConfig, vocab_size: int, pad_id: int):
    from transformers import BertConfig  # noqa: PLC0415 - transformers is heavy; this module imports without it

    return BertConfig(vocab_size=vocab_size, hidden_size=cfg.hidden, num_hidden_layers=cfg.layers,
                      num_attention_heads=cfg.heads, intermediate_size=cfg.intermediate,
                      max_position_embeddings=cfg.max_len, type_vocab_size=2, pad_token_id=pad_id)


def init_model(cfg: BuildConfig, vocab_size: int, pad_id: int):
    """The ``BertForMaskedLM`` the build starts from (seeded: the random-init network of the signature)."""
    from transformers import BertForMaskedLM  # noqa: PLC0415 - transformers is heavy; this module imports without it

    config = model_config(cfg, vocab_size, pad_id)
    config._attn_implementation = "sdpa"
    torch.manual_seed(cfg.seed)
    return BertForMaskedLM(config)


def encoder_only(mlm, cfg: BuildConfig):
    """The ``BertModel`` that ``AutoModel`` loads from the build folder: the MLM's encoder with a pooler initialised
    from the seed (the pooler is never trained and no pooling of :mod:`companion.encoders` reads it; saving it keeps
    a load from initialising it afresh, which would change the weights fingerprint at every load)."""
    from transformers import BertModel  # noqa: PLC0415 - transformers is heavy; this module imports without it

    torch.manual_seed(cfg.seed)
    model = BertModel(mlm.config, add_pooling_layer=True)
    missing, unexpected = model.load_state_dict(mlm.bert.state_dict(), strict=False)
    if unexpected or any(not k.startswith("pooler.") for k in missing):
        raise RuntimeError(f"encoder_only: unexpected {unexpected}, missing {missing}.")
    model.config.architectures = ["BertModel"]
    return model.eval()


def build(profile: str = "cpu", cfg: BuildConfig | None = None, root: Path | None = None, force: bool = False,
          log=print) -> Path:
    """Build ``profile``'s raw encoder into its cache folder (or return the folder when already built)."""
    cfg = cfg or profile_config(profile)
    root = Path(root) if root is not None else cache_dir() / "mlm"
    t_all = time.perf_counter()
    corpus = build_corpus(cfg.sources, cfg.limit, root=root, decontamination=cfg.decontamination)
    folder = root / f"raw-{profile}-{build_key(cfg, corpus.sha256)}"
    if is_built(folder) and not force:
        return folder
    log(f"corpus: {corpus.words:,} words in {sum(s['units'] for s in corpus.stats.values()):,} units "
        f"({corpus.path.name})")
    work = folder.with_name(folder.name + f".tmp-{os.getpid()}")
    blocks = list(corpus.blocks())
    units = [u for _, us in blocks for u in us]
    tok = train_tokenizer(units, cfg.vocab_size, cfg.max_len, work)
    ids_blocks = [[e.ids for e in tok.backend_tokenizer.encode_batch(us, add_special_tokens=False)] for _, us in blocks]
    seqs = pack(ids_blocks, cfg.max_len, tok.cls_token_id, tok.sep_token_id)
    rng = np.random.default_rng(cfg.seed)
    order = rng.permutation(len(seqs))
    held = [seqs[i] for i in order[: cfg.heldout]]
    train = [seqs[i] for i in order[cfg.heldout:]]
    n_tokens = sum(len(s) for s in train)
    unigram = piece_entropy(seqs, (tok.cls_token_id, tok.sep_token_id))
    log(f"vocabulary {len(tok):,}; {len(train):,} training sequences ({n_tokens:,} tokens), {len(held)} held out; "
        f"{cfg.steps:,} steps of {cfg.batch_size} = {cfg.steps * cfg.batch_size / max(len(train), 1):.2f} epochs")

    model = init_model(cfg, len(tok), tok.pad_token_id)
    init_hash = weights_hash(model)
    model.train()
    special = torch.tensor([tok.pad_token_id, tok.cls_token_id, tok.sep_token_id, tok.unk_token_id,
                            tok.mask_token_id])
    decay = [p for n, p in model.named_parameters() if p.dim() > 1]
    no_decay = [p for n, p in model.named_parameters() if p.dim() <= 1]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": cfg.weight_decay},
                             {"params": no_decay, "weight_decay": 0.0}], lr=cfg.lr, betas=(0.9, 0.98), eps=1e-6)

    def lr_at(step: int) -> float:
        if step < cfg.warmup_steps:
            return cfg.lr * (step + 1) / cfg.warmup_steps
        return cfg.lr * max(0.0, (cfg.steps - step) / max(1, cfg.steps - cfg.warmup_steps))

    gen = torch.Generator().manual_seed(cfg.seed)
    held_gen = torch.Generator().manual_seed(cfg.seed + 1)
    held_batches = []
    for i in range(0, len(held), cfg.batch_size):
        ids, att = _batch(held[i: i + cfg.batch_size], tok.pad_token_id)
        corrupt, chosen = mask_tokens(ids, special, len(tok), cfg.mask_prob, held_gen)
        held_batches.append((ids, att, corrupt, chosen))

    def heldout_loss() -> float:
        model.eval()
        total = count = 0.0
        with torch.no_grad():
            for ids, att, corrupt, chosen in held_batches:
                n = int(chosen.sum())
                total += float(mlm_loss(model, ids, att, corrupt, chosen)) * n
                count += n
        model.train()
        return total / max(count, 1)

    curve: list[dict] = []
    heldout: list[dict] = [{"step": 0, "tokens": 0, "loss": heldout_loss()}]
    log(f"step 0: held-out loss {heldout[0]['loss']:.3f} (ln V = {math.log(len(tok)):.3f})")
    perm = rng.permutation(len(train))
    cursor, epoch, tokens_seen = 0, 0, 0
    window: list[float] = []
    t0, c0 = time.perf_counter(), time.process_time()
    for step in range(cfg.steps):
        if cursor + cfg.batch_size > len(perm):
            perm, cursor, epoch = rng.permutation(len(train)), 0, epoch + 1
        batch = [train[i] for i in perm[cursor: cursor + cfg.batch_size]]
        cursor += cfg.batch_size
        ids, att = _batch(batch, tok.pad_token_id)
        corrupt, chosen = mask_tokens(ids, special, len(tok), cfg.mask_prob, gen)
        for group in opt.param_groups:
            group["lr"] = lr_at(step)
        loss = mlm_loss(model, ids, att, corrupt, chosen)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), cfg.clip)
        opt.step()
        opt.zero_grad(set_to_none=True)
        tokens_seen += int(att.sum())
        window.append(float(loss.detach()))
        done = step + 1
        if done % cfg.log_every == 0 or done == cfg.steps:
            wall = time.perf_counter() - t0
            curve.append({"step": done, "tokens": tokens_seen, "loss": float(np.mean(window)), "lr": lr_at(step),
                          "wall_s": round(wall, 1), "cpu_s": round(time.process_time() - c0, 1), "epoch": epoch})
            window = []
            cpu_rate = (f"{tokens_seen / curve[-1]['cpu_s']:,.0f} tok/cpu-s" if curve[-1]["cpu_s"] >= 0.1
                        else "under 0.1 CPU s")  # the CPU clock is rounded to 0.1 s
            log(f"step {done}/{cfg.steps}  loss {curve[-1]['loss']:.3f}  tokens {tokens_seen:,}  "
                f"{tokens_seen / max(wall, 1e-9):,.0f} tok/s wall  {cpu_rate}")
        if done % cfg.eval_every == 0 or done == cfg.steps:
            heldout.append({"step": done, "tokens": tokens_seen, "loss": heldout_loss()})
            log(f"step {done}: held-out loss {heldout[-1]['loss']:.3f}")
    train_wall, train_cpu = time.perf_counter() - t0, time.process_time() - c0
    model.eval()
    digest = weights_hash(model)
    encoder_only(model, cfg).save_pretrained(work, safe_serialization=True)
    tok.save_pretrained(work)
    info = {"profile": profile, "config": asdict(cfg), "corpus": {"file": corpus.path.name, "sha256": corpus.sha256,
                                                                  "words": corpus.words, "sources": corpus.stats},
            "vocab_size": len(tok), "sequences": {"train": len(train), "heldout": len(held), "train_tokens": n_tokens},
            "tokens_seen": tokens_seen, "epochs": cfg.steps * cfg.batch_size / max(len(train), 1),
            "unigram_entropy": unigram,
            "curve": curve, "heldout": heldout, "train_wall_s": round(train_wall, 1),
            "train_cpu_s": round(train_cpu, 1), "total_wall_s": round(time.perf_counter() - t_all, 1),
            "weights_hash": digest, "init_hash": init_hash, "threads": torch.get_num_threads(),
            "torch": torch.__version__, "version": PRETRAIN_VERSION}
    write_atomic(work / "build.json", lambda fh: fh.write(json.dumps(info, indent=1).encode()))
    if folder.exists():
        shutil.rmtree(folder)
    os.replace(work, folder)
    log(f"built {folder} in {info['total_wall_s']:.0f} s (training {train_wall:.0f} s wall, {train_cpu:.0f} s CPU); "
        f"weights hash {digest}")
    return folder


def build_info(folder: Path) -> dict:
    return json.loads((Path(folder) / "build.json").read_text(encoding="utf-8"))


def piece_entropy(seqs: list[list[int]], special: tuple[int, ...]) -> float:
    """The entropy in nats of the pieces of ``seqs`` (their relative frequencies; ``special`` ids left out): the
    held-out MLM loss of a model that ignores the context and predicts every masked piece by its frequency.

    >>> round(piece_entropy([[2, 7, 8, 3], [2, 7, 7, 3]], (2, 3)), 4)   # frequencies 3/4, 1/4
    0.5623
    """
    counts = np.bincount(np.concatenate([np.asarray(s, dtype=np.int64) for s in seqs]))
    counts[[i for i in special if i < len(counts)]] = 0
    p = counts[counts > 0] / counts.sum()
    return float(-(p * np.log(p)).sum())


def unigram_entropy(folder: Path, log=print) -> float | None:
    """:func:`piece_entropy` of the build in ``folder`` (its corpus packed as the build packs it, with its
    tokenizer): read from ``build.json`` where the build recorded it, else measured once and cached beside the
    folder (``<folder>.unigram.json``); ``None`` when the corpus file is no longer in the cache."""
    from transformers import AutoTokenizer  # noqa: PLC0415 - transformers is heavy; this module imports without it

    folder = Path(folder)
    info = build_info(folder)
    if info.get("unigram_entropy") is not None:
        return float(info["unigram_entropy"])
    cached = folder.with_name(folder.name + ".unigram.json")
    if cached.is_file():
        return float(json.loads(cached.read_text(encoding="utf-8"))["unigram_entropy"])
    corpus = folder.parent / info["corpus"]["file"]
    if not corpus.is_file():
        return None
    log(f"measuring the unigram entropy of {corpus.name}")
    tok = AutoTokenizer.from_pretrained(folder)
    blocks = [[e.ids for e in tok.backend_tokenizer.encode_batch(us, add_special_tokens=False)]
              for _, us in Corpus(corpus, {}, "").blocks()]
    seqs = pack(blocks, info["config"]["max_len"], tok.cls_token_id, tok.sep_token_id)
    value = piece_entropy(seqs, (tok.cls_token_id, tok.sep_token_id))
    write_atomic(cached, lambda fh: fh.write(json.dumps({"unigram_entropy": value}).encode()))
    return value
