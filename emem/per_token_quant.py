"""Per-token activation quantisation for a dynamically quantised ONNX model.

`onnxruntime.quantization.quantize_dynamic` quantises each MatMul's activations with one scale
per tensor (`DynamicQuantizeLinear`): in a batch, every text's vector then depends on the other
texts and on the padding (mean cosine 0.990 to the same text embedded alone on LoCoMo turns), so
two homes holding the same turns, embedded in different chunks, rank differently. This rewrite
gives every token row its own scale and zero point instead. A row's quantised values then depend
on that row only, the int8 products are exact integers, and the rest of the encoder is per row
(layer norm, GELU) or masked (attention), so a text's vector is the same bit for bit whatever it
is batched with. Finer scales are also more accurate: cosine 0.996 to the fp32 model's vectors
against 0.991 per tensor (docs/benchmarks.md, session 10).

Activations use 7 bits (0..127, rounding may reach 128), not 8: on CPUs without VNNI, ONNX
Runtime's u8 x s8 kernel sums pairs of products in 16 bits, which saturates when both bytes are
large; with each row using its own full range that happened often at 8 bits (cosine 0.971) and
never can at 7 (2 * 128 * 127 fits). Where the CPU's int8 dot product is exact (VNNI), a
symmetric 8-bit variant is faster and more accurate (`per_token_activations(symmetric=True)`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

ACTIVATION_LEVELS = 127.0
"""Quantisation levels on each side: an asymmetric row spans 0..127 (7 bits: 2 * 128 * 127 fits a
signed 16-bit sum), a symmetric one 128 +/- 127."""

_AXES, _ZERO, _LEVELS, _EPS = "pt_axes", "pt_zero", "pt_levels", "pt_eps"
_MID, _MID_U8, _ONE = "pt_mid", "pt_mid_u8", "pt_one"
_BLOCK = 1 << 20
"""`QuantizeLinear`'s block along the last axis: longer than any row, so one block per row."""


def _row_scale(helper: Any, x: str, scale: str, p: str, symmetric: bool) -> list[Any]:
    """Nodes computing each row's scale (keepdims) over the row's range, widened to include 0;
    for a symmetric row the range is [-max|x|, max|x|], mapped onto 2 * 127 levels."""
    node = helper.make_node
    if symmetric:
        return [
            node("Abs", [x], [p + "abs"]),
            node("ReduceMax", [p + "abs", _AXES], [p + "max"], keepdims=1),
            node("Max", [p + "max", _EPS], [p + "range1"]),
            node("Div", [p + "range1", _LEVELS], [scale]),
        ]
    return [
        node("ReduceMax", [x, _AXES], [p + "max"], keepdims=1),
        node("ReduceMin", [x, _AXES], [p + "min"], keepdims=1),
        node("Max", [p + "max", _ZERO], [p + "hi"]),
        node("Min", [p + "min", _ZERO], [p + "lo"]),
        node("Sub", [p + "hi", p + "lo"], [p + "range"]),
        node("Max", [p + "range", _EPS], [p + "range1"]),
        node("Div", [p + "range1", _LEVELS], [scale]),
    ]


def _quantise_rows(helper: Any, tensor_proto: Any, x: str, q: str, scale: str, zero_i32: str) -> list[Any]:
    """Nodes quantising `x` per row of its last axis: `q` (uint8), `scale` (float, keepdims) and
    the zero point as int32 (`zero_i32`), asymmetric over [min(row, 0), max(row, 0)]. One
    `QuantizeLinear` with a block as long as the row (opset 21) divides, rounds, shifts and
    casts in one pass over the tensor (five elementwise nodes did it before: 8% slower)."""
    p = q + "_pt"
    node = helper.make_node
    return [
        *_row_scale(helper, x, scale, p, symmetric=False),
        node("Div", [p + "lo", scale], [p + "lo_q"]),
        node("Neg", [p + "lo_q"], [p + "zero_neg"]),
        node("Round", [p + "zero_neg"], [p + "zero_r"]),
        node("Clip", [p + "zero_r", _ZERO, _LEVELS], [p + "zero"]),
        node("Cast", [p + "zero"], [p + "zero_u8"], to=tensor_proto.UINT8),
        node("QuantizeLinear", [x, scale, p + "zero_u8"], [q], axis=-1, block_size=_BLOCK),
        node("Cast", [p + "zero"], [zero_i32], to=tensor_proto.INT32),
    ]


