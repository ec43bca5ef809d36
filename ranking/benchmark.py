"""Engine benchmark: ``python -m ranking.benchmark`` (``make bench``).

One run prints, on the same machine and the same data:

(a) MSD scale, 19 algorithms x 17 tasks x 100 cases, test_then_rank
    (one-sided Wilcoxon, alpha 0.05), 1000 bootstrap samples: the analysis
    alone (target <= 1.0 s CPU) and the whole command ``python -m ranking``
    with its default robustness audit and leave-one-case-out (target <= 2 s
    CPU);
(b) 200 algorithms x 10 000 cases, aggregate_then_rank (mean), 1000 bootstrap
    samples, ``run_analysis`` end to end (target <= 3 s CPU);
(c) the small job, 5 algorithms x 50 cases, aggregate_then_rank, 1000
    bootstrap samples, as a whole process ``python -m ranking`` (target
    <= 0.3 s CPU);
(d) the test-set planner (issue 29): 10 values of n from 10 to 500, 10
    algorithms, 1000 simulated challenges per n, test_then_rank (one-sided
    Wilcoxon) with its id_wilcoxon_one_sided rank intervals (target <= 30 s on
    2 cores, judged as <= 30 s CPU, which bounds the wall time of an idle
    machine);
(e) (b)'s table through the whole command with its defaults (target <= 10 s
    CPU and <= 400 MiB peak RSS).

Targets are judged on CPU time (user + system of the process, from its own
rusage), which a busy machine inflates far less than wall time; both are
printed, with the load average at the start and the end. A command's peak
memory is its own high-water mark (VmHWM, which the command reports at exit),
not its ``ru_maxrss``: on Linux that includes the benchmark process's peak.
Each figure comes with the same measurement of a baseline engine (by default
engine 1.1.0, commit ``BASELINE_COMMIT``; ``--baseline COMMIT`` for another,
e.g. main before a change), extracted with ``git archive`` into a temporary
directory and run in a subprocess from there. Whole commands of the two
engines take turns (for (e) only with a baseline other than 1.1.0, whose (e)
takes a minute of CPU). For (a) and (b) come the naive baselines (one
``scipy.stats.wilcoxon`` call per ordered pair and sample; a pandas group-by
mean per sample), timed on the first samples of every task and extrapolated
linearly. The identity of the engine's and the naive baseline's decisions is
checked on those samples.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
import tracemalloc
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import scipy.stats

from ._core import MatrixRule, build_tasks, rank_matrix
from ._parallel import WORKERS_ENV, default_workers
from .bootstrap import BOOTSTRAP_BLOCK, block_rng, bootstrap_indices
from .run import run_analysis
from .scheme import parse_scheme
from .significance import adjust_pvalues, pairwise_wilcoxon
from .simulate import c_ideal, msd_like

SEED = 1
BASELINE_COMMIT = "c19c4ad9bc9e23952b4f5ee058743f35117489a3"  # engine 1.1.0
# Targets are judged on CPU time (user + system), which a busy machine
# inflates far less than wall time (issue 31).
TARGETS = {"a": 1.0, "a_command": 2.0, "b": 3.0, "c": 0.3, "d": 30.0, "e": 10.0}
TARGET_E_MIB = 400
PLAN_N = [10, 20, 30, 50, 75, 100, 150, 200, 300, 500]
MSD_SCHEME = {
    "metric": "DSC",
    "higher_is_better": True,
    "missing": {"policy": "value", "value": 0},
    "method": "test_then_rank",
    "test": {"name": "wilcoxon", "alpha": 0.05, "p_adjust": "none"},
    "ties": "min",
    "uncertainty": {"bootstrap": 1000, "seed": SEED},
}
MEAN_SCHEME = {
    "metric": "DSC",
    "higher_is_better": True,
    "method": "aggregate_then_rank",
    "uncertainty": {"bootstrap": 1000, "seed": SEED},
}
ROOT = Path(__file__).resolve().parents[1]


def _timed(fn: Callable[[], Any]) -> tuple[Any, float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    out = fn()
    return out, time.perf_counter() - wall, time.process_time() - cpu


def _peak_mib(fn: Callable[[], Any]) -> float:
    tracemalloc.start()
    try:
        fn()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return peak / 2**20


def _verdict(cpu_seconds: float, target: float) -> str:
    met = "met" if cpu_seconds <= target else "NOT met"
    return f"target <= {target:g} s CPU: {met}"


# ------------------------------------------------------------ baseline engine


def extract_baseline(into: Path, commit: str = BASELINE_COMMIT) -> Path | None:
    """The ``ranking`` package of ``commit`` under ``into`` (None without git)."""
    try:
        archive = subprocess.run(
            ["git", "-C", str(ROOT), "archive", commit, "ranking"],
            check=True,
            capture_output=True,
        ).stdout
        subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    except (OSError, subprocess.CalledProcessError):
        return None
    return into


_BASELINE_SCRIPT = """
import json, sys, time
import numpy as np, pandas as pd
from ranking import run_analysis
from ranking.simulate import msd_like
kind, scheme = sys.argv[1], json.loads(sys.argv[2])
if kind == "a":
    frame = msd_like(n_tasks=17, n_algorithms=19, n_cases=100, seed=0)
