"""The quantised MiniLM copy: built offline from the shipped file (no download), reused once
built, close to the shipped model's vectors, and named apart so a home never mixes the two."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from emem.embedding import (
    EMBEDDER_ENV,
    MODELS_ENV,
    QUANT_ENV,
    QUANTISED_NAME,
    SOLO_SUFFIX,
    MiniLMEmbedder,
    build_quantised_minilm,
    default_embedder,
    exact_u8s8,
    length_batches,
    quant_variant,
    shipped_minilm,
)
from emem.errors import ConfigError
from emem.memory import Memory
from emem.per_token_quant import per_token_activations

TEXTS = [
    "Caroline: I went to the LGBTQ support group yesterday and it was so powerful.",
    "Melanie: We went camping at the lake with the kids last weekend.",
    "What did Melanie paint recently?",
    "Caroline: I'm thinking about adoption agencies; I want to give a child a loving home.",
]


@pytest.fixture(scope="module", params=["asymmetric", "symmetric"])
def quantised(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Both activation variants: the symmetric one is only exact on a CPU with VNNI, but ONNX
    Runtime runs it anywhere, so its graph and batch invariance are tested on every machine."""
    return build_quantised_minilm(tmp_path_factory.mktemp("models"), request.param)


def test_built_once_and_close_to_the_shipped_model(quantised: Path) -> None:
    stamp = quantised.stat().st_mtime_ns
    variant = "symmetric" if "-ps8-" in quantised.name else "asymmetric"
    assert build_quantised_minilm(quantised.parent, variant) == quantised
    assert quantised.stat().st_mtime_ns == stamp  # reused, not rebuilt
    assert not [p for p in quantised.parent.iterdir() if p.name.startswith(".")]  # no temp left
    q = MiniLMEmbedder(model=quantised)
    shipped = default_embedder()
    assert q.name.startswith(QUANTISED_NAME) and q.name != shipped.name
    a, b = shipped.embed(TEXTS), q.embed(TEXTS)
    assert np.allclose(np.linalg.norm(b, axis=1), 1.0, atol=1e-5)
    assert (a * b).sum(axis=1).min() > 0.97  # measured 0.99 mean on LoCoMo turns
    assert not np.allclose(a, b, atol=1e-4)  # really another computation


def test_it_is_the_default_and_the_environment_selects_the_shipped_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, quantised: Path
) -> None:
    monkeypatch.setenv(MODELS_ENV, str(quantised.parent))
    monkeypatch.delenv(EMBEDDER_ENV, raising=False)
    with Memory(tmp_path / "home") as m:
        assert m.indexes.embedder.name.startswith(QUANTISED_NAME)
    monkeypatch.setenv(EMBEDDER_ENV, "shipped")
    with Memory(tmp_path / "home") as m:
        assert m.indexes.embedder.name == default_embedder().name
    monkeypatch.setenv(EMBEDDER_ENV, "fp64-please")
    with Memory(tmp_path / "other") as m, pytest.raises(ConfigError, match=EMBEDDER_ENV):
        _ = m.indexes.embedder


def test_chroma_rebuilds_its_embedding_function_without_loading_a_model(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Chroma rebuilds a collection's embedding function on every load (each write reopens the
    client); that must not open the shipped model, which emem never embeds through Chroma with."""
    import emem.embedding as embedding

    calls: list[int] = []

    def counted() -> MiniLMEmbedder:
        calls.append(1)
        return default_embedder()

    monkeypatch.setattr(embedding, "default_embedder", counted)
    fn = embedding.ChromaEmbeddingFunction.build_from_config({"embedder": "some-model"})
    assert fn.get_config() == {"embedder": "some-model"}
    assert calls == []
    assert np.asarray(fn(["Melanie went camping."])).shape == (1, MiniLMEmbedder.dim)
    assert calls == [1]  # opened on first use only


def test_a_text_gets_one_vector_whatever_it_is_embedded_with(quantised: Path) -> None:
    """Activations are quantised per token row, so a text's vector depends on the text only: a
    turn appended alone and the same turn in a bulk catch-up share one vector, bit for bit,
    whatever the batch size, the order or the other texts' lengths."""
    batched = MiniLMEmbedder(model=quantised)
    together = batched.embed(TEXTS)
    alone = np.stack([batched.embed([t])[0] for t in TEXTS])
    assert np.array_equal(together, alone)
    assert np.array_equal(batched.embed(TEXTS[::-1])[::-1], together)
    mixed = batched.embed([*TEXTS, "ok", TEXTS[0] + " " + TEXTS[3]])
    assert np.array_equal(mixed[: len(TEXTS)], together)
    for size in (1, 2, 3):
        assert np.array_equal(MiniLMEmbedder(model=quantised, batch_size=size).embed(TEXTS), together)
    solo = MiniLMEmbedder(model=quantised, batch_size=1)
    assert solo.name.endswith(SOLO_SUFFIX) and not batched.name.endswith(SOLO_SUFFIX)


