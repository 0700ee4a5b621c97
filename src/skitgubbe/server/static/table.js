// The table seen from one seat (or by a spectator): a websocket, the seat's view, its moves.
"use strict";

const params = new URLSearchParams(location.search);
const tableId = params.get("id");
const token = params.get("watch") ? null : tokens.get(tableId);
const $ = id => document.getElementById(id);
const SUITS = { C: "♣", D: "♦", H: "♥", S: "♠" };
const state = { seat: null, names: [], view: null, pub: null, legal: [], asked: null, n: 0, deadline: null, result: null };
let socket = null;
let retry = 500;

function cardText(card) { return card.slice(0, -1) + SUITS[card.slice(-1)]; }
function moveText(move) { return move.split(" ").map(part => (/^(10|[2-9JQKA])[CDHS]$/.test(part) ? cardText(part) : part)).join(" "); }
function nameOf(seat) {
  if (seat === null || seat === undefined) return "";
  return seat === state.seat ? "you" : (state.names[seat] || "seat " + seat);
}

// What each kind of event says (the seat's name first): a short sentence for the log.
const VERBS = {
  deal: ["is dealt", "are dealt"], play: ["plays", "play"], flip: ["flips", "flip"],
  draw: ["draws", "draw"], draw_hidden: ["draws the hidden card", "draw the hidden card"],
  tie: ["ties", "tie"], bounce: ["bounces", "bounce"], trick_won: ["wins the trick", "win the trick"],
  take_back: ["takes back", "take back"], reveal: ["reveals", "reveal"], trump: ["sets trump", "set trump"],
  shedding: ["starts the shedding phase", "start the shedding phase"], pick_up: ["picks up", "pick up"],
  discard: ["discards", "discard"], out: ["is out", "are out"], game_over: ["ends the game", "end the game"],
};

function describe(event) {
  const who = event.seat === null || event.seat === undefined ? "" : nameOf(event.seat);
  const verbs = VERBS[event.kind] || [event.kind.replace("_", " "), event.kind.replace("_", " ")];
  const verb = who === "you" ? verbs[1] : verbs[0];
  const cards = event.cards.length ? event.cards.map(cardText).join(" ") : (event.count ? event.count + " card" + (event.count > 1 ? "s" : "") : "");
  return [who, verb, cards, event.suit ? SUITS[event.suit] : ""].filter(Boolean).join(" ");
}

function log(lines) {
  const box = $("log");
  for (const line of lines) box.append(element("div", "", line));
  box.scrollTop = box.scrollHeight;
}

function render() {
  const view = state.view || state.pub;
  if (!view) return;
  $("title").textContent = "table " + tableId + (state.seat === null ? " · watching" : " · seat " + state.seat);
  $("phase").textContent = view.phase;
  $("trump").textContent = view.trump ? "trump " + SUITS[view.trump] : "";
  $("stock").textContent = "stock " + view.stock_size;
  const seats = $("seats");
  seats.replaceChildren();
  view.hand_sizes.forEach((size, seat) => {
    const box = element("div", "seat" + (view.to_move === seat ? " to-move" : ""));
    box.dataset.seat = seat;
    box.append(element("div", "name", nameOf(seat)), element("div", "", size + " in hand · " + view.collection_sizes[seat] + " collected"));
    if (seat !== state.seat) {
      const backs = element("div", "row");
      for (let i = 0; i < Math.min(size, 8); i++) backs.append(cardImage(null, true));
      box.append(backs);
    }
    seats.append(box);
  });
  const table = $("table");
  table.replaceChildren();
  for (const play of view.table.slice(-8)) {
    const box = element("div", "play");
    const row = element("div", "row");
    for (const card of play.cards) row.append(cardImage(card, true));
    box.append(row, element("span", "", nameOf(play.seat)));
    table.append(box);
  }
  const hand = $("hand");
  hand.replaceChildren();
  $("hand-title").hidden = state.seat === null;
  if (state.view) {
    const singles = new Set(state.legal.filter(m => /^(10|[2-9JQKA])[CDHS]$/.test(m)));
    for (const card of state.view.hand) {
      const img = cardImage(card);
      if (singles.has(card)) {
        img.classList.add("playable");
        img.addEventListener("click", () => send(card));
      }
      hand.append(img);
    }
  }
  const moves = $("moves");
  moves.replaceChildren();
  for (const move of state.legal) {
    const button = element("button", "move");
    button.dataset.move = move;
    button.textContent = moveText(move);
    button.addEventListener("click", () => send(move));
    moves.append(button);
  }
  if (state.result) {
    const loser = state.result.loser;
    $("result").textContent = state.result.truncated ? "game over: the move limit ended it, nobody is the skitgubbe"
      : loser === null ? "game over" : (loser === state.seat ? "you are the skitgubbe" : nameOf(loser) + " is the skitgubbe");
  }
}

function send(move) {
  if (!socket || socket.readyState !== WebSocket.OPEN) return;
  socket.send(JSON.stringify({ type: "move", n: state.n, move }));
  state.asked = state.legal;  // given back if the server refuses the move
  state.legal = [];
  render();
}

function take(message) {
  if (message.names) state.names = message.names;
  if (message.view) state.view = message.view;
  if (message.public) state.pub = message.public;
  if ("n" in message) state.n = message.n;
  if ("legal" in message) state.legal = message.legal;
  if ("result" in message) state.result = message.result;
  state.deadline = message.time_left === null || message.time_left === undefined ? null : Date.now() + message.time_left * 1000;
}

function connect() {
  const scheme = location.protocol === "https:" ? "wss://" : "ws://";
  socket = new WebSocket(scheme + location.host + "/ws");
  socket.addEventListener("open", () => {
    retry = 500;
    socket.send(JSON.stringify(token ? { type: "join", table: tableId, token } : { type: "watch", table: tableId }));
  });
  socket.addEventListener("message", event => {
    const message = JSON.parse(event.data);
    if (message.type === "error") {
      $("error").textContent = message.error;
      if (!state.legal.length && state.asked) { state.legal = state.asked; render(); }  // try again
      return;
    }
    $("error").textContent = "";
    state.asked = null;
    if (message.type === "welcome") {
      state.seat = message.seat;
      state.names = message.names;
      $("log").replaceChildren();
      log(message.history.map(describe));
    } else if (message.type === "update") {  // the moves since the last update, their events
      log(message.events.map(describe));
      log(message.moves.filter(m => m.stand_in).map(m => "(a stand-in moved for " + nameOf(m.seat) + ": " + m.stand_in + ")"));
    }
    take(message);
    render();
  });
  socket.addEventListener("close", event => {
    if (event.reason === "refused" || event.reason === "the seat connected again elsewhere") {
      $("error").textContent = event.reason === "refused" ? "this browser holds no seat at that table" : event.reason;
      return;
    }
    setTimeout(connect, retry);  // the server restarted, or the network blinked: join again
    retry = Math.min(retry * 2, 8000);
  });
}

setInterval(() => {
  const clock = $("clock");
  if (state.deadline === null || !state.legal.length) { clock.textContent = ""; return; }
  const left = Math.max(0, (state.deadline - Date.now()) / 1000);
  clock.textContent = left.toFixed(0) + " s";
  clock.classList.toggle("low", left < 10);
}, 250);

connect();
