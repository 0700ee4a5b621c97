"""Threads: a Game may be read on one thread while another plays it; a VectorEnv,
which steps in C without the GIL, refuses a second thread instead of crashing.

A game's state is one reference to an immutable position (the position holds its
history), so a reader sees one whole position or the next, never a mix.

The objects of the binding that release the GIL are the VectorEnv's core (reset,
step, sample: it owns its games, so a second caller is refused) and the stateless
calls (simulate, the searches' pimc and ismcts: everything they touch is their own,
on the stack, so any number of threads may run them at once).
"""

from __future__ import annotations

import random
import subprocess
import sys
import textwrap
import threading
import time
from typing import Any

import numpy
import pytest

import skitgubbe as sg
from skitgubbe.learn.vector import VectorEnv


def test_observations_taken_while_another_thread_plays_are_whole_positions() -> None:
    game = sg.Game.new(sg.Rules.modern(4), seed=12)
    seen: list[sg.Observation] = []
    done = threading.Event()

    def read() -> None:
        while not done.is_set():
            seen.append(game.observation(len(seen) % 4))

    reader = threading.Thread(target=read)
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # switch threads as often as possible
    reader.start()
    try:
        rng = random.Random(12)
        moves = []
        while game.to_move is not None:
            move = rng.choice(game.legal_moves)
            game.play(move)
            moves.append(move)
            # Let the reader in before the next move too (it also runs during moves).
            wanted, deadline = len(seen) + 1, time.monotonic() + 1.0
            while len(seen) < wanted and time.monotonic() < deadline:
                time.sleep(0.0001)
    finally:
        done.set()
        reader.join()
        sys.setswitchinterval(old)
    assert len(seen) > 50
    replay = sg.Game.new(sg.Rules.modern(4), seed=12)
    positions = [replay.copy()]
    for move in moves:
        replay.play(move)
        positions.append(replay.copy())
    for view in seen:
        expected = positions[view.moves_played].observation(view.seat)
        assert view == expected
        assert len(view.history) == len(expected.history)


# Two threads hammer one VectorEnv (or its C core alone: the core's own guard),
# one resetting and one stepping, in a process of their own so that a crash
# (SIGBUS, SIGFPE, SIGSEGV before the guard) fails the test instead of killing pytest.
_HAMMER = textwrap.dedent(
    """
    import sys, threading
    import numpy
    import skitgubbe as sg
    from skitgubbe.learn.vector import VectorEnv

    env = VectorEnv(256, sg.Rules.classic(3), seed=1)  # long calls: both threads in C
    _, info = env.reset()
    target = env._core if sys.argv[1] == "core" else env
    calls = {"done": 0, "refused": 0}

    def hammer(kind):
        rng = numpy.random.default_rng(kind)
        actions = numpy.zeros(256, numpy.int32)
        for _ in range(600):
            try:
                if kind == 0:
                    target.reset()
                elif sys.argv[1] == "core":
                    target.sample(actions)
                    target.step(actions)
                else:
                    noise = rng.random(info["action_mask"].shape)
                    masked = numpy.where(info["action_mask"], noise, -1.0)
                    try:
                        env.step(numpy.argmax(masked, axis=1).astype(numpy.int32))
                    except sg.IllegalActionError:
                        pass  # the masks were read while the other thread reset
                calls["done"] += 1
            except sg.ConcurrentUseError as error:
                assert "in use by another thread" in str(error)
                calls["refused"] += 1

    threads = [threading.Thread(target=hammer, args=(k,)) for k in (0, 1)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    print(calls["done"] + calls["refused"])
    """
)


@pytest.mark.parametrize("target", ["env", "core"])
def test_a_vector_env_hammered_from_two_threads_refuses_and_never_crashes(target: str) -> None:
    done = subprocess.run(
        [sys.executable, "-c", _HAMMER, target],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, (done.returncode, done.stderr[-2000:])
    assert done.stdout.split() == ["1200"]  # every call returned or was refused


def _blocked_env() -> tuple[VectorEnv, threading.Event, threading.Event]:
    """An environment whose opponent (a Python policy) blocks inside the step, the first
    time it is called once ``entered`` is clear, until ``release`` is set."""
    entered, release = threading.Event(), threading.Event()

    def choose(position: Any) -> int:
        if not entered.is_set():
            entered.set()
            if not release.wait(timeout=60):
                raise RuntimeError("never released")
        return 0

    env = VectorEnv(4, sg.Rules.classic(2), opponents=choose, seed=3)
    return env, entered, release


def test_a_call_while_another_thread_is_inside_the_step_is_refused_and_changes_nothing() -> None:
    env, entered, release = _blocked_env()
    entered.set()  # the reset's own opponent moves go through
    _, info = env.reset()
    entered.clear()
    before = [env._core.state(i) for i in range(env.n_games)]
    noise = numpy.random.default_rng(0).random(info["action_mask"].shape)
    actions = numpy.argmax(numpy.where(info["action_mask"], noise, -1.0), axis=1)
    stepped: list[object] = []
    stepper = threading.Thread(target=lambda: stepped.append(env.step(actions)))
    stepper.start()
    try:
        assert entered.wait(timeout=60)  # the other thread is inside the step, GIL released
        calls = (
            env.reset,
            lambda: env.step(actions),
            lambda: env.sample_actions(),
            lambda: env._core.reset(),
            lambda: env._core.state(0),
            lambda: env._core.sample(numpy.zeros(env.n_games, numpy.int32)),
        )
        for call in calls:
            with pytest.raises(sg.ConcurrentUseError, match="in use by another thread"):
                call()
    finally:
        release.set()
        stepper.join()
    assert len(stepped) == 1  # the first thread's step went through
    after = [env._core.state(i) for i in range(env.n_games)]
    replay, entered2, _ = _blocked_env()
    entered2.set()
    replay.reset()
    replay.step(actions)
    assert after == [replay._core.state(i) for i in range(replay.n_games)]
    assert after != before


def test_a_policy_that_calls_its_own_environment_inside_the_step_is_refused() -> None:
    holder: list[VectorEnv] = []

    def meddle(position: Any) -> int:
        holder[0].reset()
        return 0

    env = VectorEnv(2, sg.Rules.classic(2), opponents=meddle, seed=3)
    holder.append(env)
    env.reset()  # seat 0, the learner, moves first: no policy is called yet
    before = [env._core.state(i) for i in range(env.n_games)]
    with pytest.raises(sg.PolicyError) as caught:
        env.step(env.sample_actions())
    assert isinstance(caught.value.__cause__, sg.ConcurrentUseError)
    assert [env._core.state(i) for i in range(env.n_games)] == before
