// The table seen from one seat (or by a spectator): a websocket, the seat's view, its moves.
"use strict";

const params = new URLSearchParams(location.search);
const tableId = params.get("id");
const token = params.get("watch") ? null : tokens.get(tableId);
const $ = id => document.getElementById(id);
const SUITS = { C: "♣", D: "♦", H: "♥", S: "♠" };
const PHASES = { collecting: "phase 1 · collecting tricks", shedding: "phase 2 · shedding cards", over: "game over" };
const state = {
  seat: null, names: [], view: null, pub: null, legal: [], asked: null, n: 0, result: null,
  hints: false, hint: null, hintAsked: null, hintRefused: false, hintNote: null,
  clock: null,  // the clock of the person the table awaits: {seat, deadline (ms) or null}
};
let socket = null;
let retry = 500;

function cardText(card) { return card.slice(0, -1) + SUITS[card.slice(-1)]; }
function moveText(move) { return move.split(" ").map(part => (/^(10|[2-9JQKA])[CDHS]$/.test(part) ? cardText(part) : part)).join(" "); }
function nameOf(seat) {
  if (seat === null || seat === undefined) return "";
  return seat === state.seat ? "you" : (state.names[seat] || "seat " + seat);
}

// What each kind of event says, as the library's own descriptions do (the seat's name
// first; "you" for this seat). `s.does(a, b)`: a for another seat, b for you.
const SAYS = {
  deal: s => `${s.who} ${s.does("is", "are")} dealt ${s.cards}`,
  play: s => `${s.who} ${s.does("plays", "play")} ${s.cards}`,
  flip: s => `${s.who} ${s.does("tries their", "try your")} luck and ${s.does("turns", "turn")} up ${s.cards}`,
  draw: s => `${s.who} ${s.does("draws", "draw")} ${s.cards}`,
  draw_hidden: s => `${s.who} ${s.does("draws", "draw")} the last stock card and ${s.does("lays", "lay")} it face down`,
  tie: s => `a tie between ${s.event.seats.map(nameOf).join(" and ")} with ${s.cards}`,
  bounce: s => `the tied cards ${s.cards} go out of play`,
  trick_won: s => `${s.who} ${s.does("wins", "win")} the trick ${s.cards}`,
  take_back: s => `${s.who} ${s.does("takes", "take")} back ${s.cards}`,
  reveal: s => `${s.who} ${s.does("turns", "turn")} up the last stock card: ${s.cards}`,
  trump: s => (s.event.suit ? `trump is ${SUITS[s.event.suit]}` : "no trump"),
  shedding: s => `phase 2 begins: ${s.who} ${s.does("leads", "lead")}`,
  pick_up: s => `${s.who} ${s.does("picks", "pick")} up ${s.cards}`,
  discard: s => `the trick is complete: ${s.cards} go out of play`,
  out: s => `${s.who} ${s.does("is", "are")} out: no cards left, safe`,
  game_over: s => (s.event.seat === null ? "game over: nobody is left holding cards"
    : `game over: ${s.who} ${s.does("is", "are")} the skitgubbe`),
  truncated: () => "the move limit is reached: the game ends with no loser",
  slough: s => `${s.who} ${s.does("throws", "throw")} ${s.cards} onto the trick`,
  pass: s => `${s.who} ${s.does("throws", "throw")} nothing onto the trick`,
  give: s => `${s.who} ${s.does("gives", "give")} the low card ${s.cards} to ${nameOf(s.event.other)}`,
  upcard: s => `${s.cards} is turned up: trump is ${SUITS[s.event.suit] || "none"}`,
  lower_out: s => `${s.cards} of the players not tied go out of play`,
  take_upcard: s => `${s.who} ${s.does("draws", "draw")} the turned-up card ${s.cards}`,
};

