"""Decide from campaign records: reproduction, killing, similarity, metric series. Nothing here trains."""
