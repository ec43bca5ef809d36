"""What ``make bench`` measures of a whole command (``ranking.benchmark``)."""

import json
import resource
import sys

import pytest

from ranking.benchmark import MEAN_SCHEME, ROOT, _run_command
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
