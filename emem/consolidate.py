"""Consolidation: project stored episodes into the ledger, as a separate, resumable batch step.

Never call this from the write path (ingest): extraction may be slow or use an LLM, and the
episode store must accept turns whether or not the ledger keeps up. Consolidation runs after, reads
turns above its per-namespace watermark, and advances the watermark in the same transaction as the
rows it writes, so a run killed midway and restarted yields the same ledger, and re-running on the
same turns writes nothing. Extracted candidates are not truth: they become revisions whose known
time is the turn's time, and the resolver decides what is current.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta
from itertools import groupby
from typing import Any

from pydantic import BaseModel, Field

from emem.errors import InputError
from emem.extract.schema import FactCandidate
from emem.ledger.models import Revision
from emem.ledger.predicates import Cardinality, normalise_object, predicate_name
from emem.ledger.resolver import visible
from emem.ledger.store import Ledger
from emem.models import StoredTurn, Turn, check_namespace
from emem.timeparse import parse_iso_time

Extractor = Callable[[Sequence[Turn]], list[FactCandidate]]
Adjudicator = Callable[[Revision, Revision], str | None]
"""Given (existing, new) tied revisions, return the winner's id, or None to leave them unresolved."""


class ConsolidationReport(BaseModel):
    namespace: str
    extractor: str
    turns_processed: int = 0
    candidates: int = 0
    revisions_written: int = 0
    revocations: int = 0
    ended: int = 0
    """Facts ended in valid time ("I quit Acme last Friday"): revoked and re-asserted up to the end."""
    conflicts: int = 0
    """Ties recorded as "unresolved" in this run (adjudicated ones included)."""
    adjudicated: int = 0
    skipped: int = 0
    notes: list[str] = Field(default_factory=list)
    """Why candidates were skipped (unknown predicate, unknown source turn, nothing to retract)."""
    stopped: bool = False
    """True when a failed extraction stopped the run early (rerun to continue)."""
    watermark_before: int = 0
    watermark: int = 0
    seconds: float = 0.0
    summaries_written: int = 0
    summaries_failed: int = 0
    """Segment summaries the summariser model could not write (endpoint down, empty reply)."""
    failures: list[str] = Field(default_factory=list)
    """One line per failed step (the first error of each kind), so a partial run is never silent."""

    @property
    def complete(self) -> bool:
        """False when any part failed or stopped early: the caller should rerun."""
        return not self.stopped and not self.summaries_failed and not self.failures


def watermark_name(extractor_name: str) -> str:
    """Each extractor has its own watermark, so a better extractor can re-read old turns."""
    return f"consolidate:{extractor_name}"


def consolidate(
    namespace: str,
    turns: Sequence[StoredTurn],
    ledger: Ledger,
    extractor: Extractor,
    *,
    adjudicator: Adjudicator | None = None,
    extractor_name: str = "offline-rules/1",
) -> ConsolidationReport:
    """Extract facts from the turns above the watermark and write them to the ledger.

    Turns are taken in seq order, in runs of one conversation session; each run is one transaction
    (its revisions plus the watermark). The extractor is called outside the transaction.
    """
    check_namespace(namespace)
    started = time.perf_counter()
    name = watermark_name(extractor_name)
    mark = ledger.get_watermark(namespace, name)
    report = ConsolidationReport(namespace=namespace, extractor=extractor_name, watermark_before=mark)
    for t in turns:
        if t.namespace != namespace:
            raise InputError(f"turn {t.conversation_id}/{t.turn_id} belongs to namespace {t.namespace!r}")
    pending = sorted((t for t in turns if t.seq > mark), key=lambda t: t.seq)
    for _, run in groupby(pending, key=lambda t: (t.conversation_id, t.session_id)):
        group = list(run)
        failed_before = getattr(extractor, "failures", 0)
        if getattr(extractor, "reads_ledger", False):
            candidates = extractor(group, known=_known_facts(ledger, namespace))  # type: ignore[call-arg]
        else:
            candidates = extractor(group)
        if getattr(extractor, "failures", 0) > failed_before:
            # An extractor that lost part of this run (an LLM call failed) must not move the
            # watermark past turns it never read: stop here, so a rerun retries from this run.
            report.notes.append(
                f"{group[0].conversation_id}/{group[0].session_id}: extraction failed; stopped before it"
            )
            report.stopped = True
            break
        with ledger.transaction(namespace):
            for cand in candidates:
                report.candidates += 1
                _apply(namespace, cand, group, ledger, adjudicator, extractor_name, report)
            ledger.set_watermark(namespace, name, group[-1].seq)
        report.turns_processed += len(group)
        mark = group[-1].seq
    report.watermark = mark
    report.seconds = time.perf_counter() - started
    return report


