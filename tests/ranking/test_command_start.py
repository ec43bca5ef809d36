"""What ``import ranking`` and ``python -m ranking`` load before any work."""

import json
import os
import subprocess
import sys

import pytest

import ranking


def _run(code: str, *args: str, check: bool = True) -> str:
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")
    }
    out = subprocess.run(
        [sys.executable, "-c", code, *args],
        capture_output=True,
        text=True,
        check=check,
        env=env,
    )
    return out.stdout.strip()


def test_import_ranking_loads_no_numpy_until_a_name_is_used():
    code = (
        "import sys, ranking; before = 'numpy' in sys.modules; "
        "ranking.run_analysis; print(before, 'numpy' in sys.modules)"
    )
    assert _run(code) == "False True"


def test_every_public_name_is_its_modules_object():
    for name in ranking.__all__:
        module = sys.modules[f"ranking.{ranking._SOURCES[name]}"]
        assert getattr(ranking, name) is getattr(module, name)
    assert set(ranking.__all__) <= set(dir(ranking))


def test_unknown_name_is_an_attribute_error():
    with pytest.raises(AttributeError, match="no_such_function"):
        ranking.no_such_function  # noqa: B018


def test_command_runs_blas_on_one_thread_from_the_start(tmp_path):
    """OpenBLAS's thread pool, started with numpy, spun for 0.1 s of a small
    job's 0.27 s of CPU; the command asks for one thread before numpy loads."""
    code = (
        "import atexit, json, runpy, sys, threadpoolctl\n"
        "def report():\n"
        "    info = threadpoolctl.threadpool_info()\n"
        "    print(json.dumps([i['num_threads'] for i in info"
        " if i['user_api'] == 'blas']))\n"
        "atexit.register(report)\n"
        "sys.argv = ['ranking', *sys.argv[1:]]\n"
        "runpy.run_module('ranking', run_name='__main__', alter_sys=True)\n"
    )
    missing = str(tmp_path / "missing.csv")  # exits with an error, after numpy

    threads = json.loads(_run(code, missing, "--scheme", missing, check=False))

    assert threads
    assert set(threads) == {1}
