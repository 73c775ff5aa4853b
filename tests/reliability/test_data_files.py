"""Mutated deck, catalogue, board, income, profile and marker-sheet files: every loader either
loads the file or raises its own error naming the file (and the line when one line is at fault)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, Phase, given, settings

from tests.reliability.data_files import DataKind, DataOutcome, Edit, Mutation, check_loader, mutations


def test_mutated_data_files_never_crash(tmp_path_factory):
    folder = tmp_path_factory.mktemp("data")

    @settings(max_examples=300, deadline=None, database=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))
    @given(mutations())
    def check(m: Mutation):
        result = check_loader(m, folder)
        assert result.outcome is not DataOutcome.CRASH, (m, result.detail)

    check()


@pytest.mark.parametrize("kind", list(DataKind))
def test_bytes_that_are_not_utf8_name_the_line(kind, tmp_path):
    result = check_loader(Mutation(kind, Edit.BINARY, 500, 0, ""), tmp_path)
    if kind is DataKind.SHEET:
        assert result.outcome is DataOutcome.ERROR_FILE_ONLY  # read_sheet names the file only
    else:
        assert result.outcome is DataOutcome.ERROR_WITH_LINE, result.detail


@pytest.mark.parametrize("kind, line", [(DataKind.DECK, 8), (DataKind.CATALOGUE, 10), (DataKind.BOARD, 30),
                                        (DataKind.INCOME, 6), (DataKind.PROFILE, 3)])
def test_a_garbled_line_is_named(kind, line, tmp_path):
    result = check_loader(Mutation(kind, Edit.REPLACE, line - 1, 0, "@@@ {{ ,,, garbage"), tmp_path)
    assert result.outcome is DataOutcome.ERROR_WITH_LINE, result.detail