function describe(event) {
  const who = nameOf(event.seat);
  const cards = event.cards.length ? event.cards.map(cardText).join(" ")
    : (event.count === 1 ? "a card" : event.count + " cards");
  const say = SAYS[event.kind];
  const does = (other, you) => (event.seat === state.seat ? you : other);
  return say ? say({ who, cards, does, event }) : [who, event.kind.replace(/_/g, " "), cards].filter(Boolean).join(" ");
}

function log(lines) {
  const box = $("log");
  for (const line of lines) box.append(element("div", "", line));
  box.scrollTop = box.scrollHeight;
}

function resultText(result) {
  if (result.truncated) return "game over: the move limit ended it, nobody is the skitgubbe";
  if (result.loser === null || result.loser === undefined) return "game over";
  return result.loser === state.seat ? "you are the skitgubbe" : nameOf(result.loser) + " is the skitgubbe";
}

// The seconds left on the clock of `seat` (null: no clock for it now).
function secondsLeft(seat) {
  const clock = state.clock;
  if (!clock || clock.seat !== seat || clock.deadline === null) return null;
  return Math.max(0, Math.ceil((clock.deadline - Date.now()) / 1000));
}

// Whose turn it is, in words, and the clock of the seat to move: redrawn every 250 ms.
function renderTurn() {
  const view = state.view || state.pub;
  const turn = $("turn"), text = $("turn-text"), clock = $("clock");
  let mover = view ? view.to_move : null;
  if (state.result) mover = null;
  turn.classList.toggle("mine", mover !== null && mover === state.seat);
  turn.classList.toggle("over", Boolean(state.result));
  if (state.result) text.textContent = resultText(state.result);
  else if (!view) text.textContent = "connecting…";
  else if (mover === null || mover === undefined) text.textContent = "";
  else if (mover === state.seat) text.textContent = state.legal.length || !state.asked ? "your turn" : "your move is on its way";
  else text.textContent = "waiting for " + nameOf(mover);
  const left = mover === null ? null : secondsLeft(mover);
  clock.textContent = left === null ? "" : left + " s left";
  clock.classList.toggle("low", left !== null && left <= 10);
  for (const timer of document.querySelectorAll(".seat .timer")) {
    const seatLeft = secondsLeft(Number(timer.dataset.seat));
    timer.textContent = seatLeft === null ? (Number(timer.dataset.seat) === mover ? "to move" : "") : "to move · " + seatLeft + " s";
  }
}

function renderHint() {
  const box = $("hint");
  const button = $("hint-button");
  const myTurn = state.seat !== null && state.legal.length > 0 && !state.result;
  button.hidden = !myTurn;
  button.disabled = state.hintRefused || state.hintAsked === state.n;
  button.textContent = state.hintRefused ? "no hints at this table"
    : state.hintAsked !== state.n ? (state.hints ? "hint" : "hint (off at this table)")
    : state.hint ? "hint shown" : "thinking…";
  button.classList.toggle("off", !state.hints);
  button.title = state.hints ? "ask the server which moves lose least often" : "this table was created without hints";
  if (!state.hint || state.hint.n !== state.n) {
    const note = state.hintNote;  // why no hint came: kept for the turn (for good if refused)
    box.hidden = !note || (note.n !== state.n && !state.hintRefused);
    box.replaceChildren(box.hidden ? "" : element("div", "hint-refused", note.text));
    return;
  }
  box.hidden = false;
  box.replaceChildren(element("div", "hint-title",
    "hint: your chance of ending as the skitgubbe after each move (" + state.hint.iterations + " simulations)"));
  for (const estimate of state.hint.moves) {
    const row = element("div", "hint-row" + (estimate.move === state.hint.best ? " best" : ""));
    row.dataset.move = estimate.move;
    const bar = element("span", "bar");
    bar.style.width = Math.round(100 * estimate.loss) + "%";
    const track = element("span", "track");
    track.append(bar);
    row.append(element("span", "hint-move", moveText(estimate.move)), track,
      element("span", "hint-loss", Math.round(100 * estimate.loss) + " %" + (estimate.move === state.hint.best ? " · best" : "")));
    box.append(row);
  }
}

