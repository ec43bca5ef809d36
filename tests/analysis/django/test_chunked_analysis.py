"""Large analyses run their bootstrap in chunks: in process (no Celery) the same
chunk functions run one after another, and the merged output equals the
unchunked one byte for byte."""

import io
import json
from dataclasses import astuple
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.test import override_settings
from django.utils import timezone

from analysis import ingest
from analysis.chunking import chunk_ranks, merged_ranks, plan_chunks
from analysis.models import AnalysisChunk, AnalysisRun, AnalysisStatus
from analysis.services import (
    compute_output,
    merge_chunks,
    results_frame,
    run_chunk,
    start_analysis,
    store_chunks,
)
from tests.analysis.django.conftest import results_csv

pytestmark = pytest.mark.django_db

AGGREGATE = {
    "metric": ["DSC", "NSD"],
    "higher_is_better": True,
    "method": "aggregate_then_rank",
    "consensus": "mean_rank",
    "uncertainty": {"bootstrap": 250, "seed": 7},
}
TESTS = {
    "metric": "DSC",
    "higher_is_better": True,
    "method": "test_then_rank",
    "test": {"name": "wilcoxon", "alpha": 0.05, "p_adjust": "holm"},
    "uncertainty": {"bootstrap": 250, "seed": 7},
}
SCHEMES = {"Brain": AGGREGATE, "Heart": AGGREGATE}  # ranked together
CHUNKED = {"ANALYSIS_CHUNK_THRESHOLD": 1, "ANALYSIS_CHUNK_REPLICATES": 100}
UNCHUNKED = {"ANALYSIS_CHUNK_THRESHOLD": 10**15}


@pytest.fixture
def two_task_results(registration, organizer):
    raw = ingest.read_upload("results.csv", results_csv(n_cases=20))
    return ingest.commit_results(
        registration=registration,
        table=ingest.checked(raw),
        original_name="results.csv",
        actor=organizer,
    )


def _run(results, chair, capture, **settings):
    with override_settings(**settings), capture(execute=True):
        run = start_analysis(results=results, actor=chair, schemes=SCHEMES)
    run.refresh_from_db()
    return run


def _dumps(output) -> str:
    return json.dumps(output, sort_keys=True)


def test_chunked_analysis_in_process_equals_unchunked(
    two_task_results, chair, django_capture_on_commit_callbacks
):
    capture = django_capture_on_commit_callbacks
    chunked = _run(two_task_results, chair, capture, **CHUNKED)
    plain = _run(two_task_results, chair, capture, **UNCHUNKED)

    assert (chunked.status, chunked.progress, chunked.error) == ("done", 100, "")
    assert plain.status == "done"
    # 250 replicates = blocks [0, 1), [1, 2), [2, 3) of each (key, task)
    chunks = list(
        chunked.chunks.values_list("key", "task", "first_block", "stop_block")
    )
    assert sorted(chunks) == sorted(
        (key, task, b, b + 1)
        for key in ("DSC", "NSD")
        for task in ("Brain", "Heart")
        for b in range(3)
    )
    assert not plain.chunks.exists()
    assert not chunked.chunks.filter(ranks__isnull=False).exists()  # merged, freed
    assert chunked.merge_started is not None
    assert _dumps(chunked.output) == _dumps(plain.output)
    assert chunked.output["scheme"]["uncertainty"]["bootstrap"] == 250


def test_chunks_of_several_blocks_give_the_same_output(
    two_task_results, chair, django_capture_on_commit_callbacks
):
    capture = django_capture_on_commit_callbacks
    wide = _run(
        two_task_results,
        chair,
        capture,
        ANALYSIS_CHUNK_THRESHOLD=1,
        ANALYSIS_CHUNK_REPLICATES=150,  # rounded up to 2 blocks: [0, 2), [2, 3)
    )
    narrow = _run(two_task_results, chair, capture, **CHUNKED)
    assert sorted(set(wide.chunks.values_list("first_block", "stop_block"))) == [
        (0, 2),
        (2, 3),
    ]
    assert _dumps(wide.output) == _dumps(narrow.output)


def _running_chunked_run(results, chair, *, heartbeat=None):
    """A run claimed by a worker that stored its chunk rows but ran none yet."""
    run = AnalysisRun.objects.create(
        results=results,
        scheme=SCHEMES,
        exploratory=True,
        seed=7,
        requested_by=chair,
        status=AnalysisStatus.RUNNING,
        started=heartbeat or timezone.now(),
        heartbeat=heartbeat or timezone.now(),
    )
    specs = plan_chunks(
        results_frame(results), SCHEMES, seed=7, threshold=1, replicates=100
    )
    store_chunks(run.pk, specs)
    return run, [(run.pk, *astuple(c)) for c in specs]


