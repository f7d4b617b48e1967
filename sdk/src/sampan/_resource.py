"""The base of the SDK's objects: the server's JSON, typed, with attribute access to its fields."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar, Generic, TypeVar

if TYPE_CHECKING:
    from typing import Self  # Python 3.11 (the SDK runs on 3.10: annotations are not evaluated)

    from sampan.client import Client

# The payload of a resource: one of the TypedDicts of sampan.types, generated from the OpenAPI schema.
DataT = TypeVar("DataT", bound=Mapping[str, Any])


class Resource(Generic[DataT]):
    """An object of the platform. ``data`` is the server's JSON, typed by the schema's component
    (``Project.data`` is a :class:`sampan.types.Project`); fields read as attributes
    (``project.name``) or items (``project["name"]``); :meth:`refresh` reloads it."""

    _path: ClassVar[str] = ""

    def __init__(self, client: Client, data: DataT) -> None:
        self._client = client
        self.data: DataT = data

    @property
    def _fields(self) -> Mapping[str, Any]:
        """``data`` as a plain mapping, for the generic code below (every payload has an ``id``)."""
        return self.data

    @property
    def id(self) -> int:
        return int(self._fields["id"])

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_") or name == "data":
            raise AttributeError(name)
        try:
            return self._fields[name]
        except KeyError:
            raise AttributeError(f"{type(self).__name__} has no field {name!r}") from None

    def __getitem__(self, key: str) -> Any:
        return self._fields[key]

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Resource) or type(other) is not type(self):
            return False
        return other._fields.get("id") == self._fields.get("id")

    def __hash__(self) -> int:
        return hash((type(self).__name__, self._fields.get("id")))

    def __repr__(self) -> str:
        label = self._fields.get("name") or self._fields.get("kind") or ""
        return f"<{type(self).__name__} {self._fields.get('id')}{' ' + repr(label) if label else ''}>"

    def url(self) -> str:
        return f"{self._path}{self.id}/"

    def refresh(self) -> Self:
        """Reload from the server (in place); returns self."""
        self.data = self._client.http.get(self.url())
        return self


def id_of(obj: int | Resource[Any] | Mapping[str, Any]) -> int:
    """The id of a resource, a server dict or an int."""
    if isinstance(obj, Resource):
        return obj.id
    if isinstance(obj, Mapping):
        return int(obj["id"])
    return int(obj)
