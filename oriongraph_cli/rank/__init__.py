"""Ranking: from an intent to every candidate span, scored.

signals (the intent as a query) -> generators (structural, lexical, semantic on the intent;
graph and lifecycle on their candidates) -> candidates (one per span, every channel's raw
score) -> usage memory -> fusion (normalise and fuse the channels) -> adjustments
(lifecycle, episode). Nothing here imports ``assemble``.
"""
