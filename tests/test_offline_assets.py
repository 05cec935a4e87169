"""Embeddings and token counts work with the network cut and an empty tiktoken cache."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np

NO_NETWORK = """
import socket
def _refuse(*a, **k):
    raise OSError("network disabled by test")
socket.socket.connect = _refuse
socket.create_connection = _refuse
socket.getaddrinfo = _refuse
"""


def run_offline(code: str, tmp_path: Path) -> str:
    env = dict(os.environ, TIKTOKEN_CACHE_DIR=str(tmp_path / "tiktoken-cache"), HF_HUB_OFFLINE="1")
    proc = subprocess.run(
        [sys.executable, "-c", NO_NETWORK + code], env=env, capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_token_counts_offline_equal_tiktoken(tmp_path: Path) -> None:
    out = run_offline(
        "import json\n"
        "from emem.tokens import count_tokens, encoding\n"
        "import tiktoken\n"
        "texts = ['Hello world', 'emem keeps every turn uncompressed.', 'naïve café 東京 🚀', '<|endoftext|>']\n"
        "first = count_tokens(texts[0])  # emem seeds tiktoken's cache on first use\n"
        "enc = tiktoken.get_encoding('cl100k_base')\n"
        "print(json.dumps([[count_tokens(t), len(enc.encode(t, disallowed_special=()))] for t in texts]))\n"
        "print(count_tokens('hello there', 'o200k_base'))\n",
        tmp_path,
    )
    pairs = json.loads(out.splitlines()[0])
    assert all(a == b for a, b in pairs)
    assert pairs[0][0] == 2  # "Hello world" is two cl100k tokens
    assert int(out.splitlines()[1]) == 2


def test_embeddings_offline_and_sane(tmp_path: Path) -> None:
    out = run_offline(
        "import json\n"
        "from emem.embedding import MiniLMEmbedder\n"
        "e = MiniLMEmbedder()\n"
        "v = e.embed(['We finally settled in Austin.', 'They moved to Austin, Texas.', 'My parrot is called Kiwi.'])\n"
        "print(json.dumps({'shape': list(v.shape), 'sims': (v @ v.T).tolist(), 'dtype': str(v.dtype)}))\n",
        tmp_path,
    )
    result = json.loads(out)
    sims = np.array(result["sims"])
    assert result["shape"] == [3, 384] and result["dtype"] == "float32"
    assert np.allclose(np.diag(sims), 1.0, atol=1e-4)
    assert sims[0, 1] > 0.5 > sims[0, 2]


def test_asset_hash_is_checked(tmp_path: Path) -> None:
    import pytest

    from emem.embedding import _checked
    from emem.errors import ConfigError

    fake = tmp_path / "model.onnx"
    fake.write_bytes(b"not a model")
    with pytest.raises(ConfigError, match="sha256"):
        _checked(fake, "0" * 64)
