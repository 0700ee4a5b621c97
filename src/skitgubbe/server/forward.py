"""A node passes a request, or a socket, for a table another node plays on to that node.

A cluster's nodes (:mod:`skitgubbe.server.cluster`) each play their own tables; a request
that reaches the wrong one (no proxy in front, or the proxy's guess is out of date after a
node went away) is forwarded once to the owner: :func:`forward_request` for HTTP,
:func:`forward_socket` for a websocket, whose frames it then passes both ways. The
forwarded request carries the database's secret (:data:`FORWARDED`) and the client it came
from (:data:`CLIENT`), which the owner believes only with that secret: the bounds on each
client count the same client whichever node it reached. A forwarded request is never
forwarded again: a node that does not play the table either (it moved meanwhile) answers
``503`` and the client tries again.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import logging
from typing import Final

import aiohttp
from aiohttp import WSMsgType, web

__all__ = [
    "CLIENT",
    "FORWARDED",
    "FORWARD_SECONDS",
    "forward_request",
    "forward_socket",
    "forwarded_client",
    "socket_url",
]

FORWARDED: Final = "X-Skitgubbe-Node"
"""The header a forwarded request carries: the database's secret (clients never know it)."""
CLIENT: Final = "X-Skitgubbe-Client"
"""The header that names the client a forwarded request came from (its client key)."""
FORWARD_SECONDS: Final = 30.0
"""How long a forwarded request may take (a socket is not bounded: it lasts)."""

_PASSED_ON: Final = ("Content-Type", "Cookie", "If-None-Match", "Accept")
_PASSED_BACK: Final = ("Content-Type", "ETag", "Cache-Control", "Retry-After")
_log: Final = logging.getLogger("skitgubbe.server")


def forwarded_client(request: web.Request, secret: str) -> str | None:
    """The client a request forwarded by another node came from, if it carries the
    database's ``secret`` (``None`` for a request straight from a client).

    >>> from aiohttp.test_utils import make_mocked_request
    >>> asked = make_mocked_request("GET", "/", headers={FORWARDED: "s3cret", CLIENT: "10.1.2.3"})
    >>> forwarded_client(asked, "s3cret"), forwarded_client(asked, "other")
    ('10.1.2.3', None)
    """
    shown = request.headers.get(FORWARDED)
    if not secret or shown is None or not hmac.compare_digest(shown.encode(), secret.encode()):
        return None
    return request.headers.get(CLIENT, "")[:64]


def _moving(detail: str) -> web.Response:
    body = {"error": f"the table is moving between servers ({detail}): try again", "code": "moving"}
    return web.json_response(body, status=503, headers={"Retry-After": "1"})


async def forward_request(
    session: aiohttp.ClientSession, request: web.Request, url: str, secret: str, client: str
) -> web.StreamResponse:
    """Ask the node at ``url`` the same as ``request`` asked, and give its answer back
    (``503``, code ``moving``, if it does not answer, or if the request was forwarded
    once already: a table that moved meanwhile is asked for again by its client).

    >>> import asyncio
    >>> from aiohttp.test_utils import make_mocked_request
    >>> shown = {FORWARDED: "s", CLIENT: "10.1.2.3"}  # the secret "s": from a node
    >>> again = make_mocked_request("GET", "/api/tables/n2-00", headers=shown)
    >>> asyncio.run(forward_request(None, again, "http://n2", "s", "c")).status  # no session used
    503
    """
    if forwarded_client(request, secret) is not None:
        return _moving("forwarded once already")
    headers = {name: request.headers[name] for name in _PASSED_ON if name in request.headers}
    headers[FORWARDED], headers[CLIENT] = secret, client
    body = await request.read()  # read once already by a handler: aiohttp keeps it
    try:
        async with session.request(
            request.method,
            url.rstrip("/") + request.path_qs,
            data=body,
            headers=headers,
            allow_redirects=False,
            timeout=aiohttp.ClientTimeout(total=FORWARD_SECONDS),
        ) as answer:
            content = await answer.read()
            response = web.Response(body=content, status=answer.status)
            for name in _PASSED_BACK:
                if name in answer.headers:
                    response.headers[name] = answer.headers[name]
            for cookie in answer.headers.getall("Set-Cookie", []):
                response.headers.add("Set-Cookie", cookie)
            return response
    except (aiohttp.ClientError, asyncio.TimeoutError) as error:
        return _moving(f"its server did not answer: {type(error).__name__}")


def socket_url(url: str) -> str:
    """The websocket address of the node at ``url``.

    >>> socket_url("http://10.0.0.2:8080")
    'ws://10.0.0.2:8080/ws'
    """
    return "ws" + url.rstrip("/").removeprefix("http") + "/ws"


async def forward_socket(
    session: aiohttp.ClientSession,
    ws: web.WebSocketResponse,
    first: str,
    table_id: str,
    url: str,
    secret: str,
    client: str,
) -> None:
    """Open a socket to the node at ``url`` (:func:`socket_url`) for table ``table_id``,
    send it ``first`` (the client's join or watch frame), then pass the frames both ways
    until either side closes (the other is closed with the same reason, or, if the node
    went away, one that makes the client join again).

    >>> socket_url("https://10.0.0.2:8443/")
    'wss://10.0.0.2:8443/ws'
    """
    headers = {FORWARDED: secret, CLIENT: client}
    target = socket_url(url)
    try:
        upstream = await session.ws_connect(
            target, params={"table": table_id}, headers=headers, heartbeat=30
        )
    except (aiohttp.ClientError, asyncio.TimeoutError) as error:
        _log.warning("a socket for table %s could not reach %s: %s", table_id, url, error)
        await ws.close(message=b"the table is moving between servers: join again")
        return
    async with upstream:
        await upstream.send_str(first)

        async def down() -> bytes:  # the owner's frames to the client; its close reason
            while True:
                frame = await upstream.receive()
                if frame.type != WSMsgType.TEXT:
                    return str(frame.extra or "").encode() if frame.type == WSMsgType.CLOSE else b""
                await ws.send_str(frame.data)

        async def up() -> bytes:  # the client's frames to the owner
            while True:
                frame = await ws.receive()
                if frame.type != WSMsgType.TEXT:
                    return b""
                await upstream.send_str(frame.data)

        tasks = [asyncio.ensure_future(down()), asyncio.ensure_future(up())]
        done, pending = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
        for task in pending:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        reason = b""
        for task in done:
            with contextlib.suppress(Exception):
                reason = reason or task.result()
        if not ws.closed:  # the owner's reason, or it went away unasked: the client joins again
            reason = reason or b"the table is moving between servers: join again"
            await ws.close(message=reason[:120])