def _quantise_rows_symmetric(helper: Any, tensor_proto: Any, x: str, q: str, scale: str) -> list[Any]:
    """Nodes quantising `x` per row, symmetrically: `q` is uint8 around a fixed zero point of
    128 (1..255), so the integer matrix multiply takes one scalar zero point and needs no
    per-row correction."""
    p = q + "_ps"
    node = helper.make_node
    return [
        *_row_scale(helper, x, scale, p, symmetric=True),
        node("Mul", [scale, _ZERO], [p + "zeros"]),
        node("Add", [p + "zeros", _MID], [p + "mid"]),
        node("Cast", [p + "mid"], [p + "zero_u8"], to=tensor_proto.UINT8),
        node("QuantizeLinear", [x, scale, p + "zero_u8"], [q], axis=-1, block_size=_BLOCK),
    ]


def per_token_activations(model: Any, symmetric: bool = False) -> int:
    """Rewrite, in place, every `DynamicQuantizeLinear` of `model` to quantise per token row.

    Asymmetric (the default, exact on every CPU): each `MatMulInteger` fed by a quantiser loses
    its activation zero point (ONNX Runtime takes only a scalar there) and subtracts
    `zero_row * column_sums(W)` from its int32 product instead, which is the same integer.

    Symmetric (`symmetric=True`): activations use 8 bits around a fixed zero point of 128, so
    each matrix multiply becomes one `MatMulIntegerToFloat` (ONNX Runtime's fused kernel: integer
    product, zero point and weight scales in one pass) followed by the row's scale. It was 1.22x
    faster and closer to the fp32 model (cosine 0.9967 against 0.9958 on LoCoMo turns), but its
    bytes reach 255, which ONNX Runtime's u8 x s8 kernel saturates on x86 CPUs without VNNI; use
    it only where `exact_u8s8()` holds.

    The weights must be symmetric (zero points 0), as `quantize_dynamic` makes them with `QInt8`.

    Args:
        model: an `onnx.ModelProto` made by `quantize_dynamic` (weights QInt8, per channel).
        symmetric: quantise activations symmetrically, for CPUs whose int8 dot product is exact.
    Returns:
        The number of activation quantisers rewritten.
    Raises:
        ValueError: a quantised weight has a non-zero zero point, or the model has no quantiser.
    """
    from onnx import TensorProto, helper, numpy_helper

    graph = model.graph
    inits = {i.name: i for i in graph.initializer}
    graph.initializer.extend(
        [
            numpy_helper.from_array(np.array([-1], dtype=np.int64), _AXES),
            numpy_helper.from_array(np.array(0.0, dtype=np.float32), _ZERO),
            numpy_helper.from_array(np.array(ACTIVATION_LEVELS, dtype=np.float32), _LEVELS),
            numpy_helper.from_array(np.array(1e-8, dtype=np.float32), _EPS),
            numpy_helper.from_array(np.array(128.0, dtype=np.float32), _MID),
            numpy_helper.from_array(np.array(128, dtype=np.uint8), _MID_U8),
            numpy_helper.from_array(np.array(1.0, dtype=np.float32), _ONE),
        ]
    )
    producers = {o: n for n in graph.node for o in n.output}
    consumers: dict[str, list[Any]] = {}
    for n in graph.node:
        for name in n.input:
            consumers.setdefault(name, []).append(n)
    zero_rows: dict[str, str] = {}
    row_scales: dict[str, str] = {}  # symmetric: quantised tensor -> its rows' scales
    sums: set[str] = set()
    dropped: set[str] = set()  # names of nodes replaced further down the graph
    nodes: list[Any] = []
    for n in graph.node:
        if n.name and n.name in dropped:
            continue
        if n.op_type == "DynamicQuantizeLinear":
            q, scale, zero = n.output
            zero_rows[zero] = zero + "_rows_i32"
            if symmetric:
                row_scales[q] = scale
                nodes += _quantise_rows_symmetric(helper, TensorProto, n.input[0], q, scale)
            else:
                nodes += _quantise_rows(helper, TensorProto, n.input[0], q, scale, zero_rows[zero])
        elif n.op_type == "MatMulInteger" and len(n.input) > 2 and n.input[2] in zero_rows:
            a, b = n.input[0], n.input[1]
            if len(n.input) > 3 and n.input[3] and np.any(numpy_helper.to_array(inits[n.input[3]]) != 0):
                raise ValueError(f"weight {b} is not symmetrically quantised")
            if symmetric:
                nodes += _fused_product(n, row_scales[a], producers, consumers, inits, dropped, helper)
                continue
            col = b + "_colsum"
            if col not in sums:
                weight = numpy_helper.to_array(inits[b]).astype(np.int32)
                graph.initializer.append(numpy_helper.from_array(weight.sum(axis=0).astype(np.int32), col))
                sums.add(col)
            raw = n.output[0] + "_pt_raw"
            nodes += [
                helper.make_node("MatMulInteger", [a, b], [raw]),
                helper.make_node("Mul", [zero_rows[n.input[2]], col], [raw + "_shift"]),
                helper.make_node("Sub", [raw, raw + "_shift"], [n.output[0]]),
            ]
        else:
            nodes.append(n)
    if not zero_rows:
        raise ValueError("the model has no DynamicQuantizeLinear to rewrite")
    nodes = _live(nodes, {o.name for o in graph.output})
    graph.ClearField("node")
    graph.node.extend(nodes)
    used = {name for n in nodes for name in n.input}
    kept = [i for i in graph.initializer if i.name in used]  # e.g. the weights' zero points
    graph.ClearField("initializer")  # ONNX Runtime warns at every load about unused ones
    graph.initializer.extend(kept)
    for opset in model.opset_import:
        if opset.domain in ("", "ai.onnx"):
            opset.version = max(opset.version, 21)  # QuantizeLinear's blocks (21), Reduce axes (18)
    if symmetric and not any(o.domain == "com.microsoft" for o in model.opset_import):
        model.opset_import.append(helper.make_opsetid("com.microsoft", 1))
    return len(zero_rows)


