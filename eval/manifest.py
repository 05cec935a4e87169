"""Run manifest: everything needed to say exactly what produced a set of numbers (data hash,
code revision, prompt hashes, models, budget, seed, package versions, selection, command)."""

from __future__ import annotations

import hashlib
import importlib.metadata
import importlib.resources
import platform
import re
import subprocess
import sys
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from emem.errors import ConflictError

MANIFEST_NAME = "manifest.json"


class CodeRevision(BaseModel):
    git_revision: str | None = None
    """`git rev-parse HEAD` of the checkout emem runs from; None outside a git checkout."""
    dirty: bool | None = None
    """True when the checkout had uncommitted changes (the revision alone does not name the code)."""
    emem_version: str | None = None


class Invocation(BaseModel):
    """One start of the run; a resumed run accumulates several, each with its own code state."""

    started_at: str
    code: CodeRevision
    command: list[str]
    finished_at: str | None = None
    """Set when this start ran to the end; None for a run stopped or killed midway."""
    seconds: float | None = None
    """Wall-clock time of this start, when it finished."""


class RunManifest(BaseModel):
    dataset_path: str | None = None
    dataset_sha256: str | None = None
    samples_sha256: str
    """Hash of the parsed samples actually evaluated (set even when no file path is known)."""
    code: CodeRevision
    prompts: dict[str, str] = Field(default_factory=dict)
    """File name in `emem.prompts` or `emem.eval.prompts` (the judges) → sha256 of its bytes."""
    models: dict[str, Any] = Field(default_factory=dict)
    """Role → model id / endpoint, as the caller configured them."""
    reader_offline: bool | None = None
    """Whether answers came from the deterministic offline reader (not an LLM); None = unknown."""
    budget: Any = None
    seed: int | None = None
    python: str = Field(default_factory=lambda: sys.version.split()[0])
    platform: str = Field(default_factory=platform.platform)
    packages: dict[str, str] = Field(default_factory=dict)
    systems: list[str]
    categories: list[int] | None = None
    conversations: list[str] | None = None
    limit: int | None = None
    n_questions: int
    command: list[str] = Field(default_factory=lambda: list(sys.argv))
    invocations: list[Invocation] = Field(default_factory=list)
    extra: dict[str, Any] = Field(default_factory=dict)
    """Caller-supplied facts without a dedicated field."""


def _repo_root() -> Path:
    import emem

    return Path(emem.__file__).resolve().parent.parent


def code_revision() -> CodeRevision:
    """Git revision and dirty flag of the checkout, read-only; None values when git is absent."""
    rev = dirty = None
    try:
        root = _repo_root()
        head = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True, timeout=10
        )
        if head.returncode == 0:
            rev = head.stdout.strip()
            status = subprocess.run(
                # a run's own outputs under eval/results do not make the code dirty
                ["git", "status", "--porcelain", "--", ".", ":(exclude)eval/results"],
                cwd=root,
                capture_output=True,
                text=True,
                timeout=30,
            )
            dirty = bool(status.stdout.strip()) if status.returncode == 0 else None
    except (OSError, subprocess.SubprocessError):
        pass
    return CodeRevision(git_revision=rev, dirty=dirty, emem_version=_version("emem"))


PROMPT_PACKAGES = ("emem.prompts", "emem.eval.prompts")
"""The library's prompts and the harness's judges: a run depends on both."""


def prompt_hashes(packages: tuple[str, ...] = PROMPT_PACKAGES) -> dict[str, str]:
    """sha256 of every template file shipped in the prompt packages (Python files are code, not
    prompts), so a prompt edit changes the manifest. File names are unique across the packages."""
    out: dict[str, str] = {}
    for package in packages:
        root = importlib.resources.files(package)
        for entry in sorted(root.iterdir(), key=lambda e: e.name):
            if entry.is_file() and not entry.name.endswith((".py", ".pyc", ".pyo")):
                out[entry.name] = hashlib.sha256(entry.read_bytes()).hexdigest()
    return dict(sorted(out.items()))


def _version(dist: str) -> str | None:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return None


def package_versions(dist: str = "emem") -> dict[str, str]:
    """Installed versions of `dist` and its runtime (non-extra) dependencies."""
    versions = {dist: _version(dist) or "not installed"}
    try:
        requirements = importlib.metadata.requires(dist) or []
    except importlib.metadata.PackageNotFoundError:
        requirements = []
    for req in requirements:
        marker = req.split(";", 1)[1] if ";" in req else ""
        if "extra" in marker:
            continue
        name = re.split(r"[\s;<>=!~\[(]", req.strip(), maxsplit=1)[0]
        if name:
            versions[name] = _version(name) or "not installed"
    return dict(sorted(versions.items()))


