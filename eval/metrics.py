"""LoCoMo's official QA score, BLEU-1 and evidence-retrieval metrics, as pure functions.

The QA score follows the official `task_eval` protocol as documented in shared/data/README.md §1.5
(re-implemented from that description): every number we report as "official" must be comparable
with the paper's, so normalisation, per-category rules and rounding are reproduced exactly.
"""

from __future__ import annotations

import math
import re
import string
from collections import Counter
from collections.abc import Iterable, Sequence
from functools import lru_cache

from nltk.stem import PorterStemmer

from emem.errors import InputError

CATEGORY_NAMES: dict[int, str] = {
    1: "multi-hop",
    2: "temporal",
    3: "open-domain",
    4: "single-hop",
    5: "adversarial",
}
"""LoCoMo integer label → meaning, as verified against the official code (README §1.4)."""

CATEGORY_ORDER: tuple[int, ...] = (4, 1, 2, 3, 5)
"""The official print order (single-hop, multi-hop, temporal, open-domain, adversarial)."""

ABSTENTION_PHRASES: tuple[str, ...] = ("no information available", "not mentioned")
"""Category 5 scores 1 iff the lower-cased prediction contains one of these."""

_PUNCTUATION = frozenset(string.punctuation)
_DROPPED_WORDS = re.compile(r"\b(a|an|the|and)\b")
_STEMMER = PorterStemmer()


def category_mapping_line() -> str:
    """One line naming every category, printed under each results table so no reader guesses."""
    return ", ".join(f"{c} = {CATEGORY_NAMES[c]}" for c in CATEGORY_ORDER)


# --------------------------------------------------------------------------------------------
# Official QA score
# --------------------------------------------------------------------------------------------


def normalize_answer(text: object) -> str:
    """Official normalisation before stemming: commas, case, punctuation, a/an/the/and, spaces."""
    s = str(text).replace(",", "")
    s = s.lower()
    s = "".join(ch for ch in s if ch not in _PUNCTUATION)
    s = _DROPPED_WORDS.sub(" ", s)
    return " ".join(s.split())


@lru_cache(maxsize=65536)
def _stem(token: str) -> str:
    return _STEMMER.stem(token)


def answer_tokens(text: object) -> list[str]:
    """Normalised, Porter-stemmed tokens: the unit every F1 variant and BLEU-1 counts."""
    return [_stem(tok) for tok in normalize_answer(text).split()]


def _token_f1(pred: Sequence[str], gold: Sequence[str]) -> float:
    common = sum((Counter(pred) & Counter(gold)).values())
    if common == 0:
        return 0.0
    precision = common / len(pred)
    recall = common / len(gold)
    return 2 * precision * recall / (precision + recall)


def token_f1(prediction: object, gold: object) -> float:
    """Plain token F1 with multiset intersection; 0 when nothing is shared."""
    return _token_f1(answer_tokens(prediction), answer_tokens(gold))


def multi_answer_f1(prediction: object, gold: object) -> float:
    """Category-1 partial credit: mean over comma-split gold parts of the best F1 vs any
    comma-split prediction part. Extra predicted parts cost nothing beyond pairwise precision."""
    preds = [answer_tokens(p.strip()) for p in str(prediction).split(",")]
    golds = [answer_tokens(g.strip()) for g in str(gold).split(",")]
    return sum(max(_token_f1(p, g) for p in preds) for g in golds) / len(golds)


def is_abstention(prediction: object) -> bool:
    """Category-5 credit: the official check is a plain substring test on the lower-cased text."""
    text = str(prediction).lower()
    return any(phrase in text for phrase in ABSTENTION_PHRASES)


def scoring_gold(gold: object, category: int) -> str:
    """The gold text the official score compares against (category 3 drops its rationale)."""
    text = "" if gold is None else str(gold)
    if category == 3:
        return text.split(";")[0].strip()
    return text


def _check_category(category: int) -> None:
    if category not in CATEGORY_NAMES:
        raise InputError(f"unknown LoCoMo category {category!r}; expected one of 1-5", "category")


def official_score(prediction: object, gold: object, category: int) -> float:
    """The official per-question LoCoMo score in [0, 1], rounded to 3 decimals as stored upstream."""
    _check_category(category)
    prediction = "" if prediction is None else prediction
    if category == 5:
        score = 1.0 if is_abstention(prediction) else 0.0
    elif category == 1:
        score = multi_answer_f1(prediction, scoring_gold(gold, 1))
    else:
        score = token_f1(prediction, scoring_gold(gold, category))
    return round(score, 3)


# --------------------------------------------------------------------------------------------
# BLEU-1
# --------------------------------------------------------------------------------------------


