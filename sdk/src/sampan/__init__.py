"""Sampan's Python SDK (skeleton: the full client is its own issue).

>>> from sampan import Client
>>> client = Client("http://127.0.0.1:8000", api_key="spk_...")   # or SAMPAN_URL / SAMPAN_API_KEY
>>> client.me()["username"]
"""

from __future__ import annotations

from sampan.client import Client, SampanError

__all__ = ["Client", "SampanError"]
__version__ = "0.1.0"