def _known_facts(ledger: Ledger, namespace: str) -> Callable[[str], list[FactCandidate]]:
    """What the ledger believes of a subject, as candidates in the order they were said: earlier
    sessions' facts an extractor may refer back to ("Finished Piranesi" ends the book being read;
    "it's Leeds, not Sheffield" corrects the city said before). Read lazily, once per subject."""
    cache: dict[str, list[FactCandidate]] = {}

    def known(subject: str) -> list[FactCandidate]:
        if subject not in cache:
            try:
                rows = [e.revision for e in ledger.history(namespace, subject).entries]
            except InputError:
                rows = []
            believed = sorted(visible(rows, datetime.max.replace(tzinfo=UTC)), key=lambda r: r.known_from)
            cache[subject] = [
                FactCandidate(
                    subject=r.subject,
                    predicate=r.predicate,
                    object=r.object_text,
                    surface=r.surface or r.object_text,
                    valid_from=r.valid_from,
                    valid_to=r.valid_to,
                    confidence=r.confidence,
                )
                for r in believed
            ]
        return cache[subject]

    return known


def _skip(report: ConsolidationReport, where: str, why: str) -> None:
    report.skipped += 1
    report.notes.append(f"{where}: {why}")


def _apply(
    namespace: str,
    cand: FactCandidate,
    group: Sequence[StoredTurn],
    ledger: Ledger,
    adjudicator: Adjudicator | None,
    extractor_name: str,
    report: ConsolidationReport,
) -> None:
    by_id = {t.turn_id: t for t in group}
    ids = cand.source_turn_ids or ([group[0].turn_id] if len(group) == 1 else [])
    found = [by_id[i] for i in ids if i in by_id]
    where = f"{group[0].conversation_id}/{','.join(ids) or '?'}"
    if not found:
        _skip(report, where, "candidate names no source turn of this session")
        return
    source = max(found, key=lambda t: (t.time, t.seq))
    sources = [f"{t.conversation_id}/{t.turn_id}" for t in found]
    by = f"extractor:{extractor_name}"
    try:
        predicate = predicate_name(cand.predicate)
        if cand.kind in ("retract", "end"):
            ledger.cardinality_of(predicate, namespace)  # an unknown predicate has nothing to withdraw
            step = _retract if cand.kind == "retract" else _end
            step(namespace, cand, predicate, source, sources, ledger, by, report, where)
            return
        result = ledger.write_assertion(
            namespace,
            cand.subject,
            predicate,
            cand.object,
            parse_iso_time(cand.valid_from or source.time, "valid_from"),
            parse_iso_time(cand.valid_to, "valid_to") if cand.valid_to else None,
            source.time,
            sources,
            surface=cand.surface,
            confidence=cand.confidence,
            asserted_by=by,
            cardinality=cand.cardinality,
        )
    except InputError as exc:
        _skip(report, where, str(exc))
        return
    if not result.created:
        return
    report.revisions_written += 1
    new = result.revision
    _replace_forecasts(namespace, new, ledger, sources, by, report)
    for rel in result.relations:
        if rel.kind != "unresolved":
            continue
        report.conflicts += 1
        if adjudicator is None:
            continue
        other = ledger.get(namespace, rel.to_id)
        winner = adjudicator(other, new)
        if winner is None:
            continue
        if winner not in (new.id, other.id):
            report.notes.append(f"{where}: adjudicator returned unknown id {winner!r}; left unresolved")
            continue
        loser = other.id if winner == new.id else new.id
        ledger.adjudicate(namespace, winner, loser, known_at=new.known_from, reason=f"adjudicator ({by})")
        report.adjudicated += 1


def _replace_forecasts(
    namespace: str, new: Revision, ledger: Ledger, sources: list[str], by: str, report: ConsolidationReport
) -> None:
    """A start said when it happened replaces the start forecast for the same value ("moving to
    Edinburgh in the summer", then "we've been in Edinburgh since 1 August"): the forecast revision
    (known before its own start) of the same subject, predicate and value is revoked, so July is not
    answered with Edinburgh. Only single-valued facts; a forecast later than the actual start, one
    never followed by an actual start, or one followed by the value said without a start ("we're in
    Edinburgh now"), stays."""
    if new.valid_from > new.known_from:  # the new revision is a forecast itself
        return
    if new.valid_from == new.known_from:
        # "I'm in Kumasi now" says no start: it holds as of the turn, which a move forecast for
        # August (said in March) agrees with; only a start said outright replaces the forecast.
        return
    try:
        if ledger.cardinality_of(new.predicate, namespace) != Cardinality.SINGLE:
            return
    except InputError:
        return
    rows = [e.revision for e in ledger.history(namespace, new.subject, new.predicate).entries]
    for old in visible(rows, new.known_from):
        if (
            old.id != new.id
            and old.object == new.object
            and old.valid_from > old.known_from  # said before it started: a forecast
            and old.valid_from < new.valid_from
            and old.valid_to is None
        ):
            ledger.revoke(
                namespace,
                old.id,
                known_at=new.known_from,
                reason=f"forecast replaced by the start said later: {new.surface}",
                sources=sources,
                asserted_by=by,
            )
            report.revocations += 1


