"""Benchmark: designs through the whole workflow, in code, step by step.

    python -m reviews.bench_workflow [--designs 20]   (settings: production)

Each design: create with one task, answer all 53 parameters (section by
section through `answer_section`, as the editor saves them; `--one-by-one`:
one `answer_parameter` per answer, as an API client does), submit, assign
three reviewers, three reviews, accept, register. Runs against the database
configured by DATABASE_URL inside a transaction that is rolled back at the end
(nothing is left behind), and prints per step the median and the worst time
and the queries per design.
Targets (issue 19): the whole workflow <= 250 ms, the register step <= 100 ms.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import time
from collections import defaultdict


class _RollbackError(Exception):
    pass


def run(
    designs: int, *, one_by_one: bool = False
) -> dict[str, list[tuple[float, int]]]:
    from django.contrib.auth import get_user_model
    from django.db import connection, transaction
    from django.test.utils import CaptureQueriesContext

    from registry import services
    from registry.parameters import BY_NUMBER, PARAMETERS
    from registry.registration import register_challenge
    from registry.sections import sections_at
    from reviews import services as reviews

    def user(username: str):
        # one e-mail domain each: a shared domain is a conflict of interest
        return get_user_model().objects.create_user(
            username, f"{username}@{username}.example.org"
        )

    steps: dict[str, list[tuple[float, int]]] = defaultdict(list)

    def step(label, func, *args, **kwargs):
        with CaptureQueriesContext(connection) as queries:
            started = time.perf_counter()
            result = func(*args, **kwargs)
            seconds = time.perf_counter() - started
        steps[label].append((seconds, len(queries)))
        return result

    def answer_all(challenge, organizer):
        """As the editor saves them: one `answer_section` per section and task,
        with the versions the form showed (none yet)."""
        steps_ = [(s, None) for s in sections_at("challenge")]
        steps_ += [(s, t) for t in challenge.tasks.all() for s in sections_at("task")]
        for section, task in steps_:
            numbers = [
                p.number
                for p in section.parameters
                if p.number != services.NAME_PARAMETER
            ]
            services.answer_section(
                challenge=challenge,
                task=task,
                actor=organizer,
                answers={
                    n: services.AnswerInput(BY_NUMBER[n].example_value) for n in numbers
                },
                seen_versions=dict.fromkeys(numbers, 0),
            )

    def answer_one_by_one(challenge, organizer):
        """As an API client does: one PUT (`answer_parameter`) per answer."""
        for parameter in PARAMETERS:
            if parameter.number == services.NAME_PARAMETER:
                continue
            tasks = [None] if parameter.level == "challenge" else challenge.tasks.all()
            for task in tasks:
                services.answer_parameter(
                    challenge=challenge,
                    task=task,
                    number=parameter.number,
                    value=parameter.example_value,
                    actor=organizer,
                    expected_version=0,
                )

    def review_all(challenge, reviewers):
        for user, role in reviewers:
            reviews.assign_reviewer(
                challenge=challenge, reviewer=user, role=role, actor=chair
            )
        for user, role in reviewers:
            reviews.submit_review(
                challenge=challenge,
                actor=user,
                recommendation="accept",
                confidence=4,
                comments="A clear design.",
                clinical_relevance=4 if role == "clinical" else None,
            )

    try:
        with transaction.atomic():
            call = services.create_call(slug="bench-workflow", title="Bench workflow")
            chair = user("bench-chair")
            call.chairs.add(chair)
            organizer = user("bench-organizer")
            reviewers = [
                (user("bench-tech-1"), "technical"),
                (user("bench-tech-2"), "technical"),
                (user("bench-clinical"), "clinical"),
            ]
            for n in range(designs):
                started = time.perf_counter()
                with CaptureQueriesContext(connection) as queries:
                    challenge = step(
                        "create",
                        services.create_challenge,
                        owner=organizer,
                        call=call,
                        name=f"Bench design {n}",
                    )
                    step(
                        "add task",
                        services.add_task,
                        challenge=challenge,
                        name="Brain",
                        actor=organizer,
                    )
                    step(
                        "53 answers",
                        answer_one_by_one if one_by_one else answer_all,
                        challenge,
                        organizer,
                    )
                    step(
                        "submit",
                        services.submit_challenge,
                        challenge=challenge,
                        actor=organizer,
                    )
                    step("3 assignments + 3 reviews", review_all, challenge, reviewers)
                    step(
                        "accept",
                        reviews.decide,
                        challenge=challenge,
                        actor=chair,
                        decision="accept",
                        letter="Accepted.",
                    )
                    challenge.refresh_from_db()
                    step(
                        "register", register_challenge, challenge=challenge, actor=chair
                    )
                steps["whole workflow"].append(
                    (time.perf_counter() - started, len(queries))
                )
            raise _RollbackError
    except _RollbackError:
        pass
    return steps


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--designs", type=int, default=20)
    parser.add_argument(
        "--one-by-one",
        action="store_true",
        help="answer with one call per answer (the API's way), not per section",
    )
    args = parser.parse_args()
    if not 1 <= args.designs <= 1000:
        raise SystemExit("--designs: between 1 and 1000.")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.production")
    import django

    django.setup()
    from django.db import connection

    steps = run(args.designs, one_by_one=args.one_by_one)
    print(
        f"{args.designs} designs, answers "
        f"{'one by one' if args.one_by_one else 'by section'}, {connection.vendor}, "
        f"{platform.machine()}, "
        f"{os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f}"
    )
    print("| step | median ms | worst ms | queries |")
    print("|---|---:|---:|---:|")
    for name, values in steps.items():
        seconds = [s for s, _ in values]
        print(
            f"| {name} | {statistics.median(seconds) * 1000:.0f} "
            f"| {max(seconds) * 1000:.0f} | {values[-1][1]} |"
        )


if __name__ == "__main__":
    main()
