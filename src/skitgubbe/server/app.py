"""The HTTP lobby, the websockets and the browser table, as one aiohttp application.

:func:`create_app` returns an :class:`aiohttp.web.Application` that another
aiohttp program can mount (``parent.add_subapp("/skitgubbe/", app)``);
:func:`run` serves it (``skitgubbe serve``). The API:

* ``GET /api/tables``: the tables, public (no token, no card): the open and running ones
  (the newest first) and the last finished ones; ``?status=live`` or ``?status=over`` for one
  kind, ``&limit=N`` and ``&before=ID`` (the last table of the page before) to page through
  them. It carries an ``ETag``: asked with ``If-None-Match``, an unchanged list is a ``304``;
* ``GET /api/engines``: the names of the engines a seat may be given
  (``"engine:NAME"``);
* ``GET /api/bots``: ``{"builtin": [...], "named": [...]}``, the built-in bots a
  seat's plain spec may name and the operator's bots (``"bot:NAME"``);
* ``POST /api/tables`` (JSON: ``seats``, ``rules``, ``move_time``,
  ``spectator_delay``, ``bot_delay``): a new table, ``201`` with its summary;
* ``GET /api/tables/{id}``: one table's summary;
* ``POST /api/tables/{id}/claim`` (``{"seat": 0, "name": "Ann"}``): a seat's
  secret ``token``, shown once (the server keeps only its hash);
* ``POST /api/tables/{id}/leave`` (``{"token": ...}``): give a seat back before
  the start;
* ``POST /api/tables/{id}/rematch`` (``{"token": ...}``): a finished table's rematch,
  ``POST /api/tables/{id}/decline`` (``{"token": ...}``) to give up the seat kept there;
  ``GET /api/tables/{id}/session``: the session's tally;
* ``GET /api/tables/{id}/record``: a finished game's record, for
  ``skitgubbe replay``;
* ``GET /api/tables/{id}/review?seat=N``: a finished game reviewed from seat
  ``N`` (:mod:`skitgubbe.server.advice`): ``202`` with how far it is while it is
  worked out, then ``200`` with the review;
* ``GET /ws``: a websocket. Its first frame is ``{"type": "join", "table": id,
  "token": token}`` for a seat (the token never travels in a URL) or
  ``{"type": "watch", "table": id}`` for a spectator; then the server sends
  ``welcome``, ``update``, ``hint`` and ``error`` frames, and a seat sends
  ``{"type": "move", "n": moves_played, "move": "7H"}``, or ``{"type": "hint",
  "n": moves_played}`` at a table that gives hints;
* ``/``, ``/table``, ``/tables/{id}/review``, ``/static/...``: the browser
  pages; ``/cards/{card}.svg``: card pictures from :mod:`skitgubbe.game.svg`;
  ``/favicon.ico``: the pages' icon.

Requests are at most :data:`MAX_REQUEST` bytes and frames :data:`MAX_FRAME`; a
socket that sends :data:`MAX_BAD_FRAMES` bad frames is closed. An error is JSON,
``{"error": message, "code": code}``; a request the store could not write is
answered ``503`` with the code :data:`STORE_UNAVAILABLE` (the tables wait and go
on by themselves once the store writes again). What one client may make the server do is
bounded (:class:`~skitgubbe.server.limits.Limits`): past a bound the answer is ``429`` (the
client's own bound) or ``503`` (the server's), with a ``Retry-After`` where waiting helps.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import gc
import json
import logging
import secrets
from collections.abc import Awaitable, Callable, Mapping, Sequence
from importlib import resources
from typing import Any, Final

from aiohttp import ClientSession, WSMsgType, web

from ..bots.plain import PLAIN_OPTIONS
from ..errors import ArgumentError, SkitgubbeError
from ..game import svg
from ..game.cards import Card
from .advice import HINT_ENGINE, REVIEW_ENGINE
from .cluster import MOVED, Cluster, ClusterLobby, ElsewhereError
from .config import MAX_BOT_ITERATIONS
from .errors import MovingError, TableError, shorten
from .forward import FORWARDED, forward_request, forward_socket, forwarded_client
from .limits import Limits, Network, client_of
from .lobby import Lobby
from .postgres import PostgresStore, is_postgres
from .store import SQLiteStore, Store, StoreError
from .tables import Table

__all__ = [
    "BROWSER_COOKIE",
    "FULL_GC_SECONDS",
    "MAX_BAD_FRAMES",
    "MAX_BOT_ITERATIONS",
    "MAX_FRAME",
    "MAX_REQUEST",
    "STORE_UNAVAILABLE",
    "create_app",
    "open_store",
    "tune_gc",
]

MAX_REQUEST: Final = 16 * 1024
"""The largest HTTP request body, in bytes."""
MAX_FRAME: Final = 4 * 1024
"""The largest websocket frame a client may send, in bytes."""
MAX_BAD_FRAMES: Final = 20
"""Bad frames a socket may send before it is closed."""
JOIN_TIME: Final = 10.0
"""Seconds a new socket has to send its first frame."""

FULL_GC_SECONDS: Final = 600.0
"""How often the serving process runs a full garbage collection (:func:`tune_gc`)."""

BROWSER_COOKIE: Final = "skitgubbe-browser"
"""The cookie that tells one browser from another (a random id, ``HttpOnly``): a browser
holds at most one seat of a table."""

_log: Final = logging.getLogger("skitgubbe.server")
LOBBY: Final = web.AppKey("lobby", Lobby)
_TRUSTED: Final = web.AppKey("trusted", Sequence[Network])  # the trusted proxies' networks
_GC_TASK: Final = web.AppKey("gc_task", asyncio.Task[None])
_SESSION: Final = web.AppKey("session", ClientSession)  # a cluster node's, to forward with
_NEVER: Final = 1 << 30  # a threshold never reached


class _Socket:
    """A websocket as a table's :class:`~skitgubbe.server.tables.Connection`. ``holds`` (a
    cluster's node) says whether the process may still speak for the table: if not, no
    frame is sent and the socket is closed, and its client joins again where the table is
    played now."""

    def __init__(self, ws: web.WebSocketResponse, holds: Callable[[], bool] | None = None) -> None:
        self.ws = ws
        self.holds = holds

    async def send(self, message: Mapping[str, Any]) -> None:
        if self.ws.closed:
            raise ConnectionError("the socket is closed")
        if self.holds is not None and not self.holds():
            await self.close(MOVED)
            raise ConnectionError("this process no longer speaks for the table")
        await self.ws.send_str(json.dumps(message, separators=(",", ":")))

    async def close(self, reason: str) -> None:
        await self.ws.close(message=reason.encode("utf-8")[:120])


STORE_UNAVAILABLE: Final = "store_unavailable"
"""The ``code`` of an answer (``503``) to a request the store could not write."""


def _error(error: TableError) -> web.Response:
    headers = None if error.retry_after is None else {"Retry-After": str(error.retry_after)}
    body = {"error": str(error), "code": error.code}
    return web.json_response(body, status=error.status, headers=headers)


def _store_error(error: StoreError) -> web.Response:
    message = f"the server cannot store anything now ({error}); nothing changed: try again later"
    return web.json_response({"error": message, "code": STORE_UNAVAILABLE}, status=503)


@web.middleware
async def _json_errors(
    request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
) -> web.StreamResponse:
    """A store that cannot write is a ``503`` with the code ``store_unavailable``; a bug is a
    ``500`` in JSON too (and a traceback in the log), never a plain-text page."""
    try:
        return await handler(request)
    except ElsewhereError as elsewhere:  # another node plays the table: ask it
        return await _forward(request, elsewhere)
    except StoreError as error:
        return _store_error(error)
    except web.HTTPRequestEntityTooLarge:
        body = {"error": f"a request body is at most {MAX_REQUEST} bytes", "code": "too_large"}
        return web.json_response(body, status=413)
    except web.HTTPException:
        raise
    except (ConnectionError, asyncio.CancelledError):
        raise  # the client went away: nothing to answer
    except Exception:
        _log.exception("error in %s %s", request.method, request.path)
        body = {"error": "the server failed (a bug, logged)", "code": "internal"}
        return web.json_response(body, status=500)


_MAX_DEPTH: Final = 32
"""How deeply a client's JSON may nest arrays and objects (a table's is 3 deep): checked
before it is parsed, so that the answer does not depend on the Python's recursion limit."""


