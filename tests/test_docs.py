"""User-facing docs stay in step with the code."""

from __future__ import annotations

from pathlib import Path

from config.env import ENV_VARS

REPO = Path(__file__).resolve().parents[1]


def test_configuration_doc_lists_every_environment_variable():
    doc = (REPO / "docs" / "configuration.md").read_text()
    missing = [name for name in ENV_VARS if f"`{name}`" not in doc]
    assert not missing, f"docs/configuration.md does not describe {missing}"


def test_readme_starts_with_the_two_commands():
    readme = (REPO / "README.md").read_text()
    first_commands = [line.strip() for line in readme.splitlines() if line.strip().startswith("make ")][:2]
    assert first_commands == ["make up", "make test"]
    assert (REPO / "docs" / "screenshot.png").exists() and "docs/screenshot.png" in readme
