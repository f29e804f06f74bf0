"""mutreal: how real are the faults of deep-learning benchmarks and mutation tools?

The package is split by job (see docs/ARCHITECTURE.md): program model extraction, semantic diff,
labelling, mutation operators, reports, and a training runner. Importing ``mutreal`` never imports
TensorFlow: only the runner's worker processes do.

The Python API (:mod:`mutreal.api`) is available at the top level: ``mutreal.classify_manifest(...)
.to_frame()``. Its names are loaded on first use, so that ``mutreal``'s commands, which import this
package, do not pay for the API's imports.
"""

from typing import Any

__version__ = "0.1.0"

#: the names of :mod:`mutreal.api` (its ``__all__``), re-exported here
API_NAMES = (
    "Classified",
    "Homs",
    "Mutants",
    "ReportTables",
    "classify_pair",
    "classify_manifest",
    "hom_generate",
    "mutate_program",
    "read_results",
    "report_on",
)

__all__ = ["__version__", *API_NAMES]


def __getattr__(name: str) -> Any:
    if name in API_NAMES:
        from mutreal import api

        return getattr(api, name)
    raise AttributeError(f"module 'mutreal' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), *API_NAMES])
