"""Every package directory is installed (pyproject lists them explicitly because agents/, prompts/
and eval/ map into the emem namespace), and the data files the code reads ship with it."""

from __future__ import annotations

import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def test_every_package_directory_is_listed() -> None:
    config = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]
    mapping = config["package-dir"]
    listed = set(config["packages"])
    on_disk = set()
    for name, folder in mapping.items():
        root = REPO / folder
        for init in root.rglob("__init__.py"):
            rel = init.parent.relative_to(root)
            dotted = ".".join([name, *rel.parts]) if rel.parts else name
            if not any(
                dotted.startswith(other + ".")
                for other in mapping
                if other != name and other.startswith(name)
            ):
                on_disk.add(dotted)
    assert on_disk <= listed, f"packages missing from pyproject: {sorted(on_disk - listed)}"


def test_prompts_and_demo_data_are_package_data() -> None:
    config = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    assert "*.md" in config["emem.prompts"] and "data/*.json" in config["emem"]
    assert (
        list((REPO / "prompts").glob("*.md"))
        and (REPO / "emem" / "data" / "example_conversation.json").exists()
    )
