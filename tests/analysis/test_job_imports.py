"""Jobs are called by reference through one registry, and the job modules
import each other in one direction only: jobs ← services ← tasks (counting
imports inside functions), so no module imports itself back."""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
JOB_MODULES = ("analysis.jobs", "analysis.tasks", "analysis.services", "config.celery")


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(path: Path) -> set[str]:
    """Project modules imported anywhere in the file (functions included)."""
    package = module_name(path).rpartition(".")[0]
    if path.name == "__init__.py":
        package = module_name(path)
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, *([base] if base else [])])
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
    return found


def project_graph() -> dict[str, set[str]]:
    files = [
        p
        for top in ("analysis", "config", "registry", "ranking", "reviews", "accounts")
        for p in (ROOT / top).rglob("*.py")
        if "migrations" not in p.parts
    ]
    modules = {module_name(p): p for p in files}
    return {
        name: {m for m in imports_of(path) if m in modules and m != name}
        for name, path in modules.items()
    }


def reaches(graph: dict[str, set[str]], start: str, goal: str) -> bool:
    seen, stack = set(), [start]
    while stack:
        node = stack.pop()
        for target in graph.get(node, ()):
            if target == goal:
                return True
            if target not in seen:
                seen.add(target)
                stack.append(target)
    return False


@pytest.mark.parametrize("module", JOB_MODULES)
def test_job_modules_are_in_no_import_cycle(module):
    graph = project_graph()
    assert module in graph
    assert not reaches(graph, module, module), f"{module} imports itself back"


def test_the_queue_layer_imports_no_job_module():
    graph = project_graph()
    assert not graph["analysis.jobs"] & {"analysis.tasks", "analysis.services"}
    assert not reaches(graph, "config.celery", "analysis.services")


def test_jobs_are_registered_functions_called_by_reference():
    from analysis import jobs, services

    registered = jobs.registered_jobs()
    for function in (
        services.execute_analysis,
        services.run_chunk,
        services.merge_chunks,
    ):
        assert registered[jobs.job_name(function)] is function
    with pytest.raises(ValueError, match="not a registered job"):
        jobs.job_name(services.compute_output)
    with pytest.raises(LookupError, match=r"No job named 'analysis\.nothing'"):
        jobs.run_job("analysis.nothing")


STARTUP_CHECK = """
import sys
import django
django.setup()
heavy = ("celery", "pandas", "matplotlib", "reportlab", "scipy")
print(sorted(m for m in heavy if m in sys.modules))
print("publicrecord.deposit" in sys.modules)
from analysis import jobs
function = jobs.resolve_job("publicrecord.deposit.deposit_job")
from publicrecord import deposit
print(function is deposit.deposit_job)
try:
    jobs.resolve_job("json.tool.main")
except LookupError:
    print("json.tool" in sys.modules)
"""


def test_django_starts_without_job_modules_and_finds_jobs_by_name():
    """Apps register hooks and jobs by name: starting Django imports no job
    module, Celery or plotting stack; a job's module is imported when it is
    first looked up, and only when it belongs to an installed app."""
    import os
    import subprocess
    import sys

    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings.base"}
    lines = subprocess.run(
        [sys.executable, "-c", STARTUP_CHECK],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    assert lines == ["[]", "False", "True", "False"]
