"""What memory does, free of MCP.

The edge enters through `facade.Engine` (opened by `facade.open_engine`); `host` shares one
engine per process and runs its background work. Below the facade, one package per use case
(`recall`, `ingest`, `forget`, `purge`, `lifecycle`, `transfer`, `mirror`), the one door for
writes (`writes`), and at the bottom the `Runtime` they all take and the pure text rules of
`language`. The layers are enforced by import-linter (pyproject.toml).
"""
