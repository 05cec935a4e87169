"""A capitalised first word is not a person when the conversation uses it as an ordinary word
("Rate's going to $200" after "my rate"), and a request's own verb ("Delete him ...") is not whom
"him" means: both once filed facts under, or withheld by, a person who does not exist."""

from __future__ import annotations

from said import user_turns

from emem.extract.entities import AliasResolver
from emem.extract.offline import OfflineExtractor


def _facts(*texts: str) -> list[tuple[str, str, str]]:
    return [(f.subject, f.predicate, f.object) for f in OfflineExtractor()(user_turns(*texts))]


def test_a_word_used_in_lower_case_is_no_name() -> None:
    facts = _facts("I've put my rate up to $180 an hour.", "Rate's going to $200 an hour from October.")
    assert not [f for f in facts if f[0] == "Rate"]


def test_a_name_said_mid_sentence_too_stays_a_name() -> None:
    facts = _facts("My sister Rose is a nurse.", "Rose's moving to Leeds in June. The roses are out.")
    assert ("Rose", "lives_in") in {(s, p) for s, p, _ in facts}


def test_the_resolver_tells_common_words_from_names() -> None:
    resolver = AliasResolver.from_turns(user_turns("My rate went up.", "I told Mila about the rate."))
    assert resolver.is_common_word("Rate")
    assert not resolver.is_common_word("Mila")
    assert not resolver.is_common_word("Tunde")  # never said in lower case: may be a name


def test_a_requests_own_verb_is_not_whom_it_means() -> None:
    facts = _facts("Oh god, I shouldn't have said his name. Delete him from your brain, seriously.")
    assert not [o for _, p, o in facts if p == "forget_request" and o.lower() in ("delete", "forget")]


def test_him_is_the_person_named_before() -> None:
    facts = _facts("Caspar and I had a fight. Delete him from your notes, please.")
    assert ("user", "forget_request", "Caspar") in facts
