"""A forecasting dataset's frequency: its regular grid of timestamps, the season length its models
use, and timestamp parsing and formatting (NumPy only: the model packages vendor this file).

Fixed-step frequencies (minutes, hours, days, weeks) step by a constant number of seconds from the
first timestamp (``"W"`` is 7-day steps, so anchored on the first timestamp's weekday). Calendar
frequencies step by months: ``"MS"``/``"QS"``/``"YS"`` keep the day of the month (the 1st for
month starts), ``"ME"``/``"QE"``/``"YE"`` keep the distance from the month's end (0 for month ends),
so ``parse_frequency("ME").after(np.datetime64("2024-01-31"), 2)`` is Feb 29 and Mar 31.

>>> freq = parse_frequency("MS")
>>> [format_timestamp(t) for t in freq.after(parse_timestamp("1958-11-01"), 3)]
['1958-12-01', '1959-01-01', '1959-02-01']
"""

from __future__ import annotations

import datetime as _dt
import re
from dataclasses import dataclass

import numpy as np

SEASON_LENGTHS: dict[str, int] = {
    "min": 60,
    "5min": 288,
    "15min": 96,
    "30min": 48,
    "h": 24,
    "D": 7,
    "W": 52,
    "MS": 12,
    "ME": 12,
    "QS": 4,
    "QE": 4,
    "YS": 1,
    "YE": 1,
}

#: Seconds per step of the fixed-step frequencies.
_STEP_SECONDS: dict[str, int] = {
    "min": 60,
    "5min": 300,
    "15min": 900,
    "30min": 1800,
    "h": 3600,
    "D": 86400,
    "W": 7 * 86400,
}

#: Months per step of the calendar frequencies, and whether they are anchored on the month's end.
_STEP_MONTHS: dict[str, tuple[int, bool]] = {
    "MS": (1, False),
    "ME": (1, True),
    "QS": (3, False),
    "QE": (3, True),
    "YS": (12, False),
    "YE": (12, True),
}

_DAY = np.timedelta64(1, "D")
_SECONDS = np.dtype("datetime64[s]")


class FrequencyError(ValueError):
    """An unknown frequency alias."""


def _seconds(ts: object) -> np.ndarray:
    return np.asarray(ts).astype("datetime64[s]")


def _second(ts: object) -> np.datetime64:
    """One timestamp as datetime64[s]."""
    return np.datetime64(np.asarray(ts).astype("datetime64[s]").item(), "s")