def test_chunk_retried_recomputes_same_numbers_and_merge_runs_once(
    two_task_results, chair, django_capture_on_commit_callbacks
):
    capture = django_capture_on_commit_callbacks
    reference = _run(two_task_results, chair, capture, **CHUNKED)
    run, chunks = _running_chunked_run(two_task_results, chair)
    first, *others = chunks
    chunk = AnalysisChunk.objects.get(run=run, first_block=first[4], **_where(first))

    run_chunk(*first)
    stored = bytes(AnalysisChunk.objects.get(pk=chunk.pk).ranks)
    AnalysisChunk.objects.filter(pk=chunk.pk).update(finished=None, ranks=None)
    run_chunk(*first)  # redelivered after a lost acknowledgement
    again = bytes(AnalysisChunk.objects.get(pk=chunk.pk).ranks)
    run.refresh_from_db()
    progress = run.progress
    for args in others:
        run_chunk(*args)  # the last one merges
    run.refresh_from_db()
    finished = run.finished
    merge_chunks(run.pk)
    run_chunk(*first)

    assert stored == again
    assert progress == int(100 * 0.6 * 0.9 / 12)  # 1 of 12 chunks
    assert (run.status, run.progress) == ("done", 100)
    assert _dumps(run.output) == _dumps(reference.output)
    run.refresh_from_db()
    assert (run.status, run.finished) == ("done", finished)


def _where(args):
    return {"group": args[1], "key": args[2], "task": args[3]}


def test_resumed_chunked_run_reuses_finished_chunks(
    two_task_results, chair, django_capture_on_commit_callbacks
):
    capture = django_capture_on_commit_callbacks
    reference = _run(two_task_results, chair, capture, **CHUNKED)
    long_ago = timezone.now() - timedelta(hours=2)
    run, chunks = _running_chunked_run(two_task_results, chair, heartbeat=long_ago)
    for args in chunks[:2]:  # then the worker was lost
        run_chunk(*args)
    AnalysisRun.objects.filter(pk=run.pk).update(heartbeat=long_ago)
    kept = dict(run.chunks.filter(finished__isnull=False).values_list("pk", "finished"))

    with override_settings(**CHUNKED), capture(execute=True):
        call_command("resume_jobs", "--stale-minutes", "30", stdout=io.StringIO())

    run.refresh_from_db()
    assert len(kept) == 2
    assert run.status == "done"
    assert run.chunks.count() == 12
    assert dict(run.chunks.filter(pk__in=kept).values_list("pk", "finished")) == kept
    assert _dumps(run.output) == _dumps(reference.output)


def test_chunks_of_two_scheme_groups_merge_to_the_unchunked_output(
    two_task_results,
):
    frame = results_frame(two_task_results)
    schemes = {"Brain": AGGREGATE, "Heart": TESTS}
    specs = plan_chunks(frame, schemes, seed=3, threshold=1, replicates=100)
    computed = [
        (spec, chunk_ranks(lambda: frame, schemes, spec, seed=3, cache_key=("t",)))
        for spec in reversed(specs)  # any order
    ]
    merged = merged_ranks(computed)

    chunked = compute_output(frame, schemes, seed=3, bootstrap_ranks=merged)
    plain = compute_output(frame, schemes, seed=3)

    assert sorted({(s.group, s.key, s.task) for s in specs}) == [
        (0, "DSC", "Brain"),
        (0, "NSD", "Brain"),
        (1, "DSC", "Heart"),
    ]
    assert _dumps(chunked) == _dumps(plain)
    assert plan_chunks(frame, schemes, seed=3, threshold=10**12, replicates=100) == []


def test_the_watchdog_sends_again_a_chunk_whose_worker_died_at_its_next_pass(
    two_task_results, chair, django_capture_on_commit_callbacks
):
    """A worker died computing one chunk while others finished theirs: the
    run's heartbeat is fresh (its other chunks beat it), so the run is not
    stale; the chunk's own silence sends it again at the next pass (it waited
    for the whole run to go stale before)."""
    capture = django_capture_on_commit_callbacks
    reference = _run(two_task_results, chair, capture, **CHUNKED)
    run, chunks = _running_chunked_run(two_task_results, chair)
    lost, *others = chunks
    for args in others:
        run_chunk(*args)
    long_ago = timezone.now() - timedelta(minutes=5)
    AnalysisChunk.objects.filter(run=run, first_block=lost[4], **_where(lost)).update(
        heartbeat=long_ago  # started by the worker that died
    )
    run.refresh_from_db()
    assert (run.status, run.chunks.filter(finished=None).count()) == ("running", 1)

    out = io.StringIO()
    with override_settings(**CHUNKED), capture(execute=True):
        call_command("resume_jobs", "--stale-seconds", "60", stdout=out)

    run.refresh_from_db()
    assert "analysis chunks: 1 stalled chunk(s) sent again" in out.getvalue()
    assert (run.status, run.attempt) == ("done", 0)  # the run itself never resumed
    assert _dumps(run.output) == _dumps(reference.output)


def test_a_chunk_whose_job_beats_or_has_not_started_is_left_alone(
    two_task_results, chair
):
    run, chunks = _running_chunked_run(two_task_results, chair)
    beating = chunks[0]  # the others wait in the queue: no heartbeat
    AnalysisChunk.objects.filter(
        run=run, first_block=beating[4], **_where(beating)
    ).update(heartbeat=timezone.now())
    out = io.StringIO()
    call_command("resume_jobs", "--stale-seconds", "60", stdout=out)
    assert "analysis chunks: 0 stalled chunk(s) sent again []." in out.getvalue()
    assert run.chunks.filter(finished=None).count() == len(chunks)
