"""Ranking and uncertainty engine for challenge results (plain Python, no Django)."""
