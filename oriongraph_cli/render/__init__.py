"""Renderers of compile/search results.

``json`` and ``markdown`` are plain-Python (no rich) so that scripts and ``--json`` stay
light; ``table`` imports rich and is only loaded when a terminal table is wanted. Nothing
is imported here: ``from oriongraph_cli.render import markdown`` loads just that module,
which keeps ``orion --help`` fast.
"""

__all__ = ["json", "markdown", "table"]
