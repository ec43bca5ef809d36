import subprocess
import sys


def test_ranking_engine_imports_without_django():
    code = "import sys, ranking; print('django' in sys.modules)"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "False"
