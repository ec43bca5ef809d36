"""A published analysis re-run from its public downloads with the engine's own
command line gives the published output byte for byte (issue 27, item 4)."""

import hashlib
import subprocess
import sys
from pathlib import Path

import pytest
from django.urls import reverse

from publicrecord.publication import publish_analysis
from tests.publicrecord.publishing import analysed

pytestmark = pytest.mark.django_db
ROOT = Path(__file__).resolve().parents[2]  # where `ranking` is importable


def test_rerun_from_downloads_gives_the_published_bytes(
    call, organizer, chair, client, tmp_path
):
    registration, run = analysed(call, organizer, chair)
    publication = publish_analysis(run=run, actor=organizer)
    page = client.get(reverse("publicrecord:results", args=[registration.identifier]))
    files = {}
    for download in page.context["downloads"]:
        files[download.name] = b"".join(client.get(download.url))
        if download.sha256:
            assert hashlib.sha256(files[download.name]).hexdigest() == download.sha256
    (tmp_path / "results.csv").write_bytes(files["results.csv"])
    (tmp_path / "scheme.json").write_bytes(files["scheme.json"])
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "ranking",
            tmp_path / "results.csv",
            "--scheme",
            tmp_path / "scheme.json",
            "--seed",
            str(run.seed),
            "--output",
            tmp_path / "rerun.json",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    rerun = (tmp_path / "rerun.json").read_bytes()
    assert rerun == files["output.json"]
    assert hashlib.sha256(rerun).hexdigest() == publication.output_sha256
    # the page prints the command that was just run
    assert f"--seed {run.seed} --output rerun.json" in page.content.decode()
