"""The command line and the terminal apps, on one renderer.

``skitgubbe.apps.cli`` is the ``skitgubbe`` command (also ``python -m
skitgubbe``), a module per command family; :mod:`~skitgubbe.apps.play` puts a
person at the table against bots (``skitgubbe play``);
:mod:`~skitgubbe.apps.replay` steps through a saved game (``skitgubbe
replay``); :mod:`~skitgubbe.game.render` draws cards, events and boards for
both. ``import skitgubbe`` loads none of them: they sit
on top of the public API and load when used.

>>> from skitgubbe.apps.play import PlaySession
>>> PlaySession.new(players=2, seed=1).names
('you', 'seat 1 · greedy')
"""
