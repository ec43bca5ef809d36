"""Audit log: an append-only record of sensitive actions, visible to staff."""
