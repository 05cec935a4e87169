"""The reliability suite's scorer: values match after normalisation, stale or secret values fail,
statuses and forget mentions are checked, and every date format is accepted for a date value."""

from __future__ import annotations

import pytest

from emem.eval.reliability.scorer import Expectation, date_variants, normalise, occurs, score


def test_normalise_folds_case_punctuation_numbers_and_accents() -> None:
    assert normalise("  The user lives in PORTLAND, Oregon!! ") == "the user lives in portland oregon"
    assert normalise("She has three cats and twenty-one fish") == "she has 3 cats and 21 fish"
    assert normalise("Capitão's cage") == "capitao cage"
    assert normalise("the 23rd of June") == "the 23 june"


@pytest.mark.parametrize(
    "written",
    ["3 June 2024", "June 3, 2024", "2024-06-03", "June 3rd, 2024", "3rd June 2024", "Jun 3 2024"],
)
def test_a_date_value_matches_every_common_format(written: str) -> None:
    assert occurs("2024-06-03", f"The appointment is on {written}.")
    assert occurs("3 June 2024", f"It was {written}")


def test_a_date_does_not_match_another_day() -> None:
    assert not occurs("2024-06-03", "It is on June 13, 2024.")
    assert not occurs("2024-06-03", "It is on 2024-06-30.")
    assert date_variants("Portland") is None
    assert date_variants("June 2024") == {"june 2024", "jun 2024", "2024 6"}


def test_values_match_on_word_boundaries_only() -> None:
    assert occurs("Portland", "They moved to Portland last week")
    assert not occurs("Port", "They moved to Portland last week")
    assert not occurs("2", "In 2024 they had 12 cats")
    assert occurs("2", "They had two cats")
    assert occurs("Thursday", "The club meets on Thursdays")


def test_phone_numbers_match_with_any_separators() -> None:
    assert occurs("720-555-0134", "Call (720) 555 0134.")
    assert occurs("720-555-0134", "7205550134")
    assert not occurs("720-555-0134", "Call 720-555-0143.")


def test_a_stale_answer_fails_even_when_the_current_value_is_there() -> None:
    expectation = Expectation("answered", ("Portland",), ("Denver",))
    assert score(expectation, "Portland", "answered").passed
    verdict = score(expectation, "I live in Denver, now moving to Portland", "answered")
    assert not verdict.passed and any(f.startswith("forbid") for f in verdict.failures)


def test_a_missing_value_fails() -> None:
    verdict = score(Expectation("answered", ("Portland", "Oregon")), "Seattle", "answered")
    assert not verdict.passed and verdict.failures[0].startswith("expect")


def test_an_abstention_that_leaks_the_secret_fails() -> None:
    expectation = Expectation("abstained", (), ("078-05-1120",), ("forget", "forgot"))
    leaked = score(expectation, "You asked me to forget it, but it was 078 05 1120.", "abstained")
    assert not leaked.passed and any("forbid" in f for f in leaked.failures)
    assert score(expectation, "The user asked me to forget their social security number.", "abstained").passed
    silent = score(expectation, "I don't know.", "abstained")
    assert not silent.passed and any(f.startswith("mention") for f in silent.failures)


def test_the_status_must_match() -> None:
    expectation = Expectation("abstained")
    assert score(expectation, "Nothing in memory says so.", "abstained").passed
    verdict = score(expectation, "Fender", "answered")
    assert not verdict.passed and verdict.failures == ("status: expected abstained, got answered",)
    assert not score(Expectation("answered", ("x",)), "x", "error").passed


def test_a_day_without_a_year_matches_either_order_and_ordinals() -> None:
    for written in ("March 21", "21 March", "the 21st of March", "March 21st, 2024", "21 Mar"):
        assert occurs("March 21", f"Her birthday is {written}."), written
    assert not occurs("March 21", "Her birthday is March 12.")
    assert not occurs("May 2", "Paula's birthday is May 20.")
    assert date_variants("Mazda 3") is None
