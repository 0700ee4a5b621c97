"""Learning environments: a PettingZoo AEC environment and a Gymnasium one.

Both speak the integer actions of :mod:`skitgubbe.game.actions` (``Discrete(563)``)
and observe the tensors of :mod:`skitgubbe.game.tensors` (``TENSOR_SIZE`` floats in
``[0, 1]``), so one network fits every rule variant and 2, 3 or 4 players.

* :class:`SkitgubbeAEC` (made by :func:`env`, the PettingZoo way): every seat
  is an agent ``"player_0"`` … . Observations are dicts of ``"observation"``
  and ``"action_mask"`` (int8, all zeros when it is not the agent's turn), as
  in PettingZoo's classic games; with ``action_mask="info"`` the observation is
  the tensor alone and the mask is in ``infos[agent]["action_mask"]``.
* :class:`SkitgubbeEnv`: one learning seat against opponents that are
  :class:`~skitgubbe.Player` objects or bot specs (``"random"``, ``"greedy"``,
  see :mod:`skitgubbe.bots`); masks from :meth:`SkitgubbeEnv.action_masks`
  (for sb3-contrib's ``MaskablePPO``) and ``info["action_mask"]``. It is
  registered with Gymnasium as ``"skitgubbe/Skitgubbe-v0"``.

Rewards are zero-sum, **the skitgubbe pays** (:func:`payoffs`): when a game
ends with a loser, the loser gets ``-(players - 1)`` and every other player
``+1``. A game stopped by the move cap (``Rules.max_moves``) is truncated and
pays 0; so does a game over with no loser. Rewards come at the end only.

A slough is chosen card by card (``SLOUGH_CARD + card.index``, then
``SLOUGH_DONE``): the same agent acts several times in a row.

This module needs pettingzoo, gymnasium and numpy
(``pip install "skitgubbe[envs]"``); ``import skitgubbe`` does not load it.

>>> from skitgubbe.learn import envs
>>> aec = envs.env(rules="classic", players=3)
>>> aec.reset(seed=1)
>>> aec.agent_selection, aec.observe("player_0")["observation"].shape
('player_0', (1359,))
>>> gym_env = envs.SkitgubbeEnv(rules="modern", players=2, opponents="greedy")
>>> observation, info = gym_env.reset(seed=1)
>>> observation.shape, int(info["action_mask"].sum()) > 0
((1359,), True)
"""

from __future__ import annotations

import io
import operator
import random
from collections.abc import Sequence
from typing import Any, Final, Literal

try:
    import gymnasium
    import numpy
    from gymnasium import spaces
    from gymnasium.envs.registration import EnvSpec
    from numpy.typing import NDArray
    from pettingzoo import AECEnv  # type: ignore[import-untyped]
    from pettingzoo.utils import wrappers  # type: ignore[import-untyped]
except ImportError as error:  # pragma: no cover - the envs extra installs them
    raise ImportError(
        'skitgubbe.learn.envs needs pettingzoo, gymnasium and numpy: pip install "skitgubbe[envs]"'
    ) from error

from .. import _core, bots
from ..errors import ArgumentError, ArgumentTypeError, IllegalActionError
from ..game.actions import NUM_ACTIONS
from ..game.observation import History
from ..game.rules import Rules
from ..game.state import Game, GameResult, seat_view
from ..game.tensors import STATE_TENSOR_SIZE, TENSOR_SIZE, recent_moves
from ..play.players import Player

__all__ = [
    "ENV_ID",
    "SkitgubbeAEC",
    "SkitgubbeEnv",
    "board_text",
    "env",
    "payoffs",
    "raw_env",
    "register_envs",
]

ENV_ID: Final = "skitgubbe/Skitgubbe-v0"
"""The id :class:`SkitgubbeEnv` is registered under with Gymnasium."""

RENDER_MODES: Final = ("human", "ansi")

_SEED_BITS: Final = 63


