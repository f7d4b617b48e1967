"""The platform's payloads as types, under a public name: every component of its OpenAPI schema
as a ``TypedDict`` (or a ``Literal``/union alias), generated into ``sampan._schema`` by
sdk/tools/generate_types.py. A resource's ``data`` and every JSON answer of the SDK is one of them.

>>> from sampan.types import ModelVersion
>>> info: ModelVersion = client.model_versions.get(5).data
>>> info["metrics"]["test"]["accuracy"]
"""

from sampan._schema import *  # noqa: F403 - the generated module's __all__
from sampan._schema import __all__ as __all__
