"""Results versions and analysis runs (issue: post-challenge reporting)."""