def payoffs(result: GameResult, players: int) -> tuple[float, ...]:
    """The rewards of a finished game by seat: the skitgubbe pays.

    The loser pays 1 to every other player; a truncated game or one with no
    loser pays 0. They sum to zero.

    >>> import skitgubbe as sg
    >>> payoffs(sg.GameResult(loser=1, finish_order=(0, 2), truncated=False, moves_played=90), 3)
    (1.0, -2.0, 1.0)
    >>> payoffs(sg.GameResult(loser=None, finish_order=(), truncated=True, moves_played=500), 3)
    (0.0, 0.0, 0.0)
    """
    if result.truncated or result.loser is None:
        return (0.0,) * players
    return tuple(-(players - 1.0) if seat == result.loser else 1.0 for seat in range(players))


def _rules(rules: Rules | str, players: int | None, max_moves: int | None) -> Rules:
    """The rules of an environment from its arguments."""
    if isinstance(rules, str):
        made = Rules.preset(rules, 3 if players is None else players)
    elif isinstance(rules, Rules):
        made = rules
        if players is not None and players != rules.players:
            raise ArgumentError(f"players={players!r} but the rules are for {rules.players}")
    else:
        raise ArgumentTypeError(
            f"rules must be a Rules or a preset name such as 'classic', not {rules!r}"
        )
    return made if max_moves is None else made.replace(max_moves=max_moves)


def _render_mode(render_mode: str | None) -> str | None:
    if render_mode is not None and render_mode not in RENDER_MODES:
        raise ArgumentError(f"render_mode is one of {RENDER_MODES} or None, not {render_mode!r}")
    return render_mode


def board_text(game: Game, width: int = 100) -> str:
    """The referee's view of ``game`` as plain text: every hand, the stock, the table.

    It shows hidden cards, so it is for people watching, never for a player.

    >>> import skitgubbe as sg
    >>> print(board_text(sg.Game.new(sg.Rules.classic(2), seed=5)).splitlines()[0])
    Phase 1, collecting cards · stock: 46 cards
    """
    from rich.console import Console

    from ..game.render import full_board, result_line

    out = io.StringIO()
    console = Console(
        file=out, width=width, force_terminal=False, color_system=None, highlight=False
    )
    for part in full_board(game):
        console.print(part)
    if game.result is not None:
        console.print(result_line(game, None))
    return out.getvalue()


def _mask(game: Game) -> NDArray[numpy.int8]:
    mask: NDArray[numpy.int8] = numpy.frombuffer(game.action_mask, numpy.int8).copy()
    return mask


def _seat_tensor(game: Game, seat: int) -> NDArray[numpy.float32]:
    """``game.observation(seat).tensor()`` without building the whole Observation.

    The same inputs the observation gives the core: the seat's view, its slough
    being chosen and the last moves of its own history (tests compare the two).
    """
    core = game._core
    players = game.players
    pending = core.pending if game.to_move == seat else 0
    recent = recent_moves(History(seat_view(core, seat, players)))
    tensor = numpy.zeros(TENSOR_SIZE, dtype=numpy.float32)
    _core.observation_tensor(core.view(seat), seat, pending, recent, tensor)
    return tensor


def _seat_mask(game: Game, seat: int) -> NDArray[numpy.int8]:
    """``game.observation(seat).action_mask`` as an int8 array: zeros unless ``seat`` moves."""
    if game.to_move != seat:
        return numpy.zeros(NUM_ACTIONS, dtype=numpy.int8)
    return _mask(game)


