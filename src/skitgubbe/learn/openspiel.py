"""Skitgubbe as an OpenSpiel game: ``pyspiel.load_game("python_skitgubbe")``.

Importing this module registers the game with OpenSpiel (``pip install
skitgubbe[openspiel]`` installs it). The game is sequential, of imperfect
information, with explicit chance and a zero-sum terminal utility:

* **The deal is chance.** The first 52 steps are chance nodes: each picks the
  next card of the deck, top first, uniformly among the cards not yet picked
  (``chance_outcomes()`` lists them by :attr:`Card.index
  <skitgubbe.Card.index>`, each with probability ``1 / cards left``). After
  the 52nd the game is dealt from that deck by :meth:`Game.new
  <skitgubbe.Game.new>`, the last seat dealing.
* **Decisions are integer actions** (:mod:`skitgubbe.game.actions`): 563 distinct
  actions; a slough takes one step per card and then
  :data:`~skitgubbe.game.actions.SLOUGH_DONE`, the same player moving.
* **Utility:** the skitgubbe pays every other player 1: he gets
  ``-(players - 1)``, the others ``+1``. A truncated game (the move cap,
  ``Rules.max_moves``) is worth 0 to all.
* **Parameters:** ``players`` (2 … 4, default 3), ``rules`` and ``max_moves``
  (a smaller move cap; 0, the default, for the rules' own). ``rules`` is a
  preset name, ``"classic"`` (the default) or ``"modern"``, optionally with
  changes: ``"modern;slough:false;runs:false"`` (each ``field:value`` as
  :meth:`RuleField.parse <skitgubbe.game.rules.RuleField.parse>` reads it); or a
  JSON object of :meth:`Rules.to_dict <skitgubbe.Rules.to_dict>` naming the
  same number of players. OpenSpiel's game strings (``str(game)``, and so
  ``serialize_game_and_state``) cannot hold a JSON object's commas: to
  serialise, name the rules as a preset with changes.

Observations depend only on the player's :class:`~skitgubbe.Observation`:

* the **observation tensor** is :meth:`Observation.tensor
  <skitgubbe.Observation.tensor>` (:data:`~skitgubbe.game.tensors.TENSOR_SIZE`
  floats; zeros during the deal), and the observation string is the seat's
  view as text;
* the **information-state string** is perfect recall: the view as text and
  every event of the seat's history (:attr:`Observation.history
  <skitgubbe.Observation.history>`);
* the **information-state tensor** is the observation tensor followed by the
  player as one-hot over 4 seats. It is *not* perfect recall: it keeps only
  the last public moves that the observation tensor holds.

``state.resample_from_infostate(player, sampler)`` deals a world consistent
with the player's information (:meth:`Observation.sample_world
<skitgubbe.Observation.sample_world>`), for OpenSpiel's Python ``ISMCTSBot``.
A sampled state has no action history; its information-state string for the
player it was sampled for equals the original's. :class:`SkitgubbeBot` makes
any :class:`~skitgubbe.Player` a ``pyspiel.Bot``.

>>> import pyspiel
>>> import skitgubbe.learn.openspiel
>>> game = pyspiel.load_game("python_skitgubbe", {"players": 2})
>>> state = game.new_initial_state()
>>> state.is_chance_node(), len(state.chance_outcomes())
(True, 52)
>>> for card in range(52):
...     state.apply_action(card)
>>> state.current_player(), state.legal_actions()
(0, [0, 2, 4, 507])
"""

from __future__ import annotations

import builtins
import functools
import json
from typing import Any, Final

import numpy as np
import pyspiel

from ..errors import ArgumentError
from ..game.actions import NUM_ACTIONS, SLOUGH_CARD, SLOUGH_DONE, describe
from ..game.cards import Card
from ..game.events import Event
from ..game.observation import Observation
from ..game.rules import Rules
from ..game.state import Game
from ..game.tensors import TENSOR_SIZE
from ..play.players import Player

__all__ = [
    "DECK_SIZE",
    "GAME_TYPE",
    "SHORT_NAME",
    "SkitgubbeBot",
    "SkitgubbeGame",
    "SkitgubbeObserver",
    "SkitgubbeState",
    "rules_of",
]