def bleu1(prediction: object, gold: object) -> float:
    """Sentence BLEU-1 on the official normalised+stemmed tokens, single reference, no smoothing.

    Choice: clipped unigram precision × brevity penalty exp(1 - r/c) when c < r. Using the same
    tokens as the official F1 makes BLEU-1 differ from F1 only in how it treats length, so the two
    columns stay comparable; an empty prediction or reference scores 0.
    """
    pred, ref = answer_tokens(prediction), answer_tokens(gold)
    if not pred or not ref:
        return 0.0
    clipped = sum((Counter(pred) & Counter(ref)).values())
    precision = clipped / len(pred)
    brevity = 1.0 if len(pred) >= len(ref) else math.exp(1 - len(ref) / len(pred))
    return brevity * precision


def bleu1_for_category(prediction: object, gold: object, category: int) -> float | None:
    """BLEU-1 against the same gold the official score uses; None for category 5 (no gold text)."""
    _check_category(category)
    if category == 5:
        return None
    return round(bleu1("" if prediction is None else prediction, scoring_gold(gold, category)), 3)


# --------------------------------------------------------------------------------------------
# Evidence and retrieval
# --------------------------------------------------------------------------------------------

_DIA_ID = re.compile(r"^D(\d+):(\d+)$")
_EVIDENCE_SPLIT = re.compile(r"[;,\s]+")
_SESSION_ID = re.compile(r"^(?:session_|[SD])?(\d+)(?::\d+)?$", re.IGNORECASE)


def parse_evidence(raw: str | Iterable[str], valid_ids: Iterable[str] | None = None) -> list[str]:
    """Clean evidence ids: split on ';', ',' and whitespace, strip parentheses, keep only
    well-formed `D<n>:<i>` ids that resolve to a turn (when `valid_ids` is given), de-duplicated
    in first-seen order. Ids that resolve nowhere (e.g. zero-padded 'D30:05') are dropped so they
    neither help nor hurt recall."""
    items = [raw] if isinstance(raw, str) else list(raw)
    valid = None if valid_ids is None else set(valid_ids)
    out: list[str] = []
    for item in items:
        for piece in _EVIDENCE_SPLIT.split(str(item).replace("(", " ").replace(")", " ")):
            if not _DIA_ID.match(piece):
                continue
            if valid is not None and piece not in valid:
                continue
            if piece not in out:
                out.append(piece)
    return out


def session_number(unit_id: str) -> int | None:
    """Session number of a turn id ('D3:7'), session id ('D3', 'S3', 'session_3') or bare '3'."""
    match = _SESSION_ID.match(unit_id.strip())
    return int(match.group(1)) if match else None


def evidence_recall(
    evidence: Sequence[str], retrieved_ids: Sequence[str], k: int | None = None
) -> float | None:
    """Fraction of evidence turn ids among the top-k retrieved ids (all when k is None).

    None for a question without evidence: we exclude those from averages, whereas the official
    code counts them as recall 1 (which would inflate recall for 4 category-3 questions)."""
    if not evidence:
        return None
    top = set(retrieved_ids if k is None else retrieved_ids[:k])
    return sum(1 for e in evidence if e in top) / len(evidence)


def hit_at_k(evidence: Sequence[str], retrieved_ids: Sequence[str], k: int | None = None) -> float | None:
    """1.0 if any evidence turn is among the top-k retrieved ids; None without evidence."""
    if not evidence:
        return None
    top = set(retrieved_ids if k is None else retrieved_ids[:k])
    return 1.0 if any(e in top for e in evidence) else 0.0


def evidence_session_recall(
    evidence: Sequence[str], retrieved_sessions: Sequence[str], retrieved_ids: Sequence[str] = ()
) -> float | None:
    """Fraction of evidence ids whose session is among the retrieved sessions.

    A retrieved turn also counts as touching its session, so turn-level and session-level
    retrievers are measured on the same footing. None without evidence."""
    if not evidence:
        return None
    sessions = {session_number(s) for s in [*retrieved_sessions, *retrieved_ids]} - {None}
    return sum(1 for e in evidence if session_number(e) in sessions) / len(evidence)


RECALL_KS: tuple[int, ...] = (5, 10)


def retrieval_scores(
    evidence: Sequence[str],
    retrieved_ids: Sequence[str],
    retrieved_sessions: Sequence[str] = (),
    ks: Sequence[int] = RECALL_KS,
) -> dict[str, float | None]:
    """Every retrieval figure the run log stores for one question (None when no evidence)."""
    scores: dict[str, float | None] = {}
    for k in ks:
        scores[f"recall@{k}"] = evidence_recall(evidence, retrieved_ids, k)
        scores[f"hit@{k}"] = hit_at_k(evidence, retrieved_ids, k)
    scores["recall@all"] = evidence_recall(evidence, retrieved_ids)
    scores["session_recall"] = evidence_session_recall(evidence, retrieved_sessions, retrieved_ids)
    return scores
