import io
from collections import Counter

import numpy as np
import pandas as pd
import pytest

from analysis import ingest
from registry.registration import register_challenge
from registry.schemes import set_task_scheme
from tests.factories import ChallengeFactory, TaskFactory
from tests.registry.helpers import fill_proposal
from tests.schemes import msd_scheme

SCHEME = msd_scheme(
    without=("targets",),
    uncertainty={"bootstrap": 50, "seed": 7, "rank_ci": ["bootstrap"]},
)


@pytest.fixture
def calls(monkeypatch) -> Counter:
    """How often the parser, the checks and the stored-form reader ran."""
    counted = Counter()
    for name in ("read_upload", "validated", "read_normalised"):
        original = getattr(ingest, name)

        def counting(*args, _name=name, _original=original, **kwargs):
            counted[_name] += 1
            return _original(*args, **kwargs)

        monkeypatch.setattr(ingest, name, counting)
    return counted


@pytest.fixture
def registration(call, organizer, chair):
    """A registered two-task challenge whose tasks rank DSC by Wilcoxon tests."""
    challenge = ChallengeFactory(call=call, owner=organizer, name="Decathlon")
    for name in ("Brain", "Heart"):
        TaskFactory(challenge=challenge, name=name)
    fill_proposal(challenge, organizer)  # 100 test cases, metrics DSC and NSD
    for task in challenge.tasks.all():
        set_task_scheme(task=task, scheme=SCHEME, actor=organizer)
    challenge.status = "accepted"
    challenge.save()
    return register_challenge(challenge=challenge, actor=chair)


def results_csv(
    *,
    tasks=("Brain", "Heart"),
    algorithms=("A1", "A2", "A3", "A4"),
    n_cases=100,
    metrics=("DSC", "NSD"),
    seed=0,
    edit=None,
) -> bytes:
    """Simulated results: A1 best, A4 worst, case difficulty shared by everyone."""
    rng = np.random.default_rng(seed)
    rows = []
    for task in tasks:
        difficulty = rng.uniform(0.5, 0.95, n_cases)
        for a_index, algorithm in enumerate(algorithms):
            for c in range(n_cases):
                for metric in metrics:
                    value = difficulty[c] - 0.03 * a_index + rng.normal(0, 0.02)
                    rows.append(
                        {
                            "task": task,
                            "case": f"case{c:03d}",
                            "algorithm": algorithm,
                            "metric": metric,
                            "value": round(float(np.clip(value, 0, 1)), 4),
                        }
                    )
    frame = pd.DataFrame(rows).astype({"value": object})
    if edit is not None:
        frame = edit(frame)
    buffer = io.StringIO()
    frame.to_csv(buffer, index=False)
    return buffer.getvalue().encode()


EXPLORATORY_SCHEME = {
    "metric": "DSC",
    "higher_is_better": True,
    "method": "aggregate_then_rank",
    "uncertainty": {"bootstrap": 200, "seed": 7},
}


def small_results_csv(*, cases: int = 12, algorithms=("A", "B", "C")) -> bytes:
    """A tiny one-task table (task Brain, metric DSC) with no missing values."""
    lines = ["task,case,algorithm,metric,value"]
    for case in range(cases):
        for index, algorithm in enumerate(algorithms):
            value = 0.5 + 0.1 * index + 0.01 * ((case * 7 + index) % 5)
            lines.append(f"Brain,c{case:03d},{algorithm},DSC,{value:.3f}")
    return ("\n".join(lines) + "\n").encode()


@pytest.fixture
def results(registration, organizer):
    raw = ingest.read_upload("results.csv", small_results_csv())
    return ingest.commit_results(
        registration=registration,
        table=ingest.checked(raw),
        original_name="results.csv",
        actor=organizer,
    )


def upload(client, identifier: str, name: str, data: bytes, *, commit: bool = True):
    suffix = "?commit=true" if commit else ""
    file = io.BytesIO(data)
    file.name = name
    return client.post(
        f"/api/v1/registrations/{identifier}/results/{suffix}",
        {"file": file},
        format="multipart",
    )
