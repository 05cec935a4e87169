"""One prompt loader and one placeholder syntax for every template, the library's and the
harness's judges; the prompt-set hash recorded on every answer covers the library's alone."""

from __future__ import annotations

import hashlib
import re
from importlib.resources import files

import pytest

from emem.errors import ConfigError
from emem.eval.prompts import JUDGE_PROMPTS
from emem.prompting import LIBRARY_PROMPTS, fill, load_prompt, prompt_set_hash

_SLOT = re.compile(r"\{\{(\w+)\}\}")


def _templates(package: str) -> list[str]:
    return sorted(p.name.removesuffix(".md") for p in files(package).iterdir() if p.name.endswith(".md"))


def test_every_template_uses_double_brace_slots_only() -> None:
    """No `$name` or single-brace `{name}` placeholder is left in any template."""
    for package in (LIBRARY_PROMPTS, JUDGE_PROMPTS):
        for name in _templates(package):
            text = _SLOT.sub("", load_prompt(name, package).text)
            assert not re.search(r"\$[a-z_]+\b", text), (package, name)
            assert not re.search(r"\{(question|gold_answer|generated_answer|response|memory)\}", text), name


def test_render_fills_slots_once_and_keeps_dollars_and_braces() -> None:
    prompt = load_prompt("assistant_task")
    out = prompt.render(
        session_date="1 May 2023", memory="$5 {x} {{question}}", question="Q?", operation="lookup"
    )
    assert (
        "$5 {x} {{question}}" in out and "Question: Q?" in out and "{{" not in out.replace("{{question}}", "")
    )
    with pytest.raises(ConfigError, match="assistant_task"):
        prompt.render(session_date="d", memory="m", question="q")  # `operation` is missing
    assert fill("a {{b}} {c} $d", {"b": "B"}) == "a B {c} $d"


def test_judges_are_not_library_prompts() -> None:
    """Editing a judge must not change the hash recorded on library answers."""
    assert not any("judge" in name for name in _templates(LIBRARY_PROMPTS))
    assert {"judge", "judge_longmemeval"} <= set(_templates(JUDGE_PROMPTS))
    with pytest.raises(ConfigError, match="not found in emem.prompts"):
        load_prompt("judge")
    joined = "\n".join(f"{n}:{load_prompt(n).sha256}" for n in _templates(LIBRARY_PROMPTS))
    assert prompt_set_hash() == hashlib.sha256(joined.encode()).hexdigest()


def test_hash_is_of_the_file_bytes() -> None:
    for package in (LIBRARY_PROMPTS, JUDGE_PROMPTS):
        for name in _templates(package):
            raw = (files(package) / f"{name}.md").read_bytes()
            assert load_prompt(name, package).sha256 == hashlib.sha256(raw).hexdigest()
