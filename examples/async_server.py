"""Serve a game over local HTTP: one seat is you (any HTTP client), the others are bots.

Run: python examples/async_server.py --port 8765 [--seed 7] [--players 3] [--seat 0]
                                     [--bot greedy] [--timeout SECONDS] [--quiet]
Then, from another terminal:

    curl http://127.0.0.1:8765/state          # your view: hand, table, legal moves, history
    curl -d 7h http://127.0.0.1:8765/move     # play 7♥ (also: "7h 8h 9h", "pick", "flip")

The server listens on 127.0.0.1 only, runs the game with skitgubbe.play_game_async in the
same event loop as the HTTP handler (no threads), and stops when the game is over. POST /move
answers once it is your turn again (the bots have moved) or the game is over, with your new
state. A bad move gets 400 and the explanation; a move when it is not your turn gets 409.
With --timeout, a greedy stand-in plays any move you take longer than that over.
``--port 0`` picks a free port; the first line printed names it.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import sys
from collections.abc import Callable
from typing import Any

import skitgubbe as sg

HOST = "127.0.0.1"  # local only: this toy server has no authentication
MAX_BODY = 1024
REASONS = {
    200: "OK",
    400: "Bad Request",
    404: "Not Found",
    405: "Method Not Allowed",
    409: "Conflict",
    413: "Payload Too Large",
}
HELP = (
    "skitgubbe over HTTP\n"
    "GET  /state  your seat's view as JSON\n"
    'POST /move   body: a move such as "7h", "7h 8h 9h", "pick", "flip"\n'
)


class HttpSeat:
    """An AsyncPlayer whose moves arrive as HTTP requests.

    ``choose`` publishes the observation and waits for POST /move to resolve a
    future; nothing blocks, and the runner's timeout cancels the wait cleanly.
    """

    def __init__(self, seat: int, game: sg.Game) -> None:
        self.seat = seat
        self.game = game  # the referee's, used only to explain this seat's own bad moves
        self.observation = game.observation(seat)
        self.result: sg.GameResult | None = None
        self.stand_ins = 0
        self._answer: asyncio.Future[sg.Move] | None = None
        self._prompted = asyncio.Event()  # set when this seat is asked again or the game ends

    @property
    def waiting(self) -> bool:
        return self._answer is not None and not self._answer.done()

    async def choose(self, observation: sg.Observation) -> sg.Move:
        self.observation = observation
        self._answer = asyncio.get_running_loop().create_future()
        self._prompted.set()
        try:
            return await self._answer
        finally:
            self._answer = None

    async def seen(self, update: sg.TableUpdate) -> None:
        """on_event: keep this seat's view current; only its own updates are read."""
        if update.viewer == self.seat and update.observation is not None:
            self.observation = update.observation
            if update.seat == self.seat and update.stand_in is not None:
                self.stand_ins += 1
        if update.result is not None:
            self.result = update.result
            self._prompted.set()

    def state(self) -> dict[str, Any]:
        view = self.observation
        waiting = self.waiting
        return {
            "seat": self.seat,
            "players": view.players,
            "phase": view.phase.name.lower(),
            "to_move": view.to_move,
            "your_turn": waiting,
            "over": self.result is not None,
            "trump": None if view.trump is None else view.trump.name.lower(),
            "hand": [str(card) for card in view.hand],
            "collection": len(view.collection),
            "table": [{"seat": play.seat, "cards": str(play.cards)} for play in view.table],
            "top": None if view.top is None else str(view.top),
            "legal_moves": [str(move) for move in view.legal_moves] if waiting else [],
            "hand_sizes": list(view.hand_sizes),
            "collection_sizes": list(view.collection_sizes),
            "cards_held": [view.holding(seat) for seat in range(view.players)],
            "stock_size": view.stock_size,
            "finished": list(view.finished),
            "moves_played": view.moves_played,
            "history": [str(event) for event in view.history],
            "stand_in_moves": self.stand_ins,
            "result": None if self.result is None else self.result.to_dict(),
        }

    async def post_move(self, text: str) -> tuple[int, dict[str, Any]]:
        try:
            move = sg.Move.parse(text)
        except sg.ParseError as error:
            return 400, {"error": str(error)}
        if self.result is not None:
            return 409, {"error": "the game is over", "result": self.result.to_dict()}
        if not self.waiting:
            return 409, {"error": f"not your turn: seat {self.observation.to_move} is to move"}
        if move not in self.observation.legal_moves:
            try:
                self.game.copy().play(move)  # a copy: the referee's game is never touched here
                reason = f"{move} is not legal now"
            except sg.IllegalMoveError as error:
                reason = str(error)
            legal = [str(m) for m in self.observation.legal_moves]
            return 400, {"error": reason, "legal_moves": legal}
        assert self._answer is not None
        self._prompted.clear()
        self._answer.set_result(move)
        await self._prompted.wait()
        return 200, self.state()


