"""The MSD demo taken through the whole life of a challenge.

Design with an executable MSD ranking scheme (seed `003`) → submission → review
by two technical and one clinical reviewer → acceptance → registration →
simulated results → the registered analysis with its report. Every step goes
through the real services, so the demo shows exactly what users would see.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
import pandas as pd
from django.db import transaction
from django.test import override_settings

from analysis import ingest
from analysis.models import AnalysisRun, ResultsVersion
from analysis.services import start_analysis
from publicrecord.publication import publish_analysis
from registry import services
from registry.enums import ChallengeStatus
from registry.models import Challenge, Registration, Task
from registry.parameters import Role
from registry.registration import register_challenge
from registry.schemes import set_task_scheme
from registry.test_set_plans import attach_plan
from reviews import services as reviews

# MSD (seed 003): per task and metric, Wilcoxon significance scores with N/A set
# to the worst value (0), ranks averaged over sub-tasks (organs here).
MSD_SCHEME = {
    "metric": ["DSC", "NSD"],
    "higher_is_better": True,
    "missing": {"policy": "value", "value": {"DSC": 0, "NSD": 0}},
    "method": "test_then_rank",
    "test": {"name": "wilcoxon", "alpha": 0.05, "p_adjust": "none"},
    "ties": "min",
    "targets": "mean_rank",
    "consensus": None,
    "uncertainty": {"bootstrap": 200, "seed": 2018, "rank_ci": ["bootstrap"]},
}
ORGANS = {
    "Development phase": {
        "brain": 266,
        "heart": 10,
        "hippocampus": 131,
        "liver": 70,
        "lung": 32,
        "pancreas": 139,
        "prostate": 16,
    },
    "Mystery phase": {"colon": 64, "hepatic vessel": 140, "spleen": 20},
}
ALGORITHMS = [f"team-{n:02d}" for n in range(1, 9)]
REVIEWERS = (
    ("reviewer1", "technical"),
    ("reviewer2", "technical"),
    ("clinician", "clinical"),
)


def simulated_msd_results(seed: int = 2018) -> pd.DataFrame:
    """Per-case DSC/NSD of eight teams: skill + organ/case difficulty + noise."""
    rng = np.random.default_rng(seed)
    skill = np.linspace(1.0, -0.4, len(ALGORITHMS))
    rows = []
    for task, organs in ORGANS.items():
        for organ, n_cases in organs.items():
            difficulty = rng.normal(0, 1, n_cases) + rng.normal(0, 0.5)
            for metric, offset in (("DSC", 1.6), ("NSD", 1.2)):
                noise = rng.normal(0, 0.7, (n_cases, len(ALGORITHMS)))
                logit = offset + skill[None, :] - difficulty[:, None] + noise
                values = 1 / (1 + np.exp(-logit))
                for c in range(n_cases):
                    for a, algorithm in enumerate(ALGORITHMS):
                        rows.append(
                            (
                                task,
                                organ,
                                f"{organ}-{c + 1:03d}",
                                algorithm,
                                metric,
                                f"{values[c, a]:.4f}",
                            )
                        )
    return pd.DataFrame(
        rows, columns=["task", "target", "case", "algorithm", "metric", "value"]
    )


def assign_demo_reviewers(challenge: Challenge, users: dict) -> None:
    """The chair assigns the three demo reviewers, each due one review period
    from today (the first assignment puts the proposal under review)."""
    for username, role in REVIEWERS:
        reviews.assign_reviewer(
            challenge=challenge,
            reviewer=users[username],
            role=role,
            actor=users["chair"],
        )


@transaction.atomic
def review_and_accept(challenge: Challenge, users: dict) -> None:
    chair = users["chair"]
    assign_demo_reviewers(challenge, users)
    for username, role in REVIEWERS:
        reviews.submit_review(
            challenge=challenge,
            actor=users[username],
            recommendation="accept",
            confidence=4,
            comments="A complete, executable design; the MSD "
            "significance ranking is pre-specified per metric.",
            clinical_relevance=5 if role == "clinical" else None,
        )
    reviews.decide(
        challenge=challenge,
        actor=chair,
        decision="accept",
        letter="Dear organizers, your challenge is accepted.",
    )


def submit_with_schemes(
    challenge: Challenge,
    users: dict,
    scheme_of: Callable[[Task], dict],
    plan: Mapping[str, Any] | None = None,
) -> Challenge:
    """A demo draft submitted by its organizer once each task is ranked by
    `scheme_of(task)` (and planned with the inputs `plan`, if given); any other
    state is left as it is."""
    if challenge.status != ChallengeStatus.DRAFT:
        return challenge
    owner = users["organizer"]
    for task in challenge.tasks.all():
        set_task_scheme(task=task, scheme=scheme_of(task), actor=owner)
        if plan is not None:
            attach_plan(task=task, inputs=plan, actor=owner)
    return services.submit_challenge(challenge=challenge, actor=owner)


@transaction.atomic
def put_under_review(
    challenge: Challenge,
    users: dict,
    *,
    scheme: dict,
    review: dict,
    plan: Mapping[str, Any] | None = None,
) -> Challenge:
    """Take a demo draft to an open review (idempotent): every task ranked by
    `scheme` (with a test-set plan of the inputs `plan`, if given), submitted,
    the three demo reviewers assigned and reviewer2's `review` (keywords of
    `reviews.submit_review`) in, so reviewer1 and the clinician each have a
    review to write and the chair a decision to wait for."""
    challenge = submit_with_schemes(challenge, users, lambda task: scheme, plan)
    if challenge.status == ChallengeStatus.SUBMITTED:
        assign_demo_reviewers(challenge, users)
        reviews.submit_review(challenge=challenge, actor=users["reviewer2"], **review)
        challenge.refresh_from_db()
    return challenge


def register_demo(
    challenge: Challenge, users: dict, scheme_of: Callable[[Task], dict]
) -> Registration | None:
    """Take a demo challenge from draft to registered, each task ranked by
    `scheme_of(task)`; a step already taken is skipped (idempotent)."""
    challenge = submit_with_schemes(challenge, users, scheme_of)
    if challenge.status == ChallengeStatus.SUBMITTED:
        review_and_accept(challenge, users)
        challenge.refresh_from_db()
    if challenge.status == ChallengeStatus.ACCEPTED:
        register_challenge(challenge=challenge, actor=users["chair"])
        challenge.refresh_from_db()
    return getattr(challenge, "registration", None)


def advance_msd(challenge: Challenge, users: dict) -> Registration | None:
    """Take the MSD demo from draft to an analysed registration (idempotent)."""
    owner = users["organizer"]
    registration = register_demo(challenge, users, lambda task: MSD_SCHEME)
    if registration is None:
        return None
    if not registration.results_versions.exists():
        results = commit_msd_results(registration, owner)
        with override_settings(JOBS_SYNCHRONOUS=True):  # finish before the end
            start_analysis(results=results, actor=owner)
    publish_demo(registration, owner)
    return registration


def commit_msd_results(registration: Registration, owner) -> ResultsVersion:
    """The simulated MSD results, uploaded to `registration` by `owner`."""
    return ingest.commit_results(
        registration=registration,
        table=ingest.checked(simulated_msd_results()),
        original_name="msd-simulated.csv",
        actor=owner,
        teams=dict.fromkeys(ALGORITHMS, "Demo university"),
    )


DEMO_PUBLICATION_NOTE = (
    "The analysis of the registered ranking scheme on the (simulated) demo "
    "results, published by the demo."
)


def publish_demo(registration: Registration, owner) -> None:
    """Publish the latest finished analysis of the registered scheme as the
    demo's result (once): the public sees the design beside its results."""
    if registration.publications.exists():
        return
    run = (
        AnalysisRun.objects.filter(
            results__registration=registration, exploratory=False, status="done"
        )
        .order_by("-pk")
        .first()
    )
    if run is not None:
        publish_analysis(run=run, actor=owner, note=DEMO_PUBLICATION_NOTE)


