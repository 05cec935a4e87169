"""A request to forget a past value ("my old address") leaves the current one; a request names a
statement, not every clause said beside it; a word in capitals ("PIN") is not a name.
Conversations are written for these tests."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from pathlib import Path

import pytest
from packing import evidence_item
from test_forget_phrasings import chat

from emem.agents.withheld import apply_forget_requests, rest_of_turn
from emem.extract.offline import OfflineExtractor
from emem.ledger.withhold import ForgetRequest, clauses, said_uncovered, shown_surface
from emem.memory import Memory
from emem.models import Turn

NS = "oldvalues"
MODES = ("auto", "deep", "fast")
T = datetime(2024, 1, 1, tzinfo=UTC)
LATER = datetime(2030, 1, 1, tzinfo=UTC)


def request(topic: str) -> ForgetRequest:
    return ForgetRequest.for_topic(topic, subject="user", revision_id="r", known_from=LATER)


def test_a_word_in_capitals_is_not_a_name() -> None:
    r = request("bank PIN")
    assert r.names_pattern is None
    assert r.covers(text="My bank PIN is 4471, keep it safe.")
    assert not r.covers(text="My brother's graduation is on 3 July.")
    # A name in the topic still narrows it to what says that name.
    assert request("the old Alder Road address").names_pattern is not None


def test_a_sentence_is_split_into_the_statements_it_joins() -> None:
    text = "I'm allergic to shellfish, and my girlfriend and I live at 22 Mill Lane, Leeds."
    assert clauses(text) == ["I'm allergic to shellfish", "my girlfriend and I live at 22 Mill Lane, Leeds."]
    # too short a piece states nothing on its own
    assert clauses("Tea, and cake.") == ["Tea, and cake."]
    requests = [request("home address")]
    assert said_uncovered(requests, T, text, "shellfish")
    assert not said_uncovered(requests, T, text, "22 Mill Lane")
    assert shown_surface(requests, T, text) == "I'm allergic to shellfish"
    assert rest_of_turn(f"Hi! {text}", requests, T) == "Hi! I'm allergic to shellfish"


def test_a_clause_carrying_on_a_covered_one_is_covered_with_it() -> None:
    requests = [request("passport number")]
    text = "Keep my passport number safe, and it is 533918420 by the way"
    assert not said_uncovered(requests, T, text, "533918420")
    assert said_uncovered(
        requests, T, "I lost my passport number twice, and I live in Leeds with my cat", "Leeds"
    )


def test_a_person_asked_about_covers_every_clause_naming_them() -> None:
    requests = [request("Dorian")]
    text = "I've got a new flatmate, and Dorian is moving in on Sunday."
    assert not said_uncovered(requests, T, text, "flatmate")


def test_an_old_value_spares_the_value_current_when_asked() -> None:
    r = request("my old address").model_copy(
        update={"current_values": ["9 Canal Street, Leeds"], "old_values": ["22 Mill Lane, Leeds"]}
    )
    assert not r.covers(text="New place! My address is now 9 Canal Street, Leeds.")
    assert r.covers(text="We live at 22 Mill Lane, Leeds.")
    # a turn that says both is about the old one too
    assert r.covers(text="Moved from 22 Mill Lane to 9 Canal Street.")
    assert not r.covers(predicate="address", obj="9 Canal Street, Leeds", subject="user")
    assert r.covers(predicate="address", obj="22 Mill Lane, Leeds", subject="user")


MOVED = chat(
    (
        "2031-03-02T09:00:00+00:00",
        [
            (
                "user",
                "Hi, I'm Kit. I'm allergic to shellfish, and my girlfriend and I live at 22 Mill Lane, Leeds.",
            ),
            ("assistant", "Hi Kit, I'll remember the shellfish allergy."),
            ("user", "My bank PIN is 4471, keep it safe. My brother's graduation is on 3 July."),
        ],
    ),
    (
        "2031-05-11T09:00:00+00:00",
        [
            ("user", "Small fix: the graduation is on 10 July, not the 3rd."),
            ("user", "And big news: I moved, my new address is 9 Canal Street, Leeds."),
        ],
    ),
    (
        "2031-06-20T09:00:00+00:00",
        [
            ("user", "Please forget my old address, and my bank PIN too, I shouldn't have shared them."),
            ("assistant", "Done."),
        ],
    ),
)


@pytest.fixture(scope="module")
def moved(tmp_path_factory: pytest.TempPathFactory) -> Path:
    home = tmp_path_factory.mktemp("moved") / "h"
    with Memory(home) as mem:
        mem.add_conversation(MOVED, namespace=NS)
    return home


@pytest.mark.parametrize("mode", MODES)
def test_the_current_address_answers_after_forgetting_the_old_one(moved: Path, mode: str) -> None:
    with Memory(moved) as mem:
        a = mem.ask("What's my address?", namespace=NS, mode=mode)
        assert "9 Canal Street" in a.answer and a.withheld_by is None, a.answer
        old = mem.ask("What was my old address?", namespace=NS, mode=mode)
        assert old.withheld_by is not None and "Mill Lane" not in old.answer, old.answer


@pytest.mark.parametrize("mode", MODES)
def test_what_was_said_beside_a_forgotten_value_still_answers(moved: Path, mode: str) -> None:
    with Memory(moved) as mem:
        allergy = mem.ask("What am I allergic to?", namespace=NS, mode=mode)
        assert "shellfish" in allergy.answer.lower() and allergy.withheld_by is None, allergy.answer
        graduation = mem.ask("When is my brother's graduation?", namespace=NS, mode=mode)
        assert "10 July" in graduation.answer, graduation.answer
        pin = mem.ask("What's my bank PIN?", namespace=NS, mode=mode)
        assert pin.withheld_by is not None and "4471" not in pin.answer, pin.answer


def test_no_read_hands_back_the_old_address_or_the_pin(moved: Path) -> None:
    with Memory(moved) as mem:
        dumps = [
            mem.ask(q, namespace=NS, mode=m).model_dump_json()
            for q in (
                "What am I allergic to?",
                "Where do I live?",
                "What's my address?",
                "What's my PIN?",
                "Where did I live in March 2031?",
            )
            for m in MODES
        ]
        dumps += [h.model_dump_json() for h in mem.search("Mill Lane address PIN", 10, namespace=NS)]
        dumps += [mem.history("user", namespace=NS).model_dump_json()]
        dumps += [mem.resolve("user", p, namespace=NS).model_dump_json() for p in ("address", "allergy")]
    blob = " ".join(dumps)
    # the PIN as a number of its own: a latency such as 4.563066002447158 holds its digits
    assert "Mill Lane" not in blob and not re.search(r"(?<!\d)4471(?!\d)", blob)
    assert "shellfish" in blob and "Canal Street" in blob


def test_the_only_address_given_is_the_old_one(tmp_path: Path) -> None:
    conv = chat(
        ("2031-03-02T09:00:00+00:00", [("user", "I live at 22 Mill Lane, Leeds, with my cat Biscuit.")]),
        ("2031-06-20T09:00:00+00:00", [("user", "I've moved out. Please forget my old address.")]),
    )
    with Memory(tmp_path / "h") as mem:
        mem.add_conversation(conv, namespace=NS)
        a = mem.ask("What's my address?", namespace=NS, mode="auto")
        assert "Mill Lane" not in a.answer and a.withheld_by is not None, a.answer


@pytest.mark.parametrize(
    ("said", "topics"),
    [
        (
            "Please forget my old address, and my bank PIN too, I shouldn't have shared them.",
            ["old address", "bank PIN"],
        ),
        ("Delete my old number, or my email if that's easier.", ["old number", "email"]),
        ("Forget my passport number, and also my NHS number.", ["passport number", "NHS number"]),
        ("Please forget my diet, and I mean it.", ["diet"]),
        # the sentence before names what "it" is: what was given, not the sentence
        ("That gate code I gave you in March was my old landlord's. Wipe it, please.", ["gate code"]),
        ("On second thoughts, drop the hiding spot.", ["hiding spot"]),
        # "the old one", "the numbers": what the sentence before named by itself
        (
            "That gym locker code: they gave me a key card now. Don't keep the old one, let it go.",
            ["gym locker code"],
        ),
        ("The alarm code too. We changed it, so please get rid of the numbers.", ["alarm code"]),
        ("My phone broke. Forget the numbers I gave you.", ["numbers"]),
        (
            "That spare key business from May is out of date. Please forget where I said it was.",
            ["spare key"],
        ),
        (
            "About the bank: I've closed that account, so the answer I gave you is no use. Forget it, please.",
            ["bank", "said: About the bank: I've closed that account, so the answer I gave you is no use."],
        ),
        ("About the party: it's off, the venue flooded. Forget it, I'll sort something else.", []),
        (
            "The thing I told you in March about my fall. I've told my son myself now, so please don't keep it.",
            ["fall"],
        ),
        ("And the medical thing I told you in May: I'd like that struck from your memory too.", ["medical"]),
        (
            "Big news. My girlfriend and I split up in May. It was mutual. I'd like you to forget her, actually.",
            ["girlfriend"],
        ),
    ],
)
def test_a_request_naming_two_things_after_a_comma_records_both(said: str, topics: list[str]) -> None:
    turn = Turn(conversation_id="c", session_id="S1", turn_id="S1:1", speaker="user", text=said, time=LATER)
    found = [f.object for f in OfflineExtractor()([turn]) if f.predicate == "forget_request"]
    assert found == topics


def test_a_now_question_is_answered_by_what_was_said_since_the_forgotten_turn() -> None:
    r = ForgetRequest.for_topic(
        "RUT", subject="user", revision_id="r", known_from=datetime(2024, 1, 20, tzinfo=UTC)
    )
    old = evidence_item("S1:1", 3, 0.9, "For invoices I look up my RUT. It's 17.482.093-5.", "user", month=1)
    new = evidence_item("S2:1", 19, 0.8, "I've hired Marisol to do the invoices.", "user", month=1)
    assert apply_forget_requests("Who does my invoices now?", [old, new], [], [r], now=True).about is None
    # without "now", the best-ranked turn on the topic decides
    assert apply_forget_requests("Who does my invoices?", [old, new], [], [r]).about is r
    # nothing on the topic said since: still the request
    assert apply_forget_requests("Who does my invoices now?", [old], [], [r], now=True).about is r


def test_a_hiding_spot_covers_what_was_said_hidden() -> None:
    r = request("hiding spot")
    assert r.covers(text="The necklace is hidden in the sugar tin.")
    assert r.covers(text="I hid the spare key under the green pot.")
    assert not r.covers(text="I'm going to propose on her birthday.")


SECRET = chat(
    (
        "2032-01-09T09:00:00+00:00",
        [("user", "Mira and I are going to Lisbon from the 14th to the 21st of March.")],
    ),
    ("2032-03-01T09:00:00+00:00", [("user", "Lisbon didn't happen, the airline cancelled every flight.")]),
    (
        "2032-09-18T09:00:00+00:00",
        [
            (
                "user",
                "A secret for you: I'm going to propose to Mira on her birthday, the 5th of November. "
                "The ring is hidden in the biscuit tin.",
            ),
            ("assistant", "Your secret is safe with me."),
            ("user", "On second thoughts, drop the hiding spot. She reads this account sometimes."),
        ],
    ),
)


@pytest.mark.parametrize("mode", MODES)
def test_a_plan_said_beside_a_forgotten_hiding_place_answers_with_its_source(
    tmp_path: Path, mode: str
) -> None:
    with Memory(tmp_path / "h") as mem:
        mem.add_conversation(SECRET, namespace=NS)
        plan = mem.ask("On what date am I planning to propose?", namespace=NS, mode=mode)
        assert "5 November" in plan.answer, plan.answer
        hidden = mem.ask("Where is the ring hidden?", namespace=NS, mode=mode)
        assert hidden.withheld_by is not None, hidden.answer
        assert "biscuit" not in plan.model_dump_json() + hidden.model_dump_json()


EX = chat(
    (
        "2033-02-11T09:00:00+00:00",
        [
            ("user", "My boyfriend is Colby. He's a deckhand on the harbour ferry."),
            ("assistant", "Colby, deckhand on the ferry. Noted."),
        ],
    ),
    (
        "2033-05-08T09:00:00+00:00",
        [
            ("user", "Colby and I are thinking of moving in together in the fall."),
            ("user", "I adopted a cat called Pickle. My sister Thea is getting married on 16 August."),
        ],
    ),
    (
        "2033-08-19T09:00:00+00:00",
        [
            (
                "user",
                "So, a lot has happened. My boyfriend and I broke up in June. I'd like you to forget him. Clean slate.",
            )
        ],
    ),
)


def test_forgetting_a_partner_by_role_forgets_him_by_name(tmp_path: Path) -> None:
    with Memory(tmp_path / "h") as mem:
        mem.add_conversation(EX, namespace=NS)
        for mode in MODES:
            for q in (
                "What's my boyfriend's name?",
                "Who was I thinking of moving in with?",
                "What does Colby do?",
            ):
                a = mem.ask(q, namespace=NS, mode=mode)
                assert a.withheld_by is not None, (mode, q, a.answer)
                # nothing the question does not say names him or what he does: not the route's
                # reasons, not the hop's terms
                shown = a.model_copy(update={"question": ""}).model_dump_json()
                assert "deckhand" not in shown and "ferry" not in shown, (mode, q)
                assert "Colby" in q or "Colby" not in shown, (mode, q)
            cat = mem.ask("What's my cat called?", namespace=NS, mode=mode)
            assert "Pickle" in cat.answer, cat.answer
            # him, not every marriage
            wedding = mem.ask("When is Thea's wedding?", namespace=NS, mode=mode)
            assert "16 August" in wedding.answer, (mode, wedding.answer)
        hits = mem.search("boyfriend deckhand ferry moving in", 10, namespace=NS)
    assert not any("Colby" in h.model_dump_json() or "deckhand" in h.model_dump_json() for h in hits)


def test_a_labelled_statement_is_split_at_its_colon() -> None:
    text = "The shed combination: Ferris has put a proper lock with a key on it."
    assert clauses(text) == ["The shed combination", "Ferris has put a proper lock with a key on it."]
    # a value after the colon is no statement of its own
    assert clauses("The wifi password: bluefish twenty two") == ["The wifi password: bluefish twenty two"]


def test_a_secret_named_by_whose_it_is_needs_the_secret() -> None:
    r = request("bee-shed combination")
    assert r.covers(text="The bee shed has a combination lock, 31-07-19.")
    assert r.covers(text="The bee shed lock is 31-07-19.")
    assert not r.covers(text="Ferris is building a second bee shed this summer.")


def test_a_topic_word_covers_its_irregular_forms() -> None:
    assert request("my fall").covers(text="I fell on the stairs in February and bruised my ribs.")
    assert not request("my fall").covers(text="Autumn is lovely this year, all those leaves.")


def test_forgetting_an_ex_keeps_the_current_husband(tmp_path: Path) -> None:
    conv = chat(
        (
            "2029-01-10T09:00:00+00:00",
            [
                (
                    "user",
                    "It's me, my husband Leif, and our two kids. Leif is a snowplow dispatcher for the city.",
                )
            ],
        ),
        (
            "2029-07-19T09:00:00+00:00",
            [
                ("user", "I ran into my ex, Reinhold, at the market. He lives on Eastlake Avenue now."),
                (
                    "user",
                    "Actually, scrap him from your memory entirely. I don't want my ex anywhere in here.",
                ),
            ],
        ),
    )
    with Memory(tmp_path / "h") as mem:
        mem.add_conversation(conv, namespace=NS)
        for mode in MODES:
            job = mem.ask("What does Leif do for a living?", namespace=NS, mode=mode)
            assert "snowplow" in job.answer and job.withheld_by is None, (mode, job.answer)
            ex = mem.ask("Where does Reinhold live?", namespace=NS, mode=mode)
            assert ex.withheld_by is not None and "Eastlake" not in ex.answer, (mode, ex.answer)
