"""Withholding as narrow as what a request names: a salary is not the employer, "my knee
diagnosis" is not every medical word, a request naming a person matches what was said of them in
other words, a request after a favour ("do me a favour and forget ..."), a relative clause that
only says which ("the name of the coach I complained about"), and the sentences of a turn the
request does not cover still answer. Conversations are written for these tests."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
from test_forget_phrasings import chat

from emem.agents.withheld import rest_of_turn
from emem.ledger.withhold import ForgetRequest, active_forget_requests
from emem.memory import Memory

NS = "narrow"
MODES = ("auto", "deep", "fast")
T = datetime(2024, 1, 1, tzinfo=UTC)


def request(topic: str) -> ForgetRequest:
    return ForgetRequest.for_topic(
        topic, subject="user", revision_id="r", known_from=datetime(2030, 1, 1, tzinfo=UTC)
    )


def test_a_salary_is_not_the_employer() -> None:
    r = request("salary")
    assert r.covers(text="Good news, I got a pay rise, I'm on 3,200 euros a month now.")
    assert not r.covers(text="I work as a welder at Brantmoor Steel.")
    assert not r.covers(predicate="works_at", obj="Brantmoor Steel", subject="user")


def test_a_qualified_topic_covers_only_what_it_qualifies() -> None:
    r = request("details of my shoulder diagnosis")
    assert r.covers(text="My shoulder aches. The physio says it's a torn rotator cuff.")
    assert not r.covers(text="I've started at the hospital canteen as a cook.")
    assert request("medical information").covers(text="I've started at the hospital canteen as a cook.")


def test_a_named_topic_matches_its_words_loosely() -> None:
    r = request("owing Bartosz money")
    assert r.covers(text="I owe my cousin Bartosz two hundred pounds for the van.")
    assert not r.covers(text="Bartosz is coming for dinner on Friday.")
    assert request("Léonie's fiancé being sent abroad").covers(
        text="Léonie's fiancé was sent abroad for a year."
    )


def test_someones_number_said_as_a_number() -> None:
    r = request("Mr Okafor's phone number")
    assert r.covers(text="Piano with Mr Okafor on Tuesdays. His number is 555-201-7788.")


def test_only_the_covered_sentences_are_withheld() -> None:
    requests = [request("Gaspard's fiancée being posted abroad")]
    text = "The party moved to June. Gaspard's fiancée got posted abroad with the navy."
    assert rest_of_turn(text, requests, T) == "The party moved to June."
    # the person in one sentence, the value in the next: the value's sentence goes, the one that
    # only names the person stays
    whole = [request("Mr Okafor's phone number")]
    assert (
        rest_of_turn("Piano with Mr Okafor. His number is 555-201-7788.", whole, T) == "Piano with Mr Okafor."
    )
    # covered only by sentences that are each part of it: withheld whole
    assert rest_of_turn("Mr Okafor's number. 555-201-7788.", whole, T) is None


CONV = chat(
    (
        "2024-02-03T09:00:00+00:00",
        [
            ("user", "I'm a welder at Brantmoor Steel in Sheffield."),
            ("assistant", "Noted."),
            ("user", "Got a pay rise last week, I'm on 3,200 pounds a month now."),
            ("user", "Honestly I owe my cousin Bartosz two hundred pounds for the van repairs."),
            ("user", "My climbing coach Mr Hallworth keeps shouting at me, I hate it."),
            ("user", "The barbecue moved to Saturday. Gaspard's fiancée got posted abroad with the navy."),
        ],
    ),
    (
        "2024-04-10T18:30:00+00:00",
        [
            ("user", "Please forget what I told you about my salary."),
            ("user", "Do me a favour and forget the thing about owing Bartosz money."),
            ("user", "Also, forget the name of the coach I complained about in February."),
            ("user", "And forget what I said about Gaspard's fiancée being posted abroad."),
            ("assistant", "Done."),
        ],
    ),
)


@pytest.fixture(scope="module")
def memory(tmp_path_factory: pytest.TempPathFactory) -> Memory:
    mem = Memory(Path(tmp_path_factory.mktemp("narrow")) / "home")
    mem.add_conversation(CONV, namespace=NS)
    yield mem
    mem.close()


def test_requests_after_a_favour_and_with_a_relative_clause_are_recorded(memory: Memory) -> None:
    memory.consolidate(NS)
    topics = {r.topic for r in active_forget_requests(memory.ledger, NS)}
    assert "owing Bartosz money" in topics
    assert "coach" in topics


@pytest.mark.parametrize("mode", MODES)
def test_what_was_forgotten_is_withheld_and_the_rest_answers(memory: Memory, mode: str) -> None:
    for q, secret in [
        ("How much do I earn a month?", "3,200"),
        ("Who do I owe money to?", "Bartosz"),
        ("Who is my climbing coach?", "Hallworth"),
    ]:
        a = memory.ask(q, namespace=NS, mode=mode)
        assert secret not in a.answer and a.status == "abstained" and "forget" in a.answer, (q, a.answer)
    work = memory.ask("Where do I work?", namespace=NS, mode=mode)
    assert "Brantmoor" in work.answer, work.answer
    party = memory.ask("Which day is the barbecue on?", namespace=NS, mode=mode)
    assert "Saturday" in party.answer and "navy" not in party.answer, party.answer
    for e in party.evidence:
        assert "navy" not in e.text


def test_bank_details_cover_accounts_in_other_words() -> None:
    r = request("bank details")
    assert r.covers(text="payouts go to my business account, sort code 20-45-77, account 41558806")
    assert r.covers(text="Card is 4929 1234 5678 9012, expires in May.")
    assert r.covers(text="My IBAN is DE89 3704 0044 0532 0130 00.")
    assert not r.covers(text="I sold six chopping boards at the craft fair on Saturday.")
    assert not r.covers(text="We met on 12-03-24 at the riverbank.")


def test_debts_cover_owing_in_other_words() -> None:
    r = request("Tomasz's debts")
    assert r.covers(text="between us, Tomasz owes about £9,000 on credit cards")
    assert not r.covers(text="Tomasz is coming for Sunday lunch.")
    assert not r.covers(text="I owe Priya a coffee.")


def test_phone_numbers_in_national_and_international_form() -> None:
    r = request("phone number")
    assert r.covers(text="For reminders use my mobile, 06 4821 7730.")
    assert r.covers(text="you can text me on +44 7700 900412")
    assert not r.covers(text="Invoice ref 2023 0612 11 is paid.")


def test_money_details_cover_sums_saved() -> None:
    r = request("money details")
    assert r.covers(text="We've got £25,000 put away and the target for the deposit is £40,000.")
    assert not r.covers(text="We're looking at houses near the river.")
