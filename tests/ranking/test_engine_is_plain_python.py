import subprocess
import sys


def _fresh_python(code: str) -> str:
    """What ``code`` prints when run in a fresh interpreter."""
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    return out.stdout.strip()


def test_ranking_engine_imports_without_django():
    code = "import sys, ranking; print('django' in sys.modules)"
    assert _fresh_python(code) == "False"


def test_ranking_engine_imports_without_scipy_or_pandas():
    """Every `python -m ranking` imports the package: scipy.stats (the rank
    intervals, the planner's intervals) took 1.3 s of CPU there, and a small
    job needs neither scipy nor pandas."""
    code = (
        "import sys, ranking, ranking.cli; "
        "print(sorted(m for m in ('scipy', 'pandas') if m in sys.modules))"
    )
    assert _fresh_python(code) == "[]"


def test_bootstrap_rank_intervals_run_without_scipy_stats():
    """The bootstrap rank intervals (the MSD demo's scheme) need no
    scipy.stats: importing it cost the report command's analysis 0.5 s of
    CPU, a third of the analysis itself."""
    code = (
        "import sys, numpy as np\n"
        "from ranking.intervals import rank_confidence_intervals\n"
        "x = np.random.default_rng(0).random((12, 4))\n"
        "bounds = rank_confidence_intervals(x, method='bootstrap', n_boot=50, seed=1)\n"
        "print(len(bounds), 'scipy.stats' in sys.modules)"
    )
    assert _fresh_python(code) == "4 False"
