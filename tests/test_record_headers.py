"""Every reader of a saved record checks its header in one place (``_files.check_header``):
a record of another kind, without a version or of an unknown version is refused with a
RecordError that says which."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

import skitgubbe as sg
from skitgubbe.arena.ladder import LadderResult, run_ladder


def _game() -> dict[str, Any]:
    return sg.Game.new(seed=2).record()


def _session() -> dict[str, Any]:
    session = sg.Session([sg.bots.RandomBot(seed=s) for s in range(3)], seed=1)
    session.play(1)
    return session.record()


def _match() -> dict[str, Any]:
    return sg.run_match(["random", "random"], deals=1, seed=0).to_dict()


def _ladder() -> dict[str, Any]:
    return run_ladder(["random", "greedy"], rounds=2, seed=4).to_dict()


def _resume(record: Any) -> object:
    return sg.Session.resume(record, [sg.bots.RandomBot(seed=s) for s in range(3)])


# (what the messages call it, a record of that kind, its reader, the versions it reads)
READERS: dict[str, tuple[Callable[[], dict[str, Any]], Callable[[Any], object], str]] = {
    "game record": (_game, sg.Game.from_record, "version 1"),
    "session record": (_session, _resume, "version 1"),
    "match record": (_match, sg.MatchResult.from_dict, "versions 1 to 2"),
    "ladder record": (_ladder, LadderResult.from_dict, "version 1"),
}
KINDS = sorted(READERS)


@pytest.mark.parametrize("what", KINDS)
def test_a_record_is_read_back(what: str) -> None:
    make, read, _ = READERS[what]
    read(make())  # the header check lets the reader's own records through


@pytest.mark.parametrize(
    ("what", "other"), [(what, other) for what in KINDS for other in KINDS if other != what]
)
def test_a_record_of_another_kind_is_refused(what: str, other: str) -> None:
    _, read, _ = READERS[what]
    record = READERS[other][0]()
    with pytest.raises(sg.RecordError) as caught:
        read(record)
    assert str(caught.value) == f"not a {what}: format is {record['format']!r}"


@pytest.mark.parametrize("what", KINDS)
@pytest.mark.parametrize("version", [None, 0, 99, "1", 1.0, True])
def test_a_missing_or_unknown_version_is_refused(what: str, version: object) -> None:
    make, read, reads = READERS[what]
    record = make()
    if version is None:
        del record["version"]
    else:
        record["version"] = version
    with pytest.raises(sg.RecordError) as caught:
        read(record)
    shown = "None" if version is None else repr(version)
    assert str(caught.value) == (
        f"{what} version {shown} is not supported (this library reads {reads})"
    )


@pytest.mark.parametrize("what", KINDS)
def test_a_record_that_is_not_a_mapping_is_refused(what: str) -> None:
    _, read, _ = READERS[what]
    with pytest.raises(sg.RecordError, match=f"^a {what} is a mapping, not list$"):
        read([])


def test_the_match_records_move_time_is_checked_as_every_move_time() -> None:
    record = _match()
    for bad in (0, -1.0, float("inf"), float("nan"), "1", True):
        record["timeout"] = bad
        with pytest.raises(sg.RecordError, match=r"^the match record's 'timeout' must be a"):
            sg.MatchResult.from_dict(record)
    record["timeout"] = 2
    assert sg.MatchResult.from_dict(record).timeout == 2
