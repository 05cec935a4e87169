"""A count whose members are introduced by name after the total ("two dogs. Pip is the old one
... Moss is the pup"), so a later loss by name counts; "gave out" (failed) is no loss."""

from __future__ import annotations

from said import spoken

from emem.agents.counts import LOSS, count_over_time


def test_a_member_introduced_by_name_is_counted_out_by_name() -> None:
    told = [
        spoken("We've got two dogs. Pip is the old collie, he's fourteen. Moss is the pup.", 1),
        spoken("We adopted a third dog, a lurcher called Sable.", 4),
        spoken("Awful news. We lost Pip on Sunday. His heart gave out in the night.", 9),
    ]
    trace = count_over_time(told, {"dogs"})
    assert trace is not None and trace.value == 2


def test_gave_out_is_no_loss() -> None:
    assert LOSS.search("His knees gave out on the stairs.") is None
    assert LOSS.search("We gave Biscuit to my sister.") is not None


def test_members_introduced_in_one_sentence_count_too() -> None:
    told = [
        spoken("We've got two cats. Winkle is the fat tabby, Limpet is the shy black one.", 1),
        spoken("Sad news, we lost Winkle last week. Her heart gave out.", 8),
    ]
    trace = count_over_time(told, {"cats"})
    assert trace is not None and trace.value == 1
