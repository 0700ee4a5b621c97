"""The SVG drawings: well-formed, every card drawn, nothing a seat may not see."""

from __future__ import annotations

import os
import random
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

import skitgubbe as sg
from skitgubbe.game import svg


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


DOCS_IMAGES = Path(__file__).resolve().parent.parent / "docs" / "images"


def docs_pictures() -> dict[str, str]:
    """The pictures docs/server.md shows, made as its code makes them."""
    game = sg.Game.new(sg.Rules.classic(players=3), seed=11)
    bots = [sg.bots.make("greedy", seed=seat) for seat in range(3)]
    while game.moves_played < 58:
        game.play(bots[game.to_move].choose(game.observation(game.to_move)))
    return {"observation.svg": svg.observation(game.observation(0)), "game.svg": svg.game(game)}


@pytest.mark.skipif(not DOCS_IMAGES.is_dir(), reason="the docs are not beside these tests")
def test_the_pictures_in_the_docs_are_what_the_drawing_makes_today() -> None:
    """Set SKITGUBBE_WRITE_DOCS_IMAGES=1 to write them again after changing the drawing."""
    for name, picture in docs_pictures().items():
        path = DOCS_IMAGES / name
        if os.environ.get("SKITGUBBE_WRITE_DOCS_IMAGES"):
            path.write_text(picture, encoding="utf-8")
        assert path.read_text(encoding="utf-8") == picture, f"docs/images/{name} is out of date"
