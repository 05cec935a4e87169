"""count_line_tokens counts a line as head + tail only where that equals counting it whole."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from emem.tokens import count_line_tokens, count_tokens

LOCOMO = Path("/work/shared/data/locomo10.json")


@settings(max_examples=400, deadline=None)
@given(
    head=st.text(max_size=30),
    tail=st.text(max_size=60),
    bracket=st.booleans(),
    space=st.booleans(),
)
def test_any_head_and_tail_count_as_the_whole_line(head: str, tail: str, bracket: bool, space: bool) -> None:
    head = head + ("]" if bracket else "")
    tail = (" " if space else "") + tail
    assert count_line_tokens(head + tail, tail) == count_tokens(head + tail)


@pytest.mark.parametrize(
    "text",
    [
        "[D1:3] Caroline: I went to the LGBTQ support group yesterday!",
        "[D1:3 | 2023-05-08] Melanie: Wow, that's great!\n",
        "[D2:1] Mel: ... [shares a photo of a sunset]",
        "[x] 's a 're 123456 ]]] ]\n\n  ",
        "[S1:1]   leading spaces and tabs\t",
        "[<|endoftext|>] <|endoftext|> special tokens as text",
    ],
)
def test_turn_lines_count_as_whole(text: str) -> None:
    tail = text[text.index("]") + 1 :]
    assert count_line_tokens(text, tail) == count_tokens(text)


@pytest.mark.skipif(not LOCOMO.is_file(), reason="LoCoMo is not on this machine")
def test_every_locomo_turn_line_counts_as_whole() -> None:
    data = json.loads(LOCOMO.read_text())
    for sample in data[:3]:
        for key, turns in sample["conversation"].items():
            if not (key.startswith("session_") and isinstance(turns, list)):
                continue
            for t in turns:
                caption = f" [shares {t['blip_caption']}]" if t.get("blip_caption") else ""
                tail = f" {t['speaker']}: {t['text']}{caption}"
                for head in (f"[{t['dia_id']}]", f"[{t['dia_id']} | 2023-05-08]"):
                    assert count_line_tokens(head + tail, tail) == count_tokens(head + tail)
