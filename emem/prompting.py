"""Prompt templates live as files in `prompts/` (installed as `emem.prompts`). Each carries a
sha256 so every answer can say exactly which prompt version produced it."""

from __future__ import annotations

import hashlib
from functools import lru_cache
from importlib.resources import files
from string import Template

from pydantic import BaseModel

from emem.errors import ConfigError


class Prompt(BaseModel):
    name: str
    text: str
    sha256: str

    def render(self, **values: object) -> str:
        """Fill `$name` placeholders ($ rather than braces, so JSON examples need no escaping)."""
        try:
            return Template(self.text).substitute({k: str(v) for k, v in values.items()})
        except KeyError as exc:
            raise ConfigError(f"prompt {self.name!r} needs a value for ${exc.args[0]}") from None


@lru_cache(maxsize=64)
def load_prompt(name: str) -> Prompt:
    resource = files("emem.prompts") / f"{name}.md"
    if not resource.is_file():
        raise ConfigError(f"prompt template {name}.md not found in emem.prompts")
    text = resource.read_text(encoding="utf-8")
    return Prompt(name=name, text=text, sha256=hashlib.sha256(text.encode("utf-8")).hexdigest())


def memory_block(lines: list[str]) -> str:
    """Memory content is data: delimit it so a prompt can tell the model never to obey it."""
    body = "\n".join(line.replace("</memory>", "</ memory>").replace("<memory>", "< memory>") for line in lines)
    return f"<memory>\n{body}\n</memory>"


@lru_cache(maxsize=1)
def prompt_set_hash() -> str:
    """One hash over every template shipped, recorded on each answer (offline ones included) so
    a result can always be tied to the exact prompt versions installed with it."""
    names = sorted(p.name.removesuffix(".md") for p in files("emem.prompts").iterdir() if p.name.endswith(".md"))
    joined = "\n".join(f"{n}:{load_prompt(n).sha256}" for n in names)
    return hashlib.sha256(joined.encode()).hexdigest()
