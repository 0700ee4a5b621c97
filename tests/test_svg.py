"""The SVG drawings: well-formed, every card drawn, nothing a seat may not see."""

from __future__ import annotations

import random
import xml.etree.ElementTree as ET

import pytest

import skitgubbe as sg
from skitgubbe import svg


def drawn_cards(picture: str) -> set[str]:
    root = ET.fromstring(picture)  # well-formed XML, or this raises
    return {
        node.attrib["data-card"]
        for node in root.iter("{http://www.w3.org/2000/svg}g")
        if "data-card" in node.attrib
    }


def test_every_card_and_the_back_draw_as_well_formed_svg() -> None:
    for card in sg.CardSet.full():
        picture = svg.card(card)
        assert drawn_cards(picture) == {f"{card.rank.label}{card.suit.letter}"}
        assert card.rank.label in picture and card.suit.symbol in picture
    assert drawn_cards(svg.card(None)) == set()


@pytest.mark.parametrize("seed", range(4))
def test_a_seats_drawing_shows_its_own_hand_and_no_other_hidden_card(seed: int) -> None:
    game = sg.Game.new(sg.Rules.classic(3), seed=seed)
    rng = random.Random(seed)
    for _ in range(400):
        if game.result is not None:
            break
        for seat in range(game.players):
            view = game.observation(seat)
            shown = drawn_cards(view._repr_svg_())
            own = {f"{c.rank.label}{c.suit.letter}" for c in view.hand}
            on_table = {f"{c.rank.label}{c.suit.letter}" for p in view.table for c in p.cards}
            assert own <= shown
            assert shown <= own | on_table
        game.play(rng.choice(game.legal_moves))
    assert game.moves_played > 50


def test_the_referees_drawing_shows_every_hand() -> None:
    game = sg.Game.new(seed=9)
    shown = drawn_cards(game._repr_svg_())
    every = {f"{c.rank.label}{c.suit.letter}" for hand in game.hands for c in hand}
    assert every <= shown
