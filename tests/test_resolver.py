"""The pure resolver: state / miss / conflict over hand-built ledger rows."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from emem.errors import InputError
from emem.ledger.models import Relation, Revision, make_assertion, make_revocation
from emem.ledger.predicates import Cardinality, canonical_predicate, cardinality, normalise_object
from emem.ledger.resolver import facts_at, resolve, timeline, visible

NS = "t"
SINGLE, MULTI = Cardinality.SINGLE, Cardinality.MULTI


def d(y: int, m: int = 1, day: int = 1) -> datetime:
    return datetime(y, m, day, tzinfo=UTC)


_seq = iter(range(1, 10_000))


def fact(
    obj: str,
    valid_from: datetime,
    known: datetime,
    *,
    pred: str = "lives_in",
    subject: str = "Caroline",
    valid_to: datetime | None = None,
) -> Revision:
    return make_assertion(
        namespace=NS,
        subject=subject,
        predicate=pred,
        object_text=obj,
        valid_from=valid_from,
        valid_to=valid_to,
        known_from=known,
        seq=next(_seq),
    )


def revoke(target: Revision, known: datetime) -> Revision:
    return make_revocation(target, known_from=known, seq=next(_seq))


def adjudicated(winner: Revision, loser: Revision, known: datetime) -> Relation:
    return Relation(kind="adjudicated", from_id=winner.id, to_id=loser.id, known_at=known, seq=next(_seq))


def ask(rows, rels=(), *, v: datetime, k: datetime, pred: str = "lives_in", subject: str = "Caroline"):
    return resolve(list(rows), list(rels), subject, pred, cardinality(pred), v, k)


# --------------------------------------------------------------------------- predicates & models


def test_cardinality_registry_and_unknown_predicate():
    assert cardinality("lives_in") is SINGLE
    assert cardinality("has_pet") is MULTI
    for p in ("works_at", "job_title", "relationship_status", "age"):
        assert cardinality(p) is SINGLE
    for p in ("likes", "dislikes", "visited", "plans_to"):
        assert cardinality(p) is MULTI
    assert canonical_predicate("Lives In") == "lives_in"
    with pytest.raises(InputError, match=r"unknown predicate 'teleports_to'; known: .*lives_in"):
        cardinality("teleports_to")


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("Austin", "austin"),
        ("The Austin, TX.", "austin tx"),
        ("a dog named Max", "Dog named  Max!"),
        ("Mom's house", "moms house"),
    ],
)
def test_normalise_object_equates_surface_variants(a: str, b: str):
    assert normalise_object(a) == normalise_object(b)


def test_revision_id_is_content_derived():
    a = fact("Denver", d(2020), d(2020, 2))
    b = make_assertion(
        namespace=NS,
        subject="caroline",
        predicate="lives_in",
        object_text="denver",
        valid_from=d(2020),
        known_from=d(2020, 2),
        surface="other text",
        confidence=0.3,
    )
    assert a.id == b.id
    assert fact("Denver", d(2020), d(2020, 3)).id != a.id
    with pytest.raises(InputError, match="valid_to"):
        fact("Denver", d(2020), d(2020), valid_to=d(2020))
    with pytest.raises(InputError, match="empty"):
        fact("  !? ", d(2020), d(2020))


def test_times_must_be_aware():
    with pytest.raises(ValueError):
        fact("Denver", datetime(2020, 1, 1), d(2020))


# --------------------------------------------------------------------------- single-valued


def test_miss_when_nothing_known():
    res = ask([], v=d(2024), k=d(2024))
    assert res.status == "miss" and res.values == [] and res.revisions == []
    other = fact("Denver", d(2020), d(2020), subject="Melanie")
    assert ask([other], v=d(2024), k=d(2024)).status == "miss"


def test_supersession_by_valid_time_keeps_history():
    denver = fact("Denver", d(2020), d(2020))
    austin = fact("Austin", d(2022), d(2022))
    rows = [denver, austin]
    now = ask(rows, v=d(2024), k=d(2024))
    assert (now.status, now.values) == ("state", ["Austin"])
    assert [r.id for r in now.revisions] == [austin.id]
    assert [r.id for r in now.history] == [denver.id]
    past = ask(rows, v=d(2021), k=d(2024))
    assert (past.status, past.values, past.history) == ("state", ["Denver"], [])
    assert ask(rows, v=d(2019), k=d(2024)).status == "miss"


def test_as_known_at_ignores_later_knowledge():
    denver = fact("Denver", d(2020), d(2020))
    austin = fact("Austin", d(2022), d(2022, 6))
    res = ask([denver, austin], v=d(2023), k=d(2022, 3))
    assert res.values == ["Denver"]
    assert ask([denver, austin], v=d(2023), k=d(2022, 6)).values == ["Austin"]


def test_late_arriving_evidence_with_earlier_valid_from_does_not_replace_current():
    denver = fact("Denver", d(2018), d(2018))
    austin = fact("Austin", d(2022), d(2022))
    boston = fact("Boston", d(2020), d(2023))  # learned in 2023 about 2020
    rows = [denver, austin, boston]
    assert ask(rows, v=d(2024), k=d(2024)).values == ["Austin"]
    assert ask(rows, v=d(2021), k=d(2024)).values == ["Boston"]
    assert ask(rows, v=d(2021), k=d(2022, 6)).values == ["Denver"]


def test_late_arriving_evidence_newer_in_valid_time_wins_once_known():
    austin = fact("Austin", d(2022), d(2022))
    seattle = fact("Seattle", d(2023, 6), d(2024))  # moved mid-2023, learned 2024
    rows = [austin, seattle]
    assert ask(rows, v=d(2024, 2), k=d(2023, 12)).values == ["Austin"]
    assert ask(rows, v=d(2024, 2), k=d(2024, 2)).values == ["Seattle"]
    assert ask(rows, v=d(2023, 1), k=d(2024, 2)).values == ["Austin"]


def test_revocation_withdraws_from_its_known_time_on():
    denver = fact("Denver", d(2020), d(2020))
    austin = fact("Austin", d(2022), d(2022))
    gone = revoke(austin, d(2023))
    rows = [denver, austin, gone]
    assert ask(rows, v=d(2024), k=d(2022, 6)).values == ["Austin"]
    after = ask(rows, v=d(2024), k=d(2024))
    assert after.values == ["Denver"]
    assert austin.id not in {r.id for r in after.revisions + after.history}
    assert visible(rows, d(2024)) == [denver]


def test_valid_to_is_exclusive_and_ends_the_value():
    denver = fact("Denver", d(2020), d(2020), valid_to=d(2021))
    rows = [denver]
    assert ask(rows, v=d(2020, 6), k=d(2024)).values == ["Denver"]
    ended = ask(rows, v=d(2021), k=d(2024))
    assert ended.status == "miss" and [r.id for r in ended.history] == [denver.id]


def test_ended_superseder_does_not_resurrect_the_older_value():
    denver = fact("Denver", d(2020), d(2020))
    sabbatical = fact("Paris", d(2021), d(2021), valid_to=d(2022))
    rows = [denver, sabbatical]
    assert ask(rows, v=d(2021, 6), k=d(2024)).values == ["Paris"]
    assert ask(rows, v=d(2023), k=d(2024)).status == "miss"


def test_tie_is_a_conflict_never_an_arbitrary_pick():
    denver = fact("Denver", d(2022), d(2022))
    austin = fact("Austin", d(2022), d(2022, 2))
    res = ask([denver, austin], v=d(2023), k=d(2023))
    assert res.status == "conflict"
    assert sorted(res.values) == ["Austin", "Denver"]
    assert {r.id for r in res.revisions} == {denver.id, austin.id}
    # order of the rows does not matter
    assert ask([austin, denver], v=d(2023), k=d(2023)).status == "conflict"


def test_restatement_of_the_same_value_is_state():
    a = fact("Austin", d(2022), d(2022))
    b = fact("austin!", d(2022), d(2022, 3))
    res = ask([a, b], v=d(2023), k=d(2023))
    assert res.status == "state" and res.values == ["Austin"] and len(res.revisions) == 2


def test_adjudication_orders_a_tie_from_its_known_time():
    denver = fact("Denver", d(2022), d(2022))
    austin = fact("Austin", d(2022), d(2022))
    ruling = adjudicated(austin, denver, d(2023))
    rows, rels = [denver, austin], [ruling]
    assert ask(rows, rels, v=d(2024), k=d(2022, 6)).status == "conflict"
    res = ask(rows, rels, v=d(2024), k=d(2024))
    assert (res.status, res.values) == ("state", ["Austin"])
    assert [r.id for r in res.history] == [denver.id]


def test_latest_adjudication_wins_and_cycles_stay_conflicts():
    a, b, c = (fact(x, d(2022), d(2022)) for x in ("Austin", "Boston", "Chicago"))
    rels = [adjudicated(a, b, d(2023)), adjudicated(b, a, d(2024))]
    assert ask([a, b], rels, v=d(2025), k=d(2023, 6)).values == ["Austin"]
    assert ask([a, b], rels, v=d(2025), k=d(2025)).values == ["Boston"]
    cycle = [adjudicated(a, b, d(2023)), adjudicated(b, c, d(2023)), adjudicated(c, a, d(2023))]
    res = ask([a, b, c], cycle, v=d(2025), k=d(2025))
    assert res.status == "conflict" and len(res.values) == 3


def test_adjudication_between_other_revisions_does_not_apply():
    old_d, old_a = fact("Denver", d(2020), d(2020)), fact("Austin", d(2020), d(2020))
    new_d, new_a = fact("Denver", d(2022), d(2022)), fact("Austin", d(2022), d(2022))
    rels = [adjudicated(old_a, old_d, d(2021))]
    assert ask([old_d, old_a], rels, v=d(2021), k=d(2024)).values == ["Austin"]
    assert ask([old_d, old_a, new_d, new_a], rels, v=d(2023), k=d(2024)).status == "conflict"


def test_revoked_side_of_a_tie_resolves_it():
    denver = fact("Denver", d(2022), d(2022))
    austin = fact("Austin", d(2022), d(2022))
    rows = [denver, austin, revoke(denver, d(2023))]
    assert ask(rows, v=d(2024), k=d(2024)).values == ["Austin"]


def test_subject_is_case_insensitive_and_keeps_display_name():
    rows = [fact("Denver", d(2020), d(2020), subject="Caroline")]
    res = ask(rows, v=d(2024), k=d(2024), subject="  CAROLINE ")
    assert res.subject == "Caroline" and res.values == ["Denver"]


# --------------------------------------------------------------------------- multi-valued


def test_multi_valued_accumulates_members_deduplicated():
    dog = fact("a dog named Max", d(2020), d(2020), pred="has_pet")
    dog2 = fact("Dog named max", d(2021), d(2021), pred="has_pet")
    cat = fact("Cat", d(2021), d(2021), pred="has_pet")
    res = ask([dog, dog2, cat], v=d(2022), k=d(2022), pred="has_pet")
    assert res.status == "state"
    assert res.values == ["a dog named Max", "Cat"]
    assert len(res.revisions) == 3
    assert ask([dog, cat], v=d(2020, 6), k=d(2022), pred="has_pet").values == ["a dog named Max"]


def test_multi_valued_revocation_and_valid_to():
    dog = fact("dog", d(2020), d(2020), pred="has_pet", valid_to=d(2022))
    cat = fact("cat", d(2021), d(2021), pred="has_pet")
    rows = [dog, cat, revoke(cat, d(2023))]
    assert ask(rows, v=d(2021, 6), k=d(2022), pred="has_pet").values == ["dog", "cat"]
    assert ask(rows, v=d(2022, 6), k=d(2022), pred="has_pet").values == ["cat"]
    assert ask(rows, v=d(2022, 6), k=d(2024), pred="has_pet").status == "miss"


# --------------------------------------------------------------------------- facts_at & timeline


def test_facts_at_lists_states_and_conflicts_but_not_misses():
    rows = [
        fact("Denver", d(2020), d(2020)),
        fact("Boston", d(2020), d(2020), subject="Mel"),
        fact("Austin", d(2020), d(2020), subject="Mel"),
        fact("cat", d(2020), d(2020), pred="has_pet"),
        fact("Acme", d(2020), d(2020), pred="works_at", valid_to=d(2021)),
    ]
    out = facts_at(rows, [], d(2024), d(2024))
    got = {(r.subject, r.predicate): (r.status, sorted(r.values)) for r in out}
    assert got == {
        ("Caroline", "lives_in"): ("state", ["Denver"]),
        ("Caroline", "has_pet"): ("state", ["cat"]),
        ("Mel", "lives_in"): ("conflict", ["Austin", "Boston"]),
    }
    only = facts_at(rows, [], d(2024), d(2024), subject="mel")
    assert [r.subject for r in only] == ["Mel"]
    assert [r.predicate for r in facts_at(rows, [], d(2024), d(2024), predicate="has_pet")] == ["has_pet"]


def test_timeline_derives_known_to_and_supersession():
    denver = fact("Denver", d(2020), d(2020))
    austin = fact("Austin", d(2022), d(2022))
    wrong = fact("Paris", d(2023), d(2023))
    gone = revoke(wrong, d(2023, 6))
    rel = Relation(kind="supersedes", from_id=austin.id, to_id=denver.id, known_at=d(2022))
    hist = timeline([denver, austin, wrong, gone], [rel], NS, "caroline")
    by_id = {e.revision.id: e for e in hist.entries}
    assert len(hist.entries) == 4  # the revocation row is part of the record
    assert by_id[denver.id].superseded_by == [austin.id]
    assert by_id[denver.id].effective_valid_to == d(2022)
    # the revoked Paris no longer cuts Austin short, but is itself marked revoked
    assert by_id[austin.id].superseded_by == [] and by_id[austin.id].effective_valid_to is None
    assert by_id[wrong.id].known_to == d(2023, 6) and by_id[wrong.id].revoked_by == gone.id
    assert hist.relations == [rel] and hist.subject == "Caroline"
