"""Sessions (docs/rules.md §7): the cut, the rotating deal, the tally, the pot, records, the CLI."""

from __future__ import annotations

import itertools
import json
import re
from collections import Counter
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from nesting import nested

import skitgubbe as sg
from skitgubbe import _core
from skitgubbe.apps.cli import main
from skitgubbe.apps.cli.session import random_lineup


class Lowest:
    """Deterministic: always the first legal move."""

    def choose(self, observation: sg.Observation) -> sg.Move:
        return observation.legal_moves[0]


class FailsOnce:
    """Plays like Lowest, but raises once: at its ``move``-th choice in its ``game``-th game."""

    def __init__(self, game: int, move: int) -> None:
        self.game, self.move = game, move
        self.games = -1
        self.moves = 0
        self.failed = False

    def game_started(self, observation: sg.Observation) -> None:
        self.games += 1
        self.moves = 0

    def choose(self, observation: sg.Observation) -> sg.Move:
        self.moves += 1
        if (self.games, self.moves) == (self.game, self.move) and not self.failed:
            self.failed = True
            raise RuntimeError("lost connection")
        return observation.legal_moves[0]


def lowest(players: int = 3) -> list[Lowest]:
    return [Lowest() for _ in range(players)]


def seeded_bots(players: int) -> Callable[[int], list[sg.bots.RandomBot]]:
    return lambda index: [sg.bots.RandomBot(seed=100 * index + s) for s in range(players)]


def expected_cut(players: int, seed: int) -> tuple[list[list[tuple[int, sg.Card]]], int]:
    """The cut as docs/sessions.md describes it, computed from the engine's primitives."""
    base = _core.game_seed(seed, 2**64 - 1)
    cutters = list(range(players))
    rounds: list[list[tuple[int, sg.Card]]] = []
    while True:
        deck = _core.deck_from_seed(_core.game_seed(base, len(rounds)))
        drawn = [(seat, sg.Card.from_code(deck[i])) for i, seat in enumerate(cutters)]
        rounds.append(drawn)
        top = max(card.rank for _, card in drawn)
        cutters = [seat for seat, card in drawn if card.rank == top]
        if len(cutters) == 1:
            return rounds, cutters[0]


def rounds_of(session: sg.Session) -> list[list[tuple[int, sg.Card]]]:
    rounds: list[list[tuple[int, sg.Card]]] = []
    for cut in session.cuts:
        if cut.round == len(rounds):
            rounds.append([])
        assert cut.round == len(rounds) - 1
        rounds[-1].append((cut.seat, cut.card))
    return rounds


# -- the cut -------------------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_highest_card_deals_and_ties_cut_again(players: int) -> None:
    recuts = 0
    for seed in range(300):
        session = sg.Session(lowest(players), seed=seed)
        rounds = rounds_of(session)
        assert [seat for seat, _ in rounds[0]] == list(range(players))
        for before, after in itertools.pairwise(rounds):
            top = max(card.rank for _, card in before)
            tied = [seat for seat, card in before if card.rank == top]
            assert len(tied) > 1
            assert [seat for seat, _ in after] == tied  # only the tied players cut again
            recuts += 1
        final = rounds[-1]
        top = max(card.rank for _, card in final)
        assert [seat for seat, card in final if card.rank == top] == [session.first_dealer]
        for cards in rounds:
            assert len({card for _, card in cards}) == len(cards)  # cut from one deck
        assert (rounds, session.first_dealer) == expected_cut(players, seed)
    assert recuts >= 10  # the re-cut path was exercised


def test_a_tie_of_two_recuts_only_those_two() -> None:
    session = sg.Session(lowest(), seed=40)
    assert [(c.round, c.seat, str(c.card)) for c in session.cuts] == [
        (0, 0, "8♦"),
        (0, 1, "6♠"),
        (0, 2, "8♥"),  # 8♦ and 8♥ tie: suits do not matter
        (1, 0, "J♦"),
        (1, 2, "2♥"),
    ]
    assert session.first_dealer == 0