function render() {
  const view = state.view || state.pub;
  if (!view) { renderTurn(); return; }
  $("title").textContent = "table " + tableId + (state.seat === null ? " · watching" : " · you are " + (state.names[state.seat] || "seat " + state.seat));
  $("phase").textContent = PHASES[view.phase] || view.phase;
  $("trump").textContent = view.trump ? "trump " + SUITS[view.trump] : "";
  $("stock").textContent = "stock " + view.stock_size;
  const seats = $("seats");
  seats.replaceChildren();
  view.hand_sizes.forEach((size, seat) => {
    const box = element("div", "seat" + (view.to_move === seat && !state.result ? " to-move" : ""));
    box.dataset.seat = seat;
    const name = element("div", "name", seat === state.seat ? "you (" + (state.names[seat] || "seat " + seat) + ")" : nameOf(seat));
    const timer = element("div", "timer");
    timer.dataset.seat = seat;
    box.append(name, timer, element("div", "", size + " in hand · " + view.collection_sizes[seat] + " collected"));
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
  const best = state.hint && state.hint.n === state.n ? state.hint.best : null;
  for (const move of state.legal) {
    const button = element("button", "move" + (move === best ? " hinted" : ""));
    button.dataset.move = move;
    button.textContent = moveText(move);
    button.addEventListener("click", () => send(move));
    moves.append(button);
  }
  $("result").textContent = state.result ? resultText(state.result) : "";
  const review = $("review-link");
  review.hidden = !state.result;
  if (state.result) {
    const seat = state.seat === null ? 0 : state.seat;
    review.href = "/tables/" + encodeURIComponent(tableId) + "/review?seat=" + seat;
    review.textContent = state.seat === null ? "review this game move by move" : "review your game move by move";
  }
  renderHint();
  renderTurn();
}

function send(move) {
  if (!socket || socket.readyState !== WebSocket.OPEN) return;
  socket.send(JSON.stringify({ type: "move", n: state.n, move }));
  state.asked = state.legal;  // given back if the server refuses the move
  state.legal = [];
  render();
}

function askHint() {
  if (!socket || socket.readyState !== WebSocket.OPEN || !state.legal.length) return;
  state.hintAsked = state.n;
  socket.send(JSON.stringify({ type: "hint", n: state.n }));
  renderHint();
}

function take(message) {
  if (message.names) state.names = message.names;
  if (message.view) state.view = message.view;
  if (message.public) state.pub = message.public;
  if ("hints" in message) state.hints = message.hints;
  if ("n" in message) {
    if (message.n !== state.n) { state.hint = null; state.hintAsked = null; }
    state.n = message.n;
  }
  if ("legal" in message) state.legal = message.legal;
  if ("result" in message) state.result = message.result;
  if ("clock" in message) {
    const clock = message.clock;
    state.clock = clock ? {
      seat: clock.seat,
      deadline: clock.time_left === null ? null : Date.now() + clock.time_left * 1000,
    } : null;
  }
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
      if (state.hintAsked === state.n && !state.hint) {  // the answer to the hint asked
        state.hintRefused = message.code === "forbidden";
        state.hintNote = { n: state.n, text: message.error };
        if (!state.hintRefused) state.hintAsked = null;  // it may be asked again
        renderHint();
      }
      if (!state.legal.length && state.asked) { state.legal = state.asked; render(); }  // try again
      return;
    }
    if (message.type === "hint") {
      if (message.n === state.n) { state.hint = message; render(); }
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
      log(message.moves.filter(m => m.stand_in).map(m => "(a stand-in moved for " + nameOf(m.seat) + ": " + (m.stand_in === "timeout" ? "the time ran out" : "the bot failed") + ")"));
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

$("hint-button").addEventListener("click", askHint);
setInterval(renderTurn, 250);
connect();
