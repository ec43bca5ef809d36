"""DEVIATION_CODES lists every code a deviation check can give (the statistics
offer them as filters)."""

import ast
import inspect

from analysis import deviations


def test_every_deviation_code_is_listed():
    tree = ast.parse(inspect.getsource(deviations))
    used = {
        node.args[0].value
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and getattr(node.func, "id", None) == "Deviation"
        and node.args
        and isinstance(node.args[0], ast.Constant)
    }
    assert len(used) >= 10
    assert used == set(deviations.DEVIATION_CODES)
