"""Modules imported on first use (imported by the package before matplotlib's
PDF backend, for which it works).

Matplotlib's PDF backend imports ``fontTools.subset`` with itself (0.1 s of
CPU, a tenth of the report command's imports) but uses it only to embed
Type 42 fonts; the figures embed Type 3 fonts (``pdf.fonttype`` 3, the
default). Registered as a lazy module, it is loaded only where a figure
embeds a Type 42 font, the first time the backend reads one of its names.
"""

from __future__ import annotations

import importlib.util
import sys

__all__ = ["import_lazily"]

LAZY_MODULES = ("fontTools.subset",)


def import_lazily(name: str) -> None:
    """Register module ``name`` so that it is executed when one of its
    attributes is first read (``importlib.util.LazyLoader``); nothing if it
    is imported already or cannot be found."""
    if name in sys.modules:
        return
    spec = importlib.util.find_spec(name)
    if spec is None or spec.loader is None:
        return
    spec.loader = importlib.util.LazyLoader(spec.loader)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    # as an import would: ``from package import name`` then takes it from the
    # package; otherwise it imports it again, reading (and so loading) it
    parent, _, child = name.rpartition(".")
    if parent:
        setattr(sys.modules[parent], child, module)


for _name in LAZY_MODULES:
    import_lazily(_name)
