"""`core.dates`: one reader for the dates users type and services send, always aware UTC."""

from __future__ import annotations

import datetime as dt
import time

import pytest

from lore.core.dates import iso_utc, local_minute, parse_instant, to_epoch
from lore.core.errors import InvalidInput

MARCH_FIRST = dt.datetime(2024, 3, 1, tzinfo=dt.UTC)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2024-03-01", MARCH_FIRST),
        ("2024-03-01T00:00:00Z", MARCH_FIRST),
        ("2024-03-01T00:00:00z", MARCH_FIRST),
        ("2024-03-01T02:00:00+02:00", MARCH_FIRST),
        ("2024-02-29T19:00:00-05:00", MARCH_FIRST),
        ("2024-03-01T00:00:00", MARCH_FIRST),  # naive is UTC
        ("  2024-03-01 ", MARCH_FIRST),
        (str(int(MARCH_FIRST.timestamp())), MARCH_FIRST),
        (MARCH_FIRST.timestamp(), MARCH_FIRST),
        (dt.date(2024, 3, 1), MARCH_FIRST),
        (dt.datetime(2024, 3, 1, 1, tzinfo=dt.timezone(dt.timedelta(hours=1))), MARCH_FIRST),
    ],
)
def test_every_form_is_the_same_aware_moment(text: object, expected: dt.datetime) -> None:
    moment = parse_instant(text)
    assert moment == expected and moment.utcoffset() == dt.timedelta(0)


def test_fractional_epoch_and_round_trip() -> None:
    assert to_epoch("1709251200.5") == 1709251200.5
    assert iso_utc(to_epoch("2024-03-01T12:30:00+01:00")) == "2024-03-01T11:30:00Z"
    assert iso_utc(None) is None


@pytest.mark.parametrize(
    "text",
    ["last tuesday", "2024-13-01", "", "12345", "2024-03-01T25:00Z", "9" * 30, "1e999", 1e300, float("inf")],
)
def test_anything_else_is_one_clear_refusal(text: object) -> None:
    with pytest.raises(InvalidInput) as caught:
        parse_instant(text, what="--since")
    message = str(caught.value)
    assert message.startswith("--since wants a date like 2024-03-01") and "\n" not in message


def test_local_minute_is_for_reading_and_says_when_there_is_none(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TZ", "Asia/Kolkata")  # UTC+5:30, no daylight saving
    time.tzset()
    try:
        assert local_minute(to_epoch("2024-03-01T12:30:45Z")) == "2024-03-01 18:00"
    finally:
        monkeypatch.undo()
        time.tzset()
    assert local_minute(None) == "-" and local_minute(0, empty="never") == "never"


def test_a_huge_refused_value_is_quoted_short() -> None:
    with pytest.raises(InvalidInput) as caught:
        parse_instant("x" * 1_000_000)
    message = str(caught.value)
    assert len(message) < 200 and "(and 999,940 more characters)" in message
