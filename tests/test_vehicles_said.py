"""The vehicle someone drives, a single value the ledger keeps current: "I drive a Mitsubishi
Outlander", then "it's written off. Got a second-hand Hilux instead." answers "What do I drive?"
with the Hilux in every mode, and "What am I driving for work?" asks for it, not for an employer."""

from __future__ import annotations

import pytest
from dated_conversations import dated_conversation
from said import extracted

from emem.agents.planner import predicate_cues
from emem.agents.reader import what_head
from emem.memory import Memory


def _vehicles(*texts: str) -> list[str]:
    return [f.object for f in extracted(*texts, predicate="drives")]


@pytest.mark.parametrize(
    ("said", "vehicle"),
    [
        ("I drive a Skoda Octavia, it's done 200,000 miles.", "Skoda Octavia"),
        ("The Octavia's written off. Got a second-hand Hilux instead.", "Hilux"),
        ("Someone nicked the van off the drive. I've got an Isuzu D-Max pickup now.", "Isuzu D-Max"),
        ("I finally traded in the old banger. I've got a Ram 3500 now, with a heated seat.", "Ram 3500"),
        ("I traded the Corolla for a grey Ford Ranger double cab, for the farm.", "Ford Ranger"),
        ("We swapped our old Clio for a Kia Niro hybrid.", "Kia Niro"),
        ("The van's a silver Doblo, MOT due in September.", "Doblo"),
        ("New van as well. Sold the Doblo and bought a white Trafic with my name on the side.", "Trafic"),
        # a year among the words before the make
        ("I drive a 2011 Mazda Demio with a dodgy clutch.", "Mazda Demio"),
        ("I drive a red 2016 Fabia, it does the school run.", "Fabia"),
        # a named one sold for the one bought, said without another word of motoring
        (
            "I sold the Corsa in June and bought a blue Suzuki Jimny there - the lanes are steep.",
            "Suzuki Jimny",
        ),
        ("I sold the Clio and bought a grey Ford Ranger - more room for the dogs.", "Ford Ranger"),
    ],
)
def test_the_vehicle_one_drives(said: str, vehicle: str) -> None:
    assert _vehicles(said) == [vehicle]


@pytest.mark.parametrize(
    "said",
    [
        "I've got a Labrador now.",  # nothing of vehicles in the turn
        "I drive a school bus for the district.",  # a kind, not a make
        "I traded my Xbox for a Switch.",  # nothing of vehicles in the turn
        "The car's a write-off.",
        "I sold the house in May and bought a Victorian terrace in Leith.",  # no make, a kind of house
    ],
)
def test_what_is_not_a_vehicle_one_drives(said: str) -> None:
    assert _vehicles(said) == []


def test_questions_about_driving_ask_for_the_vehicle_or_the_employer() -> None:
    assert predicate_cues("What am I driving for work now?")[0] == "drives"


@pytest.mark.parametrize(
    ("question", "asks_vehicle"),
    [
        ("What van do I drive?", True),
        ("What kind of truck do I have now?", True),
        ("Which car did Jo buy?", True),
        ("What do I use for navigation in the truck?", False),
        ("How much was I behind on the van finance?", False),
        ("What colour is my car?", False),
    ],
)
def test_a_vehicle_word_asks_for_a_vehicle_only_as_what_is_asked(question: str, asks_vehicle: bool) -> None:
    """The ledger's "DAF XF" does not answer what the user navigates with in the truck."""
    assert ("drives" in predicate_cues(question)) is asks_vehicle
    assert predicate_cues("What do I drive at the moment?") == ["drives"]
    assert predicate_cues("Who do I drive for?") == ["works_at"]
    assert "drives" not in predicate_cues("Why did I have to drive the whole night shift for Kit?")
    assert what_head("What am I driving for work now?") is None  # "am" is no noun asked for


@pytest.fixture(scope="module")
def memory(tmp_path_factory: pytest.TempPathFactory) -> Memory:
    m = Memory(tmp_path_factory.mktemp("vehicles") / "h")
    conv = dated_conversation(
        [
            (
                "2025-01-10T09:00:00+00:00",
                [("user", "I drive a Mitsubishi Outlander, it smells of wet dog.")],
            ),
            (
                "2025-06-02T09:00:00+00:00",
                [("user", "The Outlander is dead, it's written off. Got a second-hand Hilux instead.")],
            ),
        ],
        cid="c",
    )
    m.add_conversation(conv, namespace="cars")
    return m


@pytest.mark.parametrize("mode", ["auto", "deep", "fast"])
def test_the_vehicle_driven_now_is_the_latest(memory: Memory, mode: str) -> None:
    a = memory.ask("What do I drive at the moment?", namespace="cars", mode=mode)
    assert "Hilux" in a.answer and "Outlander" not in a.answer, a.answer
    past = memory.ask("What did I drive?", namespace="cars", mode=mode, as_of="2025-03-01")
    assert "Outlander" in past.answer and "Hilux" not in past.answer, past.answer
