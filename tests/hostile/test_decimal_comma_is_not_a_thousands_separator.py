"""A cell "1,5" used to be read as 15 (every comma stripped as a thousands separator): silently wrong
numbers in training and prediction. Only real thousands grouping is stripped now."""

from __future__ import annotations

from workers.tabular.encoding import number_of


def test_thousands_grouping_is_still_a_number():
    assert number_of("12,345") == 12345.0
    assert number_of("-1,234,567.25") == -1234567.25


def test_a_decimal_comma_or_a_list_is_not_silently_a_different_number():
    assert number_of("1,5") is None
    assert number_of("1,50") is None
    assert number_of("3,14159") is None
    assert number_of("1,2,3") is None
    assert number_of("1.5") == 1.5
