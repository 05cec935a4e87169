"""A forget request is honoured the same way in every read: ask in fast, deep and auto, search,
resolve and facts (emem.ledger.withhold.withheld_turns, applied by aggregate and Memory)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from emem.ledger.withhold import ForgetRequest, withheld_turns
from emem.memory import Memory
from emem.models import StoredTurn
from emem.read.retrieve import fast_turns

NS = "parity"


def conversation() -> dict[str, Any]:
    def session(sid: str, when: str, turns: list[tuple[str, str]]) -> dict[str, Any]:
        return {
            "session_id": sid,
            "time": when,
            "turns": [
                {"turn_id": f"{sid}:{i}", "speaker": s, "text": t} for i, (s, t) in enumerate(turns, 1)
            ],
        }

    return {
        "conversation_id": "bk",
        "sessions": [
            session(
                "S1",
                "2024-05-02T08:00:00+00:00",
                [
                    ("user", "Hi, I'm Odile. I run a bakery stall at the Saturday market in Rennes."),
                    ("assistant", "Nice to meet you, Odile. What should I keep track of?"),
                    (
                        "user",
                        "I was diagnosed with asthma as a kid. My inhaler refills are due on the first Monday of each month.",
                    ),
                    ("assistant", "I'll remind you on the first Monday of each month then."),
                    ("user", "My brother Gaspard lives in Lyon."),
                ],
            ),
            session(
                "S2",
                "2024-06-10T08:00:00+00:00",
                [
                    ("user", "One thing: please delete my medical information."),
                    ("assistant", "Done."),
                ],
            ),
        ],
    }


QUESTION = "What are my inhaler refills for?"
SECRETS = ("asthma", "inhaler", "first Monday")


def test_every_mode_withholds_alike_even_when_fast_ranks_the_secret_first(tmp_path: Path) -> None:
    with Memory(tmp_path / "h") as mem:
        mem.add_conversation(conversation(), namespace=NS)
        rt = mem.read_runtime
        top = fast_turns(rt, rt.view(NS), QUESTION, None)[0]
        assert "asthma" in top.text  # fast's one retrieval ranks the forgotten turn first
        answers = {mode: mem.ask(QUESTION, namespace=NS, mode=mode) for mode in ("fast", "deep", "auto")}
        assert len({a.answer for a in answers.values()}) == 1, {m: a.answer for m, a in answers.items()}
        for mode, a in answers.items():
            assert a.status == "abstained", mode
            assert "forget" in a.answer, (mode, a.answer)
            shown = " ".join([a.answer, *(e.text for e in a.evidence)])
            assert not any(s.lower() in shown.lower() for s in SECRETS), (mode, shown)


def test_the_agents_reply_repeating_it_is_withheld_from_search(tmp_path: Path) -> None:
    with Memory(tmp_path / "h") as mem:
        mem.add_conversation(conversation(), namespace=NS)
        hits = mem.search("reminder on the first Monday of each month", 10, namespace=NS)
        texts = [h.text for h in hits]
        assert not any("first Monday" in t for t in texts), texts
        # What the request does not cover is still found.
        assert any("Gaspard" in h.text for h in mem.search("brother Lyon", 10, namespace=NS))


def test_resolve_and_facts_do_not_hand_back_a_withheld_value(tmp_path: Path) -> None:
    with Memory(tmp_path / "h") as mem:
        mem.add_conversation(conversation(), namespace=NS)
        mem.consolidate(NS)
        raw = mem.ledger.facts(NS, predicate="health_condition")
        assert any("asthma" in v.lower() for r in raw for v in r.values)  # the ledger holds it
        listed = mem.facts(predicate="health_condition", namespace=NS)
        assert not any("asthma" in v.lower() for r in listed for v in r.values)
        subject = raw[0].subject
        res = mem.resolve(subject, "health_condition", namespace=NS)
        assert res.status == "miss" and not res.values and not res.revisions
        # The request itself stays auditable.
        assert mem.history(subject, "forget_request", namespace=NS).entries


T0 = datetime(2024, 1, 1, tzinfo=UTC)


def turn(seq: int, speaker: str, text: str, session: str = "S1") -> StoredTurn:
    return StoredTurn(
        conversation_id="c",
        session_id=session,
        turn_id=f"t{seq}",
        speaker=speaker,
        text=text,
        time=T0,
        namespace="n",
        seq=seq,
        recorded_at=T0,
        hash=str(seq),
    )


def test_withheld_turns_takes_the_agents_reply_and_stops_after_it() -> None:
    req = ForgetRequest.for_topic(
        "the divorce", subject="user", revision_id="r", known_from=datetime(2024, 2, 1, tzinfo=UTC)
    )
    turns = [
        turn(1, "user", "The divorce hearing is on the 3rd."),
        turn(2, "assistant", "I'll keep the 3rd free."),
        turn(3, "assistant", "Anything else?"),
        turn(4, "user", "I'm cooking lasagne tonight."),
        turn(5, "assistant", "Enjoy it!"),
        turn(6, "Mara", "The divorce was hard on her.", "S2"),
        turn(7, "Jon", "I got a new bike.", "S2"),
    ]
    got = withheld_turns(turns, [req], agents={"assistant"})
    # The reply right after the withheld turn goes with it; the agent's next turn moves on.
    assert sorted(k[1] for k in got) == ["t1", "t2", "t6"]
    # Said after the request: new information, not what was asked to be forgotten.
    late = ForgetRequest.for_topic(
        "the divorce", subject="user", revision_id="r", known_from=datetime(2023, 1, 1, tzinfo=UTC)
    )
    assert withheld_turns(turns, [late], agents={"assistant"}) == {}


def test_a_request_that_points_back_withholds_what_was_just_said(tmp_path: Path) -> None:
    turns = [
        ("user", "My landlord is raising the rent on the flat in Ghent."),
        ("user", "Also, my dentist found two cavities last week. Please forget that, it's embarrassing."),
        ("assistant", "No problem."),
        ("user", "I've been offered a place on the night shift."),
        ("assistant", "Congratulations!"),
        ("user", "Actually, can you forget I said that, about the night shift? Nothing is signed yet."),
    ]
    conv = {
        "conversation_id": "pb",
        "sessions": [
            {
                "session_id": "S1",
                "time": "2024-09-03T18:00:00+00:00",
                "turns": [
                    {"turn_id": f"S1:{i}", "speaker": s, "text": t} for i, (s, t) in enumerate(turns, 1)
                ],
            }
        ],
    }
    with Memory(tmp_path / "h") as mem:
        mem.add_conversation(conv, namespace=NS)
        mem.consolidate(NS)
        topics = [r.topic for r in mem.forget_requests(NS)]
        assert "said: Also, my dentist found two cavities last week." in topics
        assert "said: I've been offered a place on the night shift." in topics
        # The second "forget" points back at the shift, not at the first request.
        assert len([t for t in topics if "cavities" in t]) == 1
        for q in ("What did my dentist find?", "Was I offered a new shift?"):
            answers = {mode: mem.ask(q, namespace=NS, mode=mode) for mode in ("fast", "deep", "auto")}
            for mode, a in answers.items():
                assert a.status == "abstained" and "forget" in a.answer, (q, mode, a.answer)
        hits = " ".join(h.text for h in mem.search("dentist cavities night shift", 10, namespace=NS))
        assert "cavities" not in hits and "night shift" not in hits.replace(
            "forget I said that, about the night shift", ""
        )
        # What no request points at is still answered.
        assert "Ghent" in " ".join(h.text for h in mem.search("rent flat", 10, namespace=NS))