SHORT_NAME: Final = "python_skitgubbe"
"""The name OpenSpiel knows the game by."""
DECK_SIZE: Final = 52
"""Chance steps of the deal, and the most outcomes a chance node has."""
_MAX_SEATS: Final = 4
_DEFAULTS: Final[dict[str, Any]] = {"players": 3, "rules": "classic", "max_moves": 0}

GAME_TYPE: Final = pyspiel.GameType(
    short_name=SHORT_NAME,
    long_name="Python Skitgubbe",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=_MAX_SEATS,
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=_DEFAULTS,
)
"""The game's ``pyspiel.GameType`` (parameters and their defaults included)."""


def rules_of(params: dict[str, Any] | None = None) -> Rules:
    """The :class:`~skitgubbe.Rules` that game parameters ``params`` name.

    >>> rules_of({"players": 2, "rules": "modern", "max_moves": 300}).max_moves
    300
    >>> rules_of({"players": 4}) == Rules.classic(players=4)
    True
    >>> rules_of({"players": 2, "rules": "modern;slough:false;runs:false"}).slough
    False
    """
    merged = {**_DEFAULTS, **(params or {})}
    players, name, cap = merged["players"], merged["rules"], merged["max_moves"]
    if type(players) is not int or not 2 <= players <= _MAX_SEATS:
        raise ArgumentError(f"players must be 2, 3 or 4, not {players!r}")
    if type(cap) is not int or cap < 0:
        raise ArgumentError(f"max_moves must be an int >= 0, not {cap!r}")
    if not isinstance(name, str):
        raise ArgumentError(f"rules must be a preset name or a JSON object, not {name!r}")
    return _rules(players, name, cap)


@functools.lru_cache(maxsize=64)
def _rules(players: int, name: str, cap: int) -> Rules:
    if name.lstrip().startswith("{"):
        rules = Rules.from_dict(json.loads(name))
        if rules.players != players:
            raise ArgumentError(
                f"the rules are for {rules.players} players; give players={rules.players}"
            )
    else:
        preset, *changes = name.split(";")
        overrides: dict[str, object] = {}
        for change in changes:
            field, colon, text = change.partition(":")
            if not colon or field.strip() == "players":
                raise ArgumentError(f"a rule change is field:value (not players), not {change!r}")
            overrides[field.strip()] = Rules.field(field.strip()).parse(text)
        rules = Rules.preset(preset.strip(), players, **overrides)
    if cap:
        rules = Rules.from_dict({**rules.to_dict(), "max_moves": cap})
    return rules


@functools.lru_cache(maxsize=64)
def _rules_from_key(key: str) -> Rules:
    return Rules.from_dict(json.loads(key))


