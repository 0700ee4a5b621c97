"""The learning layer: Skitgubbe for reinforcement learning and game research.

:mod:`~skitgubbe.learn.vector` steps many games at once in C (with the
integer actions and tensors of the game layer), :mod:`~skitgubbe.learn.envs`
wraps a game as PettingZoo and Gymnasium environments, and
:mod:`~skitgubbe.learn.openspiel` registers it with OpenSpiel. The modules load
their optional dependencies (numpy, PettingZoo, Gymnasium, OpenSpiel) when
imported; this package imports none of them.

>>> import skitgubbe.learn
>>> "numpy" in skitgubbe.learn.__doc__
True
"""
