"""No parameter is named by its number outside the catalogue.

Logic names a parameter by its role (`registry.parameters.Role`); the number is
the catalogue's business. Demo data may key answers by the public numbers, and
tests may too.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("ranking", "config", "accounts", "registry", "reviews", "analysis")
PACKAGES += ("audit", "demo", "casemodels", "characteristics", "publicrecord")
EXEMPT = {
    "registry/parameters.py",  # the catalogue
    "registry/bias_checklist.py",  # BIAS item numbers, not parameters
    "demo/msd.py",  # demo designs: answers keyed by the public numbers
    "demo/robustmis.py",
    "demo/liver.py",
    "demo/fetal.py",
}
NUMBERS = range(1, 54)
# "parameter 44", "parameters 46, 48", "parameter-44": prose naming a number.
PROSE = re.compile(r"\bparameters?[ -]\(?\d", re.IGNORECASE)
LOOKUPS = {"BY_NUMBER", "get_parameter"}


def _is_number(node: ast.AST) -> bool:
    return (
        isinstance(node, ast.Constant)
        and type(node.value) is int
        and node.value in NUMBERS
    )


def _holds_numbers(node: ast.AST) -> bool:
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        return bool(node.elts) and all(_is_number(e) for e in node.elts)
    return _is_number(node)


def _names_number(node: ast.AST) -> bool:
    """`number`, `x.number`, `x["number"]`."""
    if isinstance(node, ast.Name):
        return node.id == "number"
    if isinstance(node, ast.Attribute):
        return node.attr == "number"
    if isinstance(node, ast.Subscript):
        key = node.slice
        return isinstance(key, ast.Constant) and key.value == "number"
    return False


def _callee(node: ast.Call) -> str:
    func = node.func
    return func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")


def _is_answer_call(node: ast.Call) -> bool:
    """A call about answers (not, say, registration version `number=1`)."""
    keywords = {k.arg for k in node.keywords}
    return (
        "answer" in _callee(node).lower()
        or bool(keywords & {"task", "value", "number__in"})
        or _callee(node) in {"filter", "exclude"}
    )


def _offence(node: ast.AST) -> str | None:
    """What names a parameter by its number in `node`, if anything."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return f"prose {node.value[:60]!r}" if PROSE.search(node.value) else None
    if isinstance(node, ast.Subscript):
        target = node.value
        named = isinstance(target, ast.Name) and target.id in LOOKUPS
        return "lookup by number" if named and _is_number(node.slice) else None
    if isinstance(node, ast.Call):
        if _callee(node) in LOOKUPS and node.args and _is_number(node.args[0]):
            return "lookup by number"
        numbered = [
            k.arg
            for k in node.keywords
            if k.arg in {"number", "number__in"} and _holds_numbers(k.value)
        ]
        return f"{numbered[0]}=…" if numbered and _is_answer_call(node) else None
    if isinstance(node, ast.Compare):
        sides = [node.left, *node.comparators]
        if any(map(_names_number, sides)) and any(map(_holds_numbers, sides)):
            return "comparison with a number"
        return None
    if isinstance(node, ast.Assign | ast.AnnAssign) and node.value is not None:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        named = any(
            isinstance(t, ast.Name) and t.id.endswith(("_PARAMETER", "_PARAMETERS"))
            for t in targets
        )
        return "constant" if named and _holds_numbers(node.value) else None
    if isinstance(node, ast.Dict):
        # {44: …, 46: …}: answers or prose keyed by number.
        keys = [k for k in node.keys if k is not None]
        if len(keys) > 1 and all(map(_is_number, keys)):
            return "dict keyed by parameter numbers"
    return None


def offences_in(source: str) -> list[str]:
    """Lines of `source` that name a parameter by its number."""
    return [
        f"{node.lineno}: {offence}"
        for node in sorted(
            ast.walk(ast.parse(source)), key=lambda n: getattr(n, "lineno", 0)
        )
        if (offence := _offence(node))
    ]


def _sources() -> list[Path]:
    return [
        path
        for package in PACKAGES
        for path in sorted((ROOT / package).rglob("*.py"))
        if "migrations" not in path.parts
        and path.relative_to(ROOT).as_posix() not in EXEMPT
    ]


def test_no_parameter_number_outside_the_catalogue():
    offenders = [
        f"{path.relative_to(ROOT)}:{offence}"
        for path in _sources()
        for offence in offences_in(path.read_text())
    ]
    assert offenders == []


def test_the_scan_finds_numbers_in_logic_and_prose():
    source = (
        "METRICS_PARAMETER = 44\n"
        "x = BY_NUMBER[46]\n"
        "Answer.objects.filter(task=None, number__in=(16, 17))\n"
        "if answer['number'] == 48: pass\n"
        "PROSE = {46: 'ranking', 48: 'missing'}\n"
        "message = f'See parameter 44: {x}'\n"
    )
    assert [line.split(":")[0] for line in offences_in(source)] == [
        "1",
        "2",
        "3",
        "4",
        "5",
        "6",
    ]


def test_the_scan_accepts_roles_and_other_numbers():
    source = (
        "METRICS = Role.METRICS.number\n"
        "Answer.objects.filter(number=METRICS)\n"
        "RegistrationVersion.objects.create(registration=r, number=1)\n"
        "PARAMETER_COMMENT_ROWS = 3\n"
        "MIN_TEST_CASES = 10\n"
        "x = values[44]\n"
    )
    assert offences_in(source) == []
