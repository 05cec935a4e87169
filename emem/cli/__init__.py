"""The `emem` command line (entry point `emem.cli:app`, also `python -m emem`).

One module per command group: `app` (the Typer app and ingest/search/stats), `ask`, `demo`,
`ledger`, `llm`, `forget`, `server`, `evaluate` (imports the eval extra only when run), and
`common` (opening a Memory, one-line errors, printing)."""

from emem.cli.app import app, main

__all__ = ["app", "main"]
