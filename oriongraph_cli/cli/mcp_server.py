"""`orion mcp`: the project's context for agents, as a stdio MCP server (official SDK, mcp 2.x).

Four read-only tools with small schemas: ``compile_context`` (the working set for an
intent, as Markdown or JSON), ``search`` (ranked spans), ``get_span`` (one span by id,
lines of a document as ``path:L12-L40``, or a whole file by its path) and ``status``. The index is opened once and
reopened when ``orion index`` publishes a new generation. Failures are tool errors whose
text carries orion's message and hint.
"""

from __future__ import annotations

import io
import json
import os
import re
import sys
from typing import Annotated, Literal

from pydantic import Field

from oriongraph_cli.cli.context import ResidentIndex

# compile_context returns at most budget_tokens of text (counted with the index's
# tokenizer), so this cap is what keeps a reply under common ~25k-token tool-output caps
MAX_BUDGET = 20_000
# one filter as --where gives it on the command line (a front matter field, status as the
# text states it, lang as the index reads it)
WHERE = Field(description="KEY=VALUE filter: status=accepted, lang=fr")


def build_server(cfg):
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError
    from mcp.types import ToolAnnotations

    from oriongraph_cli.api import HardFilters, __version__, build_request, parse_where
    from oriongraph_cli.errors import as_orion_error

    server = MCPServer(
        "orion",
        version=__version__,
        log_level="WARNING",
        instructions=(
            f"Project knowledge of {cfg.root} compiled for a task: call compile_context with what you are about to do "
            "and a token budget; fetch more with get_span (span id, path:L12-L40, or a path for the whole file)."
        ),
    )
    state = {"cfg": cfg, "stamp": _settings_stamp(cfg.root), "index": ResidentIndex(cfg)}

    def current():
        """(settings, open index) as the project's settings files say now: a client's session
        compiles with what a command run now would, the settings read again when they change."""
        from oriongraph_cli.api import load_config

        stamp = _settings_stamp(state["cfg"].root)
        if stamp != state["stamp"]:
            fresh = load_config(state["cfg"].root)
            if ResidentIndex.key(fresh) != ResidentIndex.key(state["cfg"]):
                state["index"].close()
                state["index"] = ResidentIndex(fresh)
            else:
                state["index"].cfg = fresh
            state["cfg"], state["stamp"] = fresh, stamp
        return state["cfg"], state["index"]

    # read-only (the destructive and idempotent hints only mean something for tools that write)
    read_only = ToolAnnotations(read_only_hint=True, open_world_hint=False)

    def fail(exc: BaseException):
        err = as_orion_error(exc)
        return ToolError(for_agents(err.message + (f" — {err.hint}" if err.hint else "")))

    def filters(stage: str, workstream: str, path: str, where: str) -> HardFilters:
        return HardFilters(
            stages=(stage,) if stage else (), workstreams=(workstream,) if workstream else (), paths=(path,) if path else (),
            where=parse_where([where] if where else []),
        )

    @server.tool(annotations=read_only, structured_output=False, description=(
        "The project's most relevant spans for an intent, quoted exactly in reading order, each document "
        "headed by its path (and the lines of its quotes from 1,000 tokens) for get_span. The whole reply is at "
        "most budget_tokens."))
    def compile_context(
        intent: Annotated[str, Field(description="what you are about to do")],
        budget_tokens: Annotated[int, Field(description="tokens for the whole reply, 1-20000; 0: the project's budget")] = 0,
        stage: Annotated[str, Field(description="only this stage")] = "",
        workstream: Annotated[str, Field(description="only this workstream")] = "",
        path: Annotated[str, Field(description="only paths matching this glob")] = "",
        where: Annotated[str, WHERE] = "",
        format: Annotated[Literal["markdown", "xml", "json", "json-lean"], Field(description="of the reply")] = "markdown",
    ) -> str:
        from oriongraph_cli.api import compile_workingset
        from oriongraph_cli.render import render_text

        try:
            cfg, index = current()
            if budget_tokens == 0 and not isinstance(budget_tokens, bool):
                budget_tokens = min(cfg.budget, MAX_BUDGET)  # the project's budget, as the CLI's default
            if isinstance(budget_tokens, bool) or not 1 <= budget_tokens <= MAX_BUDGET:
                raise ValueError(f"budget_tokens must be from 1 to {MAX_BUDGET}")
            # the whole reply, framing included, fits budget_tokens: the pipeline renders
            # and counts this format while it selects. Read-only: nothing is appended to
            # the project's usage log.
            request = build_request(cfg, intent, budget=budget_tokens, hard_filters=filters(stage, workstream, path, where),
                                    deliver=(format,), record_usage=False)
            resp = compile_workingset(request, cfg, index.reader())
            text = render_text(resp, format)
        except ValueError as exc:
            raise ToolError(for_agents(str(exc))) from None
        except Exception as exc:  # noqa: BLE001 — every failure reaches the agent as one message
            raise fail(exc) from None
        return text

    @server.tool(annotations=read_only, structured_output=False, description=(
        "Ranked spans for a query, one per line, tab-separated: path:lines, span id, score, section, preview."))
    def search(
        query: Annotated[str, Field(description="what to look for")],
        limit: Annotated[int, Field(description="hits, 1-100")] = 10,
        stage: Annotated[str, Field(description="only this stage")] = "",
        workstream: Annotated[str, Field(description="only this workstream")] = "",
        where: Annotated[str, WHERE] = "",
    ) -> str:
        from oriongraph_cli.api import clean_line
        from oriongraph_cli.api import search as run_search

        try:
            cfg, index = current()
            if isinstance(limit, bool) or not 1 <= limit <= 100:
                raise ValueError("limit must be from 1 to 100")
            request = build_request(cfg, query, hard_filters=filters(stage, workstream, "", where), record_usage=False)
            _signals, hits, _info = run_search(request, cfg, index.reader())
        except ValueError as exc:
            raise ToolError(for_agents(str(exc))) from None
        except Exception as exc:  # noqa: BLE001
            raise fail(exc) from None
        return "".join(
            "\t".join(clean_line(str(x)) for x in (f"{h.metadata.filepath}:{h.span_ref.lines}", h.span_ref.span_id,
                                                   f"{h.base_score:.4f}", h.metadata.section_title or "", h.text_preview)) + "\n"
            for h in hits[:limit]
        )

    @server.tool(annotations=read_only, structured_output=False, description="The exact text of a span, or of a document's lines.")
    def get_span(ref: Annotated[str, Field(description="a span id (or prefix), path:L12-L40[,L50-L60], or a path or document id such as ADR-0007 (its whole file)")]) -> str:
        from oriongraph_cli.api import clean, show

        try:
            info = show(current()[0], ref)
            where = clean(f"{info['path']}:{info.get('lines') or 'L%d-L%d' % (info['line_start'], info['line_end'])}")
            text = clean(info["text"])  # a terminal's control characters escaped, as orion show prints them
            if info["span_id"] is None:
                return f"{where}\n\n{text}"
            return f"{where} ({info['span_id']}{', stale' if info['stale'] else ''})\n\n{text}"
        except Exception as exc:  # noqa: BLE001
            raise fail(exc) from None

    @server.tool(annotations=read_only, structured_output=False,
                 description="What is indexed, when, and whether the index matches the files (JSON).")
    def status() -> str:
        from oriongraph_cli.api import status as project_status

        try:
            st = project_status(current()[0])
        except Exception as exc:  # noqa: BLE001
            raise fail(exc) from None
        keep = ("root", "generation", "indexed_at_iso", "documents", "spans", "tokens", "model", "up_to_date", "stale", "damaged", "rebuild")
        return json.dumps({k: st[k] for k in keep}, separators=(",", ":"), default=str)

    _lean_schemas(server)
    return server


