"""Helpers for the engine tests (no database, no Django)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from ranking.simulate import matrix_to_results


def frame_from(
    values, *, task="T1", metric="DSC", algorithms=None, target=None
) -> pd.DataFrame:
    """A results table from a (cases x algorithms) matrix; NaN -> empty value."""
    frame = matrix_to_results(
        np.asarray(values, dtype=float), task=task, metric=metric, algorithms=algorithms
    )
    if target is not None:
        frame.insert(1, "target", target)
    frame["value"] = ["" if np.isnan(v) else repr(float(v)) for v in frame["value"]]
    return frame


@pytest.fixture
def make_frame():
    return frame_from
