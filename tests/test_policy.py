"""Rollout policies and evaluations of the user's own (skitgubbe.bots.policy) in the C search:
built-in names, C functions compiled with cffi, Python callables, and their failures."""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import skitgubbe as sg
from skitgubbe import bots
from skitgubbe.bots import policy
from skitgubbe.bots.policy import compile_c

GREEDY_C = """
int32_t greedy_again(const sg_position *pos, void *ctx)
{
    (void)ctx;
    return sg_greedy(pos);
}
"""

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "policies" / "lowest.c"
LOWEST_C = EXAMPLE.read_text(encoding="utf-8")  # the tutorial's heuristic


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("policy-cache")


@pytest.fixture(autouse=True)
def _cache_env(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SKITGUBBE_CACHE", str(cache))


def views(count: int = 6) -> list[sg.Observation]:
    """Observations of the player to move at a few points of a few games."""
    found = []
    for seed in range(count):
        game = sg.Game.new(sg.Rules.classic(3), seed=seed)
        bot = sg.bots.GreedyBot()
        for _ in range(seed * 7):
            if game.result is not None:
                break
            game.play(bot.choose(game.observation(game.to_move)))  # type: ignore[arg-type]
        if game.result is None:
            found.append(game.observation(game.to_move))  # type: ignore[arg-type]
    return found


# -- the header ----------------------------------------------------------------------------


def test_the_header_ships_with_the_package_and_its_abi_is_the_cores() -> None:
    header = Path(sg.get_include()) / "skitgubbe_policy.h"
    text = header.read_text(encoding="utf-8")
    (abi,) = re.findall(r"#define SG_POLICY_ABI (\d+)", text)
    assert int(abi) == policy.POLICY_ABI == sg.policy.POLICY_ABI
    assert sg.get_include() == policy.get_include()


ROOT = Path(__file__).resolve().parent.parent
CORE_HEADER = ROOT / "src" / "_core" / "include" / "skitgubbe_policy.h"


def test_the_header_is_the_cores_own_in_a_checkout_or_a_copy_in_the_installed_package() -> None:
    package = Path(sg.__file__).resolve().parent
    found = Path(sg.get_include()).resolve()
    if (package / "include" / "skitgubbe_policy.h").is_file():  # an installed wheel
        assert found == package / "include"
    else:  # a source checkout: the core's include folder, never the package's
        assert found == CORE_HEADER.parent
    if CORE_HEADER.is_file():  # the shipped copy is the core's header, byte for byte
        assert (found / "skitgubbe_policy.h").read_bytes() == CORE_HEADER.read_bytes()


def test_the_core_includes_nothing_from_the_python_package() -> None:
    sources = sorted((ROOT / "src" / "_core").rglob("*.[ch]"))
    assert sources, "the C core's sources are not in this tree"
    for source in sources:
        for line in source.read_text(encoding="utf-8").splitlines():
            if line.lstrip().startswith("#include"):
                assert "skitgubbe/" not in line and ".." not in line, (source.name, line)


@pytest.mark.skipif(
    not (ROOT / "src" / "skitgubbe").is_dir(), reason="the package's sources are not here"
)
def test_build_py_copies_the_cores_public_headers_into_the_package(tmp_path: Path) -> None:
    subprocess.run(
        [sys.executable, "setup.py", "-q", "build_py", "--build-lib", str(tmp_path)],
        cwd=ROOT,
        check=True,
        capture_output=True,
    )
    shipped = tmp_path / "skitgubbe" / "include" / "skitgubbe_policy.h"
    assert shipped.read_bytes() == CORE_HEADER.read_bytes()


# -- policies that play as the built-in greedy one ----------------------------------------


@pytest.mark.parametrize("kind", ["c", "python"])
def test_a_policy_equal_to_greedy_searches_exactly_as_the_built_in_one(kind: str) -> None:
    mine: Any = compile_c(GREEDY_C, "greedy_again") if kind == "c" else (lambda p: p.greedy)
    for view in views():
        for make in (
            lambda r: sg.bots.ISMCTSBot(iterations=300, rollout=r, seed=5),
            lambda r: sg.bots.PIMCBot(worlds=6, rollouts=1, rollout=r, seed=5),
        ):
            built_in, own = make("greedy"), make(mine)
            if isinstance(built_in, sg.bots.ISMCTSBot):
                assert built_in.visits(view) == own.visits(view)  # type: ignore[union-attr]
            else:
                assert built_in.scores(view) == own.scores(view)  # type: ignore[union-attr]


def test_a_c_policy_from_a_file_in_a_spec_plays_in_the_arena(tmp_path: Path) -> None:
    source = tmp_path / "lowest.c"
    source.write_text(LOWEST_C, encoding="utf-8")
    spec = f"ismcts:iterations=60,rollout={source}:lowest"
    bot = bots.make(spec, seed=1)
    assert isinstance(bot, sg.bots.ISMCTSBot)
    result = sg.run_match([spec, "greedy"], deals=2, seed=3)
    workers = sg.run_match([spec, "greedy"], deals=2, seed=3, jobs=2)
    assert result.crashes == () and result == workers
    default = tmp_path / "choose.c"
    default.write_text(LOWEST_C.replace("lowest(", "choose("), encoding="utf-8")
    assert bots.make(f"pimc:worlds=2,rollout={default}", seed=1) is not None  # choose


def test_a_compiled_policy_is_cached_across_processes(cache: Path) -> None:
    source = GREEDY_C.replace("greedy_again", "cached_one")
    compile_c(source, "cached_one")
    built = sorted(cache.glob("policies/_skitgubbe_policy_*"))
    assert built
    files = [(path, path.stat().st_ino, path.stat().st_mtime_ns) for path in built]
    program = (
        "import sys, skitgubbe.bots.policy as p\n"
        "f = p.compile_c(sys.stdin.read(), 'cached_one')\n"
        "print(f.address > 0)\n"
    )
    # A second process loads the cached build: a build of its own would have replaced
    # the file (a new inode) in the same place.
    done = subprocess.run(
        [sys.executable, "-c", program], input=source, capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == "True"
    assert sorted(cache.glob("policies/_skitgubbe_policy_*")) == built
    assert [(path, path.stat().st_ino, path.stat().st_mtime_ns) for path in built] == files


# -- evaluations ------------------------------------------------------------------------


def test_an_evaluation_ends_every_rollout_with_its_values() -> None:
    quarter = compile_c(
        """
        int32_t quarter(const sg_position *pos, void *ctx, double value[4])
        {
            (void)ctx;
            for (int32_t seat = 0; seat < sg_players(pos); seat++)
                value[seat] = 0.25;
            return 1;
        }
        """,
        "quarter",
        kind="evaluation",
    )
    for evaluation in (quarter, lambda p: [0.25] * p.players):
        bot = sg.bots.PIMCBot(worlds=3, rollouts=2, evaluation=evaluation, seed=2)
        scores = bot.scores(views()[1])
        assert set(scores.values()) == {0.25}
    # None goes on: the rollouts play out, as without an evaluation.
    view = views()[2]
    plain = sg.bots.PIMCBot(worlds=4, rollouts=1, seed=3).scores(view)
    assert (
        sg.bots.PIMCBot(worlds=4, rollouts=1, seed=3, evaluation=lambda p: None).scores(view)
        == plain
    )


# -- failures: an error naming the policy, never a crash or a substituted move --------------

FAILING = [
    (
        "int32_t past(const sg_position *p, void *c) { (void)c; return sg_n_moves(p); }",
        "past",
        "policy",
        r"policy 'past \(C\)' returned move index \d+, past the position's legal moves",
    ),
    (
        "int32_t minus(const sg_position *p, void *c) { (void)p; (void)c; return -7; }",
        "minus",
        "policy",
        r"policy 'minus \(C\)' returned -7, a failure",
    ),
    (
        "int32_t two(const sg_position *p, void *c, double v[4]) "
        "{ (void)p; (void)c; (void)v; return 2; }",
        "two",
        "evaluation",
        r"evaluation 'two \(C\)' returned 2; an evaluation returns 1",
    ),
    (
        "int32_t not_a_number(const sg_position *p, void *c, double v[4]) "
        "{ (void)p; (void)c; v[0] = 0.0 / 0.0; return 1; }",
        "not_a_number",
        "evaluation",
        r"evaluation 'not_a_number \(C\)' wrote a value for seat 0 that is not a chance",
    ),
]


@pytest.mark.parametrize(("source", "name", "kind", "message"), FAILING)
def test_a_c_function_that_answers_wrong_stops_the_search_with_an_error_naming_it(
    source: str, name: str, kind: str, message: str
) -> None:
    function = compile_c(source, name, kind=kind)  # type: ignore[arg-type]
    options: dict[str, Any] = (
        {"rollout": function} if kind == "policy" else {"evaluation": function}
    )
    view = views()[1]
    for bot in (
        sg.bots.ISMCTSBot(iterations=50, seed=1, **options),
        sg.bots.PIMCBot(worlds=2, seed=1, **options),
    ):
        with pytest.raises(sg.PolicyError, match=message) as caught:
            bot.choose(view)
        assert caught.value.policy == f"'{name} (C)'"


def raises(position: Any) -> int:
    raise KeyError("no idea")


@pytest.mark.parametrize(
    ("rollout", "evaluation", "cause", "message"),
    [
        (raises, None, KeyError, r"policy 'raises' raised KeyError: 'no idea'"),
        (lambda p: 1.0, None, TypeError, r"returns a move index \(an int\), not 1.0"),
        (lambda p: p.n_moves, None, ValueError, r"returned move index \d+, but the position"),
        ("greedy", lambda p: [0.5], ValueError, r"one value per seat \(3\)"),
        ("greedy", lambda p: [2.0, 0, 0], ValueError, r"chances in \[0, 1\]"),
    ],
)
def test_a_python_function_that_fails_stops_the_search_with_its_exception(
    rollout: Any, evaluation: Any, cause: type[BaseException], message: str
) -> None:
    bot = sg.bots.ISMCTSBot(iterations=30, rollout=rollout, evaluation=evaluation, seed=1)
    with pytest.raises(sg.PolicyError, match=message) as caught:
        bot.choose(views()[1])
    assert isinstance(caught.value.__cause__, cause)


def test_a_source_that_does_not_compile_shows_the_compilers_message(tmp_path: Path) -> None:
    with pytest.raises(sg.PolicyError, match="cannot compile policy 'broken'") as caught:
        compile_c("int32_t broken(const sg_position *p, void *c) { return undeclared; }", "broken")
    assert "undeclared" in str(caught.value) and "error" in str(caught.value)
    with pytest.raises(sg.PolicyError, match="cannot read"):
        compile_c(tmp_path / "missing.c", "choose")
    with pytest.raises(sg.ArgumentError, match="an identifier"):
        compile_c(GREEDY_C, "not a name")
    with pytest.raises(sg.ArgumentError, match="'policy' or 'evaluation'"):
        compile_c(GREEDY_C, "greedy_again", kind="score")  # type: ignore[arg-type]


def test_a_build_for_another_abi_is_refused() -> None:
    source = (
        GREEDY_C.replace("greedy_again", "old_abi")
        + "\n#undef SG_POLICY_ABI\n#define SG_POLICY_ABI 999\n"
    )
    with pytest.raises(sg.PolicyError, match=r"built for policy ABI 999, not 1"):
        compile_c(source, "old_abi")


def test_bad_rollout_options_are_refused_where_the_bot_is_made() -> None:
    with pytest.raises(sg.ArgumentError, match="rollout must be one of random, greedy, mixed"):
        sg.bots.ISMCTSBot(rollout="fast")
    with pytest.raises(sg.ArgumentTypeError, match="rollout must be one of"):
        sg.bots.PIMCBot(rollout=3)  # type: ignore[arg-type]
    with pytest.raises(sg.ArgumentError, match="cannot import 'no_such_module'"):
        sg.bots.PIMCBot(rollout="no_such_module:choose")
    quarter = compile_c(
        "int32_t q(const sg_position *p, void *c, double v[4])"
        " { (void)p; (void)c; (void)v; return 0; }",
        "q",
        kind="evaluation",
    )
    with pytest.raises(sg.ArgumentError, match="compiled as a evaluation, not a policy"):
        sg.bots.PIMCBot(rollout=quarter)


# -- what a Python policy sees ----------------------------------------------------------------


def test_a_python_policy_sees_sampled_worlds_and_only_during_its_call() -> None:
    view = views()[3]
    seen: list[tuple[int, ...]] = []
    kept: list[Any] = []

    def spy(position: Any) -> int:
        kept.append(position)
        if position.to_move == view.seat and len(seen) < 400:
            seen.append(tuple(position.hand(s) for s in range(position.players)))
        return position.greedy

    sg.bots.ISMCTSBot(iterations=100, rollout=spy, seed=1).choose(view)
    assert seen
    others = {hands[(view.seat + 1) % 3] for hands in seen}
    assert len(others) > 1, "the other hands are sampled, not the real ones"
    with pytest.raises(ValueError, match="only during the call"):
        kept[0].hand(0)


# -- the vector environment's opponents -------------------------------------------------------


def test_vector_opponents_play_a_policy_of_your_own_from_their_own_view() -> None:
    numpy = pytest.importorskip("numpy")
    from skitgubbe.learn.vector import VectorEnv

    greedy_c = compile_c(GREEDY_C, "greedy_again")
    plain = VectorEnv(16, sg.Rules.classic(3), opponents="greedy", seed=2)
    mine = VectorEnv(16, sg.Rules.classic(3), opponents=[greedy_c, lambda p: p.greedy], seed=2)
    (a, info), (b, _) = plain.reset(), mine.reset()
    assert numpy.array_equal(a, b)
    rng = numpy.random.default_rng(0)
    for _ in range(150):  # greedy from a sampled world is greedy: the same games
        noise = rng.random(info["action_mask"].shape)
        actions = numpy.argmax(numpy.where(info["action_mask"], noise, -1.0), axis=1)
        one, two = plain.step(actions), mine.step(actions)
        assert all(numpy.array_equal(x, y) for x, y in zip(one[:4], two[:4], strict=True))
    # What the policy sees is a world sampled from its seat's view: the next seat's hand
    # there is not the real one (the game in slot 0 is Game.new from game_seed(seed, 0)).
    from skitgubbe import _core

    seen: list[int] = []

    def peek(position: Any) -> int:
        seen.append(position.hand(2))
        return position.greedy

    spy = VectorEnv(1, sg.Rules.classic(3), opponents=[peek, "greedy"], seed=5)
    _, info = spy.reset()
    game = sg.Game.new(sg.Rules.classic(3), seed=_core.game_seed(5, 0))
    action = int(numpy.argmax(info["action_mask"][0]))
    game.play_action(action)
    assert game.to_move == 1  # seat 1, the policy, moves next: inside this step
    spy.step(numpy.array([action], dtype=numpy.int32))
    assert seen and seen[0] != game.hands[2].mask
    assert bin(seen[0]).count("1") == len(game.hands[2])  # as many cards, other ones


def test_a_vector_opponent_that_fails_raises_and_the_step_changes_nothing() -> None:
    numpy = pytest.importorskip("numpy")
    from skitgubbe.learn.vector import VectorEnv

    env = VectorEnv(4, sg.Rules.classic(3), opponents=lambda p: 99, seed=1)
    _, info = env.reset()
    before = [env._core.state(i) for i in range(4)]
    with pytest.raises(sg.PolicyError, match=r"seat 1: policy '.*<lambda>' raised ValueError"):
        env.step(numpy.argmax(info["action_mask"], axis=1))
    assert [env._core.state(i) for i in range(4)] == before
    with pytest.raises(sg.ArgumentError, match="opponents are 'random', 'greedy' or a policy"):
        VectorEnv(2, sg.Rules.classic(3), opponents="clever")


def test_the_tutorials_heuristic_in_python_searches_as_its_c_version(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.syspath_prepend(str(EXAMPLE.parent.parent.parent))
    from examples.policies.lowest import lowest

    in_c = compile_c(EXAMPLE, "lowest")
    for view in views(4):
        assert sg.bots.ISMCTSBot(iterations=120, rollout=in_c, seed=9).visits(
            view
        ) == sg.bots.ISMCTSBot(iterations=120, rollout=lowest, seed=9).visits(view)


def test_a_cache_that_cannot_be_written_is_a_clear_error(tmp_path: Path) -> None:
    blocked = tmp_path / "file"
    blocked.write_text("not a folder", encoding="utf-8")
    source = GREEDY_C.replace("greedy_again", "nowhere")
    with pytest.raises(sg.PolicyError, match=r"cannot write the policy cache .* SKITGUBBE_CACHE"):
        compile_c(source, "nowhere", cache_dir=blocked / "policies")


# -- what the cache holds, and builds that must not be trusted ------------------------------

CHOOSE_FIRST_C = """int32_t choose(const sg_position *pos, void *ctx)
{
    (void)pos;
    (void)ctx;
    return 0;
}
"""


def _library(folder: Path) -> Path:
    """The one cached build in ``folder`` (a cache's ``policies`` folder)."""
    (found,) = folder.glob("_skitgubbe_policy_*" + policy._SUFFIX)
    return found


def _compile_elsewhere(source: Path, name: str, cache: Path) -> subprocess.CompletedProcess[str]:
    """Compile ``name`` of ``source`` in a process of its own (a build this process has
    loaded must not be damaged under it); what the process printed, and its exit code."""
    program = (
        "import sys, skitgubbe.bots.policy as p\n"
        "f = p.compile_c(sys.argv[1], sys.argv[2])\n"
        "print(f.name, f.address > 0)\n"
    )
    return subprocess.run(
        [sys.executable, "-c", program, str(source), name],
        capture_output=True,
        text=True,
        env={**os.environ, "SKITGUBBE_CACHE": str(cache)},
        timeout=120,
    )


def test_a_function_the_source_does_not_define_is_a_policy_error_and_nothing_is_cached(
    tmp_path: Path,
) -> None:
    source = tmp_path / "first.c"
    source.write_text(CHOOSE_FIRST_C, encoding="utf-8")
    folder = tmp_path / "cache"
    for _ in range(2):  # the second time too: no broken build was cached by the first
        with pytest.raises(sg.PolicyError, match=r"first\.c defines no policy function") as caught:
            compile_c(source, "nochoose", cache_dir=folder)
        assert "int32_t nochoose(const sg_position *pos, void *ctx)" in str(caught.value)
        assert caught.value.policy == "nochoose"
        assert not list(folder.glob("_skitgubbe_policy_*"))
    # Declared but defined nowhere: it compiles, but the build does not load.
    source.write_text("int32_t declared(const sg_position *pos, void *ctx);\n", encoding="utf-8")
    with pytest.raises(sg.PolicyError, match=r"first\.c does not define declared"):
        compile_c(source, "declared", cache_dir=folder)
    assert not list(folder.glob("_skitgubbe_policy_*"))
    # A function of another signature is not taken for a policy (the search would call it
    # with arguments it does not take).
    source.write_text("int32_t one(const sg_position *pos) { (void)pos; return 0; }\n")
    with pytest.raises(sg.PolicyError, match=r"defines no policy function .*incompatible"):
        compile_c(source, "one", cache_dir=folder)


def test_the_compilers_messages_name_the_users_file_and_line(tmp_path: Path) -> None:
    source = tmp_path / "broken.c"
    source.write_text(CHOOSE_FIRST_C.replace("return 0;", "return nope;"), encoding="utf-8")
    with pytest.raises(sg.PolicyError, match=r"cannot compile policy 'choose' of .*broken\.c") as e:
        compile_c(source, "choose", cache_dir=tmp_path / "cache")
    first, *rest = str(e.value).splitlines()  # the first error, then the whole message
    assert re.search(rf" of {re.escape(str(source))}: {re.escape(str(source))}:5:\d+: ", first)
    assert re.search(rf"^{re.escape(str(source))}:5:\d+: error: .*nope", "\n".join(rest), re.M)
    assert "_skitgubbe_policy_" not in str(e.value)  # never the generated file
    with pytest.raises(sg.PolicyError, match=r"(?m)^<source>:3:\d+: error: .*nope"):
        compile_c("\n\nint32_t f(const sg_position *p, void *c) { return nope; }", "f")


@pytest.mark.slow
@pytest.mark.parametrize("damage", ["overwritten", "emptied", "sidecar"])
def test_a_cached_build_that_does_not_verify_is_built_again(tmp_path: Path, damage: str) -> None:
    source = tmp_path / "first.c"
    source.write_text(CHOOSE_FIRST_C.replace("choose", f"choose_{damage}"), encoding="utf-8")
    cache = tmp_path / "cache"
    done = _compile_elsewhere(source, f"choose_{damage}", cache)
    assert done.returncode == 0, done.stderr
    library = _library(cache / "policies")
    size = library.stat().st_size
    sidecar = library.parent / library.name.replace(policy._SUFFIX, policy._SIDECAR)
    if damage == "overwritten":
        library.write_bytes(b"\x7fELF" + b"\0" * (size - 4))
    elif damage == "emptied":
        library.write_bytes(b"")
    else:
        sidecar.write_text("0" * 64 + "\n", encoding="ascii")
    function = compile_c(source, f"choose_{damage}", cache_dir=cache / "policies")
    view = views(1)[0]
    bot = sg.bots.PIMCBot(worlds=2, rollout=function, seed=1)
    assert bot.choose(view) in view.legal_moves
    rebuilt = _library(cache / "policies")
    assert rebuilt.stat().st_size == size  # a whole build again, that verifies
    digest = hashlib.sha256(rebuilt.read_bytes()).hexdigest()
    assert sidecar.read_text(encoding="ascii").strip() == digest


def test_a_truncated_cached_build_is_built_again_not_loaded(tmp_path: Path) -> None:
    # Loading a library cut short maps pages past its end: the process dies of SIGBUS, so
    # this runs in processes of their own.
    source = tmp_path / "first.c"
    source.write_text(CHOOSE_FIRST_C.replace("choose", "truncated"), encoding="utf-8")
    cache = tmp_path / "cache"
    assert _compile_elsewhere(source, "truncated", cache).returncode == 0
    library = _library(cache / "policies")
    size = library.stat().st_size
    with open(library, "r+b") as file:
        file.truncate(4000)
    done = _compile_elsewhere(source, "truncated", cache)
    assert (done.returncode, done.stdout, done.stderr) == (0, "truncated True\n", "")
    assert _library(cache / "policies").stat().st_size == size


def _as_unprivileged() -> list[str]:
    """A command prefix that runs a program subject to file permissions: as it is for a
    user, for root without the capabilities that let it read and write any file."""
    if os.geteuid() != 0:
        return []
    drop = "-dac_override,-dac_read_search"
    return ["setpriv", f"--bounding-set={drop}", f"--inh-caps={drop}", "--"]


def test_a_cache_folder_that_cannot_be_read_is_a_clear_error(tmp_path: Path) -> None:
    source = tmp_path / "first.c"
    source.write_text(CHOOSE_FIRST_C.replace("choose", "locked_out"), encoding="utf-8")
    cache = tmp_path / "cache"
    assert _compile_elsewhere(source, "locked_out", cache).returncode == 0
    program = (
        "import sys, skitgubbe\n"
        "try:\n"
        "    skitgubbe.bots.policy.compile_c(sys.argv[1], 'locked_out')\n"
        "except skitgubbe.PolicyError as error:\n"
        "    print(error)\n"
    )
    (cache / "policies").chmod(0)
    try:
        done = subprocess.run(
            [*_as_unprivileged(), sys.executable, "-c", program, str(source)],
            capture_output=True,
            text=True,
            env={**os.environ, "SKITGUBBE_CACHE": str(cache)},
            timeout=120,
        )
    finally:
        (cache / "policies").chmod(0o755)
    assert done.stderr == ""
    assert done.stdout == (
        f"cannot read the policy cache {cache / 'policies'}: Permission denied "
        "(set SKITGUBBE_CACHE to a folder you can read and write)\n"
    )


def test_the_arena_given_a_policy_that_cannot_be_built_says_so_in_a_line(tmp_path: Path) -> None:
    source = tmp_path / "first.c"
    source.write_text(CHOOSE_FIRST_C, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "skitgubbe", "arena", f"pimc:rollout={source}:nochoose", "random"],
        capture_output=True,
        text=True,
        env={**os.environ, "SKITGUBBE_CACHE": str(tmp_path / "cache")},
        timeout=120,
    )
    assert done.returncode == 2
    assert done.stderr.startswith(f"skitgubbe: error: {source} defines no policy function ")
    assert done.stderr.count("\n") == 1
    source.write_text(CHOOSE_FIRST_C.replace("return 0;", "return nope;"), encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "skitgubbe", "arena", f"pimc:rollout={source}", "random"],
        capture_output=True,
        text=True,
        env={**os.environ, "SKITGUBBE_CACHE": str(tmp_path / "cache")},
        timeout=120,
    )
    assert done.returncode == 2
    first = done.stderr.splitlines()[0]  # the first error, the compiler's message after it
    assert first.startswith(f"skitgubbe: error: cannot compile policy 'choose' of {source}: ")
    assert f"{source}:5:" in first and "Traceback" not in done.stderr
