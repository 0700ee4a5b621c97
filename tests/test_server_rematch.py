"""Tables between people: who sits where is told as it changes (``seats`` frames), and a
finished table's people get a rematch (same seats, the next dealer) and the session's tally."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

pytest.importorskip("aiohttp")

from aiohttp.test_utils import TestClient
from server_support import serve
from test_server import SHORT, claim, frames_until, join, new_table, play_out


async def rematch(client: TestClient, table: str, token: str | None) -> Any:
    client.session.cookie_jar.clear()  # each person asks from a browser of their own
    return await client.post(f"/api/tables/{table}/rematch", json={"token": token})


def test_a_waiting_seat_is_told_who_sits_down_and_when_the_game_starts() -> None:
    async def test(client: TestClient) -> None:
        table = await new_table(client, seats=[None, None, None], move_time=None)
        ann = await join(client, table["id"], await claim(client, table["id"], 0, "Ann"))
        welcome = (await frames_until(ann, lambda f: f["type"] == "welcome"))[-1]
        assert welcome["status"] == "open" and welcome["open_seats"] == [1, 2]
        assert welcome["legal"] == [] and welcome["clock"] is None  # nobody to move yet
        await claim(client, table["id"], 1, "Bo")
        seats = (await frames_until(ann, lambda f: f["type"] == "seats"))[-1]
        assert seats["names"][:2] == ["Ann", "Bo"] and seats["open_seats"] == [2]
        assert seats["status"] == "open"
        await claim(client, table["id"], 2, "Cy")  # the last seat: the game starts
        started = (await frames_until(ann, lambda f: f["type"] == "update"))[-1]
        assert started["status"] == "running" and started["open_seats"] == []
        assert started["names"] == ["Ann", "Bo", "Cy"]

    serve(test)


def test_a_rematch_keeps_the_seats_passes_the_deal_and_counts_the_session() -> None:
    async def test(client: TestClient) -> None:
        first = await new_table(client, seats=[None, "greedy", "greedy"], move_time=None)
        token = await claim(client, first["id"], 0, "Ann")
        early = await rematch(client, first["id"], token)
        assert early.status == 409 and "not over" in (await early.json())["error"]
        ws = await join(client, first["id"], token)
        await play_out(ws)
        refused = await rematch(client, first["id"], "not a token")
        assert refused.status == 403  # only a person of that table asks
        answer = await rematch(client, first["id"], token)
        assert answer.status == 201, await answer.text()
        again = await answer.json()
        assert again["seat"] == 0 and again["table"] != first["id"]
        told = (await frames_until(ws, lambda f: f["type"] == "seats"))[-1]
        assert told["rematch"] == again["table"]  # the old table's seats are told
        summary = await (await client.get(f"/api/tables/{again['table']}")).json()
        old = await (await client.get(f"/api/tables/{first['id']}")).json()
        assert summary["names"] == old["names"] == ["Ann", "greedy 1", "greedy 2"]
        assert summary["dealer"] == (old["dealer"] + 1) % 3 and summary["after"] == first["id"]
        assert old["rematch"] == again["table"]
        record = await (await client.get(f"/api/tables/{first['id']}/record")).json()
        assert record["names"] == old["names"]  # for skitgubbe replay
        assert summary["rules"] == old["rules"] and summary["move_time"] is None
        session = await (await client.get(f"/api/tables/{again['table']}/session")).json()
        losses = [0, 0, 0]
        if old["result"]["loser"] is not None:
            losses[old["result"]["loser"]] += 1
        assert session == {
            "games": 1,
            "losses": losses,
            "no_loser": int(old["result"]["loser"] is None),
        }
        second = await join(client, again["table"], again["token"])
        await play_out(second)  # the new game deals from the next dealer
        session = await (await client.get(f"/api/tables/{again['table']}/session")).json()
        assert session["games"] == 2 and sum(session["losses"]) + session["no_loser"] == 2

    serve(test)


def test_every_person_of_the_old_table_joins_the_same_rematch_at_their_own_seat() -> None:
    async def test(client: TestClient) -> None:
        first = await new_table(client, seats=[None, None], move_time=None, rules=SHORT)
        tokens = [await claim(client, first["id"], seat, name) for seat, name in enumerate("AB")]
        sockets = [await join(client, first["id"], token) for token in tokens]
        ends = await _play_two(sockets)  # both play their first legal move until the end
        assert all(frame["result"] for frame in ends)
        a = await (await rematch(client, first["id"], tokens[0])).json()
        waiting = await join(client, a["table"], a["token"])
        welcome = (await frames_until(waiting, lambda f: f["type"] == "welcome"))[-1]
        assert welcome["status"] == "open" and welcome["open_seats"] == [1]
        b = await (await rematch(client, first["id"], tokens[1])).json()
        assert b["table"] == a["table"] and b["seat"] == 1  # the same table: B's own seat
        taken = await rematch(client, first["id"], tokens[1])
        assert taken.status == 409 and "taken" in (await taken.json())["error"]
        started = (await frames_until(waiting, lambda f: f["type"] == "update"))[-1]
        assert started["status"] == "running" and started["names"] == ["A", "B"]

    serve(test)


async def _play_two(sockets: list[Any]) -> list[dict[str, Any]]:
    """Two seats answer their prompts with the first legal move until both see the result."""
    ends: list[dict[str, Any] | None] = [None, None]

    async def seat(index: int) -> None:
        ws = sockets[index]
        for _ in range(5000):
            frame = json.loads((await asyncio.wait_for(ws.receive(), 30)).data)
            if frame.get("result"):
                ends[index] = frame
                return
            if frame.get("legal"):
                await ws.send_json({"type": "move", "n": frame["n"], "move": frame["legal"][0]})

    await asyncio.gather(seat(0), seat(1))
    return [end for end in ends if end is not None]


def test_a_request_names_the_dealer_but_never_the_table_it_follows() -> None:
    async def test(client: TestClient) -> None:
        table = await new_table(client, seats=[None, "greedy", "greedy"], dealer=0)
        assert table["dealer"] == 0 and table["after"] is None
        for config, words in (
            ({"dealer": 3}, "dealer must be a seat 0 … 2"),
            ({"dealer": "1"}, "dealer must be a seat"),
            ({"after": table["id"]}, "after is the server's to set"),
        ):
            answer = await client.post(
                "/api/tables", json={"seats": [None, "easy", "easy"], **config}
            )
            assert answer.status == 400 and words in (await answer.json())["error"], config

    serve(test)
