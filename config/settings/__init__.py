"""Settings package: `base` (env-driven, safe demo defaults), `production`, `test`."""
