"""Pure search functions: tokenising, query building, scoring and budgeting. No SQL, no I/O."""