def test_three_way_and_repeated_ties() -> None:
    three_aces = sg.Session(lowest(), seed=271)
    assert [str(c.card) for c in three_aces.cuts if c.round == 0] == ["A♦", "A♠", "A♣"]
    assert [c.seat for c in three_aces.cuts if c.round == 1] == [0, 1, 2]
    assert three_aces.first_dealer == 2
    twice = sg.Session(lowest(), seed=290)
    assert [(c.round, c.seat) for c in twice.cuts] == [
        (0, 0),
        (0, 1),
        (0, 2),
        (1, 0),
        (1, 1),
        (2, 0),
        (2, 1),
    ]
    assert twice.first_dealer == 0


def test_the_cut_depends_on_the_seed_only() -> None:
    assert sg.Session(lowest(), seed=9).cuts == sg.Session(seeded_bots(3), sg.Rules(), seed=9).cuts
    firsts = {sg.Session(lowest(4), seed=seed).first_dealer for seed in range(40)}
    assert firsts == {0, 1, 2, 3}


# -- the deal and the tally -------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_deal_passes_clockwise_and_each_game_has_its_own_seed(players: int) -> None:
    session = sg.Session(seeded_bots(players), sg.Rules.classic(players=players), seed=17)
    dealers = []
    for index in range(2 * players + 1):
        assert session.next_dealer == (session.first_dealer + index) % players
        assert session.next_seed == _core.game_seed(17, index)
        session.play_game()
        dealers.append(session.games[-1].dealer)
    assert dealers == [(session.first_dealer + i) % players for i in range(2 * players + 1)]
    for index, (game, record) in enumerate(
        zip(session.games, session.record()["games"], strict=True)
    ):
        assert game.index == index and game.seed == _core.game_seed(17, index)
        assert record["start"]["dealer"] == game.dealer and record["seed"] == game.seed
        deck = _core.deck_from_seed(game.seed)
        assert [sg.Card.parse(c).code for c in record["start"]["deck"]] == list(deck)


def test_a_game_is_the_one_game_new_deals() -> None:
    session = sg.Session(lowest(), seed=3)
    result = session.play_game()
    game = sg.Game.new(sg.Rules(), seed=_core.game_seed(3, 0), dealer=session.first_dealer)
    assert sg.play_game(lowest(), game=game) == result
    assert session.record()["games"][0] == game.record()


def test_the_tally_counts_losses_and_truncated_games() -> None:
    rules = sg.Rules.classic(players=3, max_moves=250)
    session = sg.Session(seeded_bots(3), rules, seed=5)
    results = session.play(30)
    assert results == tuple(game.result for game in session.games)
    losers = Counter(r.loser for r in results if not r.truncated and r.loser is not None)
    assert session.losses == tuple(losers[seat] for seat in range(3))
    assert session.truncated == sum(r.truncated for r in results)
    assert session.no_loser == sum(not r.truncated and r.loser is None for r in results)
    assert sum(session.losses) + session.truncated + session.no_loser == session.games_played
    assert 0 < session.truncated < 30 and sum(session.losses) > 0  # both kinds happened
    standings = session.standings()
    assert (standings.games, standings.losses, standings.truncated) == (
        30,
        session.losses,
        session.truncated,
    )


def test_progress_sees_every_game_in_order() -> None:
    session = sg.Session(lowest(), seed=2)
    seen: list[sg.SessionGame] = []
    session.play(4, progress=seen.append)
    assert seen == list(session.games) and [g.index for g in seen] == [0, 1, 2, 3]


# -- the pot -------------------------------------------------------------------------------


def expected_standings(losses: tuple[int, ...]) -> tuple[tuple[int, ...], list[Fraction]]:
    fewest = min(losses)
    winners = tuple(s for s, n in enumerate(losses) if n == fewest)
    pot = sum(losses)
    return winners, [Fraction(pot, len(winners)) if s in winners else Fraction(0) for s in range(3)]