_FIELDS = set(RunManifest.model_fields)


def build_manifest(
    *,
    samples_sha256: str,
    systems: list[str],
    n_questions: int,
    categories: list[int] | None = None,
    conversations: list[str] | None = None,
    limit: int | None = None,
    dataset_path: str | Path | None = None,
    extra: dict[str, Any] | None = None,
) -> RunManifest:
    """Collect the environment facts; `extra` keys naming a manifest field (models, budget, seed,
    reader_offline, command, dataset_sha256 …) fill that field, the rest land in `extra`."""
    from .locomo_data import dataset_sha256

    fields: dict[str, Any] = {
        "samples_sha256": samples_sha256,
        "systems": systems,
        "n_questions": n_questions,
        "categories": categories,
        "conversations": conversations,
        "limit": limit,
        "code": code_revision(),
        "prompts": prompt_hashes(),
        "packages": package_versions(),
    }
    if dataset_path is not None:
        fields["dataset_path"] = str(dataset_path)
        fields["dataset_sha256"] = dataset_sha256(dataset_path)
    leftovers: dict[str, Any] = {}
    for key, value in (extra or {}).items():
        if key in _FIELDS and key not in ("extra", "invocations"):
            fields[key] = value
        else:
            leftovers[key] = value
    manifest = RunManifest(**fields, extra=leftovers)
    manifest.invocations.append(
        Invocation(
            started_at=datetime.now(UTC).isoformat(timespec="seconds"),
            code=manifest.code,
            command=manifest.command,
        )
    )
    return manifest


def write_manifest(manifest: RunManifest, run_dir: str | Path) -> Path:
    path = Path(run_dir) / MANIFEST_NAME
    path.write_text(manifest.model_dump_json(indent=2) + "\n", encoding="utf-8")
    return path


def mark_finished(run_dir: str | Path) -> None:
    """Record when the latest start ended and how long it took: a run's cost includes its wall time."""
    manifest = read_manifest(run_dir)
    if manifest is None or not manifest.invocations:
        return
    last = manifest.invocations[-1]
    now = datetime.now(UTC)
    last.finished_at = now.isoformat(timespec="seconds")
    last.seconds = round((now - datetime.fromisoformat(last.started_at)).total_seconds(), 1)
    write_manifest(manifest, run_dir)


def read_manifest(run_dir: str | Path) -> RunManifest | None:
    path = Path(run_dir) / MANIFEST_NAME
    if not path.exists():
        return None
    return RunManifest.model_validate_json(path.read_text(encoding="utf-8"))


RESUME_SETTINGS = ("dataset_sha256", "models", "budget", "seed", "reader_offline")
"""Manifest fields that change what an answer is: a run resumed with another value would mix
incomparable rows in one report. The code revision and prompts may change between starts (each
start records its own, in `invocations`); the selection (categories, conversations, limit) may
grow: a run can be extended."""


def settings_conflicts(
    previous: RunManifest,
    current: RunManifest,
    fields: Sequence[str] = RESUME_SETTINGS,
    extra: bool = True,
) -> list[str]:
    """Each setting both starts recorded with different values, as "name: old ≠ new". A field one
    side did not record (None, empty) is not compared, so runs from before a setting was recorded
    still resume; with `extra`, every `extra` key both recorded is a setting too."""
    out = []
    for field in fields:
        old, new = getattr(previous, field), getattr(current, field)
        if old not in (None, {}) and new not in (None, {}) and old != new:
            out.append(f"{field}: {old} ≠ {new}")
    if extra:
        for key in sorted(previous.extra.keys() & current.extra.keys()):
            if previous.extra[key] != current.extra[key]:
                out.append(f"{key}: {previous.extra[key]} ≠ {current.extra[key]}")
    return out


def check_resume_settings(
    previous: RunManifest,
    current: RunManifest,
    where: str | Path,
    fields: Sequence[str] = RESUME_SETTINGS,
    extra: bool = True,
) -> None:
    """Refuse, in one message naming every difference, to resume a run with other settings."""
    conflicts = settings_conflicts(previous, current, fields, extra)
    if conflicts:
        raise ConflictError(
            f"{where}: cannot resume: the run was started with other settings ({'; '.join(conflicts)}); "
            "rerun with the logged settings, or use a fresh output directory (and public log)"
        )


def continue_run(previous: RunManifest, current: RunManifest) -> None:
    """Make `current` (a new start's manifest) carry the run's history: earlier starts first,
    then its own; systems in the order they joined the run."""
    current.invocations = [*previous.invocations, *current.invocations]
    current.systems = [*previous.systems, *(s for s in current.systems if s not in previous.systems)]