def _fused_product(
    matmul: Any,
    row_scale: str,
    producers: dict[str, Any],
    consumers: dict[str, list[Any]],
    inits: dict[str, Any],
    dropped: set[str],
    helper: Any,
) -> list[Any]:
    """`quantize_dynamic` follows each `MatMulInteger` with `Cast` and a `Mul` by
    `a_scale * b_scales` (one [rows, columns] tensor when `a_scale` is per row). Replace the
    product and its `Cast` by one `MatMulIntegerToFloat` that applies the weight scales, and make
    the `Mul` apply the row scales; the `a_scale * b_scales` node is then dead."""
    (cast,) = consumers[matmul.output[0]]
    (scaling,) = consumers[cast.output[0]]
    if cast.op_type != "Cast" or scaling.op_type != "Mul" or not cast.name:
        raise ValueError(f"unexpected nodes after {matmul.name or matmul.output[0]}")
    other = 1 if scaling.input[0] == cast.output[0] else 0
    combined = producers[scaling.input[other]]
    weight_scales = [name for name in combined.input if name in inits]
    if combined.op_type != "Mul" or len(weight_scales) != 1:
        raise ValueError(f"unexpected scales for {matmul.name or matmul.output[0]}")
    scaling.input[other] = row_scale
    dropped.add(cast.name)
    a, b = matmul.input[0], matmul.input[1]
    return [
        helper.make_node(
            "MatMulIntegerToFloat",
            [a, b, _ONE, weight_scales[0], _MID_U8],
            [cast.output[0]],
            domain="com.microsoft",
        )
    ]


def _live(nodes: list[Any], outputs: set[str]) -> list[Any]:
    """The nodes some graph output depends on, in their order."""
    needed = set(outputs)
    kept: list[Any] = []
    for n in reversed(nodes):
        if any(o in needed for o in n.output):
            kept.append(n)
            needed.update(i for i in n.input if i)
    return kept[::-1]
