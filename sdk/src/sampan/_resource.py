"""The base of the SDK's objects: the server's JSON, with attribute access to its fields."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sampan.client import Client


class Resource:
    """An object of the platform. ``data`` is the server's JSON; fields read as attributes
    (``project.name``) or items (``project["name"]``); :meth:`refresh` reloads it."""

    _path: str = ""

    def __init__(self, client: Client, data: dict[str, Any]) -> None:
        self._client = client
        self.data = data

    @property
    def id(self) -> int:
        return int(self.data["id"])

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_") or name == "data":
            raise AttributeError(name)
        try:
            return self.data[name]
        except KeyError:
            raise AttributeError(f"{type(self).__name__} has no field {name!r}") from None

    def __getitem__(self, key: str) -> Any:
        return self.data[key]

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and other.data.get("id") == self.data.get("id")  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash((type(self).__name__, self.data.get("id")))

    def __repr__(self) -> str:
        label = self.data.get("name") or self.data.get("kind") or ""
        return f"<{type(self).__name__} {self.data.get('id')}{' ' + repr(label) if label else ''}>"

    def url(self) -> str:
        return f"{self._path}{self.id}/"

    def refresh(self) -> Resource:
        """Reload from the server (in place); returns self."""
        self.data = self._client.http.get(self.url())
        return self


def id_of(obj: int | Resource | dict[str, Any]) -> int:
    """The id of a resource, a server dict or an int."""
    if isinstance(obj, Resource):
        return obj.id
    if isinstance(obj, dict):
        return int(obj["id"])
    return int(obj)
