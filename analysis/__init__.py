"""Results, analysis runs and reports; the statistics engine is `ranking`."""
