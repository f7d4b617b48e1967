"""The payloads that cross a boundary, each defined once (DESIGN §10).

The compute plane produces them, so it owns them: every contract here is a ``TypedDict`` that a
worker returns as plain JSON (stored in a JSONField, sent to the browser, the SDK and packages
as it is). Django-free and torch-free; importable anywhere.

Conventions:
- A top-level payload has ``kind`` (a ``Literal`` naming it, e.g. ``"classification_report"``)
  and ``version`` (an ``int``, bumped when a field changes meaning or disappears). Consumers
  switch on ``kind``; they never sniff keys.
- Nested parts are TypedDicts too; optional keys are ``NotRequired[...]``, values that may be
  absent are ``X | None``. Only JSON types: ``str``, ``int``, ``float``, ``bool``, ``None``,
  ``list[...]``, ``dict[str, ...]``, ``Literal[...]`` and other TypedDicts.
- The platform describes each one in the OpenAPI schema with ``config.contracts.contract_serializer``
  (a DRF serializer built from the TypedDict), so the schema, the TypeScript client and the SDK's
  types all come from this one definition.
"""
