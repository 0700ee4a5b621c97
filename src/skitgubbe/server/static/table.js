// The table seen from one seat (or by a spectator): a websocket, the seat's view, its moves.
// One hand, one tap: the hand is one row per suit; a card that is a move by itself plays when
// tapped, cards that go together are selected and then played with one button. The trick on
// the table stays until it ends, then shows as "the last trick" with who took it.
"use strict";

const params = new URLSearchParams(location.search);
const tableId = params.get("id");
const $ = id => document.getElementById(id);
const SUITS = { C: "♣", D: "♦", H: "♥", S: "♠" };
const SUIT_NAMES = { C: "clubs", D: "diamonds", H: "hearts", S: "spades" };
const RANK_NAMES = { J: "jack", Q: "queen", K: "king", A: "ace" };
const RANKS = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"];
const CARD = /^(10|[2-9JQKA])[CDHS]$/;
const PHASES = { collecting: "phase 1 · collecting tricks", shedding: "phase 2 · shedding cards", over: "game over" };
// The events that end a trick (or take cards off the table): the last trick shows them.
const TAKES = new Set(["trick_won", "pick_up", "discard", "bounce", "take_back", "lower_out"]);
const state = {
  seat: null, token: null, names: [], view: null, pub: null, legal: [], asked: null, n: 0, result: null,
  status: null, openSeats: [], rematch: null, rules: null, session: null,
  hints: false, hint: null, hintAsked: null, hintRefused: false, hintNote: null,
  clock: null,  // the clock of the person the table awaits: {seat, deadline (ms) or null}
  selected: [],  // the cards chosen for a move of several cards, in the order tapped
  last: null,  // the last trick taken: {text, cards: [{card, seat}], at (ms)}
  playedBy: {},  // card -> the seat that last put it on the table
};
let socket = null;
let retry = 500;

