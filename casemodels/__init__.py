"""Case-characteristics models: which properties of a test case make
algorithms fail (seed 004 §5.4; contract ``shared/reference/case-models.md``).

Plain Python (numpy/scipy/pandas and the ``ranking`` engine), no Django:
``fit_case_models(results, metadata, spec)`` returns the output JSON of the
contract; ``read_metadata`` and ``check_metadata`` read and check the case
metadata table; ``parse_spec`` checks a model specification.
"""

from ._budget import DEFAULT_MAX_ITERATIONS, DEFAULT_MAX_SECONDS
from .errors import CaseModelError
from .metadata import check_metadata, column_kind, read_metadata, validate_metadata
from .run import ENGINE_VERSION, ModelData, fit_case_models, prepare_model_data
from .spec import Characteristic, ModelSpec, parse_spec

__all__ = [
    "DEFAULT_MAX_ITERATIONS",
    "DEFAULT_MAX_SECONDS",
    "ENGINE_VERSION",
    "CaseModelError",
    "Characteristic",
    "ModelData",
    "ModelSpec",
    "check_metadata",
    "column_kind",
    "fit_case_models",
    "parse_spec",
    "prepare_model_data",
    "read_metadata",
    "validate_metadata",
]
