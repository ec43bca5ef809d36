"""The quality profile of a registered challenge: documented criteria, each met,
not met or not yet applicable, with its evidence and a link — no single score.

Criteria (also in docs/public-record.md), evaluated on the latest registered
version unless said otherwise:

1. `design_complete` — every parameter of the design (every task-level one for
   every task) is answered or marked not applicable with a reason; the group
   "Challenge outcome" (participants, results, report) is reported after the
   challenge and not counted.
2. `no_open_design_warnings` — the automatic design checks of `reviews.checks`
   report no warning or error on the registered design.
3. `reviewed_by_required_reviewers` — distinct reviewers who submitted a review
   (withdrawn assignments excluded) reach the call's minimum of technical and
   of clinical reviewers, with at least one clinical reviewer whatever the
   call's minimum.
4. `registered_before_data_release` — version 1 was registered (UTC date)
   before the earliest data release in the registered schedule (parameter
   "Challenge schedule": an event that mentions "release" and not "result").
   Not applicable (null) when the schedule names no data release.
5. `amendments_approved_justified` — every version after the first comes from
   an approved amendment and carries a justification.
6. `results_analysed_as_registered` — the published result (the latest public
   publication of an analysis of the registered scheme, docs/public-record.md
   §6) reports no critical deviation. Null while no result is public
   (unpublished and embargoed analyses are not mentioned).
"""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import asdict, dataclass
from typing import Any

from django.urls import reverse

from registry.completeness import StoredAnswer, compute_completeness
from registry.design import Design
from registry.models import AmendmentStatus, Registration, RegistrationVersion
from registry.parameters import Role
from reviews.checks import checks_for
from reviews.enums import ACTIVE_ASSIGNMENT_STATES, ReviewerRole
from reviews.models import Review

from .selectors import current_results

BLOCKING_SEVERITIES = ("error", "warning")


@dataclass(frozen=True)
class Criterion:
    code: str
    label: str
    met: bool | None  # None: not yet applicable
    evidence: str
    link: str

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def _public_url(registration: Registration, anchor: str = "") -> str:
    url = reverse("registry:public-detail", args=[registration.identifier])
    return f"{url}#{anchor}" if anchor else url


# --- 1. completeness -------------------------------------------------------------


def _stored(entry: dict[str, Any]) -> StoredAnswer:
    return StoredAnswer(entry.get("value"), entry.get("not_applicable", ""))


def design_complete(registration: Registration, design: dict[str, Any]) -> Criterion:
    answers: dict[tuple[int | None, int], StoredAnswer] = {
        (None, e["number"]): _stored(e) for e in design.get("answers", [])
    }
    name_number = Role.CHALLENGE_NAME.number
    if design.get("name"):  # the name lives on the challenge row
        answers.setdefault((None, name_number), StoredAnswer(design["name"]))
    tasks = list(enumerate(design.get("tasks", [])))
    for index, task in tasks:
        for entry in task.get("answers", []):
            answers[(index, entry["number"])] = _stored(entry)
    result = compute_completeness(
        answers=answers,
        tasks=[(index, task["name"]) for index, task in tasks],
        threshold_percent=100,
    )
    entries = result.design_entries
    missing = [e for e in entries if not e.done]
    evidence = (
        f"{len(entries) - len(missing)} of {len(entries)} design answers given or "
        "marked not applicable"
    )
    if missing:
        names = [
            f"{e.parameter.number} {e.parameter.name}"
            + (f" (task {e.task_name})" if e.task_name else "")
            for e in missing[:5]
        ]
        more = f" and {len(missing) - 5} more" if len(missing) > 5 else ""
        evidence += f"; missing: {', '.join(names)}{more}."
    else:
        evidence += "."
    return Criterion(
        "design_complete",
        "Design complete (every applicable parameter answered)",
        not missing and bool(tasks),
        evidence if tasks else "The design has no task.",
        _public_url(registration),
    )


# --- 2. design checks ------------------------------------------------------------


def design_checks(registration: Registration, design: dict[str, Any]) -> Criterion:
    checks = checks_for(Design.from_dict(design))
    open_checks = [c for c in checks if c.severity in BLOCKING_SEVERITIES]
    if open_checks:
        shown = "; ".join(
            (f"{c.task}: " if c.task else "") + c.message for c in open_checks[:3]
        )
        more = f" (and {len(open_checks) - 3} more)" if len(open_checks) > 3 else ""
        evidence = f"{len(open_checks)} open: {shown}{more}"
    else:
        infos = len(checks)
        evidence = "No warning or error" + (
            f" ({infos} informational note{'s' if infos != 1 else ''})."
            if infos
            else "."
        )
    return Criterion(
        "no_open_design_warnings",
        "No open design-check warnings",
        not open_checks,
        evidence,
        _public_url(registration),
    )


# --- 3. reviews ------------------------------------------------------------------


