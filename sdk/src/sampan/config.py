"""Where ``sampan login`` keeps the URL and API key: ``$SAMPAN_CONFIG`` or
``~/.config/sampan/config.json`` (``$XDG_CONFIG_HOME`` honoured), readable by its owner only (0600)."""

from __future__ import annotations

import json
import os
from pathlib import Path


def config_path() -> Path:
    if os.environ.get("SAMPAN_CONFIG"):
        return Path(os.environ["SAMPAN_CONFIG"])
    base = Path(os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config")
    return base / "sampan" / "config.json"


def load_credentials() -> dict[str, str]:
    """``{"url", "api_key"}`` as ``sampan login`` stored them; {} when there is no (readable) file."""
    path = config_path()
    try:
        stored = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    if not isinstance(stored, dict):
        return {}
    return {str(key): value for key, value in stored.items() if isinstance(value, str)}


def save_credentials(*, url: str, api_key: str) -> Path:
    """Write the file atomically, created 0600 (never world- or group-readable, not even briefly)."""
    path = config_path()
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    temp = path.with_name(f".{path.name}.{os.getpid()}")
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as out:
        json.dump({"url": url, "api_key": api_key}, out)
    os.chmod(temp, 0o600)
    os.replace(temp, path)
    return path
