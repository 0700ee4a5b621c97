"""``skitgubbe replay``: a saved game replays as played; a seat's view shows only what it saw."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

import skitgubbe as sg
from skitgubbe.apps.cli import main
from skitgubbe.apps.play import PlaySession
from skitgubbe.apps.replay import Replay
from skitgubbe.errors import ArgumentError, ArgumentTypeError

PRIVATE = (sg.EventKind.DEAL, sg.EventKind.DRAW)


def screen() -> Console:
    return Console(file=io.StringIO(), force_terminal=False, width=120, highlight=False)


def text_of(console: Console) -> str:
    file = console.file
    assert isinstance(file, io.StringIO)
    return file.getvalue()


def played(rules: sg.Rules, seed: int, specs: tuple[str, ...] = ("greedy",)) -> sg.Game:
    game = sg.Game.new(rules, seed=seed)
    bots = [sg.bots.make(specs[seat % len(specs)], seed=seat) for seat in range(rules.players)]
    while (seat := game.to_move) is not None:
        game.play(bots[seat].choose(game.observation(seat)))
    return game


def save(game: sg.Game, path: Path) -> Path:
    path.write_text(json.dumps(game.record(), ensure_ascii=False), encoding="utf-8")
    return path


GAMES = [
    (sg.Rules.classic(players=3), 11),
    (sg.Rules.classic(players=2), 4),
    (sg.Rules.modern(players=4), 3),
    (sg.Rules.classic(players=4, trump="upcard", low_card_threshold=5), 6),
]


def hidden_by_move(record: dict[str, Any], seat: int) -> list[set[str]]:
    """Per move (0: the deal): the card texts ``seat`` could not see then, from the record alone.

    The record is replayed as the referee sees it: the cards dealt or drawn to
    the other seats so far, the stock and the face-down last card, less every
    card that had been public by then or was the seat's own.
    """
    game = sg.Game.from_record({**record, "moves": [], "result": None})
    secret = seen = sg.CardSet(0)
    hidden: list[set[str]] = []
    done = 0
    for move in [None, *record["moves"]]:
        if move is not None:
            game.play(move)
        events = game.history[done:]
        done += len(events)
        for event in events:
            if event.kind in PRIVATE and event.seat != seat:
                secret |= event.cards
            else:
                seen |= event.cards
        unseen = secret | sg.CardSet.of(*game.stock)
        if game.hidden_card is not None:
            unseen |= sg.CardSet.of(game.hidden_card)
        hidden.append({str(card) for card in unseen - seen})
    return hidden


def chunks_by_move(out: str) -> list[str]:
    """The ``--all`` output cut at each numbered move line (chunk 0: the deal)."""
    chunks = [""]
    for line in out.splitlines():
        found = re.match(r"\s*(\d+)\. ", line)
        if found:
            assert int(found.group(1)) == len(chunks)
            chunks.append("")
        chunks[-1] += line + "\n"
    return chunks


# -- the replay reproduces the game ----------------------------------------------------


@pytest.mark.parametrize(("rules", "seed"), GAMES)
def test_a_saved_game_replays_move_by_move(rules: sg.Rules, seed: int, tmp_path: Path) -> None:
    game = played(rules, seed)
    replay = Replay.load(save(game, tmp_path / "game.json"))
    assert replay.moves == game.moves
    assert replay.game.result == game.result
    assert len(replay) == game.moves_played + 1
    events = [event for index in range(len(replay)) for event in replay.events(index)]
    assert tuple(events) == game.history  # the full view: every event, unredacted


def test_the_command_prints_the_whole_game(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    game = played(sg.Rules.classic(players=3), 11)
    path = save(game, tmp_path / "game.json")
    assert main(["replay", str(path), "--all"]) == 0
    out = capsys.readouterr().out
    result = game.result
    assert result is not None and result.loser is not None
    assert f"Seat {result.loser} is the skitgubbe after {result.moves_played} moves" in out
    assert len(chunks_by_move(out)) == result.moves_played + 1  # checks the numbering too
    for hand in sg.Game.new(game.rules, seed=11).hands:
        assert " ".join(map(str, hand)) in out  # the full view shows every dealt hand


def test_the_seats_view_of_a_game_is_its_observations(tmp_path: Path) -> None:
    game = played(sg.Rules.classic(players=3), 11)
    replay = Replay(game.record(), seat=2)
    for index in (0, 5, len(replay) - 1):
        position = sg.Game.from_record({**game.record(), "moves": [], "result": None})
        for move in game.moves[:index]:
            position.play(move)
        view = position.observation(2)
        before = len(view.history) - len(replay.events(index))
        assert replay.events(index) == view.history[before:]


# -- a seat's view shows nothing that seat could not see ---------------------------------


@pytest.mark.slow
@pytest.mark.parametrize(("rules", "seed"), GAMES)
def test_a_seats_replay_shows_nothing_it_did_not_see(
    rules: sg.Rules, seed: int, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """At every move, no card the seat could not see then appears in its replay.

    Checked in both forms: each frame as stepping shows it, and each move's part
    of the ``--all`` print-out. The full view shows those same cards, so the
    card texts searched for are the ones the replay prints.
    """
    game = played(rules, seed, ("greedy", "random"))
    record = game.record()
    path = save(game, tmp_path / "game.json")
    full = Replay(record)
    for seat in range(rules.players):
        hidden = hidden_by_move(record, seat)
        assert all(hidden[:10]) and len(hidden) == len(full)
        assert main(["replay", str(path), "--seat", str(seat), "--all"]) == 0
        chunks = chunks_by_move(capsys.readouterr().out)
        assert len(chunks) == len(hidden)
        replay = Replay(record, seat=seat)
        for index in range(len(replay)):
            console = screen()
            replay.show(index, console)
            for text in (text_of(console), chunks[index]):
                leaked = sorted(card for card in hidden[index] if card in text)
                assert not leaked, f"seat {seat}'s replay at move {index} shows {leaked}"
        for index in (0, len(full) // 2):  # the full view does show them
            console = screen()
            full.show(index, console)
            assert all(card in text_of(console) for card in hidden[index])


def test_others_draws_show_as_counts(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    game = played(sg.Rules.classic(players=3), 11)
    path = save(game, tmp_path / "game.json")
    assert main(["replay", str(path), "--seat", "1", "--all"]) == 0
    out = capsys.readouterr().out
    assert "Seat 0 draws 1 card" in out
    assert "You draw " in out and "You draw 1 card" not in out
    assert "as seat 1 saw it" in out


# -- interactive stepping ----------------------------------------------------------------


def test_stepping_forward_back_jump_and_quit() -> None:
    game = played(sg.Rules.classic(players=2), 4)
    replay = Replay(game.record(), seat=0)
    last = len(replay) - 1
    keys = iter(["", "", "b", "b", "b", "5", "zap", str(last + 1), str(last), "", "n", "q"])
    console = screen()
    assert replay.step(console, lambda prompt: next(keys)) == 0
    out = text_of(console)
    headings = [
        line.strip("─ ")
        for line in out.splitlines()
        if line.startswith("─") and not line.strip("─ ").startswith("Replay")
    ]
    shown = [h.split(" of ")[0] for h in headings]
    assert shown == [
        "The deal (move 0",
        "Move 1",
        "Move 2",
        "Move 1",
        "The deal (move 0",
        "Move 5",
        f"Move {last}",
    ]
    assert "This is the deal: there is nothing before it." in out
    assert "Not understood: 'zap'" in out
    assert f"There is no move {last + 1}: the game has moves 0 to {last}." in out
    assert out.count("That was the last move") == 2


def test_stepping_ends_cleanly_at_the_end_of_input() -> None:
    replay = Replay(played(sg.Rules.classic(players=2), 4).record())

    def no_more(prompt: str) -> str:
        raise EOFError

    assert replay.step(screen(), no_more) == 0


# -- bad files ----------------------------------------------------------------------------


def test_bad_files_are_errors_not_tracebacks(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    game = played(sg.Rules.classic(players=2), 4)
    record = game.record()
    record["moves"][3] = "pick"
    cases = {
        "missing.json": None,
        "garbage.json": "{ not json",
        "list.json": "[1, 2]",
        "tampered.json": json.dumps(record),
    }
    for name, content in cases.items():
        path = tmp_path / name
        if content is not None:
            path.write_text(content, encoding="utf-8")
        with pytest.raises(SystemExit) as exit_info:
            main(["replay", str(path), "--all"])
        assert exit_info.value.code == 2
        assert "skitgubbe: error:" in capsys.readouterr().err
    good = save(game, tmp_path / "good.json")
    with pytest.raises(SystemExit):
        main(["replay", str(good), "--seat", "2"])
    assert "--seat must be 0..1, not 2" in capsys.readouterr().err


def test_bad_arguments_are_argument_errors() -> None:
    record = played(sg.Rules.classic(players=2), 4).record()
    with pytest.raises(ArgumentError, match=r"--seat must be 0\.\.1, not 2"):
        Replay(record, seat=2)
    with pytest.raises(ArgumentTypeError, match="--seat is a seat number or None"):
        Replay(record, seat="1")  # type: ignore[arg-type]
    replay = Replay(record)
    with pytest.raises(ArgumentError, match=f"no move {len(replay)}: the game has moves 0"):
        replay.frame(len(replay))
    with pytest.raises(ArgumentTypeError, match="a move number is an int, not '1'"):
        replay.events("1")  # type: ignore[arg-type]


def test_a_record_that_stops_mid_game(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    game = sg.Game.new(sg.Rules.classic(players=3), seed=2)
    for _ in range(6):
        game.play(game.legal_moves[0])
    path = save(game, tmp_path / "part.json")
    assert main(["replay", str(path), "--seat", "0", "--all"]) == 0
    assert "The record stops before the end of the game." in capsys.readouterr().out


# Issue 9, point 9: odd values and deep nesting in a file are errors, not tracebacks.
@pytest.mark.parametrize(
    "content",
    [
        pytest.param("[" * 100_000, id="deep-list"),
        pytest.param('{"a":' * 100_000, id="deep-object"),
        pytest.param("seed-nan", id="seed-nan"),
        pytest.param("seed-float", id="seed-float"),
        pytest.param("dealer-null", id="dealer-null"),
    ],
)
def test_odd_files_are_errors_not_tracebacks(
    content: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record = played(sg.Rules.classic(players=2), 4).record()
    if content == "seed-nan":
        content = json.dumps({**record, "seed": float("nan")})
    elif content == "seed-float":
        content = json.dumps({**record, "seed": record["seed"] + 0.5})
    elif content == "dealer-null":
        record["start"]["dealer"] = None
        content = json.dumps(record)
    path = tmp_path / "odd.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(SystemExit) as exit_info:
        main(["replay", str(path), "--all"])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert "skitgubbe: error:" in err and "Traceback" not in err


def test_a_replay_names_each_seat_by_who_sat_there(tmp_path: Path) -> None:
    """A record ``skitgubbe play`` saved names its seats ("person", the bots' levels): the
    replay shows them in the headings and the seat table, "you" at the viewer's seat."""
    answers = iter(["1"] * 3 + ["quit"])
    path = tmp_path / "game.json"
    session = PlaySession.new(
        players=3,
        bots=["easy", "random"],
        seed=4,
        console=screen(),
        input=lambda prompt: next(answers),
        save_path=path,
    )
    session.run()
    record = json.loads(path.read_text(encoding="utf-8"))
    assert record["names"] == ["person", "easy", "random"]
    console = screen()
    replay = Replay(record, seat=0)
    replay.print_all(console)
    shown = text_of(console)
    assert "seat 1 · easy" in shown and "seat 2 · random" in shown
    full = Replay(record)
    walker = sg.Game.from_record({**record, "moves": [], "result": None})
    labels = ["seat 0 · person", "seat 1 · easy", "seat 2 · random"]
    for index, move in enumerate(full.moves, 1):  # each heading names the seat that moved
        mover = walker.to_move
        assert mover is not None
        console = screen()
        full.show(index, console)
        heading = text_of(console).splitlines()[0]
        assert f"Move {index} of {len(full.moves)} · {labels[mover]}" in heading, heading
        walker.play(move)


@pytest.mark.parametrize(
    ("names", "shown"),
    [
        (None, ["seat 0", "seat 2"]),
        (["person", "easy"], ["seat 0", "seat 2"]),  # the wrong length: nobody is named
        (["person", 5, "easy"], ["seat 0 · person", "seat 2 · easy"]),
        (["person", "hard", "\x1b[2J"], ["seat 0 · person", "seat 2"]),
        (["  ", "hard", "x" * 41], ["seat 0", "seat 2"]),
    ],
)
def test_a_seat_without_a_usable_name_shows_its_number(names: Any, shown: list[str]) -> None:
    record = played(sg.Rules.classic(players=3), 3).record()
    if names is not None:
        record["names"] = names
    console = screen()
    Replay(record, seat=1).show(0, console)  # a seat's view: the seat table names them
    rows = {line.split()[0]: line for line in text_of(console).splitlines() if line[:1] in "02"}
    for seat, label in zip(("0", "2"), shown, strict=True):
        assert rows[seat].split("  ")[0].strip() == seat
        assert re.search(rf"^{seat}\s+{re.escape(label)}\s+\d", rows[seat]), rows[seat]
    assert "\x1b" not in text_of(console) and "hard" not in text_of(console)
