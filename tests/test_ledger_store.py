"""The SQLite ledger: append-only rows, idempotency, namespaces, audit relations, errors."""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime
from pathlib import Path

import pytest

from emem.errors import InputError, NotFoundError
from emem.ledger import Ledger

NS = "user-1"


def d(y: int, m: int = 1, day: int = 1) -> datetime:
    return datetime(y, m, day, tzinfo=UTC)


@pytest.fixture
def ledger(tmp_path: Path):
    with Ledger(tmp_path / "ledger.sqlite") as led:
        yield led


def test_stale_value_trap(ledger: Ledger):
    """Denver, then a move to Austin: "now" is Austin, but the past still answers Denver."""
    ledger.assert_fact(NS, "Caroline", "lives_in", "Denver", "2020-03-01", known_at="2020-03-01")
    ledger.assert_fact(NS, "Caroline", "lives_in", "Austin", "2023-06-15", known_at="2023-06-15")
    now = ledger.resolve(NS, "caroline", "lives_in")
    assert (now.status, now.values) == ("state", ["Austin"])
    assert [r.object_text for r in now.history] == ["Denver"]
    before = ledger.resolve(NS, "Caroline", "lives_in", valid_at="2023-06-14T23:59:59Z")
    assert before.values == ["Denver"]
    then = ledger.resolve(NS, "Caroline", "lives_in", known_at="2022-01-01")
    assert then.values == ["Denver"]


def test_times_accept_iso_strings_and_datetimes(ledger: Ledger):
    a = ledger.assert_fact(NS, "Mel", "works_at", "Acme", "2021-01-01T09:00:00", known_at=d(2021, 2))
    assert a.valid_from == datetime(2021, 1, 1, 9, tzinfo=UTC)
    b = ledger.assert_fact(NS, "Mel", "works_at", "Acme", "2021-01-01T10:00:00+01:00", known_at="2021-02-01Z")
    assert b.id == a.id  # same instant, same knowledge: the same revision
    assert ledger.count(NS) == 1


def test_assert_is_idempotent(ledger: Ledger):
    args = (NS, "Caroline", "has_pet", "a dog named Max", d(2020), None, d(2020), ["conv-1/D1:3"])
    first = ledger.write_assertion(*args)
    again = ledger.write_assertion(*args, surface="different text", confidence=0.5)
    assert first.created and not again.created
    assert again.revision == first.revision
    assert ledger.count(NS) == 1
    assert first.revision.sources == ["conv-1/D1:3"] and first.revision.asserted_by == "user"


def test_known_at_defaults_to_now(ledger: Ledger):
    before = datetime.now(UTC)
    rev = ledger.assert_fact(NS, "Caroline", "likes", "hiking", d(2020))
    assert before <= rev.known_from <= datetime.now(UTC)
    assert rev.recorded_at is not None and rev.seq >= 1


def test_input_errors(ledger: Ledger):
    with pytest.raises(InputError, match="unknown predicate 'teleports_to'; known:"):
        ledger.assert_fact(NS, "Caroline", "teleports_to", "Mars", d(2020))
    with pytest.raises(InputError, match="unparsable ISO-8601"):
        ledger.assert_fact(NS, "Caroline", "lives_in", "Denver", "last tuesday")
    with pytest.raises(InputError, match="valid_to"):
        ledger.assert_fact(NS, "Caroline", "lives_in", "Denver", d(2021), valid_to=d(2020))
    with pytest.raises(InputError, match="namespace"):
        ledger.assert_fact("", "Caroline", "lives_in", "Denver", d(2021))
    with pytest.raises(InputError, match="subject"):
        ledger.assert_fact(NS, "  ", "lives_in", "Denver", d(2021))
    with pytest.raises(InputError, match="unknown predicate"):
        ledger.resolve(NS, "Caroline", "teleports_to")
    with pytest.raises(InputError, match="unparsable"):
        ledger.resolve(NS, "Caroline", "lives_in", valid_at="soon")
    assert ledger.count(NS) == 0


