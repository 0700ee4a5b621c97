// Shared by the lobby and the table: fetch helpers and card pictures.
"use strict";

async function api(path, body) {
  const options = body === undefined ? {} : {
    method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
  };
  const response = await fetch(path, options);
  const data = await response.json();
  if (!response.ok) throw new Error(data.error || response.statusText);
  return data;
}

// A card string from the server ("10H", "QS") as the picture /cards/10H.svg.
function cardImage(card, small) {
  const img = document.createElement("img");
  img.src = "/cards/" + encodeURIComponent(card || "back") + ".svg";
  img.alt = card || "a card";
  img.className = "card" + (small ? " small" : "");
  if (card) img.dataset.card = card;
  return img;
}

function element(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

// The seat tokens this browser holds, by table: kept in localStorage (never in a URL) so a
// reload rejoins the seat.
const tokens = {
  get(table) { return localStorage.getItem("skitgubbe-token-" + table); },
  set(table, token) { localStorage.setItem("skitgubbe-token-" + table, token); },
  drop(table) { localStorage.removeItem("skitgubbe-token-" + table); },
};
