# game.pxi: GameCore: the base of skitgubbe.Game, a learner's loop without Python calls.
# Included by skitgubbe/_core.pyx (one module, skitgubbe._core), in its order;
# not compiled on its own.


cdef class GameCore:
    """The base of skitgubbe.Game: its position, and the members a learner's
    loop calls once a decision (to_move, legal_actions, play_action), here so
    that a decision makes no Python call but the one the user makes.

    Game adds everything else and the error path (_illegal_action).
    """

    # The current position; through its parents, the whole history.  None
    # only in an object not made by Game's constructors: see game_core.
    cdef public Core _core

    def __init__(self, *args, **kwargs):
        raise TypeError("make a Game with Game.new, Game.from_shedding or Game.from_record")

    @property
    def to_move(self):
        """The seat to move; ``None`` when the game is over.

        >>> import skitgubbe as sg
        >>> game = sg.Game.new(seed=2)
        >>> game.to_move
        0
        """
        cdef const sg_state *st = core_state(game_core(self))
        return None if st.to_move == SG_NO_SEAT else st.to_move

    @property
    def legal_actions(self):
        """The legal integer actions of the player to move, ascending (see
        :mod:`skitgubbe.game.actions`); empty when the game is over.

        While a slough is being chosen (``slough_chosen``), only its steps.

        >>> import skitgubbe as sg
        >>> sg.Game.new(seed=2).legal_actions
        (28, 30, 35, 507)
        """
        cdef Core core = game_core(self)
        return action_ids(core_state(core), core.pending)

    def play_action(self, action):
        """Take integer action ``action`` for the player to move (see :mod:`skitgubbe.game.actions`).

        Returns the events of the move it completes; adding a card to a slough
        being chosen completes none (empty :class:`Events`). An illegal action
        raises :class:`~skitgubbe.IllegalActionError` naming the reason and the
        legal actions, and changes nothing.

        >>> import skitgubbe as sg
        >>> game = sg.Game.new(seed=2)
        >>> [str(e) for e in game.play_action(30)]
        ['seat 0 plays 6♥', 'seat 0 draws 5♠']
        >>> game.play_action(508)  # doctest: +ELLIPSIS
        Traceback (most recent call last):
            ...
        skitgubbe.errors.IllegalActionError: illegal action 508 (pick up): nobody picks up ...
        """
        cdef Core after
        try:
            after = core_play_action(game_core(self), action)  # refuses all but an int (not a bool)
        except (CoreError, OverflowError, TypeError):
            raise self._illegal_action(action) from None
        self._core = after
        # A position play made has its events (core_attach): no need for Core.events.
        return EMPTY_EVENTS if after.pending else after._events


cdef inline Core game_core(GameCore game):
    """The position of `game`; TypeError for an object Game's constructors did not make."""
    if game._core is None:
        raise TypeError("this Game holds no game: make one with Game.new, Game.from_shedding "
                        "or Game.from_record")
    return game._core
