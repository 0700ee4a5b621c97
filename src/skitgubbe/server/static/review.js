// A finished game reviewed from one seat: asks the server (which works it out once, in a
// worker thread) until it is ready, then shows the graph, the costliest moves, every move.
"use strict";

const tableId = decodeURIComponent(location.pathname.split("/")[2] || "");
const seat = Number(new URLSearchParams(location.search).get("seat") || "0");
const $ = id => document.getElementById(id);
const VERDICTS = {
  forced: "forced", best: "best", good: "good", inaccuracy: "inaccuracy ?!", mistake: "mistake ?", blunder: "blunder ??",
};

// A chance as a percentage with its standard error: "56.3 % ± 1.2" (no break inside a number).
function percent(x, error) {
  if (x === null || x === undefined) return "";
  const shown = (100 * x).toFixed(1) + "\u00a0%";
  return error === null || error === undefined ? shown : shown + " ±\u00a0" + (100 * error).toFixed(1);
}

// The seat's own view before a costly move: the server's SVG (drawn from that seat's
// observation alone), parsed as SVG rather than set as HTML, and named for screen readers.
function viewFigure(move, name) {
  const figure = element("figure", "costly-view");
  const parsed = new DOMParser().parseFromString(move.view, "image/svg+xml").documentElement;
  if (parsed.nodeName !== "svg") return null;
  const picture = document.importNode(parsed, true);
  picture.setAttribute("role", "img");
  const caption = name + "'s view before move " + (move.index + 1);
  picture.setAttribute("aria-label", caption + ": " + name + "'s hand face up, the others' cards face down, the table and the stock");
  figure.append(picture, element("figcaption", "", caption + ", when " + move.index + " moves had been played ("
    + move.move + " was played next)"));
  return figure;
}

// Why the search chose a move with a higher estimate, folded under "why?" in the table.
function whyDetails(move) {
  const details = element("details", "why");
  details.append(element("summary", "", "why?"), element("span", "", move.why));
  return details;
}

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
    item.id = "costly-" + index;
    const text = element("div", "costly-text");
    const link = element("a", "", "move " + (index + 1) + ": " + move.move);
    link.href = "#move-" + index;
    text.append(link, " — " + VERDICTS[move.label] + ": " + percent(move.loss, move.error) + " after it; "
      + move.best + " had " + percent(move.best_loss, move.best_error) + " (it cost " + (100 * move.cost).toFixed(1) + " points)");
    if (move.why) text.append(element("p", "why", move.why));
    item.append(text);
    const figure = move.view ? viewFigure(move, name) : null;
    if (figure) item.append(figure);
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
    const preferred = element("td", "preferred",
      mine && move.best !== null && move.label !== "best" && move.label !== "forced"
        ? move.best + " (" + percent(move.best_loss, move.best_error) + ")" : "");
    if (mine && move.why) preferred.append(whyDetails(move));
    row.append(
      element("td", "", String(move.index + 1)),
      element("td", "", names[move.seat] || "seat " + move.seat),
      element("td", "", move.move),
      element("td", "verdict", mine ? (VERDICTS[move.label] || move.label) + (costly.has(move.index) ? " · costly" : "") : ""),
      element("td", "chance", mine ? percent(move.loss, move.error) : ""),
      preferred,
    );
    body.append(row);
  }
  const budget = review.iterations ? " (" + review.iterations + " simulations a move)" : "";
  $("engine").textContent = "Analysed by " + review.engine + budget + " in " + review.seconds.toFixed(1)
    + " s, as a hint at the same position would be. The chances are estimates from the search's simulations, from what "
    + name + " knew at each move.";
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
