"""`orion mcp`: the project's context for agents, as a stdio MCP server (official SDK, mcp 2.x).

Four read-only tools with small schemas: ``compile_context`` (the working set for an
intent, as Markdown or JSON), ``search`` (ranked spans), ``get_span`` (one span by id, or
lines of a document as ``path:L12-L40``) and ``status``. The index is opened once and
reopened when ``orion index`` publishes a new generation. Failures are tool errors whose
text carries orion's message and hint.
"""

from __future__ import annotations

import json
import re
import threading
from typing import Any, Literal

# compile_context returns at most budget_tokens of text (counted with the index's
# tokenizer), so this cap is what keeps a reply under common ~25k-token tool-output caps
MAX_BUDGET = 20_000
LINES_RE = re.compile(r"^(?P<path>.+?):L(?P<a>\d+)(?:-L(?P<b>\d+))?$")


class _Index:
    """One open reader, replaced when the current generation changes."""

    def __init__(self, cfg):
        self.cfg = cfg
        self._reader = None
        self._lock = threading.Lock()

    def reader(self):
        from oriongraph_cli.store.layout import Layout
        from oriongraph_cli.store.reader import IndexReader

        with self._lock:
            current = Layout(self.cfg.index_dir).current()
            if self._reader is not None and self._reader.generation != current:
                self._reader.close()
                self._reader = None
            if self._reader is None:
                self._reader = IndexReader(self.cfg)
            return self._reader


def build_server(cfg):
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError
    from mcp.types import ToolAnnotations

    from oriongraph_cli import __version__
    from oriongraph_cli.errors import as_orion_error
    from oriongraph_cli.api import build_request
    from oriongraph_cli.models import HardFilters

    server = MCPServer(
        "orion",
        version=__version__,
        log_level="WARNING",
        instructions=(
            f"Project knowledge of {cfg.root} compiled for a task: call compile_context with what you are about to do "
            "and a token budget; fetch more with get_span (span id or path:L12-L40)."
        ),
    )
    index = _Index(cfg)
    read_only = ToolAnnotations(read_only_hint=True, idempotent_hint=True, destructive_hint=False, open_world_hint=False)

    def fail(exc: BaseException):
        err = as_orion_error(exc)
        return ToolError(err.message + (f" — {err.hint}" if err.hint else ""))

    def filters(stage: str | None, workstream: str | None, path: str | None) -> HardFilters:
        return HardFilters(
            stages=(stage,) if stage else (), workstreams=(workstream,) if workstream else (), paths=(path,) if path else ()
        )

    @server.tool(annotations=read_only)
    def compile_context(
        intent: str,
        budget_tokens: int = 4000,
        stage: str | None = None,
        workstream: str | None = None,
        path: str | None = None,
        format: Literal["markdown", "xml", "json"] = "markdown",
    ) -> str:
        """The working set for an intent: the most relevant, diverse spans of the project in
        reading order, each quoted exactly with path:lines (shortened ones marked, fetch them
        whole with get_span). format: markdown, xml or json. The whole reply is at most
        budget_tokens (<= 20000)."""
        from oriongraph_cli.compile.pipeline import compile_workingset
        from oriongraph_cli.render import render_text

        try:
            if not 1 <= budget_tokens <= MAX_BUDGET:
                raise ValueError(f"budget_tokens must be from 1 to {MAX_BUDGET}")
            # the whole reply, framing included, fits budget_tokens: the pipeline renders
            # and counts this format while it selects
            request = build_request(cfg, intent, budget=budget_tokens, hard_filters=filters(stage, workstream, path),
                                    deliver=(format,))
            resp = compile_workingset(request, cfg, index.reader())
            text = render_text(resp, format)
        except ValueError as exc:
            raise ToolError(str(exc)) from None
        except Exception as exc:  # noqa: BLE001 — every failure reaches the agent as one message
            raise fail(exc) from None
        return text

    @server.tool(annotations=read_only)
    def search(query: str, limit: int = 10, stage: str | None = None, workstream: str | None = None) -> list[dict[str, Any]]:
        """Ranked spans for a query (no budget, no diversity): path, lines, span id, score, preview."""
        from oriongraph_cli.compile.pipeline import search as run_search

        try:
            if not 1 <= limit <= 100:
                raise ValueError("limit must be from 1 to 100")
            request = build_request(cfg, query, hard_filters=filters(stage, workstream, None))  # compile's candidates
            _signals, hits, _info = run_search(request, cfg, index.reader())
        except ValueError as exc:
            raise ToolError(str(exc)) from None
        except Exception as exc:  # noqa: BLE001
            raise fail(exc) from None
        return [
            {"path": h.metadata.filepath, "lines": h.span_ref.lines, "span_id": h.span_ref.span_id,
             "score": round(h.base_score, 4), "section": h.metadata.section_title, "preview": h.text_preview}
            for h in hits[:limit]
        ]

    @server.tool(annotations=read_only)
    def get_span(ref: str) -> str:
        """The exact text of a span id (or unique prefix), or of document lines given as path:L12-L40."""
        from oriongraph_cli.compile.hydrate import show_span
        from oriongraph_cli.safeio import UnsafeFile, read_project_file

        try:
            m = LINES_RE.match(ref.strip())
            if m:
                a, b = int(m["a"]), int(m["b"] or m["a"])
                got = read_project_file(cfg.root, m["path"], cfg.max_file_bytes)
                lines = got.data.decode("utf-8", "replace").splitlines()
                if not 1 <= a <= b <= len(lines):
                    raise ValueError(f"{m['path']} has {len(lines)} lines; asked for L{a}-L{b}")
                return f"{m['path']}:L{a}-L{b}\n\n" + "\n".join(lines[a - 1 : b])
            info = show_span(cfg, ref.strip())
            where = f"{info['path']}:L{info['line_start']}-L{info['line_end']}"
            return f"{where} ({info['span_id']}{', stale' if info['stale'] else ''})\n\n{info['text']}"
        except (ValueError, UnsafeFile) as exc:
            raise ToolError(str(exc)) from None
        except Exception as exc:  # noqa: BLE001
            raise fail(exc) from None

    @server.tool(annotations=read_only)
    def status() -> dict[str, Any]:
        """What is indexed, when, and whether the index matches the files."""
        from oriongraph_cli.index.status import project_status

        try:
            st = project_status(cfg)
        except Exception as exc:  # noqa: BLE001
            raise fail(exc) from None
        keep = ("root", "generation", "indexed_at_iso", "documents", "spans", "tokens", "model", "up_to_date", "stale", "damaged")
        return json.loads(json.dumps({k: st[k] for k in keep}))

    return server


def serve(cfg) -> None:
    """Run the server on stdin/stdout until the client closes it."""
    build_server(cfg).run("stdio")