def _settings_stamp(root) -> tuple:
    """What the settings files are now (size, times, inode), to tell when they changed."""
    out = []
    for name in (".orion.toml", "pyproject.toml"):
        try:
            st = os.stat(os.path.join(root, name))
            out.append((st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino))
        except OSError:
            out.append(None)
    return tuple(out)


def _lean_schemas(server) -> None:
    """Drop the ``title`` pydantic gives every parameter (it repeats the name): the tool list
    is read by the agent's model on every turn. The SDK keeps each tool's schema on its
    registered tool; the MCP test counts the listed tools' tokens, so a change there shows."""

    def lean(node):
        if isinstance(node, dict):
            return {k: lean(v) for k, v in node.items() if k != "title"}
        if isinstance(node, list):
            return [lean(v) for v in node]
        return node

    for tool in server._tool_manager.list_tools():
        tool.parameters = lean(tool.parameters)


# what the CLI's messages say, as an agent calls it: tools and their parameters, not commands and flags
_FOR_AGENTS = (
    (re.compile(r"`?orion show (\S+?)`?(?=[\s,.;)]|$)"), r"get_span(ref=\1)"),
    (re.compile(r"`?orion search`?"), "the search tool"),
    (re.compile(r"`?orion compile`?"), "compile_context"),
    (re.compile(r"--budget[ =](\d+)"), r"budget_tokens=\1"),
    (re.compile(r"--budget\b"), "budget_tokens"),
    (re.compile(r"--(stage|workstream|path|where)\b"), r"\1"),
)


def for_agents(text: str) -> str:
    """A message written for the command line, reworded for an MCP client."""
    for pattern, repl in _FOR_AGENTS:
        text = pattern.sub(repl, text)
    return text


# a JSON-RPC message longer than this is cut there (and dropped as malformed by the SDK):
# the SDK reads a whole line before it parses it, so a client writing without a newline
# grew the server by gigabytes
MAX_LINE = 16 << 20


class BoundedLines(io.RawIOBase):
    """A file descriptor read as lines of at most ``limit`` bytes: a longer line is cut
    there, ended with a newline, and the rest of it up to its own newline skipped."""

    def __init__(self, fd: int, limit: int = MAX_LINE):
        super().__init__()
        self._fd, self._limit = fd, limit
        self._run = 0  # bytes of the current line passed on so far
        self._skipping = False
        self._out = bytearray()

    def readable(self) -> bool:
        return True

    def readinto(self, b) -> int:
        while not self._out:
            data = os.read(self._fd, 1 << 16)
            if not data:
                return 0
            self._out += self._filter(data)
        n = min(len(b), len(self._out))
        b[:n] = self._out[:n]
        del self._out[:n]
        return n

    def _filter(self, data: bytes) -> bytes:
        out = bytearray()
        i = 0
        while i < len(data):
            nl = data.find(b"\n", i)
            end = len(data) if nl < 0 else nl + 1
            if self._skipping:
                self._skipping = nl < 0
            else:
                body = end - i - (nl >= 0)
                room = self._limit - self._run
                if body > room:  # too long: cut, end it, skip the rest of the line
                    out += data[i:i + room] + b"\n"
                    self._skipping, self._run = nl < 0, 0
                else:
                    out += data[i:end]
                    self._run = 0 if nl >= 0 else self._run + body
            i = end
        return bytes(out)


def serve(cfg) -> None:
    """Run the server on stdin/stdout until the client closes it. Its stdin is read through
    :class:`BoundedLines` (the SDK takes a stdin not backed by descriptor 0 as it is)."""
    sys.stdin = io.TextIOWrapper(io.BufferedReader(BoundedLines(0)), encoding="utf-8", errors="replace")
    build_server(cfg).run("stdio")
