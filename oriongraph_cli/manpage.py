"""``python -m oriongraph_cli.manpage [OUTDIR]``: write the man pages (see ``cli/manpage.py``)."""

from oriongraph_cli.cli.manpage import main, render_all

__all__ = ["main", "render_all"]

if __name__ == "__main__":
    main()
