"""Forest plots draw user text as typed (no matplotlib maths from a '$')."""

from analysis.plots import figure_png
from characteristics.plots import forest_global, forest_per_algorithm

TERM = r"cost $\frac{$ x"  # broken maths if "$" were not escaped


def _model(scope, algorithm, converged=True):
    entry = {
        "term": TERM,
        "estimate": 0.5,
        "se": 0.1,
        "ci_low": 0.3,
        "ci_high": 0.7,
        "p": 0.01,
        "odds_ratio": 1.65,
        "or_ci_low": 1.35,
        "or_ci_high": 2.01,
    }
    if not converged:
        entry = dict.fromkeys(entry, None) | {"term": TERM}
    return {
        "scope": scope,
        "algorithm": algorithm,
        "family": "binomial",
        "n_obs": 100,
        "n_groups": {},
        "converged": converged,
        "warnings": [] if converged else ["Perfect separation: $x$ fails."],
        "fixed": [{"term": "(Intercept)", "estimate": 0.0}, entry],
    }


OUTPUT = {
    "spec": {"task": "T $1", "metric": "DSC", "algorithms_modelled": ["a$", "b"]},
    "terms": ["(Intercept)", TERM],
    "exploratory": True,
    "models": [
        _model("global", None),
        _model("algorithm", "a$"),
        _model("algorithm", "b", converged=False),
    ],
}


def test_forest_plots_render_dollar_signs_literally():
    for draw in (forest_global, forest_per_algorithm):
        png = figure_png(draw(OUTPUT), dpi=50)
        assert png.startswith(b"\x89PNG")
