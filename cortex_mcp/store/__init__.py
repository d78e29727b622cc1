"""The only place with SQL: the SQLite file, its schema, and every query against it."""
