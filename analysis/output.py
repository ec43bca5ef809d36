"""A typed reader over the stored analysis output (contract §3).

``AnalysisRun.output`` comes in two shapes: the engine's own output, with one
top-level ``scheme``, when the tasks of a run share a scheme; and the merge of
:func:`analysis.services.compute_output`, with ``schemes`` (task → scheme) and
``rankings`` holding only ``tasks`` per key, when they use several. Callers
read both through :class:`AnalysisOutput`, so none of them branches on the
shape. The reader only reads: the stored dict is neither copied nor changed,
and iteration follows its stored order (pages, PDFs and API responses depend
on it).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ranking.cli import output_text
from ranking.output import scheme_groups, scheme_of

__all__ = ["AnalysisOutput", "TaskRanking", "merged_output", "output_bytes"]


def merged_output(
    outputs: Sequence[dict[str, Any]], schemes: Mapping[str, Mapping[str, Any]]
) -> dict[str, Any]:
    """The stored output of a run: the engine's output of its one scheme, or
    the merge of one output per scheme: ``schemes`` (task → scheme) and, per
    ranking key, only ``tasks`` (no consensus across tasks of different schemes)."""
    if len(outputs) == 1:
        return outputs[0]
    merged: dict[str, Any] = {"schemes": dict(sorted(schemes.items())), "rankings": {}}
    for output in outputs:
        for key, ranking in output["rankings"].items():
            merged["rankings"].setdefault(key, {"tasks": {}})["tasks"].update(
                ranking["tasks"]
            )
    return merged


def output_bytes(output: Mapping[str, Any]) -> bytes:
    """A stored output as ``python -m ranking`` writes it (UTF-8): what a
    published analysis serves and hashes, so a re-run compares byte for byte."""
    return output_text(dict(output)).encode()


@dataclass(frozen=True)
class TaskRanking:
    """One task's entry under one ranking key: ``block`` is the stored dict
    (``ranks``, ``scores``, ``targets``, ``bootstrap``, ``audit``, …)."""

    key: str
    task: str
    block: Mapping[str, Any]

    @property
    def ranks(self) -> Mapping[str, Any]:
        return self.block["ranks"]

    @property
    def targets(self) -> Mapping[str, Any]:
        """The per-target rankings, empty when the task has one target."""
        return self.block.get("targets") or {}


@dataclass(frozen=True)
class AnalysisOutput:
    """The analysis output of a run, whatever the number of its schemes."""

    data: Mapping[str, Any]

    @classmethod
    def of(cls, output: Mapping[str, Any]) -> AnalysisOutput:
        return cls(output)

    @property
    def keys(self) -> list[str]:
        """The ranking keys (metrics, or ``combined``), in stored order."""
        return list(self.data.get("rankings", {}))

    def ranking(self, key: str) -> Mapping[str, Any] | None:
        """One key's block (``tasks`` and, single scheme only, ``consensus``),
        the input of the plots across tasks; None for an unknown key."""
        return self.data.get("rankings", {}).get(key)

    def tasks(self, key: str) -> Mapping[str, Mapping[str, Any]]:
        """Task → entry under one ranking key, in stored order."""
        return (self.ranking(key) or {}).get("tasks", {})

    def entry(self, key: str, task: str) -> Mapping[str, Any] | None:
        """A task's entry under a ranking key; None when it has none."""
        return self.tasks(key).get(task)

    def entries(self) -> Iterator[TaskRanking]:
        """Every (key, task) entry: keys, then their tasks, in stored order."""
        for key in self.keys:
            for task, block in self.tasks(key).items():
                yield TaskRanking(key, task, block)

    def consensus(self, key: str) -> Mapping[str, Any]:
        """The consensus ranking of a key (``ranks``, ``scores``); empty when
        the scheme asks for none (a merged output never has one)."""
        return (self.ranking(key) or {}).get("consensus") or {}

    def scheme_of(self, task: str) -> dict[str, Any]:
        """The scheme a task was ranked under (a copy)."""
        return scheme_of(self.data, task)

    def scheme_groups(self) -> list[tuple[list[str], dict[str, Any]]]:
        """(tasks, scheme) pairs: one pair per distinct scheme, tasks sorted."""
        return scheme_groups(self.data)