def _depth(text: str) -> int:
    """How deeply ``text``'s arrays and objects nest (brackets in strings not counted)."""
    deepest = depth = 0
    in_string = escaped = False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "]}":
            depth -= 1
    return deepest


def _load(text: str, what: str) -> Any:
    """JSON from a client, every string in it writable as UTF-8 (JSON lets a lone surrogate,
    ``\\ud800``, through: no store could keep it), nested at most :data:`_MAX_DEPTH` deep.

    >>> _load('{"seats": [null, "greedy"]}', "the request body")
    {'seats': [None, 'greedy']}
    >>> _load("[" * 40 + "]" * 40, "a frame")
    Traceback (most recent call last):
        ...
    skitgubbe.server.errors.TableError: a frame must be JSON nested at most 32 deep
    """
    if _depth(text) > _MAX_DEPTH:
        raise TableError(f"{what} must be JSON nested at most {_MAX_DEPTH} deep")
    try:
        data = json.loads(text)
        json.dumps(data, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        raise TableError(f"{what} holds a lone surrogate (\\ud800...), which is not text") from None
    except (ValueError, RecursionError):  # not JSON, a number too long, nested too deep
        raise TableError(f"{what} must be JSON") from None
    return data


async def _body(request: web.Request) -> Any:
    try:
        text = await request.text()
    except UnicodeDecodeError:
        raise TableError("the request body must be JSON in UTF-8") from None
    return _load(text, "the request body")


async def _forward(request: web.Request, elsewhere: ElsewhereError) -> web.StreamResponse:
    lobby = request.app[LOBBY]
    assert isinstance(lobby, ClusterLobby)  # only a cluster's lobby finds tables elsewhere
    session = request.app[_SESSION]
    return await forward_request(session, request, elsewhere.url, lobby.secret, _client(request))


def _client(request: web.Request) -> str:
    """Who sent ``request`` (:func:`~skitgubbe.server.limits.client_of`): its address, or
    behind a proxy the operator trusts, the address the proxy forwarded (or, forwarded by
    another node of a cluster, the client it came from)."""
    lobby = request.app[LOBBY]
    if isinstance(lobby, ClusterLobby) and FORWARDED in request.headers:
        client = forwarded_client(request, lobby.secret)
        if client is not None:  # (a false secret: the request is its sender's own)
            return client
    forwarded = request.headers.get("X-Forwarded-For")
    return client_of(request.remote, forwarded, request.app[_TRUSTED])


def _browser(request: web.Request) -> str | None:
    """The browser's id from its cookie (``None``: it has none yet)."""
    value = request.cookies.get(BROWSER_COOKIE)
    return value if value and len(value) <= 64 and value.isascii() else None


def _seated(request: web.Request, browser: str, body: dict[str, Any], status: int) -> web.Response:
    """A seat's answer, giving a browser that had no id its new one (:data:`BROWSER_COOKIE`)."""
    response = web.json_response(body, status=status)
    if _browser(request) is None:
        response.set_cookie(
            BROWSER_COOKIE,
            browser,
            max_age=365 * 24 * 3600,
            httponly=True,
            samesite="Lax",
            secure=request.secure,
            path="/",
        )
    return response


def _browser_id(request: web.Request) -> str:
    """The browser's id: its cookie's, or a new one (which :func:`_seated` sends it)."""
    return _browser(request) or secrets.token_urlsafe(18)


async def _list_tables(request: web.Request) -> web.Response:
    """The tables (see the module's docstring): ``304`` when the ``If-None-Match`` is the
    list's ``ETag``."""
    lobby = request.app[LOBBY]
    query = request.query
    limit: int | None = None
    try:
        text = query.get("limit")
        if text is not None:
            if not (text.isascii() and text.isdigit()) or len(text) > 4:
                raise TableError(f"limit must be a number, not {shorten(text)}")
            limit = int(text)
        body, etag = lobby.listing(query.get("status"), limit, query.get("before"))
    except TableError as error:
        return _error(error)
    headers = {"ETag": etag, "Cache-Control": "no-cache"}
    if request.headers.get("If-None-Match") == etag:
        return web.Response(status=304, headers=headers)
    return web.Response(body=body, content_type="application/json", headers=headers)


async def _name_node(node: str, request: web.Request, response: web.StreamResponse) -> None:
    """A cluster's node names itself in each answer (``X-Skitgubbe-Node``), for operators."""
    response.headers["X-Skitgubbe-Node"] = node


async def _health(request: web.Request) -> web.Response:
    """``200`` while the server serves (a cluster's node: while its lease holds, so that a
    proxy in front sends it nothing once it may not play its tables), else ``503``."""
    lobby = request.app[LOBBY]
    node = lobby.cluster.node if isinstance(lobby, ClusterLobby) else None
    body = {"node": node, "tables": len(lobby.tables)}
    return web.json_response(body, status=200 if lobby.holds("") else 503)


async def _list_engines(request: web.Request) -> web.Response:
    return web.json_response(sorted(request.app[LOBBY].engines))


async def _list_bots(request: web.Request) -> web.Response:
    lobby = request.app[LOBBY]
    return web.json_response({"builtin": list(PLAIN_OPTIONS), "named": sorted(lobby.named_bots)})


async def _create_table(request: web.Request) -> web.Response:
    try:
        table = request.app[LOBBY].create(await _body(request), client=_client(request))
    except TableError as error:
        return _error(error)
    return web.json_response(table.summary(), status=201)


async def _get_table(request: web.Request) -> web.Response:
    try:
        return web.json_response(request.app[LOBBY].find(request.match_info["id"]).summary())
    except TableError as error:
        return _error(error)


async def _get_session(request: web.Request) -> web.Response:
    try:
        lobby = request.app[LOBBY]
        return web.json_response(lobby.session(lobby.find(request.match_info["id"])))
    except TableError as error:
        return _error(error)


async def _rematch(request: web.Request) -> web.Response:
    try:
        lobby = request.app[LOBBY]
        old = lobby.find(request.match_info["id"])
        data = await _body(request)
        if not isinstance(data, dict):
            raise TableError('send {"token": string}')
        browser = _browser_id(request)
        table, seat, token = lobby.rematch(old.id, data.get("token"), _client(request), browser)
    except TableError as error:
        return _error(error)
    if isinstance(old, Table):
        await old.tell_seats()  # the others at the old table: a rematch is there to join
    await table.tell_seats()  # and those already at the new one: who sat down
    return _seated(request, browser, {"table": table.id, "seat": seat, "token": token}, 201)


async def _decline(request: web.Request) -> web.Response:
    try:
        lobby = request.app[LOBBY]
        data = await _body(request)
        if not isinstance(data, dict):
            raise TableError('send {"token": string}')
        table = lobby.decline(request.match_info["id"], data.get("token"))
    except TableError as error:
        return _error(error)
    if table is not None:
        await table.tell_seats()
    return web.json_response({"rematch": None if table is None else table.id})


async def _claim_seat(request: web.Request) -> web.Response:
    try:
        table = request.app[LOBBY].get(request.match_info["id"])
        data = await _body(request)
        if not isinstance(data, dict):
            raise TableError('send {"seat": number, "name": string}')
        browser = _browser_id(request)
        token = table.claim(data.get("seat"), data.get("name"), browser)
        seat = table.seat_of(token)
        if table.ready():
            table.start()
    except TableError as error:
        return _error(error)
    if table.status == "open":  # those already seated see who sat down (once the game
        await table.tell_seats()  # starts, its first update tells them)
    return _seated(request, browser, {"table": table.id, "seat": seat, "token": token}, 201)


async def _leave_seat(request: web.Request) -> web.Response:
    try:
        table = request.app[LOBBY].get(request.match_info["id"])
        data = await _body(request)
        table.leave(data.get("token") if isinstance(data, dict) else None)
    except TableError as error:
        return _error(error)
    await table.tell_seats()
    return web.json_response(table.summary())


async def _get_record(request: web.Request) -> web.Response:
    try:
        return web.json_response(request.app[LOBBY].record(request.match_info["id"]))
    except TableError as error:
        return _error(error)


async def _get_review(request: web.Request) -> web.Response:
    """A finished game's review from one seat: ``202`` with ``{"status": "working",
    "done", "total"}`` while it is worked out (ask again), then ``200`` with the review."""
    try:
        text = request.query.get("seat", "")
        if not (text.isascii() and text.isdigit()) or len(text) > 2:
            raise TableError(f"give the seat to review as ?seat=N, not {shorten(text)}")
        review = request.app[LOBBY].review(
            request.match_info["id"], int(text), client=_client(request)
        )
    except TableError as error:
        return _error(error)
    if review.error is not None:
        body = {"error": f"the review failed: {review.error}", "code": "internal"}
        return web.json_response(body, status=500)
    if review.result is None:
        return web.json_response(review.status(), status=202)
    return web.json_response(review.result)


async def _card_picture(request: web.Request) -> web.Response:
    name = request.match_info["card"]
    try:
        picture = svg.card(None if name == "back" else Card.parse(name))
    except SkitgubbeError:
        raise web.HTTPNotFound() from None
    return web.Response(
        text=picture,
        content_type="image/svg+xml",
        headers={"Cache-Control": "public, max-age=86400"},
    )


def _static(name: str) -> str:
    return (resources.files("skitgubbe.server") / "static" / name).read_text("utf-8")


_TYPES: Final = {
    ".html": "text/html",
    ".js": "text/javascript",
    ".css": "text/css",
    ".svg": "image/svg+xml",
}
_STATIC: Final = frozenset(
    {
        "table.js",
        "lobby.js",
        "review.js",
        "style.css",
        "common.js",
        "icon.svg",
        "lobby.css",
        "review.css",
    }
)
"""The files under ``/static/`` (nothing else of the package is served)."""


def _page(name: str) -> Callable[[web.Request], Awaitable[web.Response]]:
    async def handler(request: web.Request) -> web.Response:
        suffix = name[name.rindex(".") :]
        return web.Response(text=_static(name), content_type=_TYPES[suffix])

    return handler


async def _static_file(request: web.Request) -> web.Response:
    name = request.match_info["name"]
    if name not in _STATIC:
        raise web.HTTPNotFound()
    return await _page(name)(request)


async def _favicon(request: web.Request) -> web.Response:
    """The icon a browser asks for on its own (the pages link ``/static/icon.svg``)."""
    return web.Response(
        text=_static("icon.svg"),
        content_type="image/svg+xml",
        headers={"Cache-Control": "public, max-age=86400"},
    )


async def _websocket(request: web.Request) -> web.StreamResponse:
    ws = web.WebSocketResponse(max_msg_size=MAX_FRAME, heartbeat=30)
    try:
        await ws.prepare(request)
    except ConnectionError:  # the client left before the handshake's answer
        return web.Response()  # (aiohttp finds the connection gone, and logs nothing)
    lobby, client = request.app[LOBBY], _client(request)
    try:
        lobby.sockets.acquire(client)
    except TableError as error:
        with contextlib.suppress(ConnectionError):
            await _Socket(ws).send({"type": "error", "error": str(error), "code": error.code})
            await ws.close(message=b"refused")
        return ws
    try:
        with contextlib.suppress(ConnectionError):  # the client went away: nothing to log
            await _serve_socket(lobby, ws, client, request)
    finally:
        lobby.sockets.release(client)
    return ws


async def _serve_socket(
    lobby: Lobby, ws: web.WebSocketResponse, client: str, request: web.Request
) -> None:
    """One socket's life: its join (or watch) frame, then its moves (or, for a table
    another node of a cluster plays, its frames passed both ways: :func:`forward_socket`)."""
    socket = _Socket(ws)
    table: Table | None = None
    seat: int | None = None
    bad = 0
    over = False  # a finished table that has left memory: its welcome, then closed

    async def refuse(message: str, code: str = "bad_request") -> None:
        nonlocal bad
        bad += 1
        await socket.send({"type": "error", "error": message, "code": code})
        if bad >= MAX_BAD_FRAMES:
            await socket.close("too many bad frames")

    try:
        first = await ws.receive(timeout=JOIN_TIME)
    except asyncio.TimeoutError:
        await socket.close("no join frame")
        return
    if first.type in (WSMsgType.CLOSE, WSMsgType.CLOSING, WSMsgType.CLOSED, WSMsgType.ERROR):
        return  # gone before it said anything
    try:
        if first.type != WSMsgType.TEXT:
            raise TableError("the first frame is a JSON join or watch")
        data = _load(first.data, "the first frame")
        if not isinstance(data, dict):
            raise TableError("the first frame is a JSON object")
        addressed = request.query.get("table")  # /ws?table=ID, which a proxy routes by
        if addressed is not None and addressed != data.get("table"):
            raise TableError("the table in the address (/ws?table=) is not the first frame's")
        try:
            table = lobby.get(data.get("table"))
        except TableError as error:
            if error.status != 409:
                raise
            table, over = await lobby.replayed(data.get("table")), True  # its end, then closed
        except ElsewhereError as elsewhere:  # another node plays it: the frames go through
            assert isinstance(lobby, ClusterLobby)
            if forwarded_client(request, lobby.secret) is not None:  # forwarded once already
                raise MovingError("the table is moving between servers: join again") from None
            await forward_socket(
                request.app[_SESSION],
                ws,
                first.data,
                elsewhere.table_id,
                elsewhere.url,
                lobby.secret,
                client,
            )
            return
        if data.get("type") == "join":
            seat = table.seat_of(data.get("token"))
        elif data.get("type") != "watch":
            raise TableError("the first frame's type is 'join' or 'watch'")
    except TableError as error:
        await socket.send({"type": "error", "error": str(error), "code": error.code})
        await socket.close("refused")
        return
    socket.holds = functools.partial(lobby.holds, table.id)
    try:
        try:
            if seat is not None:
                await table.attach(seat, socket)
            else:
                await table.watch(socket)
        except TableError as error:
            await socket.send({"type": "error", "error": str(error), "code": error.code})
            await socket.close("refused")
            return
        if over:
            await socket.close("the game is over")
            return
        async for frame in ws:
            if frame.type != WSMsgType.TEXT:
                await refuse("frames are JSON text")
                continue
            try:
                data = _load(frame.data, "a frame")
            except TableError as error:
                await refuse(str(error))
                continue
            if isinstance(data, dict) and data.get("type") == "hint":
                if seat is None:
                    await refuse("spectators get no hints")
                    continue
                try:
                    table.ask_hint(seat, data.get("n"), client)
                except TableError as error:  # a person's fair question: not a bad frame
                    await socket.send({"type": "error", "error": str(error), "code": error.code})
                continue
            if not isinstance(data, dict) or data.get("type") != "move":
                await refuse('a frame is {"type": "move", "n": ..., "move": ...}')
                continue
            if seat is None:
                await refuse("spectators do not move")
                continue
            try:
                table.submit(seat, data.get("n"), data.get("move"))
            except TableError as error:
                await refuse(str(error), error.code)
    finally:
        if seat is not None:
            table.detach(seat, socket)
        else:
            table.unwatch(socket)


def open_store(db: str) -> Store:
    """The store ``skitgubbe serve --db`` names: a PostgreSQL database by its URL
    (``postgresql://user@host/name``: :class:`~skitgubbe.server.postgres.PostgresStore`,
    with the ``postgres`` extra), else an SQLite file by its path (made if missing).

    >>> type(open_store(":memory:")).__name__
    'SQLiteStore'
    """
    return PostgresStore(db) if is_postgres(db) else SQLiteStore(db)


def create_app(
    store: Store | str = "skitgubbe-server.db",
    *,
    restore: bool = True,
    engines: Mapping[str, str] | None = None,
    named_bots: Mapping[str, str] | None = None,
    max_bot_iterations: int = MAX_BOT_ITERATIONS,
    hint_engine: str = HINT_ENGINE,
    review_engine: str = REVIEW_ENGINE,
    limits: Limits | None = None,
    cluster: Cluster | None = None,
) -> web.Application:
    """The server as an aiohttp application: the lobby, the sockets and the pages.

    ``store`` is a :class:`~skitgubbe.server.store.Store`, the path of an
    SQLite file or a PostgreSQL URL (:func:`open_store`). On startup every open and
    running table stored there is rebuilt and play resumes (``restore=False``: start
    empty, leaving them
    stored); on cleanup the tables stop and the store closes. ``engines``
    names the programs (engine specs, ``"cmd:./mybot"``) that a table may seat
    as ``"engine:NAME"``: each such seat runs its own process of that program,
    started at its first move; no request can start any other program.
    ``named_bots`` names the operator's bots (any bot spec: a weight file, a C
    policy of the operator's) that a table may seat as ``"bot:NAME"``; each is made
    once when the server starts, to check it, and at a seat's first move in a worker
    thread. Every other seat a client names is a plain spec
    (:func:`skitgubbe.bots.check_plain_spec`): a request never makes the server read
    a file, import a module or compile code.
    ``max_bot_iterations`` bounds a searching bot's iterations per move (an ISMCTS
    seat's ``iterations``, a PIMC seat's ``worlds × rollouts``); every seat is also priced
    by its work (:func:`~skitgubbe.server.config.decision_seconds`) and refused (``400``)
    over ``limits.max_decision_seconds`` (default
    :data:`~skitgubbe.server.config.MAX_DECISION_SECONDS`).
    ``hint_engine`` is the search a hint runs (at a table created with ``"hints":
    true``), ``review_engine`` the one a finished game's review runs at each decision:
    bot specs of ``ismcts`` or ``pimc`` (:mod:`skitgubbe.server.advice`).
    ``limits`` bounds what one client, and all together, may make the server do
    (:class:`~skitgubbe.server.limits.Limits`, its defaults if ``None``).
    ``cluster`` makes the server one node of many on a PostgreSQL store
    (:mod:`skitgubbe.server.cluster`): it plays the tables it owns, takes over those of
    nodes that are gone, and forwards what is asked of the others' tables.

    >>> from skitgubbe.server import create_app
    >>> app = create_app(":memory:")
    >>> "/ws" in {route.resource.canonical for route in app.router.routes()}
    True
    """
    app = web.Application(client_max_size=MAX_REQUEST, middlewares=[_json_errors])
    the_store = open_store(store) if isinstance(store, str) else store
    options: dict[str, Any] = {
        "engines": engines,
        "named_bots": named_bots,
        "max_bot_iterations": max_bot_iterations,
        "hint_engine": hint_engine,
        "review_engine": review_engine,
        "limits": limits,
    }
    lobby: Lobby
    if cluster is None:
        lobby = Lobby(the_store, **options)
    elif isinstance(the_store, PostgresStore):
        lobby = ClusterLobby(the_store, cluster, **options)
    else:
        the_store.close()
        raise ArgumentError("the nodes of a cluster share a PostgreSQL store: --db postgresql://…")
    app[LOBBY] = lobby
    app[_TRUSTED] = lobby.limits.networks()

    async def startup(app: web.Application) -> None:
        if isinstance(lobby, ClusterLobby):
            app[_SESSION] = ClientSession()
            lobby.join()  # a node always takes back its own tables
        elif restore:
            lobby.restore()
        lobby.start_sweeping()

    async def cleanup(app: web.Application) -> None:
        await lobby.close()
        the_store.close()
        if _SESSION in app:
            await app[_SESSION].close()

    app.on_startup.append(startup)
    app.on_cleanup.append(cleanup)
    if isinstance(lobby, ClusterLobby):
        app.on_response_prepare.append(functools.partial(_name_node, lobby.cluster.node))
    app.router.add_get("/", _page("lobby.html"))
    app.router.add_get("/table", _page("table.html"))
    app.router.add_get("/rules", _page("rules.html"))
    app.router.add_get("/tables/{id}/review", _page("review.html"))
    app.router.add_get("/favicon.ico", _favicon)
    app.router.add_get("/static/{name}", _static_file)
    app.router.add_get("/cards/{card}.svg", _card_picture)
    app.router.add_get("/api/health", _health)
    app.router.add_get("/api/tables", _list_tables)
    app.router.add_get("/api/engines", _list_engines)
    app.router.add_get("/api/bots", _list_bots)
    app.router.add_post("/api/tables", _create_table)
    app.router.add_get("/api/tables/{id}", _get_table)
    app.router.add_post("/api/tables/{id}/claim", _claim_seat)
    app.router.add_post("/api/tables/{id}/leave", _leave_seat)
    app.router.add_post("/api/tables/{id}/rematch", _rematch)
    app.router.add_post("/api/tables/{id}/decline", _decline)
    app.router.add_get("/api/tables/{id}/session", _get_session)
    app.router.add_get("/api/tables/{id}/record", _get_record)
    app.router.add_get("/api/tables/{id}/review", _get_review)
    app.router.add_get("/ws", _websocket)
    return app


def tune_gc(app: web.Application, *, full_every: float = FULL_GC_SECONDS) -> None:
    """Keep the garbage collector's pauses short in a process serving many tables.

    Every live game holds a few objects per move (its history, shared by the
    seats' views), and CPython's full collections walk all of them: with a
    thousand tables they take hundreds of milliseconds, every few seconds, and
    every table waits. These games' objects form no cycles (reference counting
    frees them), so the serving process does without automatic full
    collections: on startup, once the tables are restored, everything is
    frozen out of the collector's way (:func:`gc.freeze`); young objects are
    still collected as usual, and a full collection runs every ``full_every``
    seconds (for what cycles do form), one pause in that time rather than
    dozens. :func:`run` calls it; an application that embeds the server may.

    >>> from skitgubbe.server import create_app, tune_gc
    >>> app = create_app(":memory:")
    >>> before = len(app.on_startup)
    >>> tune_gc(app, full_every=600)  # after create_app: it runs once the tables are back
    >>> len(app.on_startup) - before
    1
    """

    before = list(gc.get_threshold())  # given back on cleanup

    async def startup(app: web.Application) -> None:
        before[:] = gc.get_threshold()
        gc.set_threshold(before[0], before[1], _NEVER)  # no automatic full collection
        gc.freeze()
        app[_GC_TASK] = asyncio.get_running_loop().create_task(collect())

    async def collect() -> None:
        while True:
            await asyncio.sleep(full_every)
            gc.collect()

    async def cleanup(app: web.Application) -> None:
        app[_GC_TASK].cancel()
        gc.unfreeze()
        gc.set_threshold(*before)

    app.on_startup.append(startup)
    app.on_cleanup.insert(0, cleanup)
