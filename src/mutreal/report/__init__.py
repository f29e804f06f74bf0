"""Benchmark reports: the study's RQ2-RQ4 tables, plots, Markdown/HTML, and the paper-table check.

``build`` computes (:func:`report_from_file`, :func:`build_report`), ``render`` writes files,
``tables`` and ``plots`` hold the figures, ``paper`` the study's published tables. matplotlib is
imported only when plots are drawn.
"""

from mutreal.report.build import Report, build_report, load_bugs, report_from_file

__all__ = ["Report", "build_report", "load_bugs", "report_from_file"]
