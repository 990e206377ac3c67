"""Sentence vectors, pure: nearest labelled examples by cosine similarity.

The port is ``Embedder`` in ``core/ports.py`` (adapters/embed implements it); ``nearest``
ranks labelled example vectors against a query (``ExampleIndex``, ``rank``, ``cosine``).
"""

from desktop_agent.core.embed.nearest import ExampleIndex, Neighbour, cosine, rank

__all__ = [
    "nearest",
    "ExampleIndex",
    "Neighbour",
    "cosine",
    "rank",
]
