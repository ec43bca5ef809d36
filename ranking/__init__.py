"""Ranking and uncertainty engine for challenge results (plain Python, no Django).

The public API follows the contract in ``shared/reference/ranking-scheme.md``:
read and validate a results table, parse a ranking scheme, run the analysis.
A large analysis can compute its bootstrap replicate blocks elsewhere
(:func:`prepare_analysis`, :func:`bootstrap_block_ranks`) and hand them to
``run_analysis(..., bootstrap_ranks=...)``. :func:`run_plan` plans a test
set: how stable the ranking is for each number of cases (issue 29).
The building blocks (ranking methods, Wilcoxon tests, bootstrap, Kendall's τ)
are exposed for the registry's previews and for tests.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the public names as type checkers and editors see them
    from ._core import MissingResultsError
    from ._exact import NonFiniteResultError
    from ._validation import (
        ResultsError,
        ResultsTable,
        RowError,
        read_results,
        read_table,
        validate_results,
    )
    from .aggregate import aggregate_then_rank, case_ranks, rank_then_aggregate
    from .audit import audit_task, withheld_ranks
    from .bootstrap import (
        compare_rankings,
        kendall_tau_b,
        spearman_distance,
        spearman_footrule,
        summarise_resamples,
    )
    from .plan import (
        BOOTSTRAP_BLOCK,
        PreparedAnalysis,
        bootstrap_block_ranks,
        prepare_analysis,
    )
    from .planner import PlanSpecError, prepare_plan, run_plan
    from .results import (
        BootstrapResult,
        RankingComparison,
        RankingResult,
        SignificanceResult,
    )
    from .run import AnalysisResult, run_analysis
    from .scheme import (
        Scheme,
        SchemeError,
        describe_scheme,
        parse_scheme,
        scheme_to_dict,
    )
    from .significance import (
        PairedDifferences,
        adjust_pvalues,
        pairwise_wilcoxon,
        significance_map,
        significance_ranking,
    )

__all__ = [
    "BOOTSTRAP_BLOCK",
    "AnalysisResult",
    "BootstrapResult",
    "MissingResultsError",
    "NonFiniteResultError",
    "PairedDifferences",
    "PlanSpecError",
    "PreparedAnalysis",
    "RankingComparison",
    "RankingResult",
    "ResultsError",
    "ResultsTable",
    "RowError",
    "Scheme",
    "SchemeError",
    "SignificanceResult",
    "adjust_pvalues",
    "aggregate_then_rank",
    "audit_task",
    "bootstrap_block_ranks",
    "case_ranks",
    "compare_rankings",
    "describe_scheme",
    "kendall_tau_b",
    "pairwise_wilcoxon",
    "parse_scheme",
    "prepare_analysis",
    "prepare_plan",
    "rank_then_aggregate",
    "read_results",
    "read_table",
    "run_analysis",
    "run_plan",
    "scheme_to_dict",
    "significance_map",
    "significance_ranking",
    "spearman_distance",
    "spearman_footrule",
    "summarise_resamples",
    "validate_results",
    "withheld_ranks",
]

# Each public name's module, imported when the name is first used (PEP 562):
# ``python -m ranking`` then chooses numpy's BLAS threads before numpy loads
# (ranking/__main__.py), and a program that uses one function does not import
# the planner, the audit and the rest.
_SOURCES: dict[str, str] = {
    "BOOTSTRAP_BLOCK": "plan",
    "AnalysisResult": "run",
    "BootstrapResult": "results",
    "MissingResultsError": "_core",
    "NonFiniteResultError": "_exact",
    "PairedDifferences": "significance",
    "PlanSpecError": "planner",
    "PreparedAnalysis": "plan",
    "RankingComparison": "results",
    "RankingResult": "results",
    "ResultsError": "_validation",
    "ResultsTable": "_validation",
    "RowError": "_validation",
    "Scheme": "scheme",
    "SchemeError": "scheme",
    "SignificanceResult": "results",
    "adjust_pvalues": "significance",
    "aggregate_then_rank": "aggregate",
    "audit_task": "audit",
    "bootstrap_block_ranks": "plan",
    "case_ranks": "aggregate",
    "compare_rankings": "bootstrap",
    "describe_scheme": "scheme",
    "kendall_tau_b": "bootstrap",
    "pairwise_wilcoxon": "significance",
    "parse_scheme": "scheme",
    "prepare_analysis": "plan",
    "prepare_plan": "planner",
    "rank_then_aggregate": "aggregate",
    "read_results": "_validation",
    "read_table": "_validation",
    "run_analysis": "run",
    "run_plan": "planner",
    "scheme_to_dict": "scheme",
    "significance_map": "significance",
    "significance_ranking": "significance",
    "spearman_distance": "bootstrap",
    "spearman_footrule": "bootstrap",
    "summarise_resamples": "bootstrap",
    "validate_results": "_validation",
    "withheld_ranks": "audit",
}


def __getattr__(name: str) -> Any:
    source = _SOURCES.get(name)
    if source is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{source}", __name__), name)
    globals()[name] = value  # later lookups do not come here
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
