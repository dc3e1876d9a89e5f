"""orion — a context compiler over OrionFS projects."""

import os as _os

__version__ = "0.1.0"

# onnxruntime's Linux and macOS builds start a telemetry client when first imported: it
# writes a session file (`.ses`, a device identifier) to the system's temporary directory
# and keeps an offline cache for upload. orion reads and writes nothing outside the
# project, so the runtime's own opt-out is set before anything imports it (a user who set
# the variable keeps their value).
_os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")
