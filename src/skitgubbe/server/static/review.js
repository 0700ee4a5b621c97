// A finished game reviewed from one seat: asks the server (which works it out once, in a
// worker thread) until it is ready, then shows the graph, the costliest moves, every move.
"use strict";

const tableId = decodeURIComponent(location.pathname.split("/")[2] || "");
const seat = Number(new URLSearchParams(location.search).get("seat") || "0");
const $ = id => document.getElementById(id);
const VERDICTS = {
  forced: "forced", best: "best", good: "good", inaccuracy: "inaccuracy ?!", mistake: "mistake ?", blunder: "blunder ??",
};

function percent(x) { return x === null || x === undefined ? "" : (100 * x).toFixed(1) + " %"; }

function show(review) {
  const names = review.names;
  const name = names[seat] || "seat " + seat;
  $("title").textContent = "table " + tableId + " · review of " + name;
  $("heading").textContent = "The game of " + name + " (seat " + seat + "), move by move";
  $("verdict").textContent = review.loser === null ? "Nobody ended as the skitgubbe."
    : (review.loser === seat ? name + " ended as the skitgubbe." : names[review.loser] + " ended as the skitgubbe.");
  const counts = Object.entries(review.counts).filter(([, n]) => n).map(([label, n]) => n + " " + label);
  $("counts").textContent = "Accuracy " + review.accuracy.toFixed(0) + " % (moves that were best or good among "
    + name + "'s real choices); " + counts.join(", ") + ".";
  const picture = new Blob([review.svg], { type: "image/svg+xml" });
  $("graph").src = URL.createObjectURL(picture);
  const costly = new Set(review.costliest);
  const list = $("costliest");
  list.replaceChildren();
  for (const index of review.costliest) {
    const move = review.moves[index];
    const item = element("li");
    const link = element("a", "", "move " + (index + 1) + ": " + move.move);
    link.href = "#move-" + index;
    item.append(link, " — " + VERDICTS[move.label] + ": " + percent(move.loss) + " after it; "
      + move.best + " had " + percent(move.best_loss) + " (it cost " + (100 * move.cost).toFixed(1) + " points)");
    list.append(item);
  }
  if (!review.costliest.length) list.append(element("li", "", "none: no move cost anything"));
  const body = $("moves");
  body.replaceChildren();
  for (const move of review.moves) {
    const row = element("tr", move.seat === seat ? "mine " + (move.label || "") : "other");
    row.id = "move-" + move.index;
    if (costly.has(move.index)) row.classList.add("costly");
    row.dataset.index = move.index;
    const mine = move.seat === seat;
    row.append(
      element("td", "", String(move.index + 1)),
      element("td", "", names[move.seat] || "seat " + move.seat),
      element("td", "", move.move),
      element("td", "verdict", mine ? (VERDICTS[move.label] || move.label) + (costly.has(move.index) ? " · costly" : "") : ""),
      element("td", "", mine ? percent(move.loss) : ""),
      element("td", "", mine && move.best !== null && move.label !== "best" && move.label !== "forced" ? move.best + " (" + percent(move.best_loss) + ")" : ""),
    );
    body.append(row);
  }
  $("engine").textContent = "Analysed by " + review.engine + " in " + review.seconds.toFixed(1)
    + " s. The chances are estimates from the search's simulations, from what " + name + " knew at each move.";
  const links = $("seat-links");
  links.replaceChildren("Review another seat: ");
  names.forEach((other, index) => {
    if (index === seat) return;
    const link = element("a", "", other);
    link.href = "?seat=" + index;
    links.append(link, " ");
  });
  $("report").hidden = false;
}

async function load() {
  let response;
  try {
    response = await fetch("/api/tables/" + encodeURIComponent(tableId) + "/review?seat=" + seat);
  } catch (error) {
    $("error").textContent = "the server cannot be reached: " + error.message;
    setTimeout(load, 2000);
    return;
  }
  const data = await response.json();
  if (response.status === 202) {
    $("progress").textContent = data.total === null ? "analysing the game…"
      : "analysing the game: " + data.done + " of " + data.total + " decisions";
    setTimeout(load, 400);
    return;
  }
  if (!response.ok) {
    $("progress").textContent = "";
    $("error").textContent = data.error;
    return;
  }
  $("progress").textContent = "";
  show(data);
}

load();
