"""Tolerant extraction of JSON from model replies, and validation into pydantic models."""

from __future__ import annotations

import pytest
from pydantic import BaseModel, ConfigDict

from emem.llm.jsonparse import (
    extract_json,
    parse_into,
    read_reply,
    schema_problem,
    with_schema_instruction,
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"a": 1}', {"a": 1}),
        ("  [1, 2, 3]\n", [1, 2, 3]),
        ('```json\n{"a": [1, 2]}\n```', {"a": [1, 2]}),
        ('```\n{"a": 2}\n```', {"a": 2}),
        ('Sure, here it is:\n```json\n{"a": 3}\n```\nHope that helps!', {"a": 3}),
        ('The answer is {"a": 4} as requested.', {"a": 4}),
        ('Result: [{"x": 1}, {"x": 2}] done', [{"x": 1}, {"x": 2}]),
        ('{"a": [1, 2,], "b": {"c": 3,},}', {"a": [1, 2], "b": {"c": 3}}),
        ('{"text": "braces } and { and ] inside", "n": 1}', {"text": "braces } and { and ] inside", "n": 1}),
        ('{"q": "she said \\"hi}\\" twice"}', {"q": 'she said "hi}" twice'}),
        ('{"keep": "a, ]"}', {"keep": "a, ]"}),
        ('Note {not json} then {"a": 5}', {"a": 5}),
        ('<think>Maybe [x or {y}... let me see</think>\n{"a": 6}', {"a": 6}),
        ('{"nested": {"deep": [{"k": "v"}]}} trailing {"other": 1}', {"nested": {"deep": [{"k": "v"}]}}),
    ],
)
def test_extract_json_tolerates_common_wrappings(text: str, expected: object) -> None:
    assert extract_json(text) == expected


def test_truncated_json_is_a_clear_error_not_a_fragment() -> None:
    # The inner {"a": 1} is complete but is only a fragment of the cut-off reply.
    with pytest.raises(ValueError, match="truncated") as info:
        extract_json('{"facts": [{"a": 1}, {"b": ')
    assert "max_tokens" in str(info.value)


def test_truncated_json_in_unclosed_fence_is_an_error() -> None:
    with pytest.raises(ValueError, match="truncated"):
        extract_json('```json\n{"a": "unfinished')


@pytest.mark.parametrize("text", ["", "   \n"])
def test_empty_reply(text: str) -> None:
    with pytest.raises(ValueError, match="empty"):
        extract_json(text)


def test_prose_without_json() -> None:
    with pytest.raises(ValueError, match="no JSON object or array"):
        extract_json("I cannot answer that.")


def test_balanced_but_invalid_json_names_the_problem() -> None:
    with pytest.raises(ValueError, match="no valid JSON"):
        extract_json("{this is: not json}")


class Fact(BaseModel):
    subject: str
    predicate: str
    confidence: float = 0.5
    note: str | None = None


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str
    count: int = 0


class Facts(BaseModel):
    facts: list[Fact]


def test_parse_into_from_text_tolerates_missing_optional_and_extra_fields() -> None:
    fact = parse_into('Here: {"subject": "Ann", "predicate": "lives_in", "extra": "ignored"}', Fact)
    assert isinstance(fact, Fact)
    assert (fact.subject, fact.predicate, fact.confidence, fact.note) == ("Ann", "lives_in", 0.5, None)


def test_parse_into_drops_extras_even_for_forbid_models() -> None:
    assert parse_into({"name": "x", "why": "chatty model"}, Strict) == Strict(name="x")


def test_parse_into_treats_null_optional_as_absent() -> None:
    fact = parse_into({"subject": "A", "predicate": "p", "confidence": None}, Fact)
    assert isinstance(fact, Fact) and fact.confidence == 0.5


def test_parse_into_reads_bare_list_as_the_lone_list_field() -> None:
    facts = parse_into('[{"subject": "A", "predicate": "p"}]', Facts)
    assert isinstance(facts, Facts) and facts.facts[0].subject == "A"


def test_parse_into_names_the_failing_field() -> None:
    with pytest.raises(ValueError, match="field 'predicate'"):
        parse_into({"subject": "Ann"}, Fact)
    with pytest.raises(ValueError, match=r"field 'facts\.0\.subject'"):
        parse_into({"facts": [{"predicate": "p"}]}, Facts)


def test_parse_into_propagates_extraction_errors() -> None:
    with pytest.raises(ValueError, match="truncated"):
        parse_into('{"subject": "Ann", "predicate": "li', Fact)


SCHEMA = {"type": "object", "properties": {"answer": {"type": "string"}}, "required": ["answer"]}


def test_schema_problem_checks_type_and_required_keys() -> None:
    assert schema_problem({"answer": "x"}, SCHEMA) is None
    assert "missing required field(s) 'answer'" in (schema_problem({"other": 1}, SCHEMA) or "")
    assert "expected a JSON object" in (schema_problem([1], SCHEMA) or "")
    assert "expected a JSON array" in (schema_problem({}, {"type": "array"}) or "")


def test_read_reply() -> None:
    assert read_reply("plain text", None) is None
    assert read_reply('```json\n{"answer": "x"}\n```', SCHEMA) == {"answer": "x"}
    for bad, match in [("", "empty"), ("no json", "unusable JSON"), ('{"x": 1}', "not matching")]:
        with pytest.raises(ValueError, match=match):
            read_reply(bad, SCHEMA)


def test_schema_instruction_joins_the_first_system_message() -> None:
    messages = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "hi"}]
    out = with_schema_instruction(messages, SCHEMA)
    assert len(out) == 2 and out[0]["content"].startswith("Be brief.") and '"answer"' in out[0]["content"]
    assert messages[0]["content"] == "Be brief."  # input untouched
    added = with_schema_instruction([{"role": "user", "content": "hi"}], SCHEMA)
    assert added[0]["role"] == "system" and "JSON" in added[0]["content"] and added[1]["content"] == "hi"