class SkitgubbeGame(pyspiel.Game):  # type: ignore[misc]
    """Skitgubbe as a ``pyspiel.Game``; ``pyspiel.load_game("python_skitgubbe", params)``.

    >>> import pyspiel
    >>> game = pyspiel.load_game("python_skitgubbe", {"players": 4, "rules": "modern"})
    >>> game.num_players(), game.num_distinct_actions(), game.max_chance_outcomes()
    (4, 563, 52)
    >>> game.min_utility(), game.max_utility(), game.rules.players
    (-3.0, 1.0, 4)
    """

    rules: Rules
    """The rules every state of this game is played under."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        rules = rules_of(params)
        players = rules.players
        # Every move takes one action but a slough, which takes one per card (at
        # most a hand) and one to throw them.
        info = pyspiel.GameInfo(
            num_distinct_actions=NUM_ACTIONS,
            max_chance_outcomes=DECK_SIZE,
            num_players=players,
            min_utility=float(-(players - 1)),
            max_utility=1.0,
            utility_sum=0.0,
            max_game_length=rules.max_moves * (1 + rules.hand_size),
        )
        super().__init__(GAME_TYPE, info, params or {})
        self.rules = rules
        self._rules_key = json.dumps(rules.to_dict(), sort_keys=True)

    def new_initial_state(self, params: object = None) -> SkitgubbeState:
        """A state before the deal: the first of 52 chance nodes.

        >>> import pyspiel
        >>> pyspiel.load_game("python_skitgubbe").new_initial_state().is_chance_node()
        True
        """
        return SkitgubbeState(self)

    def max_chance_nodes_in_history(self) -> int:
        """The deal's 52 chance steps.

        >>> import pyspiel
        >>> pyspiel.load_game("python_skitgubbe").max_chance_nodes_in_history()
        52
        """
        return DECK_SIZE

    def make_py_observer(
        self, iig_obs_type: Any = None, params: dict[str, Any] | None = None
    ) -> SkitgubbeObserver:
        """An observer of kind ``iig_obs_type`` (the default: the observation).

        >>> import pyspiel
        >>> game = pyspiel.load_game("python_skitgubbe")
        >>> game.make_py_observer().tensor.shape
        (1359,)
        """
        return SkitgubbeObserver(
            iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False), params
        )


class SkitgubbeState(pyspiel.State):  # type: ignore[misc]
    """A state of :class:`SkitgubbeGame`: the deal so far, then a :class:`~skitgubbe.Game`.

    >>> import pyspiel
    >>> state = pyspiel.load_game("python_skitgubbe", {"players": 2}).new_initial_state()
    >>> for card in range(52):
    ...     state.apply_action(card)
    >>> state.game.hands[0], state.legal_actions()
    (CardSet.parse('2♣ 4♣ 6♣'), [0, 2, 4, 507])
    """

    def __init__(self, game: SkitgubbeGame) -> None:
        super().__init__(game)
        self._rules_key: str = game._rules_key
        self._players: int = game.rules.players
        # The cards drawn so far for the deck, top first (chance steps).
        self._deck: tuple[int, ...] = ()
        self._game: Game | None = None
        # A resampled world starts mid-game: per seat, the history lines it had seen.
        self._prefix: tuple[tuple[str, ...], ...] = ((),) * self._players

    @property
    def game(self) -> Game | None:
        """The skitgubbe :class:`~skitgubbe.Game` once dealt (``None`` during the deal).

        It is the state's own game: play on it only through ``apply_action``.

        >>> import pyspiel
        >>> pyspiel.load_game("python_skitgubbe").new_initial_state().game is None
        True
        """
        return self._game

    def observation(self, player: int) -> Observation | None:
        """What seat ``player`` knows (``None`` during the deal).

        >>> import pyspiel
        >>> state = pyspiel.load_game("python_skitgubbe").new_initial_state()
        >>> state.observation(0) is None
        True
        """
        return None if self._game is None else self._game.observation(player)

    # -- the OpenSpiel API ------------------------------------------------------------

    def current_player(self) -> int:
        """The player to move: ``CHANCE`` during the deal, ``TERMINAL`` at the end.

        >>> import pyspiel
        >>> state = pyspiel.load_game("python_skitgubbe").new_initial_state()
        >>> state.current_player() == pyspiel.PlayerId.CHANCE
        True
        """
        game = self._game
        if game is None:
            return int(pyspiel.PlayerId.CHANCE)
        to_move = game.to_move
        return int(pyspiel.PlayerId.TERMINAL) if to_move is None else to_move

    def _legal_actions(self, player: int) -> list[int]:
        assert self._game is not None
        return list(self._game.legal_actions)

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """The cards that may come next in the deck, each as likely.

        >>> import pyspiel
        >>> state = pyspiel.load_game("python_skitgubbe").new_initial_state()
        >>> state.apply_action(51)
        >>> outcomes = state.chance_outcomes()
        >>> len(outcomes), outcomes[-1][0], round(sum(p for _, p in outcomes), 12)
        (51, 50, 1.0)
        """
        taken = set(self._deck)
        left = [card for card in range(DECK_SIZE) if card not in taken]
        p = 1.0 / len(left)
        return [(card, p) for card in left]

    def _apply_action(self, action: int) -> None:
        game = self._game
        if game is not None:
            game.play_action(int(action))
            return
        self._deck = (*self._deck, int(action))
        if len(self._deck) == DECK_SIZE:
            rules = _rules_from_key(self._rules_key)
            deck = [Card.from_index(card) for card in self._deck]
            self._game = Game.new(rules, deck=deck)

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"deal {Card.from_index(action)}"
        return describe(action)

    def is_terminal(self) -> bool:
        """True when the game is over (a loser, or the move cap).

        >>> import pyspiel
        >>> pyspiel.load_game("python_skitgubbe").new_initial_state().is_terminal()
        False
        """
        return self._game is not None and self._game.to_move is None

    def returns(self) -> list[float]:
        """Each player's utility: the skitgubbe pays each other player 1.

        >>> import pyspiel
        >>> pyspiel.load_game("python_skitgubbe").new_initial_state().returns()
        [0.0, 0.0, 0.0]
        """
        game = self._game
        result = None if game is None else game.result
        if result is None or result.loser is None or result.truncated:
            return [0.0] * self._players
        return [
            float(-(self._players - 1)) if seat == result.loser else 1.0
            for seat in range(self._players)
        ]

    def resample_from_infostate(self, player: int, sampler: Any) -> SkitgubbeState:
        """A state consistent with what ``player`` knows: unseen cards dealt at random.

        ``sampler`` is called for uniform floats in [0, 1) (a
        ``pyspiel.UniformProbabilitySampler`` or any callable). The new state
        starts at this position with no action history.

        >>> import pyspiel
        >>> state = pyspiel.load_game("python_skitgubbe").new_initial_state()
        >>> for card in range(52):
        ...     state.apply_action(card)
        >>> world = state.resample_from_infostate(0, pyspiel.UniformProbabilitySampler(7, 0, 1))
        >>> world.information_state_string(0) == state.information_state_string(0)
        True
        """
        game = self._game
        if game is None:
            raise pyspiel.SpielError("nothing is dealt yet: there is no hidden world to sample")
        seed = 0
        for _ in range(4):
            seed = (seed << 16) | min(int(sampler() * 65536), 65535)
        world = SkitgubbeState(self.get_game())
        view = game.observation(player)
        world._game = view.sample_world(seed)
        # A sampled world drops a slough being chosen: choose it again.
        for card in sorted(view.slough_chosen, key=lambda card: card.index):
            world._game.play_action(SLOUGH_CARD + card.index)
        seen = _history_lines(view, self._prefix[player])
        marker = (f"a world sampled for seat {player}",)
        world._prefix = tuple(seen if seat == player else marker for seat in range(self._players))
        return world

    def __str__(self) -> str:
        game = self._game
        if game is None:
            cards = " ".join(str(Card.from_index(card)) for card in self._deck)
            return f"dealing: {len(self._deck)} of {DECK_SIZE} cards: {cards or '-'}"
        return _full_text(game)


def _full_text(game: Game) -> str:
    """The complete state as text: every hand, the stock and the hidden card."""
    to_move = "over" if game.to_move is None else f"seat {game.to_move}"
    trump = "-" if game.trump is None else game.trump.name.lower()
    lines = [
        f"{game.players} players · {game.phase.name.lower()} · to move: {to_move} · "
        f"trump: {trump} · moves: {game.moves_played}"
    ]
    lines += [
        f"seat {seat}: hand {hand or '-'} · collection {collection or '-'}"
        for seat, (hand, collection) in enumerate(zip(game.hands, game.collections, strict=True))
    ]
    lines.append("stock: " + (" ".join(str(card) for card in game.stock) or "-"))
    lines.append(f"hidden card: {game.hidden_card or '-'}")
    lines.append(f"table: {' | '.join(str(play) for play in game.table) or '-'}")
    lines.append(f"out of play: {game.out_of_play or '-'}")
    lines.append(f"slough chosen: {game.slough_chosen or '-'}")
    return "\n".join(lines)


def _view_text(view: Observation) -> str:
    """All of one seat's current view as text (no history)."""
    known = " · ".join(
        f"seat {seat}: {cards or '-'}" for seat, cards in enumerate(view.known) if seat != view.seat
    )
    return "\n".join(
        [
            str(view),
            f"collection: {view.collection or '-'}",
            f"known: {known}",
            f"out of play: {view.out_of_play or '-'}",
            f"finished: {' '.join(map(str, view.finished)) or '-'}",
            f"slough chosen: {view.slough_chosen or '-'}",
            f"moves: {view.moves_played}",
        ]
    )