def test_the_pot_goes_to_the_fewest_losses_and_ties_share_it() -> None:
    session = sg.Session(lowest(), seed=0, pot=True)
    kinds = set()
    for _ in range(10):
        session.play_game()
        standings = session.standings()
        winners, shares = expected_standings(standings.losses)
        assert standings.pot == sum(session.losses)
        assert standings.winners == winners
        assert list(standings.shares or ()) == shares
        assert sum(standings.shares or ()) == standings.pot
        kinds.add((len(winners), shares[winners[0]].denominator))
    assert (1, 1) in kinds  # one winner takes the whole pot
    assert (2, 2) in kinds  # two winners share an odd pot: halves


def test_pot_values_for_a_known_session() -> None:
    session = sg.Session(lowest(), seed=0, pot=True)
    session.play(7)  # losses (1, 5, 1): seats 0 and 2 share 7 tokens
    standings = session.standings()
    assert standings.losses == (1, 5, 1)
    assert standings.shares == (Fraction(7, 2), Fraction(0), Fraction(7, 2))
    session.play(2)  # a truncated game (no token), then losses (2, 5, 1): seat 2 takes all 8
    final = session.close()
    assert (final.losses, final.truncated, final.pot) == ((2, 5, 1), 1, 8)
    assert final.shares == (Fraction(0), Fraction(0), Fraction(8))


def test_before_any_game_everyone_ties_for_an_empty_pot() -> None:
    standings = sg.Session(lowest(4), seed=1, pot=True).standings()
    assert standings.winners == (0, 1, 2, 3) and standings.pot == 0
    assert standings.shares == (Fraction(0),) * 4


def test_without_a_pot_there_are_no_shares() -> None:
    session = sg.Session(lowest(), seed=0)
    session.play(3)
    standings = session.standings()
    assert standings.pot is None and standings.shares is None
    assert standings.winners == expected_standings(standings.losses)[0]


def test_truncated_games_put_no_token_in_the_pot() -> None:
    rules = sg.Rules.classic(players=3, max_moves=250)
    session = sg.Session(seeded_bots(3), rules, seed=5, pot=True)
    session.play(30)
    assert session.truncated > 0
    assert session.standings().pot == 30 - session.truncated - session.no_loser


def test_close_ends_the_session() -> None:
    session = sg.Session(lowest(), seed=1, pot=True)
    session.play(2)
    assert not session.standings().ended
    final = session.close()
    assert final.ended and session.closed and final.games == 2
    with pytest.raises(sg.SkitgubbeError, match="closed"):
        session.play_game()
    assert session.games_played == 2
    resumed = sg.Session.resume(session.record(), lowest())
    assert resumed.closed
    with pytest.raises(sg.SkitgubbeError, match="closed"):
        resumed.play(1)


# -- records ---------------------------------------------------------------------------------


def test_the_record_holds_the_settings_the_cut_and_the_games() -> None:
    session = sg.Session(lowest(), sg.Rules.classic(players=3), seed=40, pot=True)
    session.play(2)
    record = json.loads(json.dumps(session.record()))
    assert record["format"] == sg.SESSION_FORMAT and record["version"] == sg.SESSION_VERSION
    assert record["rules"] == sg.Rules().to_dict() and record["seed"] == 40 and record["pot"]
    assert record["cuts"][:2] == [
        {"round": 0, "seat": 0, "card": "8♦"},
        {"round": 0, "seat": 1, "card": "6♠"},
    ]
    assert record["first_dealer"] == 0 and record["closed"] is False
    assert [sg.Game.from_record(g).result for g in record["games"]] == [
        g.result for g in session.games
    ]


def test_record_returns_a_copy() -> None:
    session = sg.Session(lowest(), seed=1)
    session.play(1)
    session.record()["games"][0]["moves"].clear()
    assert session.record()["games"][0]["moves"]


