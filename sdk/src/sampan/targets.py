"""Deployment target profiles: where models will run (ONNX Runtime settings, how much slower than the
worker's CPU, latency and size budgets). Studies and training jobs take one as ``target=``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sampan._resource import id_of as _id

if TYPE_CHECKING:
    from sampan.client import Client


class TargetProfiles:
    """``client.target_profiles``: the builtin targets and your workspaces' own.

    >>> client.target_profiles.builtins()[0]["name"]
    'worker-cpu'
    >>> phone = client.target_profiles.create(workspace, "phone", slowdown=3.0, latency_budget_ms=20)
    >>> goals = [{"metric": "val_acc"}, {"metric": "latency_ms"}]
    >>> client.studies.create(version, objectives=goals, target=phone["id"])
    """

    def __init__(self, client: Client) -> None:
        self._client = client

    def builtins(self) -> list[dict[str, Any]]:
        """The builtin profiles (worker-cpu, worker-cpu-4t, edge-arm-slow), read-only."""
        found: list[dict[str, Any]] = self._client.http.get("target-profiles/builtins/")
        return found

    def list(self, workspace: int | Any | None = None) -> list[dict[str, Any]]:
        """Your workspaces' profiles (one workspace's with ``workspace``)."""
        query = {} if workspace is None else {"workspace": _id(workspace)}
        return [dict(row) for row in self._client.http.paginate("target-profiles/", **query)]

    def get(self, profile: int) -> dict[str, Any]:
        found: dict[str, Any] = self._client.http.get(f"target-profiles/{int(profile)}/")
        return found

    def create(self, workspace: int | Any, name: str, **fields: Any) -> dict[str, Any]:
        """Register a profile: ``slowdown`` (target latency / this worker's), ``intra_op_threads``,
        ``inter_op_threads``, ``batch_size``, ``execution_provider``, ``latency_budget_ms``,
        ``size_budget_bytes``, ``description``."""
        created: dict[str, Any] = self._client.http.post(
            "target-profiles/", {"workspace": _id(workspace), "name": name, **fields}
        )
        return created

    def update(self, profile: int, **fields: Any) -> dict[str, Any]:
        changed: dict[str, Any] = self._client.http.patch(f"target-profiles/{int(profile)}/", fields)
        return changed

    def delete(self, profile: int) -> None:
        self._client.http.delete(f"target-profiles/{int(profile)}/")
