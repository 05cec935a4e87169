"""The second hop's segment ranking: the pathways fused on the feedback query, blended with the
best turn of each segment under the question's own calibrated turn scorer.

Why: the feedback query (the question plus the first hop's rarest words) drifts towards what
the first hop already found, so its next segments repeat the found topic. The calibrated scorer
the assistants rank turns with (BM25, dense, the asked entity type, said by the person asked
about) reads the question itself, turn by turn, across the whole namespace: on questions whose
evidence spans several sessions it names sessions the feedback query misses ("What activities
does she do?": her own turns naming an activity).

Measured in a simulation of the second hop on LoCoMo (docs/benchmarks.md, "Session 10:
multi-session routing"): weight 0.5, chosen on conversations 0-4, took their 2+-session
evidence-session recall from 0.844 to 0.865, but on 5-9, out of sample, from 0.814 to 0.802.
So it is off by default (`ReadConfig.hop_turn_weight` = 0), kept for measurement.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from emem.answer import ActivatedSegment


def _minmax(values: Mapping[str, float]) -> dict[str, float]:
    if not values:
        return {}
    lo, hi = min(values.values()), max(values.values())
    span = hi - lo
    return {k: (v - lo) / span if span > 1e-12 else 1.0 for k, v in values.items()}


def blend_hop(
    fused: Sequence[ActivatedSegment],
    turn_best: Mapping[str, float],
    weight: float,
    top_n: int,
    exclude: set[str] | frozenset[str] = frozenset(),
) -> list[ActivatedSegment]:
    """Rank segments by (1 - weight) x their min-max fused routing score + weight x the min-max
    best calibrated turn score of the segment; best `top_n` not in `exclude`.

    Args:
        fused: every candidate segment with its fused pathway score (routing.fuse, all segments).
        turn_best: segment id -> the best calibrated score among its visible turns; a segment
            absent from it scores 0 on that side.
        weight: the turn scorer's share, in [0, 1] (0: the fused ranking alone).
        top_n: how many segments to return.
        exclude: segment ids already activated.
    Returns:
        The chosen segments, best first, their `score` the blended one and a reason added.
    """
    if not 0.0 <= weight <= 1.0:
        raise ValueError(f"blend weight must be in [0, 1], got {weight}")
    routed = _minmax({a.segment_id: a.score for a in fused})
    scored = _minmax({a.segment_id: turn_best.get(a.segment_id, 0.0) for a in fused})
    ranked = sorted(
        (a for a in fused if a.segment_id not in exclude),
        key=lambda a: -((1 - weight) * routed[a.segment_id] + weight * scored[a.segment_id]),
    )  # stable: equal blends keep the fused order
    out = []
    for a in ranked[:top_n]:
        score = (1 - weight) * routed[a.segment_id] + weight * scored[a.segment_id]
        reason = f"turn scorer: best turn {turn_best.get(a.segment_id, 0.0):.2f} (weight {weight:.2f})"
        out.append(a.model_copy(update={"score": score, "reasons": [*a.reasons, reason]}))
    return out