def _retract(
    namespace: str,
    cand: FactCandidate,
    predicate: str,
    source: StoredTurn,
    sources: list[str],
    ledger: Ledger,
    by: str,
    report: ConsolidationReport,
    where: str,
) -> None:
    """Revoke what was believed at the turn's time: every visible revision of the named value, or of
    the current value(s) when no value is named (so an older restatement cannot resurface)."""
    known = source.time
    rows = [e.revision for e in ledger.history(namespace, cand.subject, predicate).entries]
    believed = visible(rows, known)
    wanted = normalise_object(cand.object)
    if wanted:
        targets = _named(believed, wanted)
    else:
        current = ledger.resolve(namespace, cand.subject, predicate, valid_at=known, known_at=known)
        objects = {r.object for r in current.revisions}
        targets = [r for r in believed if r.object in objects]
    if not targets:
        _skip(report, where, f"nothing to retract for {cand.subject}.{predicate} {cand.object!r}")
        return
    for target in targets:
        ledger.revoke(
            namespace,
            target.id,
            known_at=known,
            reason=f"retracted: {cand.surface}",
            sources=sources,
            asserted_by=by,
        )
        report.revocations += 1


def _named(believed: Sequence[Revision], wanted: str) -> list[Revision]:
    """Revisions whose value is `wanted`; failing that, whose value contains all of its words
    ("Japan" names the plan "go to Japan (June 2023)")."""
    exact = [r for r in believed if r.object == wanted]
    if exact:
        return exact
    words = wanted.split()
    return [r for r in believed if _contains(r.object.split(), words)]


def _contains(haystack: list[str], needle: list[str]) -> bool:
    n = len(needle)
    return n > 0 and any(haystack[i : i + n] == needle for i in range(len(haystack) - n + 1))


_KNOWN_SPAN = timedelta(days=1)
"""When something ends that the ledger never held ("I quit Acme" with no earlier word of Acme), all
that is known is that it held up to its end: it is recorded for the day before the end (unless the
ending's confidence is below 0.7: such endings, e.g. "I finished Dune" read as a book, only end a
value that is running). An end that lies ahead ("I'm leaving Tulpa at the end of the year") says the
fact holds now: it is recorded from the day before it was said up to the end."""


_SAME_SITTING = timedelta(hours=6)
"""How close before an unnamed end ("I don't live there any more") a value was told for the end
not to mean it: said in the same sitting, the value is the one the speaker just gave."""


def _end(
    namespace: str,
    cand: FactCandidate,
    predicate: str,
    source: StoredTurn,
    sources: list[str],
    ledger: Ledger,
    by: str,
    report: ConsolidationReport,
    where: str,
) -> None:
    """End a fact in valid time at `cand.valid_to` (default: the turn's time), keeping its past.

    Revisions are immutable, so the open-ended revision that was running at the end is revoked
    (from the turn's time) and re-asserted with the same start and valid_to = the end: as-of
    questions before the end still get the old value, and after it the resolver answers a miss
    (or a newer value), never the ended one.
    """
    known = source.time
    end_at: datetime = parse_iso_time(cand.valid_to or cand.valid_from or source.time, "valid_to")
    rows = [e.revision for e in ledger.history(namespace, cand.subject, predicate).entries]
    believed = visible(rows, known)
    wanted = normalise_object(cand.object)
    if wanted:
        targets = _named(believed, wanted)
        if not targets and cand.confidence < 0.7:
            # "I've quit long-haul" ends the employer told with it ("I drive long-haul for
            # Prairie Crest Freight"): a weak end names what was done there, not the employer
            said = re.compile(rf"\b{re.escape(wanted)}\b")
            targets = [r for r in believed if said.search(normalise_object(r.surface))]
    else:
        just_before = end_at - timedelta(microseconds=1)
        current = ledger.resolve(namespace, cand.subject, predicate, valid_at=just_before, known_at=known)
        # "I moved to Glasgow last month. ... the door code - forget it, I don't live there any
        # more": an end that names nothing does not mean a value told in the same sitting
        targets = [r for r in current.revisions if known - r.known_from >= _SAME_SITTING]
    running = [r for r in targets if _runs_across(r, end_at)]
    if not running:
        if (
            not wanted
            or cand.confidence < 0.7
            or any(r.valid_to is not None and r.valid_to <= end_at for r in targets)
        ):
            _skip(report, where, f"nothing running to end for {cand.subject}.{predicate} {cand.object!r}")
            return
        ledger.write_assertion(
            namespace,
            cand.subject,
            predicate,
            cand.object,
            min(end_at, known) - _KNOWN_SPAN,
            end_at,
            known,
            sources,
            surface=cand.surface,
            confidence=cand.confidence,
            asserted_by=by,
            cardinality=cand.cardinality,
        )
        report.revisions_written += 1
        report.ended += 1
        return
    for target in running:
        confidence = min(target.confidence, cand.confidence)
        _end_revision(namespace, target, end_at, known, cand.surface, sources, confidence, ledger, by, report)
        for held in HELD_WITH.get(predicate, ()):
            _end_held_there(namespace, target, held, end_at, known, cand.surface, sources, ledger, by, report)


