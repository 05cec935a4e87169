"""`history` is an audit view, and still a read: it keeps every row, the forget request included,
but shows a marker instead of what the request withholds (emem.ledger.withhold.withhold_history)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from dated_conversations import dated_conversation

from emem.memory import Memory

NS = "hist"


def conversation(*, forget: bool) -> dict[str, Any]:
    later = [("user", "Please forget my phone number.")] if forget else []
    return dated_conversation(
        [
            (
                "2024-03-01T09:00:00+00:00",
                [
                    ("user", "My phone number is 0611 223 344."),
                    ("assistant", "Saved."),
                    ("user", "I work at Trentor Logistics."),
                ],
            ),
            ("2024-04-01T09:00:00+00:00", [*later, ("assistant", "Noted.")]),
        ],
        cid="ph",
    )


def shown(mem: Memory) -> str:
    h = mem.history("user", namespace=NS)
    return " ".join(
        f"{e.revision.predicate}={e.revision.object_text} ({e.revision.surface})" for e in h.entries
    )


def test_history_without_a_request_shows_the_value(tmp_path: Path) -> None:
    with Memory(tmp_path / "h") as mem:
        mem.add_conversation(conversation(forget=False), namespace=NS)
        assert "223 344" in shown(mem)


def test_history_keeps_the_row_and_the_request_but_not_the_forgotten_value(tmp_path: Path) -> None:
    with Memory(tmp_path / "h") as mem:
        mem.add_conversation(conversation(forget=True), namespace=NS)
        text = shown(mem)
        assert "223 344" not in text
        assert "phone=[withheld: the user asked to forget this on 2024-04-01]" in text
        assert "forget_request=phone number" in text  # the request stays auditable
        assert "works_at=Trentor Logistics" in text  # what was not asked to be forgotten stays


def test_forget_requests_catch_the_ledger_up_first(tmp_path: Path) -> None:
    with Memory(tmp_path / "h") as mem:
        mem.add_conversation(conversation(forget=True), namespace=NS)
        assert [r.topic for r in mem.forget_requests(NS)] == ["phone number"]


def test_a_request_that_points_back_is_listed_without_quoting_the_statement(tmp_path: Path) -> None:
    conv = dated_conversation(
        [
            (
                "2024-05-01T09:00:00+00:00",
                [
                    ("user", "My bank PIN is 4821."),
                    ("assistant", "Okay."),
                    ("user", "Actually, please forget that."),
                ],
            )
        ],
        cid="pb",
    )
    with Memory(tmp_path / "h") as mem:
        mem.add_conversation(conv, namespace=NS)
        requests = mem.forget_requests(NS)
        assert requests and "4821" in requests[0].topic  # the matcher still holds the statement
        listed = mem.facts("user", "forget_request", namespace=NS)
        assert listed and listed[0].values == ["what the user said just before this request"]
        assert "4821" not in shown(mem)
        assert "4821" not in mem.resolve("user", "forget_request", namespace=NS).model_dump_json()
