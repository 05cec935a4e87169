"""A thing asked by its kind is answered by the name ending in that kind, the latest said by the
time asked about (agents.named): "Which watch was I on in February?" / "Red Watch"."""

from __future__ import annotations

from datetime import UTC, datetime

from test_which_member import turns

from emem.agents.named import named_instance


def test_the_latest_name_of_the_kind_by_the_time_asked() -> None:
    said = turns(
        ("user", "I'm a paramedic, Green Crew at Bootle, four on four off."),
        ("user", "Promotion! I'm moving to Amber Crew at Aintree from the 1st of April."),
    )
    assert named_instance("crew", said) == "Amber Crew"
    # said one minute apart in these turns: a time between them keeps the first
    assert named_instance("crew", said, said[0].time) == "Green Crew"


def test_no_name_of_the_kind() -> None:
    said = turns(("user", "My crew is great. The watch I wear is a Casio."))
    assert named_instance("crew", said) is None
    assert named_instance("watch", said) is None
    assert named_instance(None, said) is None
    assert named_instance("crew", said, datetime(2000, 1, 1, tzinfo=UTC)) is None
