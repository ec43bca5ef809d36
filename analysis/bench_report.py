"""``make bench-report``: the PDF report from a stored analysis, timed against
the way the report was rendered before (PNG figures at 200 dpi, commit
``BASELINE_COMMIT``), in the same run on the same machine.

Two scenarios: the MSD demo (8 teams, 2 tasks with 10 targets, 2 metrics) and
19 algorithms x 10 tasks (bootstrap 1000, two rank-interval methods). The
analysis is computed once, untimed; each rendering runs in a fresh process so
its peak memory (max RSS) is its own. Prints wall and CPU seconds (all, and of
the main process), the wall time expected without other load ("idle": main
CPU + worker CPU / CPUs), peak MiB, pages and the ratio baseline / now.
Targets (issue 11): MSD <= 5 s, 19 x 10 <= 10 s and <= 500 MB.
"""

from __future__ import annotations

import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

BASELINE_COMMIT = "c19c4ad"
ROOT = Path(__file__).resolve().parents[1]

SCENARIOS = {
    "MSD demo (8 x 2 tasks, 10 targets, 2 metrics)": "msd",
    "19 algorithms x 10 tasks (b = 1000)": "grid",
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


def _data(kind: str, directory: Path) -> tuple[Path, Path]:
    """Results CSV and stored analysis output of a scenario (untimed)."""
    from ranking import run_analysis, simulate

    if kind == "msd":
        from demo.story import MSD_SCHEME, simulated_msd_results

        frame, scheme = simulated_msd_results(), MSD_SCHEME
    else:
        frame = simulate.msd_like(n_tasks=10, n_algorithms=19, n_cases=60, seed=0)
        scheme = GRID_SCHEME
    csv, out = directory / f"{kind}.csv", directory / f"{kind}.json"
    frame.to_csv(csv, index=False)
    out.write_text(json.dumps(run_analysis(frame, scheme).to_json_dict()))
    return csv, out


def _render(csv: Path, out: Path, baseline: str) -> dict[str, float]:
    code = _CHILD.format(root=str(ROOT), csv=str(csv), out=str(out), baseline=baseline)
    result = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "MPLBACKEND": "Agg"},
    )
    return json.loads(result.stdout.strip().splitlines()[-1])


def _idle(row: dict[str, float]) -> float:
    """Wall time the rendering would take on this machine without other load:
    the main process's CPU time plus the workers' spread over the CPUs (the
    figures are the parallel part). A shared machine's wall time also counts
    the time other processes hold the CPUs."""
    return row["main"] + row["workers"] / max(1, os.cpu_count() or 1)


def main() -> int:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.base")
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()
    directory = Path(tempfile.mkdtemp(prefix="bench-report-"))
    try:
        baseline = str(_baseline_tree(directory))
        print(
            f"machine: {platform.node()} {platform.machine()}, "
            f"{os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f}; "
            f"python {platform.python_version()}"
        )
        print(
            f"{'scenario':48} {'way':9} {'wall s':>7} {'CPU s':>7} {'main s':>7} "
            f"{'idle s':>7} {'peak MiB':>9} {'pages':>6} {'MB':>6}"
        )
        for label, kind in SCENARIOS.items():
            csv, out = _data(kind, directory)
            rows = {"before": _render(csv, out, baseline), "now": _render(csv, out, "")}
            for way, r in rows.items():
                print(
                    f"{label:48} {way:9} {r['wall']:7.1f} {r['cpu']:7.1f} "
                    f"{r['main']:7.1f} {_idle(r):7.1f} "
                    f"{r['peak']:9.0f} {r['pages']:6d} {r['bytes'] / 1e6:6.1f}"
                )
            ratio = rows["before"]["wall"] / rows["now"]["wall"]
            cpu = rows["before"]["cpu"] / rows["now"]["cpu"]
            idle = _idle(rows["before"]) / _idle(rows["now"])
            print(
                f"{label:48} ratio before/now: wall {ratio:.2f}x, CPU {cpu:.2f}x,"
                f" idle {idle:.2f}x"
            )
    finally:
        shutil.rmtree(directory, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