@pytest.mark.parametrize(
    ("make", "rules"),
    [
        (lambda: lowest(), None),
        (lambda: seeded_bots(3), sg.Rules.classic(players=3)),
        (lambda: seeded_bots(2), sg.Rules.classic(players=2, max_moves=150)),
    ],
)
def test_save_and_resume_plays_the_games_of_an_uninterrupted_session(
    make: Callable[[], Any], rules: sg.Rules | None
) -> None:
    whole = sg.Session(make(), rules, seed=23, pot=True)
    whole.play(9)
    first = sg.Session(make(), rules, seed=23, pot=True)
    first.play(4)
    text = json.dumps(first.record())
    resumed = sg.Session.resume(json.loads(text), make())
    assert resumed.games == first.games and resumed.losses == first.losses
    assert resumed.next_dealer == first.next_dealer and resumed.next_seed == first.next_seed
    resumed.play(5)
    assert resumed.games == whole.games
    assert resumed.record() == whole.record()
    assert resumed.standings() == whole.standings()


def test_shared_random_bots_do_not_resume_exactly() -> None:
    """Why the lineup hook exists: a bot's RNG state is not in the record."""
    bots = [sg.bots.RandomBot(seed=s) for s in range(3)]
    whole = sg.Session(bots, seed=23)
    whole.play(6)
    bots = [sg.bots.RandomBot(seed=s) for s in range(3)]
    part = sg.Session(bots, seed=23)
    part.play(3)
    resumed = sg.Session.resume(part.record(), [sg.bots.RandomBot(seed=s) for s in range(3)])
    resumed.play(3)
    assert resumed.games[:3] == whole.games[:3]
    assert resumed.games[3:] != whole.games[3:]


def tampered(change: Callable[[dict[str, Any]], object]) -> dict[str, Any]:
    session = sg.Session(lowest(), seed=40, pot=True)
    session.play(3)
    record: dict[str, Any] = json.loads(json.dumps(session.record()))
    change(record)
    return record


def swap_games(record: dict[str, Any]) -> None:
    record["games"][0], record["games"][1] = record["games"][1], record["games"][0]


def other_deck(record: dict[str, Any]) -> None:
    deck = record["games"][1]["start"]["deck"]
    deck[0], deck[-1] = deck[-1], deck[0]


def unfinished(record: dict[str, Any]) -> None:
    game = record["games"][2]
    del game["moves"][-1]
    game["result"] = None


def other_rules(record: dict[str, Any]) -> None:
    game = sg.Game.from_record(record["games"][0])
    fresh = sg.Game.new(sg.Rules(max_moves=9999), seed=game.seed, dealer=game.dealer)
    sg.play_game(lowest(), game=fresh)
    record["games"][0] = fresh.record()


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda r: r.update(format="skitgubbe-record"), "not a session record"),
        (lambda r: r.update(version=2), "version 2 is not supported"),
        (lambda r: r.update(rng_version=99), "generator version 99"),
        (lambda r: r.pop("cuts"), "has no 'cuts'"),
        (lambda r: r["rules"].update(players=5), "bad rules"),
        (lambda r: r.update(seed=-3), "seed must be an int"),
        (lambda r: r.update(seed=41), "cuts .* are not the ones seed 41 gives"),
        (lambda r: r.update(pot="yes"), "'pot' must be true or false"),
        (lambda r: r.update(closed=1), "'closed' must be true or false"),
        (lambda r: r["cuts"][3].update(card="QD"), "are not the ones seed 40 gives"),
        (lambda r: r["cuts"].pop(), "are not the ones seed 40 gives"),
        (lambda r: r["cuts"][0].update(card="XX"), "cut 0: not a card"),
        (lambda r: r["cuts"].__setitem__(0, [0, 0, "8D"]), "cut 0 must be a mapping"),
        (lambda r: r.update(first_dealer=2), "first dealer is 2"),
        (lambda r: r.update(games={}), "'games' must be a list"),
        (lambda r: r["games"].__setitem__(1, "game"), "game 1: a game record is a mapping"),
        (lambda r: r["games"][1]["moves"].__setitem__(0, "pick"), "game 1: move 0"),
        (lambda r: r["games"][2]["result"].update(loser=0), "game 2: the record's result"),
        (lambda r: r["games"][0].update(seed=7), "game 0: the deck is not the one seed 7"),
        (swap_games, "game 0 was dealt from seed"),
        (lambda r: r["games"].pop(0), "game 0 was dealt from seed"),
        (other_deck, "game 1: .*deck is not the one seed"),
        (lambda r: r["games"][1]["start"].update(dealer=2), "game 1: "),
        (lambda r: r["games"][0].pop("seed"), "game 0 was dealt from seed None"),
        (unfinished, "game 2 is not finished"),
        (other_rules, "game 0 was played with Rules.classic"),
    ],
)
def test_a_tampered_record_is_refused(
    change: Callable[[dict[str, Any]], object], message: str
) -> None:
    record = tampered(change)
    with pytest.raises(sg.RecordError, match=message):
        sg.Session.resume(record, lowest())


