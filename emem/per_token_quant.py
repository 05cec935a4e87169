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

Activations use 7 bits (0..127), not 8: on CPUs without VNNI, ONNX Runtime's u8 x s8 kernel sums
pairs of products in 16 bits, which saturates when both bytes are large; with each row using its
own full range that happened often at 8 bits (cosine 0.971) and never can at 7.
"""

from __future__ import annotations

from typing import Any

import numpy as np

ACTIVATION_LEVELS = 127.0
"""Largest quantised activation (7 bits: 2 * 127 * 127 fits a signed 16-bit sum)."""

_AXES, _ZERO, _LEVELS, _EPS = "pt_axes", "pt_zero", "pt_levels", "pt_eps"


def _quantise_rows(helper: Any, tensor_proto: Any, x: str, q: str, scale: str, zero_i32: str) -> list[Any]:
    """Nodes quantising `x` per row of its last axis: `q` (uint8), `scale` (float, keepdims) and
    the zero point as int32 (`zero_i32`), asymmetric over [min(row, 0), max(row, 0)]."""
    p = q + "_pt"
    node = helper.make_node
    return [
        node("ReduceMax", [x, _AXES], [p + "max"], keepdims=1),
        node("ReduceMin", [x, _AXES], [p + "min"], keepdims=1),
        node("Max", [p + "max", _ZERO], [p + "hi"]),
        node("Min", [p + "min", _ZERO], [p + "lo"]),
        node("Sub", [p + "hi", p + "lo"], [p + "range"]),
        node("Max", [p + "range", _EPS], [p + "range1"]),
        node("Div", [p + "range1", _LEVELS], [scale]),
        node("Div", [p + "lo", scale], [p + "lo_q"]),
        node("Neg", [p + "lo_q"], [p + "zero_neg"]),
        node("Round", [p + "zero_neg"], [p + "zero_r"]),
        node("Clip", [p + "zero_r", _ZERO, _LEVELS], [p + "zero"]),
        node("Div", [x, scale], [p + "scaled"]),
        node("Round", [p + "scaled"], [p + "rounded"]),
        node("Add", [p + "rounded", p + "zero"], [p + "shifted"]),
        node("Clip", [p + "shifted", _ZERO, _LEVELS], [p + "clipped"]),
        node("Cast", [p + "clipped"], [q], to=tensor_proto.UINT8),
        node("Cast", [p + "zero"], [zero_i32], to=tensor_proto.INT32),
    ]


def per_token_activations(model: Any) -> int:
    """Rewrite, in place, every `DynamicQuantizeLinear` of `model` to quantise per token row.

    Each `MatMulInteger` fed by one loses its activation zero point (ONNX Runtime takes only a
    scalar there) and subtracts `zero_row * column_sums(W)` from its int32 product instead, which
    is the same integer. The weights must be symmetric (zero points 0), as `quantize_dynamic`
    makes them with `QInt8`.

    Args:
        model: an `onnx.ModelProto` made by `quantize_dynamic` (weights QInt8).
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
        ]
    )
    zero_rows: dict[str, str] = {}
    sums: set[str] = set()
    nodes: list[Any] = []
    for n in graph.node:
        if n.op_type == "DynamicQuantizeLinear":
            q, scale, zero = n.output
            zero_rows[zero] = zero + "_rows_i32"
            nodes += _quantise_rows(helper, TensorProto, n.input[0], q, scale, zero_rows[zero])
        elif n.op_type == "MatMulInteger" and len(n.input) > 2 and n.input[2] in zero_rows:
            a, b = n.input[0], n.input[1]
            if len(n.input) > 3 and n.input[3] and np.any(numpy_helper.to_array(inits[n.input[3]]) != 0):
                raise ValueError(f"weight {b} is not symmetrically quantised")
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
    graph.ClearField("node")
    graph.node.extend(nodes)
    used = {name for n in nodes for name in n.input}
    kept = [i for i in graph.initializer if i.name in used]  # e.g. the weights' zero points
    graph.ClearField("initializer")  # ONNX Runtime warns at every load about unused ones
    graph.initializer.extend(kept)
    for opset in model.opset_import:
        if opset.domain in ("", "ai.onnx"):
            opset.version = max(opset.version, 18)  # ReduceMax/ReduceMin take axes as an input
    return len(zero_rows)
