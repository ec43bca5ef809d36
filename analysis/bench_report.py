"""``make bench-report``: the PDF report from a stored analysis, timed against
the way the report was rendered before (PNG figures at 200 dpi, commit
``BASELINE_COMMIT``), in the same run on the same machine.

Two scenarios: the MSD demo (8 teams, 2 tasks with 10 targets, 2 metrics) and
19 algorithms x 10 tasks (bootstrap 1000, two rank-interval methods). The
analysis is computed once, untimed; each rendering runs in a fresh process so
its peak memory (max RSS) is its own. Prints wall and CPU seconds (all, and of
the main process), the wall time expected without other load ("idle": main
CPU + worker CPU / CPUs), peak MiB, pages, the load average when each
rendering started (on a shared machine wall time counts the other
processes, CPU time does not) and the ratio baseline / now.
Targets (issue 11): MSD <= 5 s, 19 x 10 <= 10 s and <= 500 MB.

Then the command-line form, ``manage.py report`` (start-up, analysis, figures
and PDF), timed against the same command of ``CLI_BASELINE_COMMIT`` (a copy of
that commit's tree, the same Python environment), each in a fresh process:
the MSD demo and 40 algorithms x 20 tasks (bootstrap 1000). Targets (issue
11): MSD <= 6 s, 40 x 20 <= 20 s. ``--only stored`` or ``--only cli`` runs one
of the two parts.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

BASELINE_COMMIT = "c19c4ad"
CLI_BASELINE_COMMIT = "098bce7"  # before the command-line form was sped up
ROOT = Path(__file__).resolve().parents[1]

SCENARIOS = {
    "MSD demo (8 x 2 tasks, 10 targets, 2 metrics)": "msd",
    "19 algorithms x 10 tasks (b = 1000)": "grid",
}
CLI_SCENARIOS = {
    "MSD demo (8 x 2 tasks, 10 targets, 2 metrics)": "msd",
    "40 algorithms x 20 tasks (b = 1000)": "grid40",
}
GRID_SCHEME = {
    "metric": "DSC",
    "higher_is_better": True,
    "missing": {"policy": "value", "value": 0},
    "method": "aggregate_then_rank",
    "consensus": "mean_rank",
    "uncertainty": {
        "bootstrap": 1000,
        "seed": 1,
        "rank_ci": ["bootstrap", "id_wilcoxon_one_sided"],
    },
}

_CHILD = """
import json, os, resource, sys, time
sys.path.insert(0, {root!r})
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.base")
import pandas as pd
frame = pd.read_csv({csv!r}, keep_default_na=True)
output = json.load(open({out!r}))
if {baseline!r}:
    sys.path.insert(0, {baseline!r})
    from baseline_reports import TitleInfo, build_report_data, render_report_pdf
else:
    from analysis.reports import TitleInfo, build_report_data, render_report_pdf
title = TitleInfo("bench", "-", "-", "-", "-", "-", "-", "-", 1)
wall, main = time.perf_counter(), time.process_time()
pdf = render_report_pdf(build_report_data(frame, output, title=title))
wall = time.perf_counter() - wall
main = time.process_time() - main
children = resource.getrusage(resource.RUSAGE_CHILDREN)
workers = children.ru_utime + children.ru_stime
cpu = main + workers
# VmHWM: this process's own peak; ru_maxrss would include the bench process
# it was started from (Linux keeps the high-water mark across exec)
try:
    status = open("/proc/self/status").read()
    own = int(status.split("VmHWM:")[1].split()[0])
except (OSError, IndexError):
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
peak = max(own, children.ru_maxrss) / 1024
import io
from pypdf import PdfReader
pages = len(PdfReader(io.BytesIO(pdf)).pages)
print(json.dumps({{"wall": wall, "cpu": cpu, "main": main, "workers": workers,
                   "peak": peak, "pages": pages, "bytes": len(pdf)}}))
