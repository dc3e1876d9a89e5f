"""orion — a context compiler over OrionFS projects."""

__version__ = "0.1.0"
