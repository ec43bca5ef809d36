"""Exports of a proposal: the canonical JSON document and the design-document PDF.

- `export_challenge` / `import_challenge`: the JSON document (``proposal_json``).
- `build_design_data` → `render_design_pdf`: the PDF (``design_data``,
  ``design_pdf``), set in the fonts and page of `registry.pdf_style`, which
  the analysis and case-characteristics reports share.
"""

from .design_data import build_design_data, build_design_data_from_document
from .design_document import DesignDocument
from .design_pdf import render_design_pdf
from .proposal_json import (
    MAX_IMPORT_BYTES,
    SCHEMA,
    SCHEMA_VERSION,
    ImportRefusedError,
    design_content,
    export_challenge,
    export_json_text,
    import_challenge,
    parse_document,
    validate_document,
)

__all__ = [
    "MAX_IMPORT_BYTES",
    "SCHEMA",
    "SCHEMA_VERSION",
    "DesignDocument",
    "ImportRefusedError",
    "build_design_data",
    "build_design_data_from_document",
    "design_content",
    "export_challenge",
    "export_json_text",
    "import_challenge",
    "parse_document",
    "render_design_pdf",
    "validate_document",
]
