"""Whole campaigns: a pair, a benchmark manifest, operator sensitivity; they call execution and analysis."""