def _runs_across(rev: Revision, at: datetime) -> bool:
    """Whether the revision holds on both sides of `at`: begun before it and not yet ended."""
    return rev.valid_from < at and (rev.valid_to is None or rev.valid_to > at)


HELD_WITH: dict[str, tuple[str, ...]] = {"works_at": ("job_title",)}
"""Facts held at a value of another: a title said with its employer ("I'm sous chef at Casa
Brasa") is held there, so it ends when that job does ("I quit Casa Brasa")."""


def _end_held_there(
    namespace: str,
    ended: Revision,
    predicate: str,
    end_at: datetime,
    known: datetime,
    surface: str,
    sources: list[str],
    ledger: Ledger,
    by: str,
    report: ConsolidationReport,
) -> None:
    """End, with `ended`, the running `predicate` revisions of its subject said in a sentence that
    named `ended`'s value (the title said with the employer), as `_end` does: revoked, then
    re-asserted up to the end."""
    name = ended.object_text.casefold()
    rows = [e.revision for e in ledger.history(namespace, ended.subject, predicate).entries]
    for target in visible(rows, known):
        if not (_runs_across(target, end_at) and name in target.surface.casefold()):
            continue
        _end_revision(
            namespace, target, end_at, known, surface, sources, target.confidence, ledger, by, report
        )


def _end_revision(
    namespace: str,
    target: Revision,
    end_at: datetime,
    known: datetime,
    surface: str,
    sources: list[str],
    confidence: float,
    ledger: Ledger,
    by: str,
    report: ConsolidationReport,
) -> None:
    """End one running revision at `end_at`, known from `known`: revisions are immutable, so it is
    revoked and re-asserted with the same start and the end, citing what ended it."""
    ledger.revoke(
        namespace, target.id, known_at=known, reason=f"ended: {surface}", sources=sources, asserted_by=by
    )
    report.revocations += 1
    result = ledger.write_assertion(
        namespace,
        target.subject,
        target.predicate,
        target.object_text,
        target.valid_from,
        end_at,
        known,
        [*target.sources, *sources],
        surface=f"{target.surface} [ended: {surface}]",
        confidence=confidence,
        asserted_by=by,
    )
    report.revisions_written += int(result.created)
    report.ended += 1


def erase_forgotten(memory: Any, namespace: str, report: ConsolidationReport | None = None) -> list[str]:
    """The `erase` forget policy: erase, through the public `Memory.forget`, every turn that an active
    forget request withholds (the request turns themselves stay, so the request remains auditable).

    Args:
        memory: the emem.memory.Memory whose stores are erased.
        namespace: the tenant.
        report: a consolidation report to note the erasure in.

    Returns:
        The refs ("conv/turn") of the erased turns.
    """
    from emem.ledger.withhold import active_forget_requests, withholding

    if report is not None and report.turns_processed == 0:
        return []  # nothing new: what earlier runs had to erase is already gone
    requests = active_forget_requests(memory.ledger, namespace)
    if not requests:
        return []
    keep = {r.source for r in requests}
    after = 0
    if report is not None:
        fresh = {
            f"{t.conversation_id}/{t.turn_id}"
            for t in memory.episodes.turns(
                namespace, after_seq=report.watermark_before, upto_seq=report.watermark
            )
        }
        # A request said in this run reaches back over every turn; otherwise only new turns can match.
        after = 0 if keep & fresh else report.watermark_before
    by_conv: dict[str, list[str]] = {}
    for t in memory.episodes.turns(namespace, after_seq=after):
        ref = f"{t.conversation_id}/{t.turn_id}"
        if ref not in keep and withholding(requests, text=t.render()) is not None:
            by_conv.setdefault(t.conversation_id, []).append(t.turn_id)
    erased = []
    for conv, ids in by_conv.items():
        memory.forget(
            namespace=namespace,
            turn_ids=ids,
            conversation_id=conv,
            reason="forget request said in conversation",
        )
        erased += [f"{conv}/{i}" for i in ids]
    if report is not None and erased:
        report.notes.append(f"erased {len(erased)} turn(s) named by forget requests")
    return erased