else:
    rng = np.random.default_rng(0)
    n_cases, m = 10_000, 200
    skill = rng.normal(0, 0.3, size=m)
    noise = rng.normal(0, 1, size=(n_cases, m))
    x = 1 / (1 + np.exp(-(1.0 + skill[None, :] + noise)))
    frame = pd.DataFrame({
        "task": "T1",
        "case": np.repeat(np.asarray([f"c{i:05d}" for i in range(n_cases)],
                                     dtype=object), m),
        "algorithm": np.tile(np.asarray([f"A{j:03d}" for j in range(m)],
                                        dtype=object), n_cases),
        "metric": "DSC", "value": x.ravel()})
t, c = time.perf_counter(), time.process_time()
run_analysis(frame, scheme, audit=False, leave_one_out=False)
print(json.dumps([time.perf_counter() - t, time.process_time() - c]))
"""


def _baseline_analysis(
    baseline: Path | None, kind: str, scheme: dict
) -> tuple[float, float] | None:
    if baseline is None:
        return None
    out = subprocess.run(
        [sys.executable, "-c", _BASELINE_SCRIPT, kind, json.dumps(scheme)],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(baseline)},
        # not the checkout: "python -c" puts the working directory ahead of
        # PYTHONPATH, and the checkout's own ranking would be timed instead
        cwd=str(baseline),
        check=True,
    )
    wall, cpu = json.loads(out.stdout)
    return float(wall), float(cpu)


# Runs a module (`-m`) or a script through runpy, as Python would, and writes,
# when it exits, the largest peak resident set (kB) of the process itself
# (VmHWM) and of the child processes it waited for (its workers) to the file
# descriptor given as its first argument. The child's rusage cannot say it:
# Linux carries the high-water mark of the memory a child leaves at exec (the
# benchmark's own, copied at fork) into the rusage of the new program, so a
# child of a large benchmark process would report the benchmark's peak.
_PEAK_RUNNER = """
import atexit, os, resource, runpy, sys
def _report_peak(fd=int(sys.argv[1])):
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            own = [int(line.split()[1]) for line in status if line.startswith("VmHWM:")]
    except OSError:
        own = []
    workers = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    os.write(fd, str(max(own[0], workers)).encode() if own else b"")
    os.close(fd)
atexit.register(_report_peak)
kind, target = sys.argv[2], sys.argv[3]
sys.argv = [target, *sys.argv[4:]]
if kind == "module":
    runpy.run_module(target, run_name="__main__", alter_sys=True)
else:
    runpy.run_path(target, run_name="__main__")
