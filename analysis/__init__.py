"""Results, analysis runs and reports. The statistics engine is `analysis.ranking`."""
