// The lobby: list the tables, create one, claim a seat.
"use strict";

const errorBox = document.getElementById("error");
const nameInput = document.getElementById("name");
const moveTime = document.getElementById("move-time");
const noClock = document.getElementById("no-clock");
const NAME_KEY = "skitgubbe-name";  // the name last used on this browser
const DEFAULT_NAME = "player";

// The name this browser used last (localStorage may be refused: then the form's own).
function rememberedName() {
  try { return localStorage.getItem(NAME_KEY); } catch (error) { return null; }
}
function rememberName(name) {
  try { localStorage.setItem(NAME_KEY, name); } catch (error) { /* private mode: not kept */ }
}
const remembered = rememberedName();
if (remembered) nameInput.value = remembered;
nameInput.addEventListener("change", () => {
  const name = nameInput.value.trim();
  if (name && !nameProblem(name)) rememberName(name);
});

// -- the form's own checks: every value the form can hold, in the form's words -----------

// A name the server takes: 1 to 40 characters, none of them a control character or a space
// other than the plain one (the server's "printable").
function nameProblem(name) {
  if (name.length > 40) return "your name: at most 40 characters";
  if (/[\p{C}\p{Z}]/u.test(name.replace(/ /g, ""))) {
    return "your name: letters, digits, signs and plain spaces only (no tabs or special spaces)";
  }
  return null;
}

// A number field's value: null when empty, NaN when it holds something that is no number.
function numberOf(input) {
  if (input.validity && input.validity.badInput) return NaN;
  const text = input.value.trim();
  return text === "" ? null : Number(text);
}

const CHECKS = {
  "max-moves": input => {
    const value = numberOf(input);
    if (value === null) return null;  // the rules' own limit
    return Number.isInteger(value) && value >= 1 && value <= 10000 ? null
      : "moves at most: a whole number from 1 to 10000, or leave it empty for the rules' own limit";
  },
  "move-time": input => {
    if (noClock.checked) return null;
    const value = numberOf(input);
    return Number.isInteger(value) && value >= 1 && value <= 3600 ? null
      : "seconds per move: a whole number from 1 to 3600, or choose no clock";
  },
  "bot-delay": input => {
    const value = numberOf(input);
    return value !== null && Number.isFinite(value) && value >= 0 && value <= 60 ? null
      : "bots pause: a number of seconds from 0 to 60, such as 0.6";
  },
  "name": input => nameProblem(input.value.trim()),
};

// Show (or clear) one field's problem beside it; returns whether the field is good.
function check(id) {
  const input = document.getElementById(id);
  const problem = CHECKS[id](input);
  document.getElementById(id + "-error").textContent = problem || "";
  if (problem) input.setAttribute("aria-invalid", "true");
  else input.removeAttribute("aria-invalid");
  return !problem;
}

for (const id of Object.keys(CHECKS)) {
  // Once a field was marked, it is checked again as it is corrected.
  document.getElementById(id).addEventListener("input", () => {
    if (document.getElementById(id).hasAttribute("aria-invalid")) check(id);
  });
}

function showClock() {
  moveTime.disabled = noClock.checked;
  check("move-time");
}
noClock.addEventListener("change", showClock);
window.addEventListener("pageshow", showClock);  // a form brought back as it was left
showClock();

// -- seats and tables ----------------------------------------------------------------------

async function sit(table, seat) {
  const name = nameInput.value.trim() || DEFAULT_NAME;
  const claimed = await api("/api/tables/" + table + "/claim", { seat, name });
  rememberName(name);
  tokens.set(table, claimed.token);
  location.href = "/table?id=" + encodeURIComponent(table);
}

// A seat as the table names it ("easy 1", "easy 2": two bots of one level are told apart);
// the picture is hidden from screen readers, which read the word beside it.
function describeSeat(seat, label) {
  const span = element("span", "seat-label");
  if (seat.kind === "open") {
    span.append(seat.reserved ? "(kept for " + seat.reserved + ")" : "(open)");
    return span;
  }
  const bot = seat.kind === "bot";
  const picture = element("span", "kind", bot ? "🤖" : "🙂");
  picture.setAttribute("aria-hidden", "true");
  picture.title = bot ? "bot" : "person";
  span.append(picture, element("span", "visually-hidden", bot ? "bot: " : "person: "), label);
  return span;
}

// How a table stands, in words: who lost a finished one.
function describeStatus(table) {
  let text = table.status;
  if (table.status === "running") text += " (move " + table.moves + ")";
  if (table.status === "over" && table.result) {
    const result = table.result;
    if (result.truncated) text += " · no loser (move limit)";
    else if (result.loser === null || result.loser === undefined) text += " · no loser (nobody held cards)";
    else text += " · " + (table.names[result.loser] || "seat " + result.loser) + " was the skitgubbe";
  }
  if (table.hints) text += " · hints";
  return text;
}

