"""Static files storage for production: whitenoise's compressed manifest storage,
without rewriting `sourceMappingURL` comments (the vendored minified Bootstrap
files reference .map files that are not shipped, which would fail collectstatic)."""

from whitenoise.storage import CompressedManifestStaticFilesStorage


def _without_source_maps(patterns):
    def keep(pattern) -> bool:
        text = pattern[0] if isinstance(pattern, tuple) else pattern
        return "sourceMappingURL" not in text

    return tuple(
        (extension, tuple(p for p in rules if keep(p))) for extension, rules in patterns
    )


class StaticFilesStorage(CompressedManifestStaticFilesStorage):
    patterns = _without_source_maps(CompressedManifestStaticFilesStorage.patterns)