def test_the_untampered_record_resumes() -> None:
    record = tampered(lambda r: None)  # the control for the test above
    assert sg.Session.resume(record, lowest()).games_played == 3


def test_a_record_that_is_not_a_mapping_is_refused() -> None:
    with pytest.raises(sg.RecordError, match="a session record is a mapping, not list"):
        sg.Session.resume([], lowest())  # type: ignore[arg-type]


def test_resuming_needs_the_right_number_of_players() -> None:
    record = tampered(lambda r: None)
    with pytest.raises(sg.SkitgubbeError, match="the rules are for 3 players; got 4"):
        sg.Session.resume(record, lowest(4))


# -- errors -------------------------------------------------------------------------------------


def test_a_player_error_leaves_the_session_as_it_was() -> None:
    whole = sg.Session(lowest(), seed=6, pot=True)
    whole.play(5)
    session = sg.Session([Lowest(), FailsOnce(game=2, move=5), Lowest()], seed=6, pot=True)
    session.play(2)
    before = (session.record(), session.standings(), session.games, session.next_dealer)
    with pytest.raises(sg.PlayerError) as info:
        session.play(3)
    assert info.value.seat == 1 and isinstance(info.value.cause, RuntimeError)
    assert (session.record(), session.standings(), session.games, session.next_dealer) == before
    session.play(3)  # the failed game is dealt again, and the session goes on as if
    assert session.record() == whole.record()


def test_a_failed_game_is_not_counted() -> None:
    session = sg.Session([Lowest(), FailsOnce(game=0, move=1), Lowest()], seed=6)
    before = session.record()
    with pytest.raises(sg.PlayerError):
        session.play_game()
    assert session.record() == before
    assert (session.games_played, session.losses, session.next_dealer) == (
        0,
        (0, 0, 0),
        session.first_dealer,
    )


@pytest.mark.parametrize(
    ("seed", "error"),
    [
        (-1, sg.ArgumentError),
        (2**64, sg.ArgumentError),
        (1.0, sg.ArgumentTypeError),
        ("1", sg.ArgumentTypeError),
        (True, sg.ArgumentTypeError),
        (None, sg.ArgumentTypeError),
    ],
)
def test_bad_seeds(seed: object, error: type[Exception]) -> None:
    with pytest.raises(error, match="seed must be an int"):
        sg.Session(lowest(), seed=seed)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("games", "error"),
    [(-1, ValueError), (1.5, TypeError), ("3", TypeError), (True, TypeError)],
)
def test_bad_game_counts(games: object, error: type[Exception]) -> None:
    session = sg.Session(lowest(), seed=1)
    with pytest.raises(error, match="games must be an int >= 0"):
        session.play(games)  # type: ignore[arg-type]
    assert session.games_played == 0


