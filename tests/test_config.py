"""A Memory's setup as data: MemoryConfig, named recipes, and the kwargs that still work."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from emem import Memory
from emem.agents.master import DEFAULT_BUDGET, FAST_K
from emem.cli.demo import example_conversation
from emem.config import DEFAULT, RECIPES, EmbedderConfig, MemoryConfig, ReadConfig, recipe
from emem.errors import ConfigError
from emem.retrieval.hybrid import CANDIDATES
from emem.retrieval.routing import DEFAULT_ACTIVATE, GLOBAL_WEIGHTS, PATHWAY_WEIGHTS

NS = "cfg"


def test_module_constants_come_from_the_default_recipe() -> None:
    read = DEFAULT.read
    assert (DEFAULT_BUDGET, FAST_K, CANDIDATES, DEFAULT_ACTIVATE) == (
        read.budget,
        read.fast_k,
        read.candidates,
        read.activate,
    )
    assert PATHWAY_WEIGHTS == read.pathway_weights and GLOBAL_WEIGHTS == read.global_weights


def test_recipes_differ_only_where_named() -> None:
    assert set(RECIPES) == {"default", "paper-router", "context-fill"}
    default = recipe("default").read.model_dump()
    assert {k for k, v in recipe("paper-router").read.model_dump().items() if default[k] != v} == {"router"}
    assert {k for k, v in recipe("context-fill").read.model_dump().items() if default[k] != v} == {
        "fill_context"
    }
    with pytest.raises(ConfigError, match="unknown config recipe 'fast'"):
        recipe("fast")
    assert recipe("default", consolidate_on_read=False).consolidate_on_read is False


def test_bad_settings_are_refused() -> None:
    with pytest.raises(ValidationError):
        ReadConfig(budget=10)
    with pytest.raises(ValidationError):
        ReadConfig(router="nearest")  # type: ignore[arg-type]
    with pytest.raises(ValidationError):
        EmbedderConfig(kind="openai", model="m")  # no base_url
    with pytest.raises(ValidationError):
        MemoryConfig(reads=ReadConfig())  # type: ignore[call-arg]


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("home")
    with Memory(path) as m:
        m.add_conversation(example_conversation(), namespace=NS)
    return path


def test_memory_reads_with_its_config(home: Path) -> None:
    config = MemoryConfig(home=home, read=ReadConfig(budget=321, fast_k=1), consolidate_on_read=False)
    with Memory(config=config) as m:
        assert m.home == home.resolve() or m.home == home
        assert m.consolidate_on_read is False and m.read_runtime.read is config.read
        a = m.ask("Where does Alice live now?", namespace=NS, mode="fast")
        assert a.budget == 321 and len(a.evidence) <= 1
    with Memory(home, config="paper-router") as m:
        assert (
            m.read_runtime.router == "paper"
            and m.ask("Where does Ben work now?", namespace=NS).budget == DEFAULT_BUDGET
        )


def test_explicit_kwargs_win_over_the_config(home: Path, tmp_path: Path) -> None:
    config = MemoryConfig(home=tmp_path, consolidate_on_read=True, forget_policy="erase")
    with Memory(home, consolidate_on_read=False, forget_policy="ignore", config=config) as m:
        assert m.home.resolve() == home.resolve()
        assert m.consolidate_on_read is False and m.forget_policy == "ignore"
    with Memory(home) as m:  # no config: the default recipe, as before
        assert m.config == DEFAULT and m.consolidate_on_read is True
