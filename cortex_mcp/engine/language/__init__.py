"""Pure text rules: patterns, slots, redaction, extraction parsing. No store, no providers,
no clock."""
