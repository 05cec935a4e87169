""" "Which of ...?" answered from a clause joined by a comma ("Tam's the old boy, Fly does the
actual work"), a name that ends like an adverb ("Fly"), and roles swapped by a correction."""

from __future__ import annotations

from said import spoken

from emem.agents.members import which_member


def test_a_clause_after_a_comma_names_its_own_member() -> None:
    told = [spoken("Two lodgers, Ines and Bram. Ines is the quiet one, Bram plays the drums at night.", 1)]
    assert which_member("Which of my lodgers plays the drums?", told) == "Bram"
    assert which_member("Which of my lodgers is the quiet one?", told) == "Ines"


def test_a_name_ending_in_ly_is_a_name() -> None:
    told = [spoken("Our ponies are Holly and Fly. Holly's lame, Fly does all the hacking.", 1)]
    assert which_member("Which of the ponies does the hacking?", told) == "Fly"


def test_roles_swapped_by_a_correction_outrank_the_first_telling() -> None:
    told = [
        spoken("My two assistants are Mina and Nils. Mina does the invoices, Nils does the payroll.", 1),
        spoken(
            "I told you Mina did the invoices and Nils did the payroll. It's the other way round. Nils does the invoices, Mina does the payroll.",
            5,
        ),
    ]
    assert which_member("Which of my assistants does the payroll?", told) == "Mina"


def test_a_correction_of_when_does_not_outrank() -> None:
    told = [
        spoken("My supervisor is Dr Ekwueme. He shouts at people in lab meetings.", 1),
        spoken("I told you Dr Rahn's lab meetings were on Tuesdays. They're actually Wednesdays.", 5),
    ]
    assert which_member("Which of my supervisors shouts at people in lab meetings?", told) in (
        "Ekwueme",
        "Dr Ekwueme",
    )