def test_namespace_isolation(ledger: Ledger):
    a = ledger.assert_fact("alice", "Sam", "lives_in", "Denver", d(2020), known_at=d(2020))
    b = ledger.assert_fact("bob", "Sam", "lives_in", "Denver", d(2020), known_at=d(2020))
    assert a.id != b.id
    assert ledger.resolve("carol", "Sam", "lives_in").status == "miss"
    assert ledger.facts("carol") == [] and ledger.subjects("carol") == [] and ledger.count("carol") == 0
    with pytest.raises(NotFoundError):
        ledger.revoke("bob", a.id)
    with pytest.raises(NotFoundError):
        ledger.adjudicate("bob", a.id, b.id)
    ledger.revoke("alice", a.id, known_at=d(2021))
    assert ledger.resolve("alice", "Sam", "lives_in").status == "miss"
    assert ledger.resolve("bob", "Sam", "lives_in").values == ["Denver"]
    assert all(r.namespace == "bob" for r in ledger.revisions("bob"))
    assert ledger.history("bob", "Sam").entries[0].known_to is None


def test_revoke(ledger: Ledger):
    rev = ledger.assert_fact(NS, "Caroline", "lives_in", "Paris", d(2020), known_at=d(2020))
    with pytest.raises(NotFoundError, match="no revision 'nope'"):
        ledger.revoke(NS, "nope")
    gone = ledger.revoke(NS, rev.id[:10], known_at=d(2021), reason="misheard")
    assert gone.kind == "revocation" and gone.target_id == rev.id and gone.reason == "misheard"
    assert ledger.revoke(NS, rev.id, known_at=d(2022)) == gone  # already revoked by then
    with pytest.raises(InputError, match="revocation"):
        ledger.revoke(NS, gone.id)
    with pytest.raises(InputError, match="precedes"):
        other = ledger.assert_fact(NS, "Caroline", "likes", "tea", d(2020), known_at=d(2020))
        ledger.revoke(NS, other.id, known_at=d(2019))
    assert ledger.resolve(NS, "Caroline", "lives_in", known_at=d(2020, 6)).values == ["Paris"]
    assert ledger.resolve(NS, "Caroline", "lives_in").status == "miss"
    rels = [r for r in ledger.relations(NS) if r.kind == "revokes"]
    assert [(r.from_id, r.to_id) for r in rels] == [(gone.id, rev.id)]
    assert ledger.count(NS) == 2  # revocations are not counted as facts


def test_audit_relations_follow_valid_time(ledger: Ledger):
    denver = ledger.assert_fact(NS, "Caroline", "lives_in", "Denver", d(2018), known_at=d(2018))
    austin = ledger.assert_fact(NS, "Caroline", "lives_in", "Austin", d(2022), known_at=d(2022))
    # late-arriving evidence about an earlier period: it supersedes Denver and is superseded by Austin
    boston = ledger.assert_fact(NS, "Caroline", "lives_in", "Boston", d(2020), known_at=d(2023))
    tie = ledger.write_assertion(NS, "Caroline", "lives_in", "Houston", d(2022), known_at=d(2023, 2))
    edges = {(r.kind, r.from_id, r.to_id) for r in ledger.relations(NS)}
    assert ("supersedes", austin.id, denver.id) in edges
    assert ("supersedes", boston.id, denver.id) in edges
    assert ("supersedes", austin.id, boston.id) in edges
    assert ("supersedes", boston.id, austin.id) not in edges
    assert [(r.kind, r.to_id) for r in tie.relations if r.kind == "unresolved"] == [("unresolved", austin.id)]
    res = ledger.resolve(NS, "Caroline", "lives_in")
    assert res.status == "conflict" and sorted(res.values) == ["Austin", "Houston"]
    assert ledger.resolve(NS, "Caroline", "lives_in", valid_at=d(2021)).values == ["Boston"]
    # multi-valued facts accumulate: no supersession relations
    ledger.assert_fact(NS, "Caroline", "has_pet", "dog", d(2020), known_at=d(2020))
    ledger.assert_fact(NS, "Caroline", "has_pet", "cat", d(2021), known_at=d(2021))
    assert len(ledger.relations(NS)) == len(edges) + 0


def test_adjudicate(ledger: Ledger):
    a = ledger.assert_fact(NS, "Caroline", "lives_in", "Denver", d(2022), known_at=d(2022))
    b = ledger.assert_fact(NS, "Caroline", "lives_in", "Austin", d(2022), known_at=d(2022))
    pet = ledger.assert_fact(NS, "Caroline", "has_pet", "dog", d(2022), known_at=d(2022))
    with pytest.raises(InputError, match="cannot adjudicate"):
        ledger.adjudicate(NS, a.id, pet.id)
    with pytest.raises(InputError, match="itself"):
        ledger.adjudicate(NS, a.id, a.id)
    rel = ledger.adjudicate(NS, b.id, a.id, known_at=d(2023), reason="user said so")
    assert ledger.adjudicate(NS, b.id, a.id, known_at=d(2023)) == rel  # idempotent
    assert (rel.kind, rel.from_id, rel.to_id) == ("adjudicated", b.id, a.id)
    assert ledger.resolve(NS, "Caroline", "lives_in").values == ["Austin"]
    assert ledger.resolve(NS, "Caroline", "lives_in", known_at=d(2022, 6)).status == "conflict"


