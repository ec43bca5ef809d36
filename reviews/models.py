"""Reviewer assignments, reviews and decisions (issue: peer review)."""
