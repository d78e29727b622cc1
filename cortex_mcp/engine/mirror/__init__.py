"""The Markdown mirror on disk: MEMORY.md and memory/, kept in step with the store, keeping
the user's edits."""