def test_bad_lineups() -> None:
    with pytest.raises(sg.ArgumentError, match="the rules are for 4 players; got 3 players"):
        sg.Session(lowest(3), sg.Rules.classic(players=4), seed=1)
    with pytest.raises(sg.ArgumentError, match="played by 2, 3 or 4 players; got 5"):
        sg.Session(lowest(5), seed=1)
    with pytest.raises(sg.ArgumentError, match="played by 2, 3 or 4 players; got 1"):
        sg.Session(lowest(1), seed=1)
    with pytest.raises(sg.ArgumentTypeError, match="seat 1: 'bot' is not a Player"):
        sg.Session([Lowest(), "bot", Lowest()], seed=1)  # type: ignore[list-item]
    with pytest.raises(sg.ArgumentError, match="give the rules"):
        sg.Session(seeded_bots(3), seed=1)
    with pytest.raises(sg.ArgumentTypeError, match="lineup must be a sequence"):
        sg.Session(3, seed=1)  # type: ignore[arg-type]


def test_a_lineup_with_the_wrong_count_fails_before_the_game() -> None:
    session = sg.Session(lambda index: lowest(2 if index == 1 else 3), sg.Rules(), seed=1)
    session.play_game()
    with pytest.raises(sg.ArgumentError, match="the rules are for 3 players; game 1 has 2"):
        session.play_game()
    assert session.games_played == 1


def test_bad_rules_and_pot() -> None:
    with pytest.raises(sg.ArgumentTypeError, match="rules must be a Rules"):
        sg.Session(lowest(), {"players": 3}, seed=1)  # type: ignore[arg-type]
    with pytest.raises(sg.ArgumentTypeError, match="pot must be True or False"):
        sg.Session(lowest(), seed=1, pot=1)  # type: ignore[arg-type]
    with pytest.raises(sg.ArgumentTypeError, match="progress must be callable"):
        sg.Session(lowest(), seed=1).play(1, progress=3)  # type: ignore[arg-type]


def test_repr() -> None:
    session = sg.Session(lowest(), seed=0, pot=True)
    session.play(2)
    assert repr(session) == "<Session 3 players, seed 0, 2 games, losses 0 2 0, pot>"


# -- the command line ------------------------------------------------------------------------


def run_cli(capsys: pytest.CaptureFixture[str], *args: str) -> list[str]:
    assert main(["session", *args]) == 0
    return capsys.readouterr().out.splitlines()


def test_cli_session_prints_the_cut_the_games_and_the_tally(
    capsys: pytest.CaptureFixture[str],
) -> None:
    lines = run_cli(capsys, "--players", "3", "--games", "12", "--seed", "40")
    session = sg.Session(random_lineup(40, 3), sg.Rules(), seed=40)
    session.play(12)
    assert lines[0] == (
        "Skitgubbe session: classic, 3 players, seed 40; random bots play every seat."
    )
    assert lines[2] == (
        "  round 1: seat 0 cuts 8♦, seat 1 cuts 6♠, seat 2 cuts 8♥; seats 0 and 2 tie and cut again"
    )
    assert lines[3] == "  round 2: seat 0 cuts J♦, seat 2 cuts 2♥"
    assert lines[4] == "Seat 0 deals first; the deal passes clockwise."
    games = [line for line in lines if line.startswith("game")]
    assert len(games) == 12
    for line, game in zip(games, session.games, strict=True):
        assert line.startswith(f"game {game.index + 1:>2}: seat {game.dealer} deals, ")
        assert f"seat {game.result.loser} is the skitgubbe" in line
    tally = [
        f"  seat {s}: skitgubbe {n} time{'s' if n != 1 else ''}"
        for s, n in enumerate(session.losses)
    ]
    assert all(line in lines for line in tally)
    assert not any("pot" in line for line in lines)