def reviewed(registration: Registration) -> Criterion:
    challenge = registration.challenge
    call = registration.call
    pairs = set(
        # A withdrawn reviewer's reviews stop counting (conflict of interest).
        Review.objects.filter(
            assignment__challenge=challenge,
            assignment__status__in=ACTIVE_ASSIGNMENT_STATES,
        ).values_list("assignment__role", "assignment__reviewer_id")
    )
    technical = sum(1 for role, _ in pairs if role == ReviewerRole.TECHNICAL)
    clinical = sum(1 for role, _ in pairs if role == ReviewerRole.CLINICAL)
    need_technical = call.min_technical_reviewers
    need_clinical = max(1, call.min_clinical_reviewers)
    met = technical >= need_technical and clinical >= need_clinical
    evidence = (
        f"{technical} technical reviewer{'s' if technical != 1 else ''} "
        f"(required {need_technical}) and {clinical} clinical "
        f"reviewer{'s' if clinical != 1 else ''} (required {need_clinical}) "
        "submitted a review."
    )
    return Criterion(
        "reviewed_by_required_reviewers",
        "Reviewed by the required reviewers, including a clinical one",
        met,
        evidence,
        _public_url(registration),
    )


# --- 4. registered before the data release --------------------------------------


def release_date(design: dict[str, Any]) -> tuple[dt.date, str] | None:
    """The earliest data release of the registered schedule, with its label."""
    for entry in design.get("answers", []):
        if entry["number"] != Role.SCHEDULE.number or not entry.get("value"):
            continue
        events = []
        for event in entry["value"].get("events", []):
            label = str(event.get("event", "")).lower()
            if "release" in label and "result" not in label:
                try:
                    events.append(
                        (dt.date.fromisoformat(event["date"]), event["event"])
                    )
                except (KeyError, TypeError, ValueError):
                    continue
        return min(events) if events else None
    return None


def before_release(
    registration: Registration, first: RegistrationVersion, design: dict[str, Any]
) -> Criterion:
    found = release_date(design)
    registered_on = first.created.date()
    label = "Registered before the data release"
    if found is None:
        return Criterion(
            "registered_before_data_release",
            label,
            None,
            f"Registered on {registered_on}; the schedule names no data release.",
            _public_url(registration),
        )
    date, event = found
    met = registered_on < date
    return Criterion(
        "registered_before_data_release",
        label,
        met,
        f"Registered on {registered_on}; {event!r} on {date} "
        f"({'after' if met else 'not after'} the registration).",
        _public_url(registration, "versions"),
    )


# --- 5. amendments ---------------------------------------------------------------


def amendments(
    registration: Registration, versions: list[RegistrationVersion]
) -> Criterion:
    later = versions[1:]  # ordered by number: every amendment's version
    approved_versions = set(
        registration.amendments.filter(
            status=AmendmentStatus.APPROVED, version__isnull=False
        ).values_list("version_id", flat=True)
    )
    bad = [
        v.number
        for v in later
        if v.pk not in approved_versions or not v.justification.strip()
    ]
    post_hoc = [v.number for v in later if v.post_hoc]
    if not later:
        evidence = "No amendment: the design is unchanged since registration."
    elif bad:
        evidence = (
            f"Version(s) {', '.join(map(str, bad))} lack an approved amendment "
            "or a justification."
        )
    else:
        evidence = (
            f"{len(later)} amendment{'s' if len(later) != 1 else ''}, each approved "
            "by a chair with a justification"
        )
        evidence += (
            f"; approved after results: version(s) {', '.join(map(str, post_hoc))}."
            if post_hoc
            else "."
        )
    return Criterion(
        "amendments_approved_justified",
        "Amendments all approved and justified",
        not bad,
        evidence,
        _public_url(registration, "versions"),
    )


# --- 6. results ------------------------------------------------------------------


def analysed_as_registered(
    registration: Registration, design: dict[str, Any]
) -> Criterion:
    """Judged on the published result only: an unpublished or embargoed
    analysis is not public, so the profile neither counts nor mentions it."""
    label = "Results analysed with the registered scheme, no critical deviation"
    code = "results_analysed_as_registered"
    publication = (
        current_results()
        .filter(registration=registration)
        .select_related("run")
        .first()
    )
    if publication is None:
        link = _public_url(registration, "outcome")
        return Criterion(code, label, None, "No results published yet.", link)
    deviations = publication.run.deviations or []
    critical = [d for d in deviations if d.get("severity") == "critical"]
    day = publication.public_from or publication.created.date()
    evidence = (
        # the publication's number, not the run's database id
        f"The published result (publication {publication.number}, {day}): "
        f"{len(critical)} critical deviation{'s' if len(critical) != 1 else ''}"
    )
    if critical:
        codes = sorted({str(d.get("code")) for d in critical})
        evidence += f" ({', '.join(codes)})"
    link = (
        reverse("publicrecord:results", args=[registration.identifier]) + "#deviations"
    )
    return Criterion(code, label, not critical, evidence + ".", link)


# --- the profile -----------------------------------------------------------------


def quality_profile(registration: Registration) -> list[Criterion]:
    """Every documented criterion, in the documented order."""
    versions = list(registration.versions.order_by("number"))
    design = json.loads(versions[-1].canonical)["design"]
    return [
        design_complete(registration, design),
        design_checks(registration, design),
        reviewed(registration),
        before_release(registration, versions[0], design),
        amendments(registration, versions),
        analysed_as_registered(registration, design),
    ]
