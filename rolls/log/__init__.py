"""The roll log, append-only: entries, their hash chain, the table's events and the dice nobody can steer."""