def test_facts_subjects_and_display_names(ledger: Ledger):
    ledger.assert_fact(NS, "Caroline", "lives_in", "Denver", d(2020), known_at=d(2020))
    ledger.assert_fact(NS, "caroline", "likes", "Hiking", d(2020), known_at=d(2020))
    ledger.assert_fact(NS, "mel", "works_at", "Acme", d(2020), valid_to=d(2021), known_at=d(2020))
    assert ledger.subjects(NS) == ["Caroline", "mel"]
    facts = ledger.facts(NS)
    assert [(f.subject, f.predicate, f.values) for f in facts] == [
        ("Caroline", "likes", ["Hiking"]),
        ("Caroline", "lives_in", ["Denver"]),
    ]
    assert [f.values for f in ledger.facts(NS, subject="MEL", valid_at=d(2020, 6))] == [["Acme"]]
    assert [f.predicate for f in ledger.facts(NS, predicate="likes")] == ["likes"]
    assert ledger.facts(NS, known_at=d(2019)) == []


def test_history_keeps_everything(ledger: Ledger):
    denver = ledger.assert_fact(NS, "Caroline", "lives_in", "Denver", d(2020), known_at=d(2020))
    austin = ledger.assert_fact(NS, "Caroline", "lives_in", "Austin", d(2022), known_at=d(2022))
    gone = ledger.revoke(NS, austin.id, known_at=d(2023), reason="wrong person")
    ledger.assert_fact(NS, "Caroline", "likes", "tea", d(2020), known_at=d(2020))
    hist = ledger.history(NS, "CAROLINE", "lives_in")
    assert hist.subject == "Caroline" and hist.predicate == "lives_in"
    by_id = {e.revision.id: e for e in hist.entries}
    assert set(by_id) == {denver.id, austin.id, gone.id}
    assert by_id[austin.id].known_to == d(2023) and by_id[austin.id].revoke_reason == "wrong person"
    assert by_id[denver.id].superseded_by == []  # Austin was revoked, so Denver stands
    assert {r.kind for r in hist.relations} == {"supersedes", "revokes"}
    assert len(ledger.history(NS, "caroline").entries) == 4
    assert ledger.history(NS, "nobody").entries == []


def test_rows_are_append_only_and_survive_reopen(tmp_path: Path):
    path = tmp_path / "l.sqlite"
    with Ledger(path) as led:
        rev = led.assert_fact(NS, "Caroline", "lives_in", "Denver", d(2020), known_at=d(2020))
        before = led.revisions(NS)
        with sqlite3.connect(path) as db:  # the database refuses, whoever connects
            with pytest.raises(sqlite3.DatabaseError, match="append-only"):
                db.execute("UPDATE revisions SET object = 'x'")
            with pytest.raises(sqlite3.DatabaseError, match="append-only"):
                db.execute("DELETE FROM revisions")
    with Ledger(path) as led:
        assert led.revisions(NS) == before
        assert led.get(NS, rev.id) == rev
        assert led.store.integrity_problems() == []
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_watermarks_are_per_namespace_and_transactional(ledger: Ledger):
    assert ledger.get_watermark(NS, "consolidate") == 0
    ledger.set_watermark(NS, "consolidate", 7)
    assert ledger.get_watermark(NS, "consolidate") == 7
    assert ledger.get_watermark("other", "consolidate") == 0
    with pytest.raises(RuntimeError):
        with ledger.transaction():
            ledger.assert_fact(NS, "Caroline", "likes", "tea", d(2020), known_at=d(2020))
            ledger.set_watermark(NS, "consolidate", 9)
            raise RuntimeError("killed")
    assert ledger.get_watermark(NS, "consolidate") == 7
    assert ledger.count(NS) == 0


# --------------------------------------------------------------------------- CLI over a stand-in Memory


