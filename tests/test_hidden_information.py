"""Hidden information stays hidden (docs/rules.md §8).

* No observation contains a card its seat cannot know: every card it shows
  was dealt or drawn to that seat, or moved in a public event.
* Non-interference: two games that differ only by swapping two cards a seat
  cannot place give that seat equal observations after the same moves.
* An observation holds no path back to the game or the engine's state.
"""

from __future__ import annotations

import gc
import random
from collections.abc import Iterator

import pytest

import skitgubbe as sg
from skitgubbe import _core
from skitgubbe.game.state import Events, Game
from tests.rules_gen import random_rules


def seen_by(events: tuple[sg.Event, ...], seat: int) -> int:
    """Mask of the cards ``seat`` saw in ``events``: its deals and draws, and public events."""
    mask = 0
    for event in events:
        if not event.kind.private or event.seat == seat:
            mask |= event.cards.mask
    return mask


def shown_cards(view: sg.Observation, old_events: int) -> Iterator[tuple[str, int]]:
    """Every card mask an observation shows, with where it shows it.

    History events before ``old_events`` were checked in earlier observations.
    """
    yield "hand", view.hand.mask
    yield "collection", view.collection.mask
    yield "out_of_play", view.out_of_play.mask
    for play in view.table:
        yield "table", play.cards.mask
    for other, known in enumerate(view.known):
        yield f"known[{other}]", known.mask
    for event in view.history[old_events:]:
        yield f"history {event}", event.cards.mask
    for move in view.legal_moves:
        yield f"legal move {move}", move.cards.mask


CONFIGS = [
    *(f"classic-{players}" for players in (2, 3, 4)),
    *(f"random-{chunk}" for chunk in range(3)),
]


def rules_for(config: str, index: int) -> sg.Rules:
    """The classic rules for n players, or random rules (every variant) per game."""
    kind, arg = config.split("-")
    if kind == "classic":
        return sg.Rules.classic(players=int(arg))
    return random_rules(random.Random(f"{config}/{index}"))


@pytest.mark.parametrize("config", CONFIGS)
def test_no_observation_shows_a_card_its_seat_cannot_know(config: str) -> None:
    for index in range(30):
        rng = random.Random(index)
        rules = rules_for(config, index)
        players = rules.players
        game = sg.Game.new(rules, seed=1000 + index)
        seen = [seen_by(game.history, seat) for seat in range(players)]
        checked_events = [0] * players
        while True:
            for seat in range(players):
                view = game.observation(seat)
                allowed = seen[seat]
                for where, mask in shown_cards(view, checked_events[seat]):
                    leaked = sg.CardSet(mask & ~allowed)
                    assert not leaked, f"seat {seat} sees {leaked} in {where}"
                checked_events[seat] = len(view.history)
                # the seat can place every card it has seen
                assert not view.unknown.mask & allowed
                if game.hidden_card is not None:
                    assert game.hidden_card in view.unknown and view.hidden_slots == 1
                if game.phase is sg.Phase.COLLECTING and rules.trump is not sg.TrumpRule.UPCARD:
                    assert view.trump is None
            moves = game.legal_moves
            if not moves:
                break
            events = game.play(rng.choice(moves))
            seen = [mask | seen_by(events, seat) for seat, mask in enumerate(seen)]


def swapped(deck: bytes, a: int, b: int) -> list[sg.Card]:
    cards = list(deck)
    i, j = cards.index(a), cards.index(b)
    cards[i], cards[j] = cards[j], cards[i]
    return [sg.Card.from_code(c) for c in cards]


def swappable(rules: sg.Rules, unknown: list[int]) -> list[tuple[int, int]]:
    """Pairs of cards whose swap no public action can reveal.

    Being skipped in a slough window shows publicly that a player holds no card
    of the trick's ranks, so under the slough window only cards of one rank
    are swapped; any two unknown cards otherwise.
    """
    window = rules.trick_mode is sg.TrickMode.ALL and rules.slough
    return [
        (a, b)
        for i, a in enumerate(unknown)
        for b in unknown[i + 1 :]
        if not window or a % 16 == b % 16
    ]


@pytest.mark.parametrize("config", CONFIGS)
def test_swapping_cards_a_seat_cannot_know_changes_nothing_it_sees(config: str) -> None:
    checked = 0
    for index in range(60):
        rng = random.Random(index)
        deck = _core.deck_from_seed(5000 + index)
        rules = rules_for(config, index)
        players = rules.players
        game = sg.Game.new(rules, deck=[sg.Card.from_code(c) for c in deck])
        seat = rng.randrange(players)
        stop = rng.randrange(1, 70)  # mostly phase 1: in phase 2 few cards stay unknown
        moves: list[sg.Move] = []
        views = [game.observation(seat)]
        while game.result is None and len(moves) < stop:
            moves.append(rng.choice(game.legal_moves))
            game.play(moves[-1])
            views.append(game.observation(seat))
        pairs = swappable(rules, sorted(card.code for card in views[-1].unknown))
        if not pairs:
            continue
        a, b = rng.choice(pairs)
        twin = sg.Game.new(rules, deck=swapped(deck, a, b))
        assert twin.observation(seat) == views[0]
        for step, move in enumerate(moves, 1):
            twin.play(move)
            seen = twin.observation(seat)
            assert seen == views[step], (
                f"game {index}: swapping {sg.Card.from_code(a)} and {sg.Card.from_code(b)} "
                f"changed what seat {seat} sees after move {step}"
            )
            # The learner's inputs too: its tensor, legal actions and mask.
            assert seen.tensor().tobytes() == views[step].tensor().tobytes()
            assert seen.legal_actions == views[step].legal_actions
            assert seen.action_mask == views[step].action_mask
        checked += 1
    assert checked > 20


def test_an_observation_reaches_neither_the_game_nor_the_core() -> None:
    game = sg.Game.new(seed=8)
    rng = random.Random(8)
    for _ in range(60):
        game.play(rng.choice(game.legal_moves))
    view = game.observation(game.to_move or 0)
    forbidden = (Game, Events, _core.Core)
    stack: list[object] = [view]
    visited: set[int] = set()
    while stack:
        obj = stack.pop()
        if id(obj) in visited or isinstance(obj, type):
            continue
        visited.add(id(obj))
        assert not isinstance(obj, forbidden), f"observation reaches a {type(obj).__name__}"
        stack.extend(gc.get_referents(obj))
    assert len(visited) > 50  # the walk really went through the observation


def test_observations_are_frozen_and_do_not_change_with_the_game() -> None:
    game = sg.Game.new(seed=9)
    view = game.observation(0)
    copy = game.observation(0)
    with pytest.raises(AttributeError):
        view.hand = sg.CardSet()  # type: ignore[misc]
    game.play(game.legal_moves[0])
    assert view == copy and view.moves_played == 0
