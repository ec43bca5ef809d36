"""What ``make bench`` measures of a whole command (``ranking.benchmark``)."""

import json
import os
import resource
import sys

import pytest

from ranking.benchmark import MEAN_SCHEME, ROOT, _run_command, measured_run
from ranking.simulate import c_ideal

_MIB = 2**20


@pytest.mark.skipif(sys.platform != "linux", reason="VmHWM is read from /proc")
def test_run_command_peak_is_the_childs_own_not_the_benchmarks(tmp_path):
    # Arrange: raise this process's peak far above a small job's (~100 MiB);
    # a child's ru_maxrss would then report this peak, not its own
    results, scheme = tmp_path / "small.csv", tmp_path / "small.json"
    c_ideal(seed=0).to_csv(results, index=False)
    scheme.write_text(json.dumps(MEAN_SCHEME))
    ballast = b"x" * (400 * _MIB)  # touched pages: resident
    del ballast
    own_peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024

    # Act
    wall, cpu, peak = _run_command(ROOT, results, scheme)

    # Assert
    assert own_peak > 400
    assert 10 < peak < own_peak - 200
    assert cpu > 0
    assert wall > 0


@pytest.mark.skipif(sys.platform != "linux", reason="VmHWM is read from /proc")
def test_measured_run_of_a_script_counts_its_workers_not_the_caller(tmp_path):
    # Arrange: a script of ~40 MiB whose forked worker touches ~120 MiB more,
    # run from a caller whose own peak is above 400 MiB
    script = tmp_path / "job.py"
    script.write_text(
        "import multiprocessing as mp\n"
        "def work():\n"
        "    block = b'y' * (120 * 2**20)\n"
        "if __name__ == '__main__':\n"
        "    base = b'x' * (40 * 2**20)\n"
        "    worker = mp.get_context('fork').Process(target=work)\n"
        "    worker.start()\n"
        "    worker.join()\n"
    )
    ballast = b"x" * (400 * _MIB)
    del ballast
    caller_peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024

    # Act
    wall, cpu, peak = measured_run(
        str(script), [], module=False, cwd=tmp_path, env=dict(os.environ)
    )

    # Assert: the worker's peak (script + its block), not the caller's
    assert caller_peak > 400
    assert 120 < peak < caller_peak - 150
    assert cpu > 0
    assert wall > 0
