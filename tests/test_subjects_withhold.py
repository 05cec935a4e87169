"""Who the user is (emem.subjects) and forget requests said in conversation (emem.ledger.withhold)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from emem.errors import InputError
from emem.ledger.withhold import (
    ForgetRequest,
    active_forget_requests,
    forget_policy,
    policy_withholds,
    withholding,
)
from emem.memory import Memory
from emem.subjects import name_aliases, question_subjects, speaker_roles, user_speaker

NS = "agent-1"
T = datetime(2024, 3, 1, tzinfo=UTC)


class TestSpeakerRoles:
    def test_labels(self) -> None:
        assert speaker_roles(["user", "assistant"]) == {"user": "user", "assistant": "agent"}
        assert speaker_roles(["Human", "AI"]) == {"Human": "user", "AI": "agent"}
        assert speaker_roles(["customer", "bot", "Dana"]) == {
            "customer": "user",
            "bot": "agent",
            "Dana": "person",
        }

    def test_named_people_are_persons(self) -> None:
        assert speaker_roles(["Caroline", "Melanie"]) == {"Caroline": "person", "Melanie": "person"}

    def test_the_one_human_talking_with_an_agent_is_the_user(self) -> None:
        assert speaker_roles(["Priya", "assistant"]) == {"Priya": "user", "assistant": "agent"}
        assert speaker_roles(["Priya", "Nova"], agent_names=["Nova"]) == {"Priya": "user", "Nova": "agent"}
        assert user_speaker(["Caroline", "Melanie"]) is None


class TestQuestionSubjects:
    def test_first_person_is_the_user_and_you_is_the_agent(self) -> None:
        sp = ["user", "assistant"]
        assert question_subjects("Where do I live now?", sp, ["user"]) == ["user"]
        assert question_subjects("What is my phone number?", sp, []) == ["user"]
        assert question_subjects("Where does the user work?", sp, []) == ["user"]
        assert question_subjects("What did you recommend to me?", sp, []) == ["assistant", "user"]

    def test_told_name_is_an_alias_of_the_user(self) -> None:
        got = question_subjects(
            "Where does Priya work now?", ["user", "assistant"], ["user"], aliases={"Priya": "user"}
        )
        assert got == ["user"]

    def test_named_people_as_in_locomo(self) -> None:
        sp = ["Caroline", "Melanie"]
        assert question_subjects("What did Mel paint?", sp, ["Caroline", "Melanie"]) == ["Melanie"]
        assert question_subjects("When did Caroline and Melanie meet?", sp, []) == ["Caroline", "Melanie"]
        # Nobody is "the user" here, so "I" maps to no one.
        assert question_subjects("What do I know about Caroline?", sp, []) == ["Caroline"]

    def test_unknown_capitalised_words_are_not_subjects(self) -> None:
        assert question_subjects("What is the capital of France?", ["user", "assistant"], ["user"]) == []


def request(topic: str, rid: str = "r1") -> ForgetRequest:
    return ForgetRequest.for_topic(topic, subject="user", revision_id=rid, known_from=T, source="chat/S1:1")


class TestWithholding:
    @pytest.mark.parametrize(
        ("topic", "covered", "not_covered"),
        [
            (
                "social security number",
                ["My SSN is 123-45-6789.", "my social security number"],
                ["I moved to Seattle.", "Call me at 555-867-5309."],
            ),
            (
                "medical information",
                ["I was diagnosed with asthma.", "My doctor changed my medication."],
                ["I work at Acme Corp.", "My phone number is 555-867-5309."],
            ),
            (
                "phone number",
                ["My phone number is 555-867-5309.", "Text me at (415) 555-0132."],
                ["I live in Boston.", "My SSN is 123-45-6789.", "I ran 5 miles."],
            ),
            (
                "Alex",
                ["Alex and I went hiking.", "I miss Alex's jokes."],
                ["Alexander is here.", "I love pizza."],
            ),
            (
                "address",
                ["My address is 42 Maple Avenue.", "Send it to 17 Oak Street please."],
                ["I walked 5 miles down the road.", "I live in Boston."],
            ),
            (
                "my job",
                ["I work at Acme Corp.", "My boss is great."],
                ["I love hiking.", "I live in Boston."],
            ),
            ("the Japan trip", ["Our Japan trip was great."], ["I love Kyoto.", "The trip was long."]),
        ],
    )
    def test_turn_text_both_directions(self, topic: str, covered: list[str], not_covered: list[str]) -> None:
        reqs = [request(topic)]
        for text in covered:
            assert withholding(reqs, text=text) is reqs[0], (topic, text)
        for text in not_covered:
            assert withholding(reqs, text=text) is None, (topic, text)

    def test_a_named_thing_narrows_the_topic(self) -> None:
        reqs = [request("old Birch Lane address")]
        assert withholding(reqs, text="We lived at 12 Birch Lane.") is reqs[0]
        assert withholding(reqs, text="The new place is 3 Elm Row, Leeds.") is None
        assert withholding(reqs, predicate="address", obj="3 Elm Row, Leeds", subject="user") is None
        assert withholding(reqs, predicate="address", obj="12 Birch Lane", subject="user") is reqs[0]
        assert withholding([request("SSN")], text="My SSN is 078-05-1120.") is not None  # a cue, not a name

    def test_facts(self) -> None:
        reqs = [request("medical information", "m"), request("phone number", "p"), request("Alex", "a")]
        assert (
            withholding(reqs, predicate="health_condition", obj="asthma", subject="user").revision_id == "m"
        )
        assert withholding(reqs, predicate="allergy", obj="peanuts").revision_id == "m"
        assert withholding(reqs, predicate="phone", obj="555-867-5309", subject="user").revision_id == "p"
        assert withholding(reqs, predicate="friend_of", obj="Alex", subject="user").revision_id == "a"
        assert withholding(reqs, predicate="lives_in", obj="Paris", subject="Alex").revision_id == "a"
        assert withholding(reqs, predicate="lives_in", obj="Boston", subject="user") is None
        assert withholding(reqs, predicate="works_at", obj="Acme Corp", subject="user") is None
        # The topic's predicates cover the requester's own facts, not another person's.
        assert withholding(reqs, predicate="health_condition", obj="a cold", subject="Sam") is None

    def test_policy(self, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
        monkeypatch.delenv("EMEM_FORGET_POLICY", raising=False)
        assert forget_policy() == "withhold"
        monkeypatch.setenv("EMEM_FORGET_POLICY", "ERASE")
        assert forget_policy() == "erase"
        assert forget_policy("ignore") == "ignore" and not policy_withholds("ignore")
        with pytest.raises(InputError, match="forget policy"):
            forget_policy("shred")
        monkeypatch.setenv("EMEM_FORGET_POLICY", "nonsense")
        with pytest.raises(InputError, match="EMEM_FORGET_POLICY"):
            Memory(tmp_path / "h")


def chat(*turns: tuple[str, str, str]) -> dict:
    sessions: dict[str, list] = {}
    times = {}
    for when, speaker, text in turns:
        sid = f"S{len(times) + 1}" if when not in times else times[when]
        times.setdefault(when, sid)
        sessions.setdefault(times[when], []).append((speaker, text))
    return {
        "conversation_id": "chat",
        "sessions": [
            {
                "session_id": sid,
                "time": when,
                "turns": [
                    {"turn_id": f"{sid}:{i}", "speaker": s, "text": t} for i, (s, t) in enumerate(ts, 1)
                ],
            }
            for when, sid in times.items()
            for ts in [sessions[sid]]
        ],
    }


CONV = chat(
    ("2024-03-01T10:00:00+00:00", "user", "My SSN is 123-45-6789."),
    ("2024-03-01T10:00:00+00:00", "user", "I was diagnosed with asthma last year."),
    ("2024-03-01T10:00:00+00:00", "user", "I live in Boston."),
    ("2024-03-01T10:00:00+00:00", "user", "Alex and I went hiking."),
    ("2024-04-01T10:00:00+00:00", "user", "Please forget my social security number."),
    ("2024-04-01T10:00:00+00:00", "assistant", "Please forget my social security number."),
    ("2024-04-01T10:00:00+00:00", "user", "Delete my medical information."),
    ("2024-04-01T10:00:00+00:00", "user", "I don't want to talk about Alex anymore."),
)


class TestForgetRequestsThroughConsolidation:
    def test_recorded_with_provenance_and_shown_in_history(self, tmp_path: Path) -> None:
        with Memory(tmp_path / "h", forget_policy="withhold") as mem:
            mem.add_conversation(CONV, namespace=NS)
            mem.consolidate(NS)
            reqs = active_forget_requests(mem.ledger, NS)
            assert {r.topic: r.source for r in reqs} == {  # not the agent's echo (S2:2)
                "social security number": "chat/S2:1",
                "medical information": "chat/S2:3",
                "Alex": "chat/S2:4",
            }
            assert active_forget_requests(mem.ledger, NS, datetime(2024, 3, 15, tzinfo=UTC)) == []
            history = mem.history("user", "forget_request", namespace=NS)
            assert {e.revision.object_text for e in history.entries} == {r.topic for r in reqs}
            # Withhold leaves the turns in place; the read path withholds them.
            texts = [t.text for t in mem.episodes.turns(NS)]
            assert "My SSN is 123-45-6789." in texts
            withheld = [t for t in texts if withholding(reqs, text=t)]
            assert "I live in Boston." not in withheld and "My SSN is 123-45-6789." in withheld
            assert "Alex and I went hiking." in withheld

    def test_a_revoked_request_is_no_longer_active(self, tmp_path: Path) -> None:
        with Memory(tmp_path / "h") as mem:
            mem.add_conversation(CONV, namespace=NS)
            mem.consolidate(NS)
            first = active_forget_requests(mem.ledger, NS)[0]
            mem.revoke(first.revision_id, namespace=NS, reason="user changed their mind")
            assert first.revision_id not in {r.revision_id for r in active_forget_requests(mem.ledger, NS)}

    def test_a_request_taken_back_in_conversation_stops_withholding(self, tmp_path: Path) -> None:
        conv = chat(
            ("2024-03-01T10:00:00+00:00", "user", "Forget my address."),
            ("2024-03-05T10:00:00+00:00", "user", "Actually, you can remember my address again."),
        )
        with Memory(tmp_path / "h") as mem:
            mem.add_conversation(conv, namespace=NS)
            mem.consolidate(NS)
            assert [
                r.topic for r in active_forget_requests(mem.ledger, NS, datetime(2024, 3, 2, tzinfo=UTC))
            ] == ["address"]
            assert active_forget_requests(mem.ledger, NS) == []
            assert (
                len(mem.history("user", "forget_request", namespace=NS).entries) == 2
            )  # the request and its revocation

    def test_erase_policy_erases_the_matching_turns_through_forget(self, tmp_path: Path) -> None:
        with Memory(tmp_path / "h", forget_policy="erase") as mem:
            mem.add_conversation(CONV, namespace=NS)
            report = mem.consolidate(NS)
            texts = [t.text for t in mem.episodes.turns(NS)]
            assert "My SSN is 123-45-6789." not in texts
            assert "I was diagnosed with asthma last year." not in texts
            assert "Alex and I went hiking." not in texts
            assert "I live in Boston." in texts
            assert "Please forget my social security number." in texts  # the request stays auditable
            assert any("erased" in n for n in report.notes)
            assert mem.resolve("user", "health_condition", namespace=NS).status == "miss"
            assert len(active_forget_requests(mem.ledger, NS)) == 3

    def test_ignore_policy_records_but_erases_nothing(self, tmp_path: Path) -> None:
        with Memory(tmp_path / "h", forget_policy="ignore") as mem:
            mem.add_conversation(CONV, namespace=NS)
            mem.consolidate(NS)
            assert len(active_forget_requests(mem.ledger, NS)) == 3
            assert "My SSN is 123-45-6789." in [t.text for t in mem.episodes.turns(NS)]

    def test_name_aliases(self, tmp_path: Path) -> None:
        conv = chat(
            ("2024-03-01T10:00:00+00:00", "user", "Hi! My name is Priya."),
            ("2024-03-01T10:00:00+00:00", "assistant", "Hello Priya, my name is Nova."),
        )
        with Memory(tmp_path / "h") as mem:
            mem.add_conversation(conv, namespace=NS)
            mem.consolidate(NS)
            assert name_aliases(mem.ledger, NS) == {"Priya": "user"}


def test_erase_policy_also_erases_later_turns_that_match(tmp_path: Path) -> None:
    with Memory(tmp_path / "h", forget_policy="erase") as mem:
        mem.add_conversation(CONV, namespace=NS)
        mem.consolidate(NS)
        mem.add_turns(
            [
                {
                    "conversation_id": "chat",
                    "session_id": "S3",
                    "turn_id": "S3:1",
                    "speaker": "user",
                    "text": "My new SSN is 987-65-4321.",
                    "time": "2024-05-01T10:00:00+00:00",
                },
                {
                    "conversation_id": "chat",
                    "session_id": "S3",
                    "turn_id": "S3:2",
                    "speaker": "user",
                    "text": "I adopted a cat.",
                    "time": "2024-05-01T10:01:00+00:00",
                },
            ],
            namespace=NS,
        )
        mem.consolidate(NS)
        texts = [t.text for t in mem.episodes.turns(NS)]
        assert "My new SSN is 987-65-4321." not in texts and "I adopted a cat." in texts
        assert mem.consolidate(NS).turns_processed == 0


def test_relatives_map_my_sister_and_my_dog_to_their_names(tmp_path: Path) -> None:
    from emem.subjects import relatives_of

    conv = chat(
        ("2024-03-01T10:00:00+00:00", "user", "My sister Ana lives in Madrid."),
        ("2024-03-01T10:00:00+00:00", "user", "My dog's name is Pepper."),
        ("2024-03-01T10:00:00+00:00", "user", "My husband Tom is a chef."),
    )
    with Memory(tmp_path / "h") as mem:
        mem.add_conversation(conv, namespace=NS)
        mem.consolidate(NS)
        rel = relatives_of(mem.ledger, NS, "user")
        assert rel["sister"] == ["Ana"] and rel["sibling"] == ["Ana"] and rel["dog"] == ["Pepper"]
        sp = ["user", "assistant"]
        assert question_subjects("Where does my sister live?", sp, ["user", "Ana"], relatives=rel) == [
            "user",
            "Ana",
        ]
        assert question_subjects("What does my husband do?", sp, [], relatives=rel) == ["user", "Tom"]
        assert question_subjects("What is my dog called?", sp, [], relatives=rel) == ["user", "Pepper"]
        assert question_subjects("Where does my brother live?", sp, [], relatives=rel) == ["user"]
