import io

import numpy as np
import pandas as pd
import pytest

from analysis import ingest
from characteristics import services
from characteristics.models import CaseMetadataVersion
from tests.analysis.django.conftest import calls, registration  # noqa: F401 - fixtures

ALGORITHMS = ("A1", "A2", "A3")


def simulated(n_cases: int = 120, seed: int = 4) -> tuple[bytes, bytes]:
    """(results CSV, metadata CSV): blur and occlusion raise the odds of a DSC
    below 0.5; patients (12) share a random intercept."""
    rng = np.random.default_rng(seed)
    blur = rng.uniform(size=n_cases).round(3)
    occluded = rng.integers(0, 2, n_cases)
    patient = rng.integers(0, 12, n_cases)
    u = rng.normal(0, 0.8, 12)
    rows = []
    for shift, algorithm in zip((-0.5, 0.0, 0.4), ALGORITHMS, strict=True):
        eta = -1.0 + 2.0 * blur + 1.0 * occluded + u[patient] + shift
        fail = rng.uniform(size=n_cases) < 1 / (1 + np.exp(-eta))
        value = np.where(
            fail, rng.uniform(0.1, 0.45, n_cases), rng.uniform(0.55, 0.95, n_cases)
        )
        for c in range(n_cases):
            rows.append(
                ("Brain", f"c{c:03d}", algorithm, "DSC", round(float(value[c]), 4))
            )
            rows.append(("Heart", f"c{c:03d}", algorithm, "DSC", 0.8))
    results = pd.DataFrame(
        rows, columns=["task", "case", "algorithm", "metric", "value"]
    )
    meta = pd.DataFrame(
        {
            "case": [f"c{c:03d}" for c in range(n_cases)],
            "blur": blur,
            "occluded": occluded,
            "patient": [f"p{p:02d}" for p in patient],
        }
    )
    return results.to_csv(index=False).encode(), meta.to_csv(index=False).encode()


@pytest.fixture
def tables():
    return simulated()


@pytest.fixture
def results(registration, organizer, tables):  # noqa: F811 - fixture
    raw = ingest.read_upload("results.csv", tables[0])
    return ingest.commit_results(
        registration=registration,
        table=ingest.checked(raw),
        original_name="results.csv",
        actor=organizer,
    )


@pytest.fixture
def metadata(results, organizer, tables) -> CaseMetadataVersion:
    """The simulated metadata, committed as version 1 of the results'."""
    frame = services.read_metadata_upload("meta.csv", tables[1])
    return services.commit_metadata(
        results=results, frame=frame, original_name="meta.csv", actor=organizer
    )


@pytest.fixture
def client_in(client, organizer):
    client.force_login(organizer)
    return client


def metadata_file(data: bytes, name: str = "meta.csv"):
    file = io.BytesIO(data)
    file.name = name
    return file


SPEC = {
    "task": "Brain",
    "metric": "DSC",
    "outcome": {"type": "failure", "below": 0.5},
    "characteristics": ["blur", "occluded"],
    "groups": ["patient"],
    "algorithms": "all",
    "per_algorithm": True,
}

# SPEC as the page's form posts it
SPEC_FORM = {
    "spec-task": "Brain",
    "spec-metric": "DSC",
    "spec-outcome": "failure",
    "spec-direction": "below",
    "spec-threshold": "0.5",
    "spec-characteristics": ["blur", "occluded"],
    "spec-groups": ["patient"],
    "spec-algorithms": "all",
    "spec-per_algorithm": "on",
    "spec-missing": "failure",
    "spec-alpha": "0.05",
}
