import subprocess
import sys


def test_ranking_engine_imports_without_django():
    code = "import sys, ranking; print('django' in sys.modules)"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "False"


def test_ranking_engine_imports_without_scipy_or_pandas():
    """Every `python -m ranking` imports the package: scipy.stats (the rank
    intervals, the planner's intervals) took 1.3 s of CPU there, and a small
    job needs neither scipy nor pandas."""
    code = (
        "import sys, ranking, ranking.cli; "
        "print(sorted(m for m in ('scipy', 'pandas') if m in sys.modules))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "[]"
