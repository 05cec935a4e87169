"""Every package directory is installed (pyproject lists them explicitly because agents/, prompts/
and eval/ map into the emem namespace), and the data files the code reads ship with it."""

from __future__ import annotations

import re
import subprocess
import sys
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


def test_eval_is_an_optional_extra() -> None:
    """`pip install emem` does not pull the harness's plotting; `dev` installs the `eval` extra."""
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    core = [re.split(r"[\s;<>=!~\[(]", d, maxsplit=1)[0].lower() for d in project["dependencies"]]
    extras = project["optional-dependencies"]
    assert "matplotlib" not in core
    assert any(d.startswith("matplotlib") for d in extras["eval"])
    assert "emem[eval]" in extras["dev"]


def test_installed_core_requirements_have_neither_matplotlib_nor_nltk() -> None:
    """What `pip install emem` installs, read from the installed distribution's metadata."""
    from importlib.metadata import requires

    from packaging.requirements import Requirement

    reqs = [Requirement(r) for r in requires("emem") or []]
    core = {r.name.lower() for r in reqs if r.marker is None}
    eval_extra = {
        r.name.lower() for r in reqs if r.marker is not None and r.marker.evaluate({"extra": "eval"})
    }
    assert core and "langgraph" in core
    assert not core & {"matplotlib", "nltk"}
    assert {"matplotlib", "nltk"} <= eval_extra


def test_the_library_reads_without_nltk() -> None:
    code = (
        "import sys, emem, emem.memory, emem.agents.master; from emem.index.text import tokenize; "
        "assert tokenize('moving') == ['move']; print(sorted(m for m in sys.modules if m.startswith('nltk')))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stdout.strip() == "[]", done.stdout + done.stderr


def test_the_cli_does_not_import_the_harness() -> None:
    code = (
        "import sys, emem.cli, emem.__main__; "
        "bad = sorted(m for m in sys.modules if m.startswith(('emem.eval', 'matplotlib'))); "
        "print(bad); sys.exit(1 if bad else 0)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr


def test_eval_without_the_extra_is_one_clear_error(monkeypatch) -> None:
    from typer.testing import CliRunner

    from emem.cli import app, evaluate

    monkeypatch.setattr(evaluate, "EVAL_EXTRA_MODULES", ("matplotlib", "emem_no_such_module"))
    result = CliRunner().invoke(app, ["eval", "report", str(REPO)])
    assert result.exit_code == 2
    out = result.output + (result.stderr if result.stderr_bytes is not None else "")
    assert "pip install 'emem[eval]'" in out and "emem_no_such_module" in out and "Traceback" not in out


def test_ci_runs_exactly_the_readme_test_command() -> None:
    """The README's second command is what CI runs: lint, format check, type check, then the suite."""
    ci = (REPO / ".ci" / "run").read_text()
    command = next(line for line in ci.splitlines() if line.startswith("python3 -m venv"))
    assert f"```bash\n{command}\n```" in (REPO / "README.md").read_text()
    assert "&& mypy &&" in command and "ruff format --check ." in command
