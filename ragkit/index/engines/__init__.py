"""Indexing engines other than the local one (which is the writer's own producer thread).

An engine turns the run's units into the writer's stream of ``Prepared`` sources; the writer
keeps committing them. ``ray.py``: load, split and embed on a Ray cluster.
"""