class SkitgubbeAEC(AECEnv):  # type: ignore[misc]
    """Skitgubbe as a PettingZoo AEC environment (every seat an agent).

    ``rules`` is a :class:`~skitgubbe.Rules` or a preset name (``"classic"``,
    ``"modern"``) for ``players`` (3 by default); ``max_moves`` replaces the
    rules' move cap. Agents are ``"player_0"`` … in seat order. An agent's
    observation is ``{"observation": its tensor, "action_mask": int8 mask}``;
    the mask is all zeros when it is not the agent's turn. Actions are the ids
    of :mod:`skitgubbe.game.actions`. Rewards come at the end (:func:`payoffs`):
    terminations when the game is over, truncations when the move cap stops it.

    This raw environment raises :class:`~skitgubbe.IllegalActionError` for an
    illegal action and changes nothing; :func:`env` wraps it so that an illegal
    action ends the game instead, with reward -1 for the agent that took it.

    ``action_mask="info"`` makes the observation the tensor alone (a ``Box``)
    and puts each agent's mask in ``infos[agent]["action_mask"]`` (where
    PettingZoo's ``TerminateIllegalWrapper`` also looks for it): PettingZoo's
    ``api_test`` then passes without a warning. With the default dict
    observation it warns twice ("Observation is not a NumPy array" and
    "Observation space for each agent probably should be gymnasium.spaces.box
    or gymnasium.spaces.discrete"): it lets only PettingZoo's own classic games,
    listed by name, have dict observations, though a dict with
    ``"action_mask"`` is their convention and what many learners expect, so
    the default stays.

    ``reset(seed=s)`` deals ``Game.new(rules, seed=s)``; a reset without a seed
    deals from a seed drawn from a generator seeded by the last seed given.
    :meth:`render` shows the referee's view (every hand): for people
    watching, not for agents. :meth:`state` is the whole state for
    centralised critics only.

    >>> aec = SkitgubbeAEC(rules="modern", players=2)
    >>> aec.reset(seed=3)
    >>> observation, reward, terminated, truncated, info = aec.last()
    >>> aec.agent_selection, int(observation["action_mask"].sum()) > 0, reward
    ('player_0', True, 0.0)
    >>> aec.step(int(observation["action_mask"].argmax()))
    """

    metadata: Final = {
        "name": "skitgubbe_v0",
        "render_modes": list(RENDER_MODES),
        "is_parallelizable": False,
        "render_fps": 1,
    }

    def __init__(
        self,
        rules: Rules | str = "classic",
        players: int | None = None,
        *,
        render_mode: str | None = None,
        max_moves: int | None = None,
        action_mask: Literal["observation", "info"] = "observation",
    ) -> None:
        super().__init__()
        self.rules = _rules(rules, players, max_moves)
        self.render_mode = _render_mode(render_mode)
        if action_mask not in ("observation", "info"):
            raise ArgumentError(f"action_mask is 'observation' or 'info', not {action_mask!r}")
        self._mask_in_info = action_mask == "info"
        count = self.rules.players
        self.possible_agents = [f"player_{seat}" for seat in range(count)]
        self.agents: list[str] = []
        self._seat_of = {agent: seat for seat, agent in enumerate(self.possible_agents)}
        tensor_space = spaces.Box(0.0, 1.0, (TENSOR_SIZE,), numpy.float32)
        observation_space: spaces.Space[Any] = tensor_space
        if not self._mask_in_info:
            observation_space = spaces.Dict(
                {
                    "observation": tensor_space,
                    "action_mask": spaces.Box(0, 1, (NUM_ACTIONS,), numpy.int8),
                }
            )
        self.observation_spaces = dict.fromkeys(self.possible_agents, observation_space)
        self.action_spaces = {agent: spaces.Discrete(NUM_ACTIONS) for agent in self.possible_agents}
        self.state_space = spaces.Box(0.0, 1.0, (STATE_TENSOR_SIZE,), numpy.float32)
        self._rng = random.Random()
        self.game: Game | None = None
        self.rewards: dict[str, float] = {}
        self._cumulative_rewards: dict[str, float] = {}
        self.terminations: dict[str, bool] = {}
        self.truncations: dict[str, bool] = {}
        self.infos: dict[str, dict[str, Any]] = {}
        self.agent_selection: str | None = None

    # -- spaces ----------------------------------------------------------------------

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        """The observation space of ``agent`` (the same for every agent)."""
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        """``Discrete(NUM_ACTIONS)``: the ids of :mod:`skitgubbe.game.actions`."""
        return self.action_spaces[agent]

    # -- the loop --------------------------------------------------------------------

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Deal a new game: from ``seed``, or from a seed drawn from the last one."""
        if seed is not None:
            self._rng = random.Random(seed)
            deal = seed
        else:
            deal = self._rng.getrandbits(_SEED_BITS)
        self.game = Game.new(self.rules, seed=deal)
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {agent: {} for agent in self.agents}
        self._skip_agent_selection = None
        self._put_masks(self.game)
        to_move = self.game.to_move
        self.agent_selection = self.possible_agents[0 if to_move is None else to_move]
        if self.render_mode == "human":
            self.render()

    def _live_game(self) -> Game:
        if self.game is None:
            raise ArgumentError("call reset() before step()")
        return self.game

    def step(self, action: int | None) -> None:
        """Take ``action`` for :attr:`agent_selection` (``None`` for an agent that is done).

        An illegal action raises :class:`~skitgubbe.IllegalActionError` and changes nothing.
        """
        agent = self.agent_selection
        if agent is not None and (self.terminations[agent] or self.truncations[agent]):
            self._was_dead_step(action)
            return
        game = self._live_game()
        assert agent is not None
        try:
            number: object = operator.index(action)  # type: ignore[arg-type]
        except TypeError:
            number = action  # play_action's error names it
        game.play_action(number)  # type: ignore[arg-type]  # an illegal one raises, changing nothing
        self._cumulative_rewards[agent] = 0.0
        self._clear_rewards()
        result = game.result
        if result is not None:
            for seat, reward in enumerate(payoffs(result, self.rules.players)):
                self.rewards[self.possible_agents[seat]] = reward
            stopped = dict.fromkeys(self.agents, True)
            if result.truncated:
                self.truncations = stopped
            else:
                self.terminations = stopped
        else:
            to_move = game.to_move
            assert to_move is not None
            self.agent_selection = self.possible_agents[to_move]
        self._put_masks(game)
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _put_masks(self, game: Game) -> None:
        """With ``action_mask="info"``, every agent's mask into its info."""
        if self._mask_in_info:
            for agent in self.agents:
                self.infos[agent] = {"action_mask": _seat_mask(game, self._seat_of[agent])}

    def observe(self, agent: str) -> Any:
        """``agent``'s observation: its tensor and its action mask (zeros unless it moves),
        or its tensor alone with ``action_mask="info"``."""
        game = self._live_game()
        seat = self._seat_of[agent]
        if self._mask_in_info:
            return _seat_tensor(game, seat)
        return {"observation": _seat_tensor(game, seat), "action_mask": _seat_mask(game, seat)}

    def state(self) -> NDArray[numpy.float32]:
        """The whole state (:meth:`Game.state_tensor <skitgubbe.Game.state_tensor>`).

        It holds every hidden card: for centralised critics only, never for an agent.
        """
        state: NDArray[numpy.float32] = self._live_game().state_tensor()
        return state

    def render(self) -> str | None:
        """The referee's view of the game (every hand, the stock, the face-down card).

        ``"ansi"`` returns it as text and ``"human"`` prints it; it shows what
        no agent may see, so it is for people watching.
        """
        if self.render_mode is None:
            gymnasium.logger.warn("render() was called without a render_mode")
            return None
        text = board_text(self._live_game())
        if self.render_mode == "ansi":
            return text
        print(text)
        return None

    def close(self) -> None:
        """Nothing to release; closing twice is fine."""