def latest_run(registration: Registration) -> AnalysisRun | None:
    return AnalysisRun.objects.filter(results__registration=registration).first()


def advance_robustmis(challenge: Challenge, users: dict) -> Registration | None:
    """Take RobustMIS to a registration with simulated results, case metadata
    and a finished case-characteristics analysis (seed 004 §5.4; idempotent)."""
    from characteristics import services as characteristics
    from characteristics.models import CaseModelRun

    from . import robustmis_cases as cases

    owner = users["organizer"]
    registration = register_demo(
        challenge, users, lambda task: dict(cases.SCHEME, metric=_first_metric(task))
    )
    if registration is None:
        return None
    if registration.results_versions.exists():
        publish_demo(registration, owner)
        return registration
    results_table, metadata_table = cases.simulate()
    results = ingest.commit_results(
        registration=registration,
        table=ingest.checked(results_table),
        original_name="robustmis-simulated.csv",
        actor=owner,
        teams=dict.fromkeys(cases.TEAMS, "Demo university"),
    )
    version = characteristics.commit_metadata(
        results=results,
        frame=metadata_table,
        original_name="robustmis-case-characteristics.csv",
        actor=owner,
    )
    with override_settings(JOBS_SYNCHRONOUS=True):  # finish before the command ends
        run = characteristics.start_case_model_run(
            metadata=version, spec=cases.SPEC, actor=owner
        )
        # the registered analysis after it: its report carries the section
        start_analysis(results=results, actor=owner)
    assert CaseModelRun.objects.get(pk=run.pk).status == "done"
    publish_demo(registration, owner)
    return registration


def _first_metric(task) -> str:
    """The first metric the task's design names."""
    answer = task.answers.filter(number=Role.METRICS.number).first()
    return answer.value["metrics"][0]["name"]
