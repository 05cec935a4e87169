"""Prompt templates live as files: the library's in `prompts/` (installed as `emem.prompts`), the
evaluation harness's judges in `eval/prompts/` (`emem.eval.prompts`). One loader reads both and one
placeholder syntax fills them: `{{name}}`, replaced in a single pass by `fill`. Each template
carries a sha256 so every answer can say exactly which prompt version produced it."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from functools import lru_cache
from importlib.resources import files

from pydantic import BaseModel

from emem.errors import ConfigError


class Prompt(BaseModel):
    name: str
    text: str
    sha256: str

    def render(self, **values: object) -> str:
        """Fill the template's `{{name}}` slots (see `fill`).

        Args:
            **values: one value per slot, turned into text with `str`.

        Returns:
            The filled prompt text.
        """
        try:
            return fill(self.text, {k: str(v) for k, v in values.items()})
        except ConfigError as exc:
            raise ConfigError(f"prompt {self.name!r}: {exc}") from None


LIBRARY_PROMPTS = "emem.prompts"
"""The package of the library's own templates: the only ones `prompt_set_hash` covers."""


@lru_cache(maxsize=64)
def load_prompt(name: str, package: str = LIBRARY_PROMPTS) -> Prompt:
    """The one way to read a prompt template.

    Args:
        name: the file name without `.md`.
        package: the package holding it (`emem.prompts`, or `emem.eval.prompts` for the judges).

    Returns:
        The template's text and the sha256 of its bytes.
    """
    resource = files(package) / f"{name}.md"
    if not resource.is_file():
        raise ConfigError(f"prompt template {name}.md not found in {package}")
    raw = resource.read_bytes()
    return Prompt(name=name, text=raw.decode("utf-8"), sha256=hashlib.sha256(raw).hexdigest())


_LINE_BREAKS = re.compile("\r\n|[\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")
_CONTROL = re.compile("[\x00-\x08\x0e-\x1f\x7f]")
LINE_BREAK_MARK = " \u23ce "
"""What a line break inside memory content becomes (⏎): visible to the model, never a new line."""
OPEN_TAG, CLOSE_TAG = "<memory>", "</memory>"


def data_text(value: object) -> str:
    """Memory content (turn text, caption, speaker, id, fact, summary) as it may appear in a
    prompt: on one line (a line break becomes ⏎, so content can never start a line of its own,
    e.g. a forged LEDGER line) and with no angle brackets (< > become ‹ ›, so no tag in any
    spelling, "</MEMORY >" or "</memory\n>" included, can open or close a block). The one
    escaping layer every prompt builder uses for every field that came from memory."""
    text = _LINE_BREAKS.sub(LINE_BREAK_MARK, str(value))
    text = _CONTROL.sub(" ", text)
    return text.replace("<", "\u2039").replace(">", "\u203a")


def memory_block(lines: Sequence[str]) -> str:
    """Memory content is data: each element of `lines` is one record and becomes exactly one line
    of the block (encoded with `data_text`), between emem's own delimiters, which no record can
    produce. Records are built by emem (a "[id | date] speaker: text" or "LEDGER ..." line)."""
    body = "\n".join(data_text(line) for line in lines)
    return f"{OPEN_TAG}\n{body}\n{CLOSE_TAG}"


_SLOT = re.compile(r"\{\{(\w+)\}\}")


def fill(template: str, values: dict[str, str]) -> str:
    """Replace every {{name}} in one pass: text inserted for one slot is never scanned again, so a
    speaker called "{{memory}}" cannot pull another slot's content out of its place. Braces alone
    ("{x}", JSON examples) and "$" are plain text. A slot without a value is a ConfigError."""

    def value(m: re.Match[str]) -> str:
        if m.group(1) not in values:
            raise ConfigError(f"prompt needs a value for {{{{{m.group(1)}}}}}")
        return values[m.group(1)]

    return _SLOT.sub(value, template)


@lru_cache(maxsize=1)
def prompt_set_hash() -> str:
    """One hash over every library template shipped, recorded on each answer (offline ones
    included) so a result can always be tied to the exact prompt versions installed with it. The
    harness's judge prompts live in another package and do not enter it."""
    names = sorted(
        p.name.removesuffix(".md") for p in files(LIBRARY_PROMPTS).iterdir() if p.name.endswith(".md")
    )
    joined = "\n".join(f"{n}:{load_prompt(n).sha256}" for n in names)
    return hashlib.sha256(joined.encode()).hexdigest()