raw_env = SkitgubbeAEC
"""The unwrapped AEC environment class (PettingZoo's name for it)."""


def env(**kwargs: Any) -> Any:
    """The AEC environment wrapped as PettingZoo's classic environments are.

    An illegal action ends the game, with reward -1 for the agent that took it
    and 0 for the others (``TerminateIllegalWrapper``); an action out of range
    fails an assertion; calls out of order raise. Arguments go to
    :class:`SkitgubbeAEC`.

    >>> aec = env(rules="classic", players=2)
    >>> aec.reset(seed=0)
    >>> import logging
    >>> logging.disable(logging.WARNING)  # PettingZoo logs a warning
    >>> aec.step(562)  # illegal here: the game ends
    >>> logging.disable(logging.NOTSET)
    >>> aec.rewards, aec.terminations["player_0"]
    ({'player_0': -1.0, 'player_1': 0}, True)
    """
    wrapped = SkitgubbeAEC(**kwargs)
    wrapped = wrappers.TerminateIllegalWrapper(wrapped, illegal_reward=-1)
    wrapped = wrappers.AssertOutOfBoundsWrapper(wrapped)
    return wrappers.OrderEnforcingWrapper(wrapped)


# -- Gymnasium ----------------------------------------------------------------------------

Opponent = Player | str
"""An opponent: a :class:`~skitgubbe.Player` or a bot spec such as ``"greedy"``."""


