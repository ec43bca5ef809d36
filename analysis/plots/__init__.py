"""Figures of an analysis run (seed 000), built from plain data: the analysis
output dict (contract §3) and the long results table. Every function returns a
:class:`matplotlib.figure.Figure` made without ``pyplot``; export with
:func:`figure_png`, :func:`figure_pdf` or :func:`figure_svg` (byte-stable).
"""

# first: registers modules the PDF backend imports but rarely uses as lazy
from . import _lazy  # noqa: F401  (imported for its effect)
from ._fitted import fitted_pdf
from ._style import (
    MIN_PRINT_PT,
    OKABE_ITO,
    PRINT_HEIGHT,
    PRINT_WIDTH,
    algorithm_colors,
    figure_pdf,
    figure_png,
    figure_svg,
    ordered,
    short_label,
)
from ._ticks import axis_labels
from .assessment import (
    dot_box_plot,
    podium_plot,
    ranking_heatmap,
    shared_case_matrices,
    target_grid,
    targets_per_figure,
    task_matrix,
    task_targets,
)
from .tasks import (
    MIN_TASKS_FOR_SIMILARITY,
    algorithms_per_figure,
    bootstrap_blobs_per_algorithm,
    bootstrap_blobs_per_task,
    consensus_order,
    rank_blobs_across_tasks,
    similarity_layout,
    stacked_frequency_plot,
    task_dendrogram,
    task_distances,
    task_network,
    tasks_per_figure,
)
from .uncertainty import (
    blob_plot,
    kendall_tau_violins,
    rank_percentiles,
    ranking_methods_plot,
    significance_map,
)

__all__ = [
    "MIN_PRINT_PT",
    "MIN_TASKS_FOR_SIMILARITY",
    "OKABE_ITO",
    "PRINT_HEIGHT",
    "PRINT_WIDTH",
    "algorithm_colors",
    "algorithms_per_figure",
    "axis_labels",
    "blob_plot",
    "bootstrap_blobs_per_algorithm",
    "bootstrap_blobs_per_task",
    "consensus_order",
    "dot_box_plot",
    "figure_pdf",
    "figure_png",
    "figure_svg",
    "fitted_pdf",
    "kendall_tau_violins",
    "ordered",
    "podium_plot",
    "rank_blobs_across_tasks",
    "rank_percentiles",
    "ranking_heatmap",
    "ranking_methods_plot",
    "shared_case_matrices",
    "short_label",
    "significance_map",
    "similarity_layout",
    "stacked_frequency_plot",
    "target_grid",
    "targets_per_figure",
    "task_dendrogram",
    "task_distances",
    "task_matrix",
    "task_network",
    "task_targets",
    "tasks_per_figure",
]
