"""The playing layer: running games between players.

The sans-IO :class:`~skitgubbe.Referee` (:mod:`~skitgubbe.play.referee`) is
the one table loop of the package; :mod:`~skitgubbe.play.players` holds the
:class:`~skitgubbe.Player` protocol and :func:`~skitgubbe.play_game`,
:mod:`~skitgubbe.play.aio` the asyncio runner, :mod:`~skitgubbe.play.session`
sessions of several games, and :mod:`~skitgubbe.play.simulate` random games
played wholly in the C core. It builds on the game layer (:mod:`skitgubbe.game`)
only.

>>> import skitgubbe as sg
>>> from skitgubbe.play.players import play_game
>>> play_game([sg.bots.RandomBot(seed=s) for s in range(3)], seed=1).finish_order
(0, 2, 1)
"""
