"""Markdown and JSON renderings of memories, shared by the views, the mirror and transfer."""