def _public_text(view: Observation) -> str:
    """What every seat knows at this moment."""
    turn = "over" if view.to_move is None else f"seat {view.to_move}"
    trump = "-" if view.trump is None else view.trump.name.lower()
    held = ", ".join(str(view.holding(seat)) for seat in range(view.players))
    return "\n".join(
        [
            f"{view.phase.name.lower()} · to move: {turn} · trump: {trump} · moves: "
            f"{view.moves_played}",
            f"table: {' | '.join(str(play) for play in view.table) or '-'}",
            f"cards held: {held} · stock: {view.stock_size}",
            f"out of play: {view.out_of_play or '-'}",
            f"finished: {' '.join(map(str, view.finished)) or '-'}",
        ]
    )


def _private_text(view: Observation) -> str:
    """What only this seat knows: its cards, and its slough being chosen."""
    return (
        f"hand: {view.hand or '-'} · collection: {view.collection or '-'} · "
        f"slough chosen: {view.slough_chosen or '-'}"
    )


def _history_lines(view: Observation, prefix: tuple[str, ...]) -> tuple[str, ...]:
    return prefix + tuple(map(_event_text, view.history))


@functools.lru_cache(maxsize=1 << 16)
def _event_text(event: Event) -> str:
    return str(event)


class SkitgubbeObserver:
    """OpenSpiel's observer of a :class:`SkitgubbeState` (``make_py_observer``).

    Kinds (``pyspiel.IIGObservationType``): the observation (public and own
    private information, not perfect recall) and the information state
    (perfect recall) have strings and tensors; public-only and private-only
    observations (not perfect recall) have strings.

    >>> import pyspiel
    >>> observer = SkitgubbeObserver(pyspiel.IIGObservationType(perfect_recall=True), None)
    >>> observer.tensor.shape, list(observer.dict)
    ((1363,), ['observation', 'player'])
    """

    tensor: Any
    """The numpy float32 tensor ``set_from`` fills, or ``None`` for string-only kinds."""
    dict: builtins.dict[str, Any]
    """Named views of :attr:`tensor`."""

    def __init__(self, iig_obs_type: Any, params: builtins.dict[str, Any] | None) -> None:
        if params:
            raise ValueError(f"observation parameters are not supported, not {params}")
        private = iig_obs_type.private_info
        public = iig_obs_type.public_info
        single = private == pyspiel.PrivateInfoType.SINGLE_PLAYER
        none = private == pyspiel.PrivateInfoType.NONE
        if iig_obs_type.perfect_recall and public and single:
            self._kind = "info"
        elif iig_obs_type.perfect_recall:
            raise ValueError(f"no perfect-recall observation of kind {iig_obs_type}")
        elif public and single:
            self._kind = "observation"
        elif public and none:
            self._kind = "public"
        elif not public and single:
            self._kind = "private"
        else:
            raise ValueError(f"no observation of kind {iig_obs_type}")
        self.dict = {}
        self.tensor = None
        if self._kind in ("info", "observation"):
            size = TENSOR_SIZE + (_MAX_SEATS if self._kind == "info" else 0)
            self.tensor = np.zeros(size, np.float32)
            self.dict["observation"] = self.tensor[:TENSOR_SIZE]
            if self._kind == "info":
                self.dict["player"] = self.tensor[TENSOR_SIZE:]

    def set_from(self, state: SkitgubbeState, player: int) -> None:
        """Fill :attr:`tensor` from what ``player`` knows in ``state``.

        >>> import pyspiel
        >>> state = pyspiel.load_game("python_skitgubbe").new_initial_state()
        >>> observer = SkitgubbeObserver(pyspiel.IIGObservationType(perfect_recall=True), None)
        >>> observer.set_from(state, 1)  # during the deal: only the player
        >>> observer.dict["player"].tolist(), float(observer.tensor.sum())
        ([0.0, 1.0, 0.0, 0.0], 1.0)
        """
        if self.tensor is None:
            return
        self.tensor.fill(0.0)
        if "player" in self.dict:
            self.dict["player"][player] = 1.0
        view = state.observation(player)
        if view is not None:
            view.tensor(self.dict["observation"])

    def string_from(self, state: SkitgubbeState, player: int) -> str:
        """What ``player`` knows in ``state``, as text of this observer's kind.

        >>> import pyspiel
        >>> state = pyspiel.load_game("python_skitgubbe").new_initial_state()
        >>> observer = SkitgubbeObserver(pyspiel.IIGObservationType(perfect_recall=False), None)
        >>> observer.string_from(state, 1)
        'player 1 · dealing: 0 of 52 cards'
        """
        head = f"player {player}"
        view = state.observation(player)
        if view is None:
            return f"{head} · dealing: {len(state._deck)} of {DECK_SIZE} cards"
        if self._kind == "public":
            return _public_text(view)
        if self._kind == "private":
            return f"{head} · {_private_text(view)}"
        text = f"{head}\n{_view_text(view)}"
        if self._kind == "info":
            lines = _history_lines(view, state._prefix[player])
            text += "\nhistory:\n" + "\n".join(lines)
        return text