def test_a_few_texts_padded_together_get_the_vectors_each_gets_alone(quantised: Path) -> None:
    """`pad_exact` runs a question and its speaker-free form (unequal lengths) as one padded
    batch: the per-token copy must give each the vector it gets alone, bit for bit."""
    alone = MiniLMEmbedder(model=quantised)
    padded = MiniLMEmbedder(model=quantised, pad_exact=True)
    assert padded.pad_exact and not alone.pad_exact
    texts = [TEXTS[2], "What did paint recently?", TEXTS[0], "ok"]
    assert len({len(alone._tokenizer.encode(t).ids) for t in texts}) == len(texts)
    assert np.array_equal(padded.embed(texts[:2]), np.stack([alone.embed([t])[0] for t in texts[:2]]))
    assert np.array_equal(padded.embed(texts), alone.embed(texts))


def test_the_copy_is_closer_to_the_shipped_model_than_per_tensor_quantisation(
    quantised: Path, tmp_path: Path
) -> None:
    """Per-token scales are finer than one per tensor: the rewrite must not cost accuracy."""
    import onnx
    from onnxruntime.quantization import QuantType, quantize_dynamic

    folded = tmp_path / "folded.onnx"
    per_tensor = tmp_path / "per_tensor.onnx"
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_BASIC
    opts.optimized_model_filepath = str(folded)
    ort.InferenceSession(str(shipped_minilm()), opts, providers=["CPUExecutionProvider"])
    quantize_dynamic(str(folded), str(per_tensor), weight_type=QuantType.QInt8, per_channel=True)
    assert any(n.op_type == "DynamicQuantizeLinear" for n in onnx.load(str(per_tensor)).graph.node)
    graph = onnx.load(str(quantised)).graph
    assert not any(n.op_type == "DynamicQuantizeLinear" for n in graph.node)
    used = {name for n in graph.node for name in n.input}
    assert all(i.name in used for i in graph.initializer)  # ONNX Runtime warns about unused ones
    ref = default_embedder().embed(TEXTS)
    ours = (MiniLMEmbedder(model=quantised).embed(TEXTS) * ref).sum(axis=1)
    theirs = (MiniLMEmbedder(model=per_tensor, batch_size=1).embed(TEXTS) * ref).sum(axis=1)
    assert ours.mean() > theirs.mean()
    assert ours.min() > 0.98


def test_each_variant_has_its_own_file_and_name(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Vectors of the two variants differ, so a home must never hold both in one collection."""
    asym = build_quantised_minilm(tmp_path, "asymmetric")
    sym = build_quantised_minilm(tmp_path, "symmetric")
    assert asym != sym
    assert MiniLMEmbedder(model=asym).name != MiniLMEmbedder(model=sym).name
    monkeypatch.setenv(QUANT_ENV, "asymmetric")
    assert quant_variant() == "asymmetric" and build_quantised_minilm(tmp_path) == asym
    monkeypatch.setenv(QUANT_ENV, "symmetric")
    assert build_quantised_minilm(tmp_path) == sym
    monkeypatch.setenv(QUANT_ENV, "auto")
    assert quant_variant() == ("symmetric" if exact_u8s8() else "asymmetric")
    monkeypatch.setenv(QUANT_ENV, "fp4")
    with pytest.raises(ConfigError, match=QUANT_ENV):
        quant_variant()
    with pytest.raises(ConfigError, match="variant"):
        build_quantised_minilm(tmp_path, "fp4")


def test_the_symmetric_variant_fuses_its_products(tmp_path: Path) -> None:
    """Its point is speed: every integer product is ONNX Runtime's fused kernel, with no
    per-row zero-point correction left."""
    import onnx

    graph = onnx.load(str(build_quantised_minilm(tmp_path, "symmetric"))).graph
    ops = [n.op_type for n in graph.node]
    assert ops.count("MatMulIntegerToFloat") == 36 and "MatMulInteger" not in ops
    asym = [n.op_type for n in onnx.load(str(build_quantised_minilm(tmp_path, "asymmetric"))).graph.node]
    assert asym.count("MatMulInteger") == 36 and "MatMulIntegerToFloat" not in asym


def test_the_rewrite_refuses_a_model_it_cannot_rewrite() -> None:
    import onnx

    with pytest.raises(ValueError, match="no DynamicQuantizeLinear"):
        per_token_activations(onnx.load(str(shipped_minilm())))


def test_texts_are_not_padded(quantised: Path) -> None:
    """The tokenizer file pads to 128 tokens; equal-length batches must see the real lengths."""
    e = MiniLMEmbedder(model=quantised)
    assert len(e._tokenizer.encode("Melanie went camping.").ids) < 16


def test_length_batches_cover_every_text_once_in_equal_lengths() -> None:
    lengths = [5, 3, 5, 5, 3, 9]
    batches = length_batches(lengths, 2)
    assert sorted(i for b in batches for i in b) == list(range(len(lengths)))
    assert all(len({lengths[i] for i in b}) == 1 and len(b) <= 2 for b in batches)
    assert batches == [[1, 4], [0, 2], [3], [5]]