"""


def measured_run(
    target: str,
    args: list[str],
    *,
    module: bool,
    cwd: Path,
    env: dict[str, str],
) -> tuple[float, float, float]:
    """Wall seconds, CPU seconds (user + system of the process and the
    workers it waited for) and peak RSS (MiB) of running ``target`` (a module
    name when ``module``, else a script path) with ``args`` in a new process;
    CalledProcessError if it fails.

    The peak is the command's own (see ``_PEAK_RUNNER``), not ``ru_maxrss``,
    which would include the caller's peak; where there is no ``/proc`` (not
    Linux), ``ru_maxrss`` is all there is."""
    read_end, write_end = os.pipe()
    kind = "module" if module else "path"
    start = time.perf_counter()
    try:
        child = subprocess.Popen(
            [sys.executable, "-c", _PEAK_RUNNER, str(write_end), kind, target, *args],
            stdout=subprocess.DEVNULL,
            env=env,
            cwd=str(cwd),
            pass_fds=(write_end,),
        )
    finally:
        os.close(write_end)
    with os.fdopen(read_end, "rb") as reported:
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.perf_counter() - start
        own_kib = reported.read().strip()
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode:
        raise subprocess.CalledProcessError(child.returncode, child.args)
    cpu = usage.ru_utime + usage.ru_stime
    peak_kib = int(own_kib) if own_kib else usage.ru_maxrss
    return wall, cpu, peak_kib / 1024


def _run_command(pythonpath: Path, results: Path, scheme: Path) -> tuple[float, ...]:
    """Wall seconds, CPU seconds and peak RSS (MiB, the command's own) of one
    whole-process run of ``python -m ranking``."""
    return measured_run(
        "ranking",
        [str(results), "--scheme", str(scheme)],
        module=True,
        cwd=results.parent,
        env={**os.environ, "PYTHONPATH": str(pythonpath)},
    )


def _interleaved_commands(
    paths: list[Path | None], results: Path, scheme: Path, repeats: int
) -> list[tuple[float, float] | None]:
    """For each engine in ``paths`` (None: skipped) the fastest (wall, CPU) of
    ``repeats`` runs, the engines taking turns so that a change in the
    machine's load falls on all of them alike."""
    best: list[tuple[float, float] | None] = [None] * len(paths)
    for _ in range(repeats):
        for k, path in enumerate(paths):
            if path is None:
                continue
            wall, cpu, _ = _run_command(path, results, scheme)
            best[k] = min(best[k] or (wall, cpu), (wall, cpu), key=lambda t: t[1])
    return best


def _command_ratio(old: tuple[float, float] | None, new: tuple[float, float]) -> str:
    if old is None:
        return "n/a (no git)"
    return (
        f"{old[0]:.2f} s wall ({old[1]:.2f} s CPU); {old[0] / new[0]:.1f}x "
        f"({old[1] / new[1]:.1f}x CPU)"
    )


# ------------------------------------------------------------ naive baselines


def _first_draws(n_cases: int, n_boot: int, task: str, k: int) -> np.ndarray:
    """Case indices of the first ``k`` bootstrap samples of ``task`` (block 0)."""
    rng = block_rng(SEED, task, 0)
    return next(bootstrap_indices(n_cases, min(BOOTSTRAP_BLOCK, n_boot), rng=rng))[:k]


def _naive_significance(xb: np.ndarray, alpha: float) -> np.ndarray:
    m = xb.shape[1]
    sig = np.zeros((m, m), dtype=bool)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for i in range(m):
            for j in range(m):
                if i == j or not np.any(xb[:, i] - xb[:, j]):
                    continue  # p = 1
                p = scipy.stats.wilcoxon(
                    xb[:, i],
                    xb[:, j],
                    alternative="greater",
                    zero_method="wilcox",
                    correction=True,
                    method="asymptotic",
                ).pvalue
                sig[i, j] = p <= alpha
    return sig


def _time_engine(
    frame: pd.DataFrame, scheme: dict[str, Any], baseline: Path | None, label: str
) -> tuple[dict[str, Any], float, float, tuple[float, float] | None, float]:
    """The engine's analysis alone (no audit, no leave-one-case-out) on `frame`:
    its output, wall and CPU seconds, the baseline engine's (wall, CPU) on the same
    run (scenario `label`; None without a baseline) and the peak traced MiB."""

    def engine() -> dict[str, Any]:
        return run_analysis(
            frame, scheme, audit=False, leave_one_out=False
        ).to_json_dict()

    out, wall, cpu = _timed(engine)
    old = _baseline_analysis(baseline, label, scheme)
    return out, wall, cpu, old, _peak_mib(engine)


def scenario_a(
    n_boot: int,
    naive_samples: int,
    baseline: Path | None,
    work: Path,
    *,
    name: str,
    repeats: int,
) -> list[str]:
    frame = msd_like(n_tasks=17, n_algorithms=19, n_cases=100, seed=0)
    scheme = {**MSD_SCHEME, "uncertainty": {"bootstrap": n_boot, "seed": SEED}}
    out, wall, cpu, old, peak = _time_engine(frame, scheme, baseline, "a")

    results, scheme_file = work / "msd.csv", work / "msd.json"
    frame.to_csv(results, index=False)
    scheme_file.write_text(json.dumps(scheme))
    new_command, old_command = _interleaved_commands(
        [ROOT, baseline], results, scheme_file, repeats
    )
    assert new_command is not None
    command, command_cpu = new_command

    # Naive baseline on the first `naive_samples` draws of every task, and
    # identity of decisions on exactly those draws.
    parsed = parse_scheme(scheme)
    tasks = build_tasks(frame, parsed)
    rule = MatrixRule.from_scheme(parsed, "DSC")
    same_sig, same_rank, compared, naive_wall = True, True, 0, 0.0
    for task in tasks:
        x = task.values["DSC"][""]
        idx = _first_draws(x.shape[0], n_boot, task.name, naive_samples)
        start = time.perf_counter()
        naive_full = _naive_significance(x, 0.05)
        naive_boot = [_naive_significance(x[i], 0.05) for i in idx]
        naive_wall += time.perf_counter() - start
        sig_json = out["rankings"]["DSC"]["tasks"][task.name]["significance"]
        algs = task.algorithms
        engine_full = np.array(
            [
                [i != j and sig_json[a][b] for j, b in enumerate(algs)]
                for i, a in enumerate(algs)
            ]
        )
        same_sig &= bool(np.array_equal(engine_full, naive_full))
        counts = np.stack([np.bincount(r, minlength=x.shape[0]) for r in idx])
        p = adjust_pvalues(pairwise_wilcoxon(x, counts), method="none")
        engine_sig = np.nan_to_num(p, nan=1.0) <= 0.05
        engine_ranks, _ = rank_matrix(x, counts, rule)
        for b in range(len(idx)):
            same_sig &= bool(np.array_equal(engine_sig[b], naive_boot[b]))
            naive_rank = scipy.stats.rankdata(-naive_boot[b].sum(axis=1), method="min")
            same_rank &= bool(np.array_equal(engine_ranks[b], naive_rank))
            compared += 1
    naive_est = naive_wall / (1 + naive_samples) * (1 + n_boot)
    return [
        "(a) 19 algorithms x 17 tasks x 100 cases, test_then_rank (Wilcoxon, "
        f"alpha 0.05), {n_boot} bootstrap samples",
        f"    engine analysis alone (run_analysis, no audit/leave-one-out): "
        f"{wall:.2f} s wall, {cpu:.2f} s CPU; {_verdict(cpu, TARGETS['a'])}",
        f"    {name}, same run: {_command_ratio(old, (wall, cpu))} faster now",
        f"    whole command python -m ranking (default audit + leave-one-case-out, "
        f"CSV in, JSON out; fastest of {repeats}): {command:.2f} s wall "
        f"({command_cpu:.2f} s CPU); {_verdict(command_cpu, TARGETS['a_command'])}",
        f"    {name}'s command, same run: "
        f"{_command_ratio(old_command, (command, command_cpu))} faster now",
        f"    engine peak traced memory: {peak:.0f} MiB",
        "    naive baseline (scipy.stats.wilcoxon per ordered pair): timed on full "
        f"data + {naive_samples} samples per task = {naive_wall:.2f} s, extrapolated "
        f"to full data + {n_boot} samples: {naive_est:.0f} s; "
        f"{naive_est / wall:.0f}x slower than the engine",
        f"    identical significance matrices (full data, 17 tasks, and {compared} "
        f"bootstrap samples): {same_sig}; identical ranks: {same_rank}",
    ]


def _scenario_b_frame() -> pd.DataFrame:
    rng = np.random.default_rng(0)
    n_cases, m = 10_000, 200
    skill = rng.normal(0, 0.3, size=m)
    noise = rng.normal(0, 1, size=(n_cases, m))
    x = 1 / (1 + np.exp(-(1.0 + skill[None, :] + noise)))
    return pd.DataFrame(
        {
            "task": "T1",
            "case": np.repeat(
                np.asarray([f"c{i:05d}" for i in range(n_cases)], dtype=object), m
            ),
            "algorithm": np.tile(
                np.asarray([f"A{j:03d}" for j in range(m)], dtype=object), n_cases
            ),
            "metric": "DSC",
            "value": x.ravel(),
        }
    )


def scenario_b(
    n_boot: int, naive_samples: int, baseline: Path | None, *, name: str
) -> list[str]:
    frame = _scenario_b_frame()
    scheme = {**MEAN_SCHEME, "uncertainty": {"bootstrap": n_boot, "seed": SEED}}
    out, wall, cpu, old, peak = _time_engine(frame, scheme, baseline, "b")

    cases = sorted(set(frame["case"]))
    long = frame.set_index("case")
    task = build_tasks(frame, parse_scheme(scheme))[0]
    case_names = task.cases  # the engine's canonical case order
    idx = _first_draws(len(cases), n_boot, "T1", naive_samples)

    def naive() -> list[np.ndarray]:
        ranks = []
        for row in idx:
            drawn = long.loc[[case_names[i] for i in row]]
            means = drawn.groupby("algorithm")["value"].mean().sort_index()
            ranks.append(means.rank(method="min", ascending=False).to_numpy())
        return ranks

    naive_ranks, n_wall, _ = _timed(naive)
    naive_est = n_wall / naive_samples * n_boot
    rule = MatrixRule.from_scheme(parse_scheme(scheme), "DSC")
    counts = np.stack([np.bincount(r, minlength=len(cases)) for r in idx])
    engine_ranks, _ = rank_matrix(task.values["DSC"][""], counts, rule)
    identical = all(
        np.array_equal(engine_ranks[b], naive_ranks[b]) for b in range(len(idx))
    )
    del out
    return [
        "(b) 200 algorithms x 10 000 cases, aggregate_then_rank (mean), "
        f"{n_boot} bootstrap samples",
        "    engine run_analysis end to end (validation of 2 000 000 rows, exact "
        "means, significance map of 39 800 ordered pairs, bootstrap): "
        f"{wall:.2f} s wall, {cpu:.2f} s CPU; {_verdict(cpu, TARGETS['b'])}",
        f"    {name}, same run: {_command_ratio(old, (wall, cpu))} faster now",
        f"    engine peak traced memory (run_analysis): {peak:.0f} MiB",
        "    naive baseline (pandas group-by mean per sample): "
        f"{naive_samples} samples in {n_wall:.2f} s, extrapolated to {n_boot}: "
        f"{naive_est:.0f} s; {naive_est / wall:.0f}x slower than the engine",
        f"    identical ranks on the {naive_samples} compared samples: {identical}",
    ]


def scenario_c(
    baseline: Path | None, work: Path, repeats: int, *, name: str
) -> list[str]:
    results, scheme_file = work / "small.csv", work / "small.json"
    c_ideal(seed=0).to_csv(results, index=False)
    scheme_file.write_text(json.dumps(MEAN_SCHEME))
    new, old = _interleaved_commands([ROOT, baseline], results, scheme_file, repeats)
    assert new is not None
    seconds, cpu = new
    return [
        "(c) small job: 5 algorithms x 50 cases, aggregate_then_rank, 1000 bootstrap "
        "samples, audit and leave-one-case-out, whole process python -m ranking "
        f"(fastest of {repeats})",
        f"    engine: {seconds:.2f} s wall ({cpu:.2f} s CPU); "
        f"{_verdict(cpu, TARGETS['c'])}",
        f"    {name}, same run: {_command_ratio(old, (seconds, cpu))} faster now",
    ]


def scenario_e(
    work: Path, repeats: int, baseline: Path | None = None, *, name: str = ""
) -> list[str]:
    """The whole command on (b)'s table with its defaults (audit, leave-one-out),
    the fastest (CPU) of ``repeats`` runs, as for (c); peak RSS the largest;
    turn about with ``baseline`` if given."""
    results, scheme_file = work / "large.csv", work / "large.json"
    _scenario_b_frame().to_csv(results, index=False)
    scheme_file.write_text(json.dumps(MEAN_SCHEME))
    engines = [ROOT] if baseline is None else [ROOT, baseline]
    runs: dict[Path, list[tuple[float, ...]]] = {path: [] for path in engines}
    for _ in range(max(1, repeats)):
        for path in engines:
            runs[path].append(_run_command(path, results, scheme_file))
    lines = [
        "(e) 200 algorithms x 10 000 cases, aggregate_then_rank (mean), 1000 "
        "bootstrap samples, whole process python -m ranking with its defaults "
        f"(robustness audit, leave-one-case-out; {results.stat().st_size >> 20} MiB "
        f"of CSV in, JSON out; fastest of {len(runs[ROOT])}: CPU "
        f"{', '.join(f'{run[1]:.2f}' for run in runs[ROOT])} s)"
    ]
    for path in engines:
        wall, cpu, _ = min(runs[path], key=lambda run: run[1])
        peak = max(run[2] for run in runs[path])
        memory = "met" if peak <= TARGET_E_MIB else "NOT met"
        who = "engine" if path == ROOT else f"{name}, same run"
        lines.append(
            f"    {who}: {wall:.2f} s wall ({cpu:.2f} s CPU); "
            f"{_verdict(cpu, TARGETS['e'])}; peak RSS {peak:.0f} MiB, the "
            f"command's own (target <= {TARGET_E_MIB} MiB: {memory})"
        )
    return lines


def scenario_d() -> list[str]:
    from .planner import run_plan

    spec = {
        "scheme": {**MSD_SCHEME, "uncertainty": {"rank_ci": ["id_wilcoxon_one_sided"]}},
        "model": {
            "kind": "parametric",
            "algorithms": 10,
            "gap": 0.02,
            "best": 0.9,
            "sd": 0.1,
            "correlation": 0.5,
        },
        "n": PLAN_N,
        "simulations": 1000,
        "seed": SEED,
    }
    plan, seconds, cpu = _timed(lambda: run_plan(spec))
    return [
        f"(d) test-set planner: {len(PLAN_N)} values of n ({PLAN_N[0]}-{PLAN_N[-1]}), "
        "10 algorithms, 1000 simulations per n, test_then_rank + "
        f"id_wilcoxon_one_sided intervals ({plan['n'][0]['interval_simulations']} "
        "simulations per n), blocks on one thread",
        f"    engine: {seconds:.2f} s wall ({cpu:.2f} s CPU); "
        f"{_verdict(cpu, TARGETS['d'])}; recommended n = {plan['recommended_n']}",
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m ranking.benchmark")
    parser.add_argument("--bootstrap", type=int, default=1000)
    parser.add_argument("--naive-samples", type=int, default=3)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--only", choices=["a", "b", "c", "d", "e"], default=None)
    parser.add_argument(
        "--baseline",
        default=BASELINE_COMMIT,
        help="the engine to compare with: a commit (default: engine 1.1.0)",
    )
    args = parser.parse_args(argv)
    name = (
        "today's engine (1.1.0)"
        if args.baseline == BASELINE_COMMIT
        else f"baseline {args.baseline}"
    )
    print(
        f"python {sys.version.split()[0]}, numpy {np.__version__}, "
        f"scipy {scipy.__version__}, pandas {pd.__version__}, "
        f"{os.cpu_count()} CPUs, {default_workers()} engine worker threads "
        f"({WORKERS_ENV} or min(cpu_count, 4)) for large significance maps "
        "(tasks and planner blocks run on one thread), load average at start "
        f"{', '.join(f'{v:.1f}' for v in os.getloadavg())}",
        flush=True,
    )
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        (work / "old").mkdir()
        baseline = extract_baseline(work / "old", args.baseline)
        # 1.1.0's (e) takes a minute of CPU a run: compared with later ones only
        e_baseline = None if args.baseline == BASELINE_COMMIT else baseline
        runs = {
            "c": lambda: scenario_c(baseline, work, args.repeats, name=name),
            "a": lambda: scenario_a(
                args.bootstrap,
                args.naive_samples,
                baseline,
                work,
                name=name,
                repeats=args.repeats,
            ),
            "b": lambda: scenario_b(
                args.bootstrap, args.naive_samples, baseline, name=name
            ),
            "d": scenario_d,
            "e": lambda: scenario_e(work, args.repeats, e_baseline, name=name),
        }
        for scenario, run in runs.items():
            if args.only in (None, scenario):
                for line in run():
                    print(line, flush=True)
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"process peak RSS (ru_maxrss, whole benchmark incl. data): {rss:.0f} MiB")
    print(f"load average at end {', '.join(f'{v:.1f}' for v in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