class SkitgubbeEnv(gymnasium.Env[NDArray[numpy.float32], numpy.int64]):
    """Skitgubbe as a Gymnasium environment: one learning seat against bots.

    ``seat`` is the learner's seat (default 0) or ``"random"`` (drawn at each
    reset). ``opponents`` is one opponent for every other seat, or a sequence of
    ``players - 1`` of them in seat order: :class:`~skitgubbe.Player` objects or
    bot specs (:func:`skitgubbe.bots.make`; bots made from specs are seeded from
    the reset's generator). Opponents are given only their own
    :class:`~skitgubbe.Observation`, never the game.

    Observations are the learner's tensor; actions are the ids of
    :mod:`skitgubbe.game.actions`. :meth:`step` plays the learner's action, then the
    opponents' moves until the learner is to move again or the game is over.
    The reward, at the end only, is the learner's :func:`payoffs`: terminated
    when the game is over, truncated when the move cap stops it. The legal
    actions are in :meth:`action_masks` and ``info["action_mask"]`` (bools).

    An illegal action raises :class:`~skitgubbe.IllegalActionError` and changes
    nothing (``illegal_action="raise"``, the default); with
    ``illegal_action="lose"`` it ends the episode instead (terminated, reward
    ``illegal_reward``), which is what a checker sampling any action of the
    space, such as Gymnasium's ``check_env``, needs.

    An environment made directly has the :attr:`spec` that ``gymnasium.make``
    would give it (id :data:`ENV_ID`, its arguments), so that it can be made
    again from it: ``check_env`` does so to try every render mode, and passes
    without a warning.

    >>> gym_env = SkitgubbeEnv(rules="classic", players=3, opponents=["greedy", "random"])
    >>> observation, info = gym_env.reset(seed=7)
    >>> action = int(gym_env.action_masks().nonzero()[0][0])
    >>> observation, reward, terminated, truncated, info = gym_env.step(action)
    >>> reward, terminated, truncated
    (0.0, False, False)
    """

    metadata: Final = {"render_modes": list(RENDER_MODES), "render_fps": 1}  # type: ignore[misc]

    def __init__(
        self,
        rules: Rules | str = "classic",
        players: int | None = None,
        *,
        seat: int | Literal["random"] = 0,
        opponents: Opponent | Sequence[Opponent] = "random",
        render_mode: str | None = None,
        max_moves: int | None = None,
        illegal_action: Literal["raise", "lose"] = "raise",
        illegal_reward: float = -1.0,
    ) -> None:
        self.rules = _rules(rules, players, max_moves)
        count = self.rules.players
        if seat != "random" and (type(seat) is not int or not 0 <= seat < count):
            raise ArgumentError(f"seat is 0 <= seat < {count} or 'random', not {seat!r}")
        self.seat_choice = seat
        if isinstance(opponents, str) or not isinstance(opponents, Sequence):
            lineup: list[Opponent] = [opponents] * (count - 1)
        else:
            lineup = list(opponents)
            if len(lineup) != count - 1:
                raise ArgumentError(f"give one opponent or {count - 1} of them, not {len(lineup)}")
        for opponent in lineup:
            if isinstance(opponent, str):
                bots.make(opponent)  # a bad spec fails here, not at the first reset
            elif not isinstance(opponent, Player):
                raise ArgumentTypeError(
                    f"an opponent is a Player or a bot spec, not {type(opponent).__name__}"
                )
        self.opponents: tuple[Opponent, ...] = tuple(lineup)
        if illegal_action not in ("raise", "lose"):
            raise ArgumentError(f"illegal_action is 'raise' or 'lose', not {illegal_action!r}")
        self.illegal_action = illegal_action
        self.illegal_reward = float(illegal_reward)
        self.render_mode = _render_mode(render_mode)
        self.observation_space = spaces.Box(0.0, 1.0, (TENSOR_SIZE,), numpy.float32)
        self.action_space = spaces.Discrete(NUM_ACTIONS)
        self.game: Game | None = None
        self.seat = 0 if seat == "random" else seat
        self._players: dict[int, Player] = {}
        self._over = True
        # The spec gymnasium.make would give (it sets its own after making an environment).
        arguments = {
            "rules": rules,
            "players": players,
            "seat": seat,
            "opponents": opponents,
            "render_mode": render_mode,
            "max_moves": max_moves,
            "illegal_action": illegal_action,
            "illegal_reward": illegal_reward,
        }
        self.spec = EnvSpec(id=ENV_ID, entry_point=f"{__name__}:SkitgubbeEnv", kwargs=arguments)

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[NDArray[numpy.float32], dict[str, Any]]:
        """Deal a new game (from ``seed`` when given) and play until the learner moves."""
        super().reset(seed=seed)
        rng = self.np_random
        deal = seed if seed is not None else int(rng.integers(2**_SEED_BITS))
        count = self.rules.players
        self.seat = int(rng.integers(count)) if self.seat_choice == "random" else self.seat
        others = [s for s in range(count) if s != self.seat]
        self._players = {}
        for other, opponent in zip(others, self.opponents, strict=True):
            bot_seed = int(rng.integers(2**_SEED_BITS))
            made = bots.make(opponent, seed=bot_seed) if isinstance(opponent, str) else opponent
            self._players[other] = made
        self.game = Game.new(self.rules, seed=deal)
        self._over = False
        for other, player in self._players.items():
            started = getattr(player, "game_started", None)
            if started is not None:
                started(self.game.observation(other))
        self._play_opponents(self.game)
        if self.render_mode == "human":
            self.render()
        return self._observe(self.game), self._info(self.game)

    def _play_opponents(self, game: Game) -> None:
        """The opponents' moves until the learner is to move or the game is over."""
        while game.result is None and game.to_move != self.seat:
            mover = game.to_move
            assert mover is not None
            game.play(self._players[mover].choose(game.observation(mover)))
        if game.result is not None:
            self._over = True
            for other, player in self._players.items():
                ended = getattr(player, "game_ended", None)
                if ended is not None:
                    ended(game.observation(other), game.result)

    def step(
        self, action: numpy.int64 | int
    ) -> tuple[NDArray[numpy.float32], float, bool, bool, dict[str, Any]]:
        """Play the learner's ``action``, then the opponents until the learner moves again.

        An illegal action raises :class:`~skitgubbe.IllegalActionError` and
        changes nothing, unless the environment was made with
        ``illegal_action="lose"``.
        """
        game = self.game
        if game is None or self._over:
            raise ArgumentError("the episode is over (or never began): call reset()")
        try:
            number: object = operator.index(action)
        except TypeError:
            number = action  # play_action's error names it
        try:
            game.play_action(number)  # type: ignore[arg-type]
        except (IllegalActionError, ArgumentError, ArgumentTypeError):
            if self.illegal_action == "raise":
                raise
            self._over = True
            return self._observe(game), self.illegal_reward, True, False, self._info(game)
        self._play_opponents(game)
        if self.render_mode == "human":
            self.render()
        result = game.result
        reward = 0.0
        terminated = truncated = False
        if result is not None:
            reward = payoffs(result, self.rules.players)[self.seat]
            truncated = result.truncated
            terminated = not truncated
        return self._observe(game), reward, terminated, truncated, self._info(game)

    def _observe(self, game: Game) -> NDArray[numpy.float32]:
        return _seat_tensor(game, self.seat)

    def _info(self, game: Game) -> dict[str, Any]:
        return {"action_mask": self.action_masks(), "seat": self.seat}

    def action_masks(self) -> NDArray[numpy.bool_]:
        """The learner's legal actions as a bool array (all False when the episode is over)."""
        game = self.game
        if game is None or self._over or game.to_move != self.seat:
            return numpy.zeros(NUM_ACTIONS, dtype=numpy.bool_)
        return _mask(game).astype(numpy.bool_)

    def render(self) -> str | None:
        """The referee's view of the game: ``"ansi"`` returns the text, ``"human"`` prints it.

        It shows every hand, so it is for people watching, not for the learner.
        """
        if self.render_mode is None or self.game is None:
            return None
        text = board_text(self.game)
        if self.render_mode == "ansi":
            return text
        print(text)
        return None

    def close(self) -> None:
        """Nothing to release; closing twice is fine."""


def register_envs() -> None:
    """Register :class:`SkitgubbeEnv` with Gymnasium as :data:`ENV_ID` (done on import).

    >>> import gymnasium
    >>> register_envs()
    >>> gymnasium.make(ENV_ID, players=2).unwrapped.rules.players
    2
    """
    if ENV_ID not in gymnasium.registry:
        gymnasium.register(id=ENV_ID, entry_point=f"{__name__}:SkitgubbeEnv")


register_envs()