def _pot_line(seed: int, games: int) -> str:
    """The pot line the command should print, from the same session played here."""
    session = sg.Session(random_lineup(seed, 3), sg.Rules(), seed=seed, pot=True)
    session.play(games)
    standings = session.standings()
    assert standings.pot is not None and standings.shares is not None
    winners = standings.winners
    share = standings.shares[winners[0]]
    pot = f"{standings.pot} token{'s' if standings.pot != 1 else ''}"
    if len(winners) == 1:
        return f"The pot holds {pot}: seat {winners[0]} takes it all."
    seats = ", ".join(map(str, winners[:-1])) + f" and {winners[-1]}"
    whole, rest = divmod(share, 1)  # a mixed number: "4 1/2", "1/2", "4"
    parts = [str(whole)] if whole else []
    parts += [f"{rest.numerator}/{rest.denominator}"] if rest else []
    each = " ".join(parts)
    return f"The pot holds {pot}: seats {seats} share it, {each} tokens each."


def test_cli_pot_shares(capsys: pytest.CaptureFixture[str]) -> None:
    seen = set()
    for seed, games in ((40, 12), (1, 1), (40, 17), (5, 9), (7, 3)):
        lines = run_cli(capsys, "--games", str(games), "--seed", str(seed), "--pot")
        assert "with a token pot" in lines[0]
        assert lines[-1] == _pot_line(seed, games)
        seen.add("takes it all" in lines[-1])
    assert seen == {True, False}, "both kinds of pot line were checked"


def test_cli_every_prints_fewer_lines(capsys: pytest.CaptureFixture[str]) -> None:
    lines = run_cli(capsys, "--games", "25", "--seed", "3", "--every", "10")
    numbers = [int(line.split(":")[0].split()[1]) for line in lines if line.startswith("game")]
    assert numbers == [10, 20, 25]