class _Memory:
    """Stand-in for emem's Memory: the ledger's methods, plus consolidate(namespace)."""

    def __init__(self, home: Path) -> None:
        self.ledger = Ledger(home / "ledger.sqlite")

    def __getattr__(self, name: str):
        """The ledger's method, called the way Memory's is: `namespace=` as a keyword."""
        method = getattr(self.ledger, name)
        if not callable(method):
            return method

        def call(*args, namespace: str | None = None, **kwargs):
            return method(namespace, *args, **kwargs) if namespace is not None else method(*args, **kwargs)

        return call

    def namespace_exists(self, namespace: str) -> bool:
        return True  # the stand-in memory holds turns in every namespace (see consolidate)

    def consolidate(self, namespace: str):
        from emem.consolidate import ConsolidationReport

        return ConsolidationReport(namespace=namespace, extractor="fake/1", turns_processed=3)


@pytest.fixture
def cli(tmp_path: Path):
    import typer
    from typer.testing import CliRunner

    from emem.cli.ledger import register

    app = typer.Typer()
    opened: list[_Memory] = []

    def open_memory(home: Path | None) -> _Memory:
        opened.append(_Memory(home or tmp_path / "default"))
        return opened[-1]

    register(app, open_memory)
    runner = CliRunner()

    def run(*args: str):
        return runner.invoke(app, list(args), env={"EMEM_HOME": str(tmp_path / "home"), "COLUMNS": "200"})

    yield run
    for m in opened:
        m.ledger.close()


def test_cli_add_list_resolve_history_revoke(cli):
    import json

    out = cli(
        "facts",
        "add",
        "Caroline",
        "lives_in",
        "Denver",
        "--valid-from",
        "2020-01-01",
        "--known-at",
        "2020-01-01",
        "--source",
        "conv-1/D1:1",
        "-n",
        NS,
    )
    assert out.exit_code == 0, out.output
    assert "recorded" in out.stdout and "Denver" in out.stdout
    out = cli(
        "facts", "add", "Caroline", "lives_in", "Austin", "--valid-from", "2023-06-15", "-n", NS, "--json"
    )
    austin = json.loads(out.stdout)
    assert austin["object_text"] == "Austin" and austin["asserted_by"] == "user"

    listed = cli("facts", "--namespace", NS)
    assert listed.exit_code == 0 and "Austin" in listed.stdout and "Denver" not in listed.stdout
    as_json = json.loads(cli("facts", "-n", NS, "--json", "--valid-at", "2021-01-01").stdout)
    assert [f["values"] for f in as_json] == [["Denver"]]

    res = cli("resolve", "caroline", "lives_in", "-n", NS)
    assert res.exit_code == 0 and "Austin" in res.stdout and "evidence" in res.stdout
    past = json.loads(
        cli("resolve", "Caroline", "lives_in", "-n", NS, "--valid-at", "2022-01-01", "--json").stdout
    )
    assert (past["status"], past["values"]) == ("state", ["Denver"])

    hist = cli("history", "--subject", "Caroline", "-n", NS)
    assert hist.exit_code == 0
    assert "superseded by" in hist.stdout and "conv-1/D1:1" in hist.stdout
    gone = cli("facts", "revoke", austin["id"][:12], "--reason", "wrong person", "-n", NS, "--json")
    assert gone.exit_code == 0 and json.loads(gone.stdout)["target_id"] == austin["id"]
    hist = cli("history", "--subject", "Caroline", "-n", NS, "--predicate", "lives_in")
    assert "revoked at" in hist.stdout and "wrong person" in hist.stdout
    hist_json = json.loads(cli("history", "--subject", "Caroline", "-n", NS, "--json").stdout)
    assert len(hist_json["entries"]) == 3
    assert "no history" in cli("history", "--subject", "Nobody", "-n", NS).stdout


def test_cli_user_errors_are_one_red_line_and_exit_2(cli):
    cases = [
        ("facts", "add", "Caroline", "teleports_to", "Mars", "--valid-from", "2020-01-01", "-n", NS),
        ("facts", "add", "Caroline", "lives_in", "Mars", "--valid-from", "someday", "-n", NS),
        ("facts", "revoke", "deadbeef", "-n", NS),
        ("resolve", "Caroline", "lives_in", "-n", "bad namespace!"),
        ("facts",),
    ]
    for args in cases:
        out = cli(*args)
        assert out.exit_code == 2, (args, out.output)
        assert out.stderr.startswith("error:") and len(out.stderr.strip().splitlines()) == 1, out.stderr
        assert "Traceback" not in out.output


def test_cli_consolidate(cli):
    import json

    out = cli("consolidate", "-n", NS)
    assert out.exit_code == 0 and "turns processed: 3" in out.stdout
    assert json.loads(cli("consolidate", "-n", NS, "--json").stdout)["turns_processed"] == 3
