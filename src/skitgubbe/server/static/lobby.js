// The lobby: list the tables, create one, claim a seat.
"use strict";

const errorBox = document.getElementById("error");

async function sit(table, seat) {
  const name = document.getElementById("name").value.trim() || "player";
  const claimed = await api("/api/tables/" + table + "/claim", { seat, name });
  tokens.set(table, claimed.token);
  location.href = "/table?id=" + encodeURIComponent(table);
}

// A seat as the table names it ("easy 1", "easy 2": two bots of one level are told apart).
function describeSeat(seat, label) {
  if (seat.kind === "bot") return "🤖 " + label;
  if (seat.kind === "open") return "(open)";
  return "🙂 " + label;
}

async function refresh() {
  let tables;
  try {
    tables = await api("/api/tables");
  } catch (error) {
    errorBox.textContent = error.message;
    return;
  }
  const body = document.getElementById("tables");
  body.replaceChildren();
  for (const table of tables) {
    const row = element("tr");
    row.dataset.table = table.id;
    row.append(element("td", "", table.id), element("td", "", table.seats.map((seat, i) => describeSeat(seat, table.names[i])).join(" · ")),
      element("td", "", table.status + (table.status === "running" ? " (move " + table.moves + ")" : "") + (table.hints ? " · hints" : "")));
    const actions = element("td");
    table.seats.forEach((seat, index) => {
      if (seat.kind === "open" && table.status === "open") {
        const button = element("button", "sit", "sit at seat " + index);
        button.addEventListener("click", () => sit(table.id, index).catch(e => { errorBox.textContent = e.message; }));
        actions.append(button);
      }
    });
    if (tokens.get(table.id) && table.status !== "over") {
      const back = element("a", "", "back to your seat");
      back.href = "/table?id=" + encodeURIComponent(table.id);
      actions.append(back);
    } else if (table.status !== "open") {
      const watch = element("a", "", table.status === "over" ? "see the end" : "watch");
      watch.href = "/table?id=" + encodeURIComponent(table.id) + "&watch=1";
      actions.append(watch);
    }
    if (table.status === "over") {
      const review = element("a", "review", "review");
      review.href = "/tables/" + encodeURIComponent(table.id) + "/review?seat=0";
      actions.append(" ", review);
    }
    row.append(actions);
    body.append(row);
  }
}

document.getElementById("create").addEventListener("submit", async event => {
  event.preventDefault();
  const form = new FormData(event.target);
  const players = Number(form.get("players"));
  const others = form.get("others");
  const seats = [null];
  for (let i = 1; i < players; i++) seats.push(others === "open" ? null : others);
  try {
    const maxMoves = form.get("max_moves");
    const rules = maxMoves ? { preset: form.get("rules"), max_moves: Number(maxMoves) } : form.get("rules");
    const table = await api("/api/tables", {
      seats, rules, move_time: Number(form.get("move_time")),
      bot_delay: Number(form.get("bot_delay")), hints: form.get("hints") === "on",
    });
    await sit(table.id, 0);
  } catch (error) {
    errorBox.textContent = error.message;
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