let shown = null;  // the tables as last drawn: drawn again only when they change

async function refresh() {
  let tables;
  try {
    tables = await api("/api/tables");
  } catch (error) {
    errorBox.textContent = "The tables could not be loaded: " + error.message;
    return;
  }
  const key = JSON.stringify(tables.map(t => [t.id, t.status, t.moves, t.seats, t.result, t.names, t.hints]))
    + "|" + tables.map(t => tokens.get(t.id) ? 1 : 0).join("");
  if (key === shown) return;
  shown = key;
  const body = document.getElementById("tables");
  // Keep the keyboard's place: the control that had the focus gets it back.
  const focused = body.contains(document.activeElement) ? document.activeElement.dataset.key : null;
  body.replaceChildren();
  for (const table of tables) {
    const row = element("tr");
    row.dataset.table = table.id;
    const seats = element("td");
    table.seats.forEach((seat, i) => {
      if (i) seats.append(" · ");
      seats.append(describeSeat(seat, table.names[i]));
    });
    const status = element("td", "table-status", describeStatus(table));
    row.append(element("td", "", table.id), seats, status);
    const actions = element("td");
    table.seats.forEach((seat, index) => {
      if (seat.kind === "open" && table.status === "open" && !seat.reserved) {
        const button = element("button", "sit", "sit at seat " + index);
        button.type = "button";
        button.dataset.key = table.id + "/sit/" + index;
        button.addEventListener("click", () => {
          if (!check("name")) { nameInput.focus(); return; }  // said beside the name
          sit(table.id, index).catch(e => { errorBox.textContent = "You were not seated: " + e.message; });
        });
        actions.append(button);
      }
    });
    if (tokens.get(table.id) && table.status !== "over") {
      const back = element("a", "", "back to your seat");
      back.href = "/table?id=" + encodeURIComponent(table.id);
      back.dataset.key = table.id + "/back";
      actions.append(back);
    } else if (table.status !== "open") {
      const watch = element("a", "", table.status === "over" ? "see the end" : "watch");
      watch.href = "/table?id=" + encodeURIComponent(table.id) + "&watch=1";
      watch.dataset.key = table.id + "/watch";
      watch.setAttribute("aria-label", (table.status === "over" ? "see the end of table " : "watch table ") + table.id);
      actions.append(watch);
    }
    if (table.status === "over") {
      const review = element("a", "review", "review");
      review.href = "/tables/" + encodeURIComponent(table.id) + "/review?seat=0";
      review.dataset.key = table.id + "/review";
      review.setAttribute("aria-label", "review table " + table.id);
      actions.append(" ", review);
    }
    row.append(actions);
    body.append(row);
  }
  document.getElementById("no-tables").hidden = tables.length > 0;
  if (focused) {
    const again = body.querySelector(`[data-key="${CSS.escape(focused)}"]`);
    if (again) again.focus();
  }
}

document.getElementById("create").addEventListener("submit", async event => {
  event.preventDefault();
  errorBox.textContent = "";
  const bad = Object.keys(CHECKS).filter(id => !check(id));
  if (bad.length) {
    errorBox.textContent = bad.length === 1 ? "One field needs a fix (see above)."
      : bad.length + " fields need a fix (see above).";
    document.getElementById(bad[0]).focus();
    return;
  }
  const form = new FormData(event.target);
  const players = Number(form.get("players"));
  const others = form.get("others");
  const seats = [null];
  for (let i = 1; i < players; i++) seats.push(others === "open" ? null : others);
  const maxMoves = numberOf(document.getElementById("max-moves"));
  const rules = maxMoves !== null ? { preset: form.get("rules"), max_moves: maxMoves } : form.get("rules");
  const button = document.getElementById("create-button");
  button.disabled = true;
  try {
    const table = await api("/api/tables", {
      seats, rules, move_time: noClock.checked ? null : numberOf(moveTime),
      bot_delay: numberOf(document.getElementById("bot-delay")), hints: form.get("hints") === "on",
    });
    await sit(table.id, 0);
  } catch (error) {
    errorBox.textContent = "The table was not created: " + error.message;
    button.disabled = false;
  }
});

// The operator's bots and the engines this server runs: offered for the other seats too.
function offer(label, prefix, names) {
  if (!names.length) return;
  const group = document.createElement("optgroup");
  group.label = label;
  for (const name of names) {
    const option = element("option", "", prefix + " " + name);
    option.value = prefix + ":" + name;
    group.append(option);
  }
  document.getElementById("others").append(group);
}
api("/api/bots").then(bots => offer("bots this server names", "bot", bots.named))
  .catch(error => { errorBox.textContent = error.message; });
api("/api/engines").then(names => offer("engines this server runs", "engine", names))
  .catch(error => { errorBox.textContent = error.message; });

refresh();
setInterval(refresh, 3000);