"""


def _baseline_tree(directory: Path) -> Path:
    """The report and plot packages of ``BASELINE_COMMIT`` as importable
    ``baseline_reports`` / ``baseline_plots`` packages."""
    for name in ("reports", "plots"):
        target = directory / f"baseline_{name}"
        target.mkdir()
        listing = subprocess.run(
            [
                "git",
                "-C",
                str(ROOT),
                "ls-tree",
                "--name-only",
                f"{BASELINE_COMMIT}:analysis/{name}",
            ],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.split()
        for file in listing:
            text = subprocess.run(
                [
                    "git",
                    "-C",
                    str(ROOT),
                    "show",
                    f"{BASELINE_COMMIT}:analysis/{name}/{file}",
                ],
                capture_output=True,
                text=True,
                check=True,
            ).stdout
            text = text.replace(
                "from analysis import plots", "import baseline_plots as plots"
            )
            (target / file).write_text(text)
    return directory


def _scenario(kind: str, directory: Path) -> tuple[Path, dict]:
    """Results CSV of a scenario (written once) and its scheme."""
    from ranking import simulate

    if kind == "msd":
        from demo.story import MSD_SCHEME, simulated_msd_results

        frame, scheme = simulated_msd_results(), MSD_SCHEME
    else:
        size = (20, 40) if kind == "grid40" else (10, 19)
        frame = simulate.msd_like(
            n_tasks=size[0], n_algorithms=size[1], n_cases=60, seed=0
        )
        scheme = GRID_SCHEME
    csv = directory / f"{kind}.csv"
    frame.to_csv(csv, index=False)
    return csv, scheme


def _data(kind: str, directory: Path) -> tuple[Path, Path]:
    """Results CSV and stored analysis output of a scenario (untimed)."""
    import pandas as pd

    from ranking import run_analysis

    csv, scheme = _scenario(kind, directory)
    out = directory / f"{kind}.json"
    frame = pd.read_csv(csv, keep_default_na=True)
    out.write_text(json.dumps(run_analysis(frame, scheme).to_json_dict()))
    return csv, out


def _render(csv: Path, out: Path, baseline: str) -> dict[str, float]:
    code = _CHILD.format(root=str(ROOT), csv=str(csv), out=str(out), baseline=baseline)
    load = os.getloadavg()[0]
    result = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "MPLBACKEND": "Agg"},
    )
    return {**json.loads(result.stdout.strip().splitlines()[-1]), "load": load}


def _idle(row: dict[str, float]) -> float:
    """Wall time the rendering would take on this machine without other load:
    the main process's CPU time plus the workers' spread over the CPUs (the
    figures are the parallel part). A shared machine's wall time also counts
    the time other processes hold the CPUs."""
    return row["main"] + row["workers"] / max(1, os.cpu_count() or 1)


def _commit_tree(commit: str, directory: Path) -> Path:
    """A copy of the project's tree at ``commit`` (no history)."""
    target = directory / f"tree-{commit}"
    target.mkdir()
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", commit], capture_output=True, check=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(target)], input=archive, check=True)
    return target


def _command(tree: Path, csv: Path, scheme: Path, pdf: Path) -> dict[str, float]:
    """``manage.py report`` of ``tree`` in a fresh process: wall and CPU
    seconds and peak MiB of the command and its figure workers (their own, not
    this process's: ``ranking.benchmark.measured_run``), pages, bytes."""
    from pypdf import PdfReader

    from ranking.benchmark import measured_run

    env = {**os.environ, "MPLBACKEND": "Agg"}
    env["DJANGO_SETTINGS_MODULE"] = "config.settings.base"
    load = os.getloadavg()[0]
    args = ["report", str(csv), "--scheme", str(scheme), "--output", str(pdf)]
    wall, cpu, peak = measured_run(
        str(tree / "manage.py"), args, module=False, cwd=tree, env=env
    )
    data = pdf.read_bytes()
    return {
        "wall": wall,
        "cpu": cpu,
        "peak": peak,  # the largest resident set of the command or a worker
        "pages": len(PdfReader(io.BytesIO(data)).pages),
        "bytes": len(data),
        # a shared machine's wall time counts the other processes: the load
        # when the command started says how much (CPU time does not)
        "load": load,
    }


