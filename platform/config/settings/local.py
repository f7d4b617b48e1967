"""Development and embedded (`make up`) settings: SQLite + filesystem broker unless URLs are set."""

from .base import *  # noqa: F403
