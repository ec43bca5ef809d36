"""The layer rules of `docs/architecture.md`, checked on the source (AST).

Every import counts, also the ones inside functions: an import deferred into a
function is still a dependency, and hiding a cycle there is how cycles grow.
`ranking` ← `registry` ← `reviews`, `analysis` ← `demo`; nothing imports upward
and no app imports another app's views.
"""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
APPS = ("accounts", "registry", "reviews", "analysis", "characteristics", "audit")
APPS += ("publicrecord", "demo")
PROJECT = ("ranking", "casemodels", "config", *APPS)

# No cycle is tolerated (the jobs registry broke the last one).
KNOWN_CYCLES: set[frozenset[str]] = set()


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


@cache
def project_modules() -> dict[str, Path]:
    modules = {}
    for package in PROJECT:
        for path in (ROOT / package).rglob("*.py"):
            if "migrations" not in path.parts:
                modules[_module_name(path)] = path
    return modules


def _resolve(module: str, path: Path, node: ast.ImportFrom) -> list[str]:
    """The project modules an ``import``/``from … import`` names."""
    if node.level:
        package = module.split(".")
        if path.name != "__init__.py":
            package.pop()
        package = package[: len(package) - node.level + 1]
        base = ".".join([*package, node.module] if node.module else package)
    else:
        base = node.module or ""
    known = project_modules()
    # `from registry.exports import proposal_json` imports a module too.
    names = [f"{base}.{alias.name}" for alias in node.names]
    return [name for name in names if name in known] or [base]


@cache
def imports_of(module: str) -> frozenset[str]:
    """Project modules that `module` imports anywhere in its body."""
    path = project_modules()[module]
    return imports_in(path.read_text(), module, path)


def imports_in(source: str, module: str, path: Path) -> frozenset[str]:
    tree = ast.parse(source, filename=str(path))
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            found.update(_resolve(module, path, node))
    known = project_modules()
    return frozenset(
        _nearest_known(name, known) for name in found if name.split(".")[0] in PROJECT
    )


def _nearest_known(name: str, known: dict[str, Path]) -> str:
    while name not in known and "." in name:
        name = name.rsplit(".", 1)[0]
    return name


def _top(module: str) -> str:
    return module.split(".")[0]


# What each top-level package may import of the project (besides itself).
ALLOWED = {
    "ranking": set(),
    "audit": set(),
    # config's shared helpers (bounded JSON parser, health, celery app) are a
    # base layer; its site modules (urls, wsgi) should not be imported: TODO
    # narrow this to the helper modules (see branch architecture, f5689ac).
    "registry": {"ranking", "audit", "config"},
    # `createaccount` makes chairs of calls; config.site: SITE_URL in the
    # e-mail verification link
    "accounts": {"registry", "config"},
    "reviews": {"registry", "accounts", "audit", "config"},  # config.site: SITE_URL
    "analysis": {"registry", "ranking", "audit", "config"},
    "casemodels": {"ranking"},  # plain Python, like the engine
    "characteristics": {
        "registry",
        "ranking",
        "casemodels",
        "analysis",
        "audit",
        "config",
    },
    # The public record reads every app's services (statistics, quality).
    # ... and the engine's plain words for its codes (ranking.vocabulary).
    "publicrecord": {"registry", "reviews", "analysis", "accounts", "audit", "config"}
    | {"ranking"},
    "demo": set(PROJECT) - {"config"},
    "config": set(PROJECT),
}


# Benchmark scripts build their data from the demo; they are tools, not layers.
# TODO: move them under demo/ or scripts/.
SCRIPT_MODULES = {"analysis.bench_report"}


@pytest.mark.parametrize("package", sorted(ALLOWED))
def test_package_imports_only_lower_layers(package):
    offenders = sorted(
        f"{module} imports {target}"
        for module in project_modules()
        if _top(module) == package
        for target in imports_of(module)
        if _top(target) not in ALLOWED[package] | {package}
        and module not in SCRIPT_MODULES
    )
    assert offenders == []


def test_layer_table_covers_the_project():
    assert set(ALLOWED) == set(PROJECT)


def _is_view_module(module: str) -> bool:
    parts = module.split(".")
    return "views" in parts or parts[-1].startswith("api") or parts[-1] == "urls"


def test_no_app_imports_another_apps_views():
    offenders = sorted(
        f"{module} imports {target}"
        for module in project_modules()
        if _top(module) in APPS
        for target in imports_of(module)
        if _top(target) in APPS
        and _top(target) != _top(module)
        and _is_view_module(target)
    )
    assert offenders == []


def _cycles() -> list[frozenset[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    graph = {module: imports_of(module) for module in project_modules()}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in graph.get(node, ()):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = set()
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.add(member)
                if member == node:
                    break
            if len(component) > 1:
                components.append(frozenset(component))

    for node in graph:
        if node not in index:
            visit(node)
    return components


def test_no_import_cycle():
    cycles = [sorted(c) for c in _cycles() if c not in KNOWN_CYCLES]
    assert cycles == []


def test_import_graph_counts_imports_inside_functions():
    source = "def later():\n    from ..services import submit_challenge\n"
    path = ROOT / "registry" / "views" / "proposals.py"
    assert imports_in(source, "registry.views.proposals", path) == {"registry.services"}


def test_known_cycles_still_exist():
    # An exception that no longer applies must go, or it hides a new cycle.
    assert set(KNOWN_CYCLES) <= set(_cycles())
