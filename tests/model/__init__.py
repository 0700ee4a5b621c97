"""Independent reference model of classic Skitgubbe, used as the engine's test oracle."""

from .classic import (
    ALL_CARDS,
    FLIP,
    PICK_UP,
    PLAY,
    Event,
    Knowledge,
    ModelGame,
    Move,
    Result,
    card_name,
    make_card,
    parse_card,
    play_move,
    rank,
    suit,
)
from .random_play import play_random, random_game
from .rng import Xoshiro256, deck_from_seed, game_seed, shuffle, splitmix64

__all__ = [
    "ALL_CARDS",
    "FLIP",
    "PICK_UP",
    "PLAY",
    "Event",
    "Knowledge",
    "ModelGame",
    "Move",
    "Result",
    "Xoshiro256",
    "card_name",
    "deck_from_seed",
    "game_seed",
    "make_card",
    "parse_card",
    "play_move",
    "play_random",
    "random_game",
    "rank",
    "shuffle",
    "splitmix64",
    "suit",
]
