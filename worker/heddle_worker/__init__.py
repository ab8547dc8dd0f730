"""A training worker for Heddle's training queue (docs/training-worker-protocol.md)."""

__version__ = "0.1.0"