const rank = card => card.slice(0, -1);
const suit = card => card.slice(-1);
function cardText(card) { return rank(card) + SUITS[suit(card)]; }
function cardWords(card) { return (RANK_NAMES[rank(card)] || rank(card)) + " of " + SUIT_NAMES[suit(card)]; }
function moveText(move) { return move.split(" ").map(part => (CARD.test(part) ? cardText(part) : part)).join(" "); }
function nameOf(seat) {
  if (seat === null || seat === undefined) return "";
  if (seat === state.seat) return "you";
  if (state.status === "open" && state.openSeats.includes(seat)) return "an open seat";
  return state.names[seat] || "seat " + seat;
}
// A move in parts: its verb ("play" for cards alone) and its cards.
function parse(move) {
  const words = move.split(" ");
  const cards = words.filter(w => CARD.test(w));
  const verb = words.filter(w => !CARD.test(w)).join(" ") || "play";
  return { move, verb, cards };
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

// The events as they come: the log, who put which card on the table, and the last trick.
function follow(events, fresh) {
  for (const event of events) {
    if (["play", "flip", "slough"].includes(event.kind)) {
      for (const card of event.cards) state.playedBy[card] = event.seat;
    }
    if (TAKES.has(event.kind) && event.cards.length) {
      state.last = {
        text: describe(event),
        cards: event.cards.map(card => ({ card, seat: state.playedBy[card] })),
        at: fresh ? Date.now() : 0,
      };
    }
  }
  const box = $("log");
  for (const event of events) box.append(element("div", "", describe(event)));
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

function waitingText() {
  const count = state.openSeats.length;
  return "waiting for " + count + " more player" + (count === 1 ? "" : "s");
}

// Whose turn it is, in words, and the clock of the seat to move: redrawn every 250 ms.
function renderTurn() {
  const view = state.view || state.pub;
  const turn = $("turn"), text = $("turn-text"), clock = $("clock");
  let mover = view && state.status !== "open" ? view.to_move : null;
  if (state.result) mover = null;
  turn.classList.toggle("mine", mover !== null && mover === state.seat);
  turn.classList.toggle("over", Boolean(state.result));
  let words;
  if (state.result) words = resultText(state.result);
  else if (!view) words = "connecting…";
  else if (state.status === "open") words = waitingText();
  else if (mover === null || mover === undefined) words = "";
  else if (mover === state.seat) words = state.legal.length || !state.asked ? "your turn" : "your move is on its way";
  else words = "waiting for " + nameOf(mover);
  if (text.textContent !== words) text.textContent = words;
  const left = mover === null ? null : secondsLeft(mover);
  const clockText = left === null ? (mover !== null && state.clock && state.clock.seat === mover ? "no clock" : "") : left + " s left";
  if (clock.textContent !== clockText) clock.textContent = clockText;
  clock.classList.toggle("low", left !== null && left <= 10);
  for (const timer of document.querySelectorAll(".seat .timer")) {
    const seat = Number(timer.dataset.seat);
    const seatLeft = secondsLeft(seat);
    const said = seatLeft === null ? (seat === mover ? "to move" : "") : "to move · " + seatLeft + " s";
    if (timer.textContent !== said) timer.textContent = said;
  }
  const last = $("last-box");
  last.classList.toggle("fresh", Boolean(state.last && Date.now() - state.last.at < 1600));
}

function percent(x) { return (100 * x).toFixed(1); }

// The hint: every legal move with its chance of losing and that estimate's error; the best
// move is marked on its card or button too.
function renderHint() {
  const box = $("hint");
  const button = $("hint-button");
  const myTurn = state.seat !== null && state.legal.length > 0 && !state.result;
  button.hidden = !myTurn || !state.hints;  // a table without hints offers none
  button.disabled = state.hintRefused || state.hintAsked === state.n;
  button.textContent = state.hintRefused ? "no hints at this table"
    : state.hintAsked !== state.n ? "hint" : state.hint ? "hint shown" : "thinking…";
  button.title = "ask the server which moves lose least often";
  if (!state.hint || state.hint.n !== state.n) {
    const note = state.hintNote;  // why no hint came: kept for the turn (for good if refused)
    box.hidden = !note || (note.n !== state.n && !state.hintRefused);
    box.replaceChildren(box.hidden ? "" : element("div", "hint-refused", note.text));
    return;
  }
  const hint = state.hint;
  box.hidden = false;
  box.replaceChildren(element("div", "hint-title",
    "hint: your chance of ending as the skitgubbe after each move (" + hint.iterations.toLocaleString("en")
    + " simulations of " + hint.engine.split(":")[0] + "; ± one standard error)"));
  for (const estimate of hint.moves) {
    const best = estimate.move === hint.best;
    const row = element("div", "hint-row" + (best ? " best" : ""));
    row.dataset.move = estimate.move;
    const bar = element("span", "bar");
    bar.style.width = Math.round(100 * estimate.loss) + "%";
    const track = element("span", "track");
    track.setAttribute("aria-hidden", "true");
    track.append(bar);
    row.append(element("span", "hint-move", moveText(estimate.move)), track,
      element("span", "hint-loss", percent(estimate.loss) + " % ± " + percent(estimate.error) + (best ? " · best" : "")));
    box.append(row);
  }
  if (hint.why) box.append(element("p", "hint-why", hint.why));
}

// A card as a picture in a button of the hand (or a plain picture on the table).
function cardButton(card, options) {
  const button = element("button", "card-button");
  button.type = "button";
  button.dataset.card = card;
  const img = cardImage(card);
  img.alt = "";
  button.append(img);
  if (options.trump) {
    button.classList.add("trump");
    const mark = element("span", "trump-mark", "★");
    mark.setAttribute("aria-hidden", "true");  // the button's label says "trump"
    button.append(mark);
  }
  return button;
}

// The legal moves, by card: which moves each card of the hand is part of.
function movesByCard() {
  const byCard = new Map();
  for (const move of state.legal.map(parse)) {
    for (const card of move.cards) {
      if (!byCard.has(card)) byCard.set(card, []);
      byCard.get(card).push(move);
    }
  }
  return byCard;
}

// The moves that hold every selected card.
function candidates() {
  return state.legal.map(parse).filter(m => m.cards.length && state.selected.every(c => m.cards.includes(c)));
}

function sameCards(a, b) { return a.length === b.length && a.every(c => b.includes(c)); }

function verbText(move) {
  if (move.verb === "play") return "play " + move.cards.map(cardText).join(" ");
  if (move.verb === "slough") return "throw " + move.cards.map(cardText).join(" ") + " onto the trick";
  return moveText(move.move);
}

// One line that explains a move without a card, from the table's rules.
function explain(move) {
  const rules = state.rules || {};
  if (move.verb === "flip") return "try your luck: turn up the top card of the stock and play it instead of a hand card";
  if (move.verb === "pick") {
    const what = { top: "the top card", top_run: "the top card and the run below it", pile: "every card" }[rules.pickup] || "the top card";
    return "pick up: take " + what + " of the table into your hand instead of beating it";
  }
  if (move.verb === "pass") return "throw nothing onto the trick";
  return "";
}

const BUTTON_WORDS = { flip: "flip", pick: "pick up", pass: "pass" };

function renderHand(view) {
  const hand = $("hand");
  hand.replaceChildren();
  hand.hidden = state.seat === null;  // a spectator sees no hand
  if (!state.view) return;
  const byCard = movesByCard();
  const trump = view.trump;
  const best = state.hint && state.hint.n === state.n ? state.hint.best : null;
  const order = ["C", "D", "H", "S"].sort((a, b) => (a === trump ? -1 : 0) - (b === trump ? -1 : 0));
  const byRank = (a, b) => RANKS.indexOf(rank(a)) - RANKS.indexOf(rank(b));
  // A row a suit (trumps first); a small hand (phase 1's few cards) in one row, by suit.
  const rows = order.map(s => ({ suits: [s], cards: state.view.hand.filter(c => suit(c) === s).sort(byRank) }))
    .filter(r => r.cards.length);
  const small = state.view.hand.length <= 6 && rows.length > 1;
  for (const { suits, cards } of small ? [{ suits: order, cards: rows.flatMap(r => r.cards) }] : rows) {
    const one = suits.length === 1 ? suits[0] : null;
    const row = element("div", "suit-row" + (one !== null && one === trump ? " trumps" : ""));
    row.setAttribute("role", "group");
    const count = cards.length + " card" + (cards.length === 1 ? "" : "s");
    row.setAttribute("aria-label", one === null ? "your cards: " + count : SUIT_NAMES[one] + (one === trump ? " (trumps)" : "") + ": " + count);
    for (const card of cards) {
      const s = suit(card);
      const button = cardButton(card, { trump: s === trump });
      const moves = byCard.get(card) || [];
      const words = cardWords(card) + (s === trump ? ", trump" : "");
      if (!moves.length) {
        button.disabled = true;
        button.classList.add("illegal");
        button.setAttribute("aria-label", words + (state.legal.length ? ": not a move now" : ""));
      } else if (moves.length === 1 && sameCards(moves[0].cards, [card]) && !state.selected.length) {
        const move = moves[0];
        button.classList.add("legal");
        button.dataset.move = move.move;
        button.setAttribute("aria-label", verbText(move) + " (" + words + ")");
        if (move.move === best) button.classList.add("hinted");
        button.addEventListener("click", () => send(move.move));
      } else {
        const chosen = state.selected.includes(card);
        const fits = chosen || candidates().some(m => m.cards.includes(card));
        button.classList.add(fits ? "legal" : "illegal", "selectable");
        button.classList.toggle("selected", chosen);
        button.disabled = !fits;
        button.setAttribute("aria-pressed", String(chosen));
        button.setAttribute("aria-label", "choose " + words + " for a move of one or more cards");
        if (moves.some(m => m.move === best)) button.classList.add("hinted");
        button.addEventListener("click", () => select(card));
      }
      row.append(button);
    }
    hand.append(row);
  }
  requestAnimationFrame(fitHand);
}

// Tap to choose a card for a move of several cards; tap again to put it back.
function select(card) {
  const at = state.selected.indexOf(card);
  if (at >= 0) state.selected.splice(at, 1);
  else state.selected.push(card);
  render();
  const again = document.querySelector(`#hand [data-card="${card}"]`);
  if (again && !again.disabled) again.focus();
}

// The moves without a card (flip, pick up, pass) and, once cards are chosen, the moves
// they make: one button each.
function renderMoves() {
  const moves = $("moves");
  moves.replaceChildren();
  const best = state.hint && state.hint.n === state.n ? state.hint.best : null;
  const plain = state.legal.map(parse).filter(m => !m.cards.length);
  for (const move of plain) {
    const button = element("button", "move" + (move.move === best ? " hinted" : ""));
    button.type = "button";
    button.dataset.move = move.move;
    button.append(element("b", "", BUTTON_WORDS[move.verb] || moveText(move.move)));
    const why = explain(move);
    if (why) button.append(element("small", "", why));
    button.addEventListener("click", () => send(move.move));
    moves.append(button);
  }
  const note = $("select-note");
  const together = state.legal.map(parse).some(m => m.cards.length > 1 || (m.cards.length && m.verb !== "play"));
  if (state.selected.length) {
    for (const move of candidates().filter(m => sameCards(m.cards, state.selected))) {
      const button = element("button", "move primary" + (move.move === best ? " hinted" : ""));
      button.type = "button";
      button.dataset.move = move.move;
      button.textContent = verbText(move);
      button.addEventListener("click", () => send(move.move));
      moves.append(button);
    }
    const clear = element("button", "move", "put the chosen cards back");
    clear.type = "button";
    clear.addEventListener("click", () => { state.selected = []; render(); });
    moves.append(clear);
  }
  note.hidden = !(together && state.legal.length);
  note.textContent = state.selected.length ? "chosen: " + state.selected.map(cardText).join(" ") + " · tap more cards, or play them with the button"
    : "some cards go together: tap each card you want, then the button that plays them";
}

// The table: the plays of the trick under way, the one to beat the largest.
function renderTable(view) {
  const table = $("table");
  table.replaceChildren();
  const plays = view.table;
  if (!plays.length) table.append(element("span", "empty", "nothing on the table"));
  const shown = plays.slice(-6);
  if (plays.length > shown.length) table.append(element("span", "more", "+" + (plays.length - shown.length) + " below"));
  shown.forEach((play, index) => {
    const top = index === shown.length - 1;
    const box = element("div", "play" + (top ? " top" : ""));
    const row = element("div", "cards");
    for (const card of play.cards) {
      const img = cardImage(card);
      img.alt = cardWords(card);
      row.append(img);
    }
    box.append(row, element("span", "who", nameOf(play.seat) + (top && view.phase === "shedding" ? " · to beat" : "")));
    table.append(box);
  });
  const last = $("last-trick");
  last.replaceChildren();
  $("last-caption").textContent = state.last ? state.last.text : "the last trick";
  if (state.last) {
    for (const { card, seat } of state.last.cards) {
      const box = element("div", "play");
      const img = cardImage(card, true);
      img.alt = cardWords(card);
      box.append(img, element("span", "who", seat === undefined ? "" : nameOf(seat)));
      last.append(box);
    }
  }
}

function renderSeats(view) {
  const seats = $("seats");
  seats.replaceChildren();
  const finished = (state.result && state.result.finish_order) || view.finished || [];
  view.hand_sizes.forEach((size, seat) => {
    const box = element("li", "seat" + (view.to_move === seat && !state.result && state.status !== "open" ? " to-move" : ""));
    box.dataset.seat = seat;
    const open = state.status === "open" && state.openSeats.includes(seat);
    const name = seat === state.seat ? "you (" + (state.names[seat] || "seat " + seat) + ")" : (open ? "open seat" : nameOf(seat));
    const badges = [];
    if (seat === view.dealer) badges.push("dealer");
    const place = finished.indexOf(seat);
    if (place >= 0 && !(state.result && state.result.loser === seat)) badges.push("out · " + ordinal(place + 1));
    const head = element("div", "name", name);
    for (const badge of badges) head.append(" ", element("span", "badge", badge));
    const timer = element("div", "timer");
    timer.dataset.seat = seat;
    box.append(head, timer, element("div", "counts", size + " in hand · " + view.collection_sizes[seat] + " collected"));
    seats.append(box);
  });
}

function ordinal(n) { return n + (["th", "st", "nd", "rd"][n % 10 > 3 || Math.floor(n / 10) === 1 ? 0 : n % 10]); }

function renderWaiting() {
  const box = $("waiting");
  box.hidden = state.status !== "open";
  if (box.hidden) return;
  const waiting = state.openSeats.length;
  $("waiting-text").textContent = waitingText() + ": the game begins when every seat is taken.";
  $("share-link").value = location.origin + "/table?id=" + encodeURIComponent(tableId);
  // A browser that holds a seat here (the creator's) is never offered a second one.
  const visitor = state.seat === null && !state.token && waiting > 0;
  $("sit").hidden = !visitor;
  $("share").hidden = visitor;
  if (visitor && !$("sit-name").value) $("sit-name").value = localStorage.getItem("skitgubbe-name") || "";
}

function renderEnd() {
  const end = $("end");
  end.hidden = !state.result;
  if (!state.result) return;
  $("result").textContent = resultText(state.result);
  const finish = $("finish");
  finish.replaceChildren();
  state.result.finish_order.forEach((seat, index) => {
    const last = index === state.result.finish_order.length - 1 && state.result.loser === seat;
    finish.append(element("li", last ? "loser" : "", nameOf(seat) + (last ? " — the skitgubbe" : " — out " + ordinal(index + 1))));
  });
  const session = state.session;
  $("session").textContent = session && session.games > 1
    ? "this session: " + session.games + " games; skitgubbe " + session.losses.map((n, seat) => nameOf(seat) + " " + n).join(", ")
      + (session.no_loser ? "; no loser " + session.no_loser : "")
    : "";
  const button = $("rematch-button");
  button.hidden = state.seat === null;
  button.textContent = state.rematch ? "join the rematch" : "rematch: the same seats, the next dealer";
  const review = $("review-link");
  review.hidden = false;
  const seat = state.seat === null ? 0 : state.seat;
  review.href = "/tables/" + encodeURIComponent(tableId) + "/review?seat=" + seat;
  review.textContent = state.seat === null ? "review this game move by move" : "review your game move by move";
}

function render() {
  const view = state.view || state.pub;
  renderWaiting();
  if (!view) { renderTurn(); return; }
  const who = state.seat === null ? " · watching" : " · you are " + (state.names[state.seat] || "seat " + state.seat);
  $("title").textContent = "table " + tableId + who;
  $("phase").textContent = PHASES[view.phase] || view.phase;
  $("trump").textContent = view.trump ? "trump " + SUITS[view.trump] + " (" + SUIT_NAMES[view.trump] + ")" : "no trump yet";
  $("stock").textContent = "stock " + view.stock_size;
  $("upcard").textContent = view.upcard ? "turned up " + cardText(view.upcard) : "";
  $("phase-rules").href = "/rules#" + (view.phase === "collecting" ? "phase1" : "phase2");
  renderSeats(view);
  renderTable(view);
  renderEnd();
  renderMoves();
  renderHand(view);
  renderHint();
  renderTurn();
}

// The hand fits its box: each suit's row overlaps its cards as much as it must to fit the
// width, and the cards shrink when four rows would not fit the window's height.
function fitHand() {
  const hand = $("hand");
  const rows = [...hand.querySelectorAll(".suit-row")];
  if (!rows.length) return;
  const space = hand.clientWidth - 4;
  const fit = width => {
    hand.style.setProperty("--card-w", width + "px");
    for (const row of rows) {
      const cards = [...row.children];
      const step = cards.length > 1 ? Math.min(width + 4, (space - width - 6) / (cards.length - 1)) : width;
      cards.forEach((card, index) => { card.style.marginLeft = index ? (step - width) + "px" : "0"; });
    }
    return hand.getBoundingClientRect().bottom + window.scrollY;  // where the hand ends
  };
  let width = window.innerWidth >= 800 ? 64 : 54;
  while (fit(width) > window.innerHeight - 4 && width > 34) width -= 2;
}

function send(move) {
  if (!socket || socket.readyState !== WebSocket.OPEN) return;
  socket.send(JSON.stringify({ type: "move", n: state.n, move }));
  state.asked = state.legal;  // given back if the server refuses the move
  state.legal = [];
  state.selected = [];
  render();
}

function askHint() {
  if (!socket || socket.readyState !== WebSocket.OPEN || !state.legal.length) return;
  state.hintAsked = state.n;
  socket.send(JSON.stringify({ type: "hint", n: state.n }));
  renderHint();
}

function take(message) {
  for (const key of ["names", "status", "rematch"]) if (key in message) state[key] = message[key];
  if ("open_seats" in message) state.openSeats = message.open_seats;
  if (message.view) state.view = message.view;
  if (message.public) state.pub = message.public;
  if ("hints" in message) state.hints = message.hints;
  if (message.rules) state.rules = message.rules;
  if ("n" in message) {
    if (message.n !== state.n) { state.hint = null; state.hintAsked = null; state.selected = []; }
    state.n = message.n;
  }
  if ("legal" in message) state.legal = message.legal;
  if ("result" in message) {
    if (message.result && !state.result) loadSession();
    state.result = message.result;
  }
  if ("clock" in message) {
    const clock = message.clock;
    state.clock = clock ? {
      seat: clock.seat,
      deadline: clock.time_left === null ? null : Date.now() + clock.time_left * 1000,
    } : null;
  }
}

async function loadSession() {
  try {
    state.session = await api("/api/tables/" + encodeURIComponent(tableId) + "/session");
    renderEnd();
  } catch (error) {
    $("error").textContent = error.message;
  }
}

async function rematch() {
  try {
    const again = await api("/api/tables/" + encodeURIComponent(tableId) + "/rematch", { token: state.token });
    tokens.set(again.table, again.token);
    location.href = "/table?id=" + encodeURIComponent(again.table);
  } catch (error) {
    $("error").textContent = error.message;
  }
}

async function sitDown(event) {
  event.preventDefault();
  const name = $("sit-name").value.trim();
  if (!name) { $("error").textContent = "your name: write the name the others will see"; return; }
  try {
    const claimed = await api("/api/tables/" + encodeURIComponent(tableId) + "/claim", { seat: state.openSeats[0], name });
    localStorage.setItem("skitgubbe-name", name);
    tokens.set(tableId, claimed.token);
    location.reload();
  } catch (error) {
    $("error").textContent = error.message;
  }
}

async function copyLink() {
  const link = $("share-link");
  link.select();
  try {
    await navigator.clipboard.writeText(link.value);
    $("copied").textContent = "copied";
  } catch (error) {  // no clipboard here (a page not served over https): the link is selected
    $("copied").textContent = "selected: copy it with your keyboard or menu";
  }
}

function connect() {
  state.token = params.get("watch") ? null : tokens.get(tableId);
  const scheme = location.protocol === "https:" ? "wss://" : "ws://";
  // The table's id in the address too: a proxy in front of many servers routes by it.
  socket = new WebSocket(scheme + location.host + "/ws?table=" + encodeURIComponent(tableId));
  socket.addEventListener("open", () => {
    retry = 500;
    socket.send(JSON.stringify(state.token ? { type: "join", table: tableId, token: state.token } : { type: "watch", table: tableId }));
  });
  socket.addEventListener("message", event => {
    const message = JSON.parse(event.data);
    if (message.type === "error") {
      $("error").textContent = message.error;
      if (state.hintAsked === state.n && !state.hint) {  // the answer to the hint asked
        state.hintRefused = message.code === "forbidden";
        state.hintNote = { n: state.n, text: message.error };
        if (!state.hintRefused) state.hintAsked = null;  // it may be asked again
        $("error").textContent = "";  // said once, in the hint's box
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
    if (message.type === "seats") { take(message); render(); return; }
    state.asked = null;
    if (message.type === "welcome") {
      state.seat = message.seat;
      state.names = message.names;
      state.status = message.status;
      state.openSeats = message.open_seats || [];
      state.playedBy = {};
      state.last = null;
      $("log").replaceChildren();
      follow(message.history, false);
    } else if (message.type === "update") {  // the moves since the last update, their events
      if ("names" in message) state.names = message.names;
      // A stand-in's move opens its update (a person's clock ran out: the moves after it
      // came later), so its note comes before the update's events, not after the bots'.
      for (const m of message.moves.filter(m => m.stand_in)) {
        $("log").append(element("div", "stand-in", "a stand-in moves for " + nameOf(m.seat) + " ("
          + (m.stand_in === "timeout" ? "the time ran out" : "the bot failed") + "): " + m.move));
      }
      follow(message.events, true);
    }
    take(message);
    render();
  });
  socket.addEventListener("close", event => {
    if (event.reason === "refused" || event.reason === "the seat connected again elsewhere") {
      $("error").textContent = event.reason === "refused" ? "this browser holds no seat at that table" : event.reason;
      return;
    }
    if (event.reason === "the game is over" && state.result) return;  // nothing more to come
    if (event.reason.startsWith("the table expired")) { $("error").textContent = event.reason; return; }
    setTimeout(connect, retry);  // the server restarted, or the network blinked: join again
    retry = Math.min(retry * 2, 8000);
  });
}

$("hint-button").addEventListener("click", askHint);
$("rematch-button").addEventListener("click", rematch);
$("sit").addEventListener("submit", sitDown);
$("copy-link").addEventListener("click", copyLink);
$("last-box").addEventListener("click", () => { if (state.last) state.last.at = 0; renderTurn(); });  // skip
window.addEventListener("resize", () => requestAnimationFrame(fitHand));
setInterval(renderTurn, 250);
connect();
