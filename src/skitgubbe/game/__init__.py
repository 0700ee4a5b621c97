"""The game layer: what a game of Skitgubbe is, with nothing about who plays it.

Cards and card sets (:mod:`~skitgubbe.game.cards`), the validated rules with
their presets (:mod:`~skitgubbe.game.rules`), moves and the integer action
space (:mod:`~skitgubbe.game.moves`, :mod:`~skitgubbe.game.actions`), events
(:mod:`~skitgubbe.game.events`), the game state itself
(:mod:`~skitgubbe.game.state`: :class:`~skitgubbe.Game`), what one seat sees
(:mod:`~skitgubbe.game.observation`), its tensors
(:mod:`~skitgubbe.game.tensors`) and drawings (:mod:`~skitgubbe.game.svg`,
:mod:`~skitgubbe.game.render`). Everything here sits on the C core
(``skitgubbe._core``) and the errors; nothing here imports the layers above
(playing, bots, engines, evaluation, learning, the server, the apps).

The names of :mod:`skitgubbe.game.state` are also importable from here, where
they lived before the game layer became a package:

>>> from skitgubbe.game import Game, Rules
>>> Game.new(Rules.classic(players=3), seed=1).rules.players
3
"""

from __future__ import annotations

from .rules import Rules
from .state import RECORD_FORMAT, RECORD_VERSION, Events, Game, GameResult

__all__ = ["RECORD_FORMAT", "RECORD_VERSION", "Events", "Game", "GameResult", "Rules"]