async def read_request(reader: asyncio.StreamReader) -> tuple[str, str, bytes]:
    """A minimal HTTP/1.1 request reader: request line, headers, Content-Length body."""
    line = await reader.readline()
    method, target, _version = line.decode("latin-1").split()
    length = 0
    for _ in range(100):
        header = await reader.readline()
        if header in (b"\r\n", b"\n", b""):
            break
        name, _, value = header.decode("latin-1").partition(":")
        if name.strip().lower() == "content-length":
            length = int(value)
    if not 0 <= length <= MAX_BODY:
        raise OverflowError(length)
    body = await reader.readexactly(length) if length else b""
    return method.upper(), target.split("?", 1)[0], body


async def respond(writer: asyncio.StreamWriter, status: int, payload: dict[str, Any] | str) -> None:
    if isinstance(payload, str):
        body, kind = payload.encode(), "text/plain; charset=utf-8"
    else:
        body = json.dumps(payload, ensure_ascii=False).encode()
        kind = "application/json; charset=utf-8"
    head = (
        f"HTTP/1.1 {status} {REASONS[status]}\r\nContent-Type: {kind}\r\n"
        f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
    )
    writer.write(head.encode("latin-1") + body)
    await writer.drain()


async def route(seat: HttpSeat, method: str, path: str, body: bytes) -> tuple[int, Any]:
    if path == "/":
        return (200, HELP) if method == "GET" else (405, {"error": "use GET /"})
    if path == "/state":
        return (200, seat.state()) if method == "GET" else (405, {"error": "use GET /state"})
    if path == "/move":
        if method != "POST":
            return 405, {"error": "use POST /move with the move as the body"}
        try:
            text = body.decode("utf-8")
        except UnicodeDecodeError:
            return 400, {"error": "the body must be UTF-8 move text such as 7h"}
        return await seat.post_move(text)
    return 404, {"error": f"no such path: {path}; try GET /state or POST /move"}


async def serve(
    port: int,
    *,
    seed: int | None = None,
    players: int = 3,
    seat: int = 0,
    bot: str = "greedy",
    timeout: float | None = None,
    quiet: bool = False,
    ready: Callable[[int], None] | None = None,
) -> sg.GameResult:
    """Serve one game on 127.0.0.1:port until it is over; return its result.

    ``ready`` is called with the port once the server listens (useful with port 0).
    """
    game = sg.Game.new(sg.Rules.classic(players=players), seed=seed)
    human = HttpSeat(seat, game)
    table: list[sg.AsyncPlayer | sg.Player] = [
        human if s == seat else sg.AsyncBot(sg.bots.make(bot, seed=s)) for s in range(players)
    ]
    handlers: set[asyncio.Task[Any]] = set()

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        handlers.add(task)
        try:
            try:
                method, path, body = await asyncio.wait_for(read_request(reader), 10)
            except OverflowError:
                await respond(writer, 413, {"error": f"a move is at most {MAX_BODY} bytes"})
                return
            except (ValueError, UnicodeError, asyncio.IncompleteReadError, asyncio.TimeoutError):
                await respond(writer, 400, {"error": "not an HTTP/1.1 request"})
                return
            status, payload = await route(human, method, path, body)
            await respond(writer, status, payload)
        except ConnectionError:
            pass  # the client went away; the game goes on
        finally:
            handlers.discard(task)
            writer.close()
            with contextlib.suppress(ConnectionError):
                await writer.wait_closed()

    async def on_event(update: sg.TableUpdate) -> None:
        await human.seen(update)
        if update.viewer is None and update.move is not None and not quiet:
            print(" · ".join(str(e) for e in update.events), flush=True)

    server = await asyncio.start_server(handle, HOST, port)
    chosen = server.sockets[0].getsockname()[1]
    print(f"seat {seat} plays at http://{HOST}:{chosen}/ (GET /state, POST /move)", flush=True)
    if ready is not None:
        ready(chosen)
    async with server:
        result = await sg.play_game_async(
            table,
            game=game,
            move_time=[timeout if s == seat else None for s in range(players)],
            on_timeout="bot",
            on_event=on_event,
        )
        if handlers:  # let answers in flight (the final POST) reach their clients
            await asyncio.wait(set(handlers), timeout=5)
    return result


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--port", type=int, default=8765, help="0 picks a free port")
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--players", type=int, default=3, choices=(2, 3, 4))
    parser.add_argument("--seat", type=int, default=0, help="your seat")
    parser.add_argument("--bot", default="greedy", help="bot spec for the other seats")
    parser.add_argument("--timeout", type=float, default=None, help="seconds per move")
    parser.add_argument("--quiet", action="store_true", help="do not print the public events")
    args = parser.parse_args(argv)
    if not 0 <= args.seat < args.players:
        parser.error(f"--seat must be 0..{args.players - 1}")
    result = asyncio.run(
        serve(
            args.port,
            seed=args.seed,
            players=args.players,
            seat=args.seat,
            bot=args.bot,
            timeout=args.timeout,
            quiet=args.quiet,
        )
    )
    verdict = "you are" if result.loser == args.seat else f"seat {result.loser} is"
    print("truncated: no loser" if result.loser is None else f"game over: {verdict} the skitgubbe")


if __name__ == "__main__":
    main(sys.argv[1:])