class SkitgubbeBot(pyspiel.Bot):  # type: ignore[misc]
    """Any :class:`~skitgubbe.Player` as a ``pyspiel.Bot`` for seat ``player_id``.

    The player chooses a move from its seat's observation; the bot answers the
    move's first action, and the rest of a slough's path on the next steps.

    >>> import numpy as np
    >>> import pyspiel
    >>> import skitgubbe as sg
    >>> from open_spiel.python.algorithms.evaluate_bots import evaluate_bots
    >>> game = pyspiel.load_game("python_skitgubbe", {"players": 2})
    >>> bots = [SkitgubbeBot(sg.bots.GreedyBot(), 0), SkitgubbeBot(sg.bots.RandomBot(seed=1), 1)]
    >>> returns = evaluate_bots(game.new_initial_state(), bots, np.random.RandomState(3))
    >>> sorted(returns) in ([-1.0, 1.0], [0.0, 0.0])
    True
    """

    def __init__(self, player: Player, player_id: int) -> None:
        pyspiel.Bot.__init__(self)
        self._player = player
        self._player_id = player_id
        self._path: list[int] = []

    def step(self, state: SkitgubbeState) -> int:
        """The next action of the move the player chooses at ``state``.

        >>> import pyspiel
        >>> import skitgubbe as sg
        >>> state = pyspiel.load_game("python_skitgubbe").new_initial_state()
        >>> for card in range(52):
        ...     state.apply_action(card)
        >>> SkitgubbeBot(sg.bots.GreedyBot(), 0).step(state) in state.legal_actions()
        True
        """
        view = state.observation(self._player_id)
        if view is None or view.to_move != self._player_id:
            raise pyspiel.SpielError(f"it is not seat {self._player_id}'s turn")
        legal = view.legal_actions
        if view.slough_chosen:
            if self._path and self._path[0] in legal:
                return self._path.pop(0)
            self._path = []
            return SLOUGH_DONE if SLOUGH_DONE in legal else legal[0]
        path = list(self._player.choose(view).actions)
        self._path = path[1:]
        return path[0]

    def restart_at(self, state: SkitgubbeState) -> None:
        """Forget any slough path in progress.

        >>> import skitgubbe as sg
        >>> SkitgubbeBot(sg.bots.GreedyBot(), 0).restart_at(None)
        """
        self._path = []

    def inform_action(self, state: SkitgubbeState, player_id: int, action: int) -> None:
        """Nothing to learn: the player sees each observation afresh.

        >>> import skitgubbe as sg
        >>> SkitgubbeBot(sg.bots.GreedyBot(), 0).inform_action(None, 1, 507)
        """


pyspiel.register_game(GAME_TYPE, SkitgubbeGame)
