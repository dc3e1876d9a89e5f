"""Progress for logs: what a long command (`orion index`, `orion eval`, `orion eval --tune`)
writes on stderr when stderr is not a terminal (CI, a script, a hook) — on a terminal the
commands draw a rich progress bar instead."""

from __future__ import annotations

import sys
from typing import Callable, Mapping


class LineProgress:
    """Nothing for a run shorter than ``every`` seconds, then one plain line every ``every``
    seconds: ``<command>: <step> done/total <units> (percent), elapsed`` and, once it can be
    estimated, the time left in the step. ``units`` names what a step counts (by step name;
    "items" otherwise)."""

    EVERY = 10.0  # seconds between lines

    def __init__(self, command: str, units: Mapping[str, str] | None = None, write: Callable[[str], object] | None = None,
                 clock: Callable[[], float] | None = None, every: float | None = None):
        import time

        self.command = command
        self.units = dict(units or {})
        self._write = write or sys.stderr.write
        self._clock = clock or time.monotonic
        self.every = self.EVERY if every is None else every
        self._start = self._clock()
        self._last = self._start
        self._name, self._total, self._done, self._phase_start = "", None, 0, self._start

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return None

    def phase(self, name: str, total: int | None) -> None:
        self._name, self._total, self._done = name, total, 0
        self._phase_start = self._clock()
        self._maybe_say()

    def advance(self, n: int = 1) -> None:
        self._done += n
        self._maybe_say()

    def update(self, name: str, done: int, total: int | None) -> None:
        """Where a step stands, as callers that count themselves report it (a new ``name``
        starts a new step)."""
        if name != self._name:
            self.phase(name, total)
        self._total, self._done = total, done
        self._maybe_say()

    def _maybe_say(self) -> None:
        now = self._clock()
        if now - self._last < self.every:
            return
        self._last = now
        self._write(self.line(now) + "\n")

    def line(self, now: float) -> str:
        text = f"{self.command}: {self._name}"
        if self._total:
            unit = self.units.get(self._name, self.units.get("", "items"))
            text += f" {self._done:,}/{self._total:,} {unit} ({100 * self._done // self._total} %)"
        text += f", {clock_text(now - self._start)} elapsed"
        spent = now - self._phase_start
        if self._total and 0 < self._done < self._total and spent > 0:
            text += f", about {clock_text(spent / self._done * (self._total - self._done))} left in this step"
        return text


def clock_text(seconds: float) -> str:
    s = int(round(seconds))
    return f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}" if s >= 3600 else f"{s // 60}:{s % 60:02d}"
