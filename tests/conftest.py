"""Fixtures shared by the whole suite."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _private_config_and_data(tmp_path_factory, monkeypatch):
    """Keep every test away from the user's own calibration profile and game log."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / "config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(home / "data"))