def _month_parts(ts: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Each timestamp's month (datetime64[M]), day index in the month (0-based), days from the
    month's last day, and time of day."""
    ts = _seconds(ts)
    day = ts.astype("datetime64[D]")
    month = day.astype("datetime64[M]")
    first = month.astype("datetime64[D]")
    last = (month + 1).astype("datetime64[D]") - _DAY
    return month, (day - first).astype(np.int64), (last - day).astype(np.int64), ts - day


@dataclass(frozen=True)
class Frequency:
    """A regular grid: ``alias`` (one of ``contracts.forecasting.FREQUENCIES``) and the season
    length seasonal models use (12 for monthly data)."""

    alias: str
    season_length: int

    def _shift(self, anchor: np.datetime64, steps: np.ndarray) -> np.ndarray:
        """The timestamps ``steps`` grid steps from ``anchor`` (steps may be negative)."""
        anchor_s = _second(anchor)
        steps = np.asarray(steps, dtype=np.int64)
        if self.alias in _STEP_SECONDS:
            fixed: np.ndarray = anchor_s + steps * np.timedelta64(_STEP_SECONDS[self.alias], "s")
            return fixed
        months, from_end = _STEP_MONTHS[self.alias]
        month, day_index, days_to_end, time_of_day = _month_parts(np.array([anchor_s]))
        target = month[0] + steps * months
        first = target.astype("datetime64[D]")
        last = (target + 1).astype("datetime64[D]") - _DAY
        if from_end:
            day = np.maximum(last - int(days_to_end[0]) * _DAY, first)
        else:
            day = np.minimum(first + int(day_index[0]) * _DAY, last)
        calendar: np.ndarray = day.astype("datetime64[s]") + time_of_day[0]
        return calendar

    def grid(self, start: np.datetime64, n: int) -> np.ndarray:
        """``n`` timestamps from ``start`` (``start`` first), datetime64[s]."""
        return self._shift(start, np.arange(int(n)))

    def after(self, last: np.datetime64, n: int) -> np.ndarray:
        """The ``n`` timestamps after ``last``."""
        return self._shift(last, np.arange(1, int(n) + 1))

    def offset(self, a: np.datetime64, b: np.datetime64) -> int | None:
        """How many steps ``b`` is after ``a`` (negative when before); None when ``b`` is not on
        ``a``'s grid."""
        a_s, b_s = _second(a), _second(b)
        if self.alias in _STEP_SECONDS:
            diff = int((b_s - a_s).astype(np.int64))
            step = _STEP_SECONDS[self.alias]
            return diff // step if diff % step == 0 else None
        months = _STEP_MONTHS[self.alias][0]
        diff = int((b_s.astype("datetime64[M]") - a_s.astype("datetime64[M]")).astype(np.int64))
        if diff % months:
            return None
        steps = diff // months
        return steps if self._shift(a_s, np.array([steps]))[0] == b_s else None


def parse_frequency(alias: str) -> Frequency:
    """The frequency named ``alias`` (``"D"``, ``"MS"``, ...); FrequencyError naming the allowed
    aliases otherwise."""
    if not isinstance(alias, str) or alias not in SEASON_LENGTHS:
        allowed = ", ".join(SEASON_LENGTHS)
        raise FrequencyError(f"unknown frequency {alias!r}; use one of {allowed}")
    return Frequency(alias, SEASON_LENGTHS[alias])


def infer_frequency(timestamps: np.ndarray) -> str | None:
    """The alias of the dominant spacing of sorted unique timestamps, None when there are fewer
    than two or no frequency fits (a 2-day spacing, irregular data). Calendar frequencies win when
    most timestamps are month starts (``MS``/``QS``/``YS``) or month ends (``ME``/``QE``/``YE``)
    and the dominant spacing is 1, 3 or 12 months."""
    ts = _seconds(timestamps)
    if ts.size < 2:
        return None
    month, day_index, days_to_end, time_of_day = _month_parts(ts)
    month_steps = np.diff(month.astype(np.int64))
    values, counts = np.unique(month_steps, return_counts=True)
    dominant_months = int(values[np.argmax(counts)])
    same_time = np.mean(time_of_day == time_of_day[0]) >= 0.9
    if same_time and dominant_months in (1, 3, 12) and np.mean(month_steps == dominant_months) >= 0.5:
        kind = {1: "M", 3: "Q", 12: "Y"}[dominant_months]
        if np.mean(day_index == 0) >= 0.9:
            return kind + "S"
        if np.mean(days_to_end == 0) >= 0.9:
            return kind + "E"
    seconds = np.diff(ts.astype(np.int64))
    values, counts = np.unique(seconds, return_counts=True)
    dominant = int(values[np.argmax(counts)])
    for alias, step in _STEP_SECONDS.items():
        if step == dominant:
            return alias
    return None


_ISO = re.compile(
    r"^(\d{4})-(\d{2})(?:-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?)?)?"
    r"(Z|[+-]\d{2}:?\d{2})?$"
)


def parse_timestamp(value: object) -> np.datetime64:
    """A timestamp (datetime64[s], naive: an explicit UTC offset is converted to UTC) from an ISO
    date or datetime string (``"2024-03-01"``, ``"2024-03"``, ``"2024-03-01T10:00"``, ``"2024-03-01
    10:00:00"``), a 4-digit integer year (``1700`` or ``"1700"`` -> 1700-01-01), a ``datetime``/
    ``date`` or a ``np.datetime64``; ValueError otherwise."""
    if isinstance(value, np.datetime64):
        if np.isnat(value):
            raise ValueError("not a timestamp: NaT")
        return _second(value)
    if isinstance(value, _dt.datetime):
        if value.tzinfo is not None:
            value = value.astimezone(_dt.UTC).replace(tzinfo=None)
        return _second(np.datetime64(value.replace(microsecond=0), "s"))
    if isinstance(value, _dt.date):
        return _second(np.datetime64(value, "D"))
    if isinstance(value, (bool, np.bool_)):
        raise ValueError(f"not a timestamp: {value!r}")
    if isinstance(value, (int, np.integer, float, np.floating)):
        number = float(value)
        if number.is_integer() and 1000 <= number <= 9999:
            return np.datetime64(f"{int(number):04d}-01-01", "s")
        raise ValueError(f"not a timestamp: {value!r} (numbers are read as 4-digit years only)")
    if not isinstance(value, str):
        raise ValueError(f"not a timestamp: {value!r}")
    text = value.strip()
    # the common shapes (a date, a datetime to the second) parse in NumPy directly
    plain = len(text) in (10, 19) and text[:4].isdigit() and text[4] == "-" and text[7] == "-"
    if plain and (len(text) == 10 or text[10] in "T "):
        try:
            return np.datetime64(text[:10] + "T" + text[11:] if len(text) == 19 else text, "s")
        except ValueError:
            pass  # the checks below name what is wrong
    if re.fullmatch(r"\d{4}", text):
        return np.datetime64(f"{text}-01-01", "s")
    if re.fullmatch(r"\d{4}\.0+", text):
        return np.datetime64(f"{text[:4]}-01-01", "s")
    match = _ISO.match(text)
    if not match:
        raise ValueError(f"not an ISO 8601 date or datetime: {value!r}")
    year, month, day, hour, minute, second, zone = match.groups()
    try:
        parsed = _dt.datetime(
            int(year), int(month), int(day or 1), int(hour or 0), int(minute or 0), int(second or 0)
        )
    except ValueError as error:
        raise ValueError(f"not a valid date: {value!r} ({error})") from None
    if zone and zone != "Z":
        sign = 1 if zone[0] == "+" else -1
        digits = zone[1:].replace(":", "")
        parsed -= sign * _dt.timedelta(hours=int(digits[:2]), minutes=int(digits[2:]))
    return np.datetime64(parsed, "s")


def format_timestamp(ts: np.datetime64) -> str:
    """``"YYYY-MM-DD"`` at midnight, ``"YYYY-MM-DDTHH:MM:SS"`` otherwise."""
    seconds = ts if isinstance(ts, np.datetime64) and ts.dtype == _SECONDS else _second(ts)
    text = str(seconds)
    return text[:-9] if text.endswith("T00:00:00") else text


def format_timestamps(values: np.ndarray) -> list[str]:
    """:func:`format_timestamp` of each timestamp, at once.

    >>> format_timestamps(parse_frequency("h").grid(parse_timestamp("2024-01-01 22:00"), 3))
    ['2024-01-01T22:00:00', '2024-01-01T23:00:00', '2024-01-02']
    """
    texts = np.datetime_as_string(_seconds(values), unit="s")
    return [text[:-9] if text.endswith("T00:00:00") else text for text in texts.tolist()]