def _machine() -> str:
    return (
        f"machine: {platform.node()} {platform.machine()}, "
        f"{os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f}; "
        f"python {platform.python_version()}"
    )


# column → (width, cell of a measured row)
_COLUMNS: dict[str, tuple[int, Callable[[dict[str, float]], str]]] = {
    "wall s": (7, lambda r: f"{r['wall']:.1f}"),
    "CPU s": (7, lambda r: f"{r['cpu']:.1f}"),
    "main s": (7, lambda r: f"{r['main']:.1f}"),
    "idle s": (7, lambda r: f"{_idle(r):.1f}"),
    "peak MiB": (9, lambda r: f"{r['peak']:.0f}"),
    "pages": (6, lambda r: f"{r['pages']:d}"),
    "MB": (6, lambda r: f"{r['bytes'] / 1e6:.1f}"),
    "load": (5, lambda r: f"{r['load']:.1f}"),
}


def _print_header(columns: list[str]) -> None:
    cells = " ".join(f"{c:>{_COLUMNS[c][0]}}" for c in columns)
    print(f"{'scenario':48} {'way':9} {cells}")


def _print_rows(label: str, rows: dict[str, dict], columns: list[str]) -> None:
    for way, r in rows.items():
        cells = " ".join(f"{_COLUMNS[c][1](r):>{_COLUMNS[c][0]}}" for c in columns)
        print(f"{label:48} {way:9} {cells}")


def _bench_command(directory: Path) -> None:
    """The command-line form, now and at ``CLI_BASELINE_COMMIT``."""
    trees = {"before": _commit_tree(CLI_BASELINE_COMMIT, directory), "now": ROOT}
    print(f"\nmanage.py report (analysis included); before = {CLI_BASELINE_COMMIT}")
    print(_machine())
    columns = ["wall s", "CPU s", "peak MiB", "pages", "MB", "load"]
    _print_header(columns)
    for label, kind in CLI_SCENARIOS.items():
        csv, scheme = _scenario(kind, directory)
        scheme_file = directory / f"{kind}-scheme.json"
        scheme_file.write_text(json.dumps(scheme))
        rows = {
            way: _command(tree, csv, scheme_file, directory / f"{kind}-{way}.pdf")
            for way, tree in trees.items()
        }
        _print_rows(label, rows, columns)
        wall = rows["before"]["wall"] / rows["now"]["wall"]
        cpu = rows["before"]["cpu"] / rows["now"]["cpu"]
        print(
            f"{label:48} ratio before/now: wall {wall:.2f}x, CPU {cpu:.2f}x"
            f" (load {os.getloadavg()[0]:.1f})"
        )


def _bench_stored(directory: Path) -> None:
    """From a stored analysis to the PDF, now and as at ``BASELINE_COMMIT``."""
    baseline = str(_baseline_tree(directory))
    print(_machine())
    columns = list(_COLUMNS)
    _print_header(columns)
    for label, kind in SCENARIOS.items():
        csv, out = _data(kind, directory)
        rows = {"before": _render(csv, out, baseline), "now": _render(csv, out, "")}
        _print_rows(label, rows, columns)
        ratio = rows["before"]["wall"] / rows["now"]["wall"]
        cpu = rows["before"]["cpu"] / rows["now"]["cpu"]
        idle = _idle(rows["before"]) / _idle(rows["now"])
        print(
            f"{label:48} ratio before/now: wall {ratio:.2f}x, CPU {cpu:.2f}x,"
            f" idle {idle:.2f}x"
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="bench_report", description=__doc__)
    parser.add_argument("--only", choices=("stored", "cli"), default=None)
    only = parser.parse_args(argv).only
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.base")
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()
    directory = Path(tempfile.mkdtemp(prefix="bench-report-"))
    try:
        if only != "cli":
            _bench_stored(directory)
        if only != "stored":
            _bench_command(directory)
    finally:
        shutil.rmtree(directory, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
