"""Internals of the indexing pipeline (see ragkit.pipeline)."""