def test_cli_save_and_resume(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    whole, part = tmp_path / "whole.json", tmp_path / "part.json"
    run_cli(capsys, "--games", "7", "--seed", "4", "--pot", "--save", str(whole))
    lines = run_cli(capsys, "--games", "3", "--seed", "4", "--pot", "--save", str(part))
    assert lines[-1] == f"Saved the session to {part}."
    lines = run_cli(capsys, "--games", "4", "--resume", str(part), "--save", str(part))
    assert lines[0] == (
        f"Resuming the session saved in {part}: classic, 3 players, seed 4, "
        "with a token pot; 3 games played; random bots play every seat."
    )
    numbers = [line.split(":")[0] for line in lines if line.startswith("game")]
    assert numbers == ["game 4", "game 5", "game 6", "game 7"]
    assert "After 7 games:" in lines
    assert json.loads(part.read_text(encoding="utf-8")) == json.loads(
        whole.read_text(encoding="utf-8")
    )
    # the flags that describe the session may be repeated, if they agree
    run_cli(capsys, "--games", "0", "--resume", str(part), "--players", "3", "--seed", "4")


def test_cli_bad_arguments(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    def fails(*args: str) -> str:
        with pytest.raises(SystemExit) as info:
            main(["session", *args])
        assert info.value.code == 2
        return capsys.readouterr().err

    assert "games must be an int >= 0, not -1" in fails("--games", "-1")
    assert "seed must be an int 0 <= seed < 2**64, not -5" in fails("--seed", "-5")
    assert "--players" in fails("--players", "5")
    assert "--every must be at least 1" in fails("--every", "0")
    missing = tmp_path / "missing.json"
    assert f"cannot read {missing}" in fails("--resume", str(missing))
    broken = tmp_path / "broken.json"
    broken.write_text("{", encoding="utf-8")
    assert "is not a JSON session record" in fails("--resume", str(broken))
    saved = tmp_path / "saved.json"
    run_cli(capsys, "--games", "2", "--seed", "4", "--save", str(saved))
    assert "--players 4 does not match the saved session's 3" in fails(
        "--resume", str(saved), "--players", "4"
    )
    assert "--seed 5 does not match the saved session's 4" in fails(
        "--resume", str(saved), "--seed", "5"
    )
    assert "--pot does not match the saved session, which has no pot" in fails(
        "--resume", str(saved), "--pot"
    )
    record = json.loads(saved.read_text(encoding="utf-8"))
    record["games"][1]["result"]["loser"] = (record["games"][1]["result"]["loser"] + 1) % 3
    saved.write_text(json.dumps(record), encoding="utf-8")
    assert "game 1: the record's result" in fails("--resume", str(saved))
    record["rules"] = "classic"
    saved.write_text(json.dumps(record), encoding="utf-8")
    assert "bad rules in session record" in fails("--resume", str(saved))
    assert "cannot write" in fails("--games", "1", "--save", str(tmp_path / "no" / "dir.json"))


def test_the_example_in_docs_sessions_md_runs(capsys: pytest.CaptureFixture[str]) -> None:
    text = (Path(__file__).resolve().parent.parent / "docs" / "sessions.md").read_text("utf-8")
    block, engines = re.findall(r"```python\n(.*?)```", text, flags=re.DOTALL)
    exec(compile(block, "docs/sessions.md", "exec"), {"__name__": "docs"})
    lines = capsys.readouterr().out.splitlines()
    cuts = "seat 0 cuts 8♦, seat 1 cuts 6♠, seat 2 cuts 8♥, seat 0 cuts J♦, seat 2 cuts 2♥"
    assert lines[0] == f"{cuts} -> seat 0 deals"
    assert [line.split(":")[0] for line in lines[1:5]] == ["game 0", "game 1", "game 2", "game 3"]
    assert lines[5].startswith("losses (")
    # The second example: a session with an engine, from a BotPool.
    exec(compile(engines, "docs/sessions.md", "exec"), {"__name__": "docs"})
    assert capsys.readouterr().out == "5 5\n"


# Issue 9, point 9: every field of a session record is checked by type, and deep
# nesting anywhere is a RecordError, not a RecursionError.
@pytest.mark.slow
@pytest.mark.parametrize(
    "change",
    [
        pytest.param(lambda r: r.update(version=True), id="version-true"),
        pytest.param(lambda r: r.update(version=1.0), id="version-float"),
        pytest.param(lambda r: r.update(rng_version=float(r["rng_version"])), id="rng-float"),
        pytest.param(lambda r: r.update(first_dealer=float(r["first_dealer"])), id="dealer-float"),
        pytest.param(lambda r: r.update(seed=float("nan")), id="seed-nan"),
        pytest.param(lambda r: r.update(seed=40.0), id="seed-float"),
        pytest.param(lambda r: r.update(format=nested(100_000)), id="deep-format"),
        pytest.param(lambda r: r.update(rules=nested(100_000)), id="deep-rules"),
        pytest.param(lambda r: r.update(pot=nested(100_000)), id="deep-pot"),
        pytest.param(lambda r: r["cuts"].__setitem__(0, nested(100_000)), id="deep-cut"),
        pytest.param(lambda r: r["cuts"][0].update(round=float(r["cuts"][0]["round"])), id="cut"),
        pytest.param(lambda r: r["games"][0].update(seed=nested(100_000)), id="deep-game-seed"),
        pytest.param(lambda r: r["games"][0]["start"].update(dealer=None), id="game-dealer-null"),
        pytest.param(lambda r: r["games"][0].update(moves=[nested(100_000)]), id="deep-move"),
    ],
)
def test_a_session_record_with_an_odd_field_is_a_record_error(
    change: Callable[[dict[str, Any]], object],
) -> None:
    record = tampered(change)
    with pytest.raises(sg.RecordError):
        sg.Session.resume(record, lowest())


def test_cli_resume_of_deeply_nested_json_is_an_error_not_a_traceback(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    for name, text in {"deep.json": "[" * 100_000, "deeper.json": '{"a":' * 100_000}.items():
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        with pytest.raises(SystemExit) as info:
            main(["session", "--resume", str(path)])
        assert info.value.code == 2
        assert "nested too deeply" in capsys.readouterr().err
