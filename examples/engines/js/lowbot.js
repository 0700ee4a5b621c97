#!/usr/bin/env node
// lowbot: a small rule-based skitgubbe engine for node (v20, no packages),
// written from docs/protocol.md alone (protocol version 1: JSON lines on
// stdin/stdout).
//
// Run: node lowbot.js   (the referee starts it; see ../README.md)
//
// Strategy (pick one of the legal move texts the referee lists):
//   1. a "slough ..." move if one is offered, the one with the most cards
//      (it gets rid of cards; ties: the lowest cards);
//   2. else a card play: the lowest rank ("style" option "high": the
//      highest), non-trump before trump once the trump suit is public,
//      and among equal ranks the move with more cards (sheds faster);
//   3. else "pass" (the slough window), then "flip", then "pick";
//   4. else the first legal move.
//
// Unknown message types and keys are ignored, and so is any line that is not
// a JSON object with a string "type". Only protocol lines go to stdout;
// diagnostics go to stderr.

"use strict";

const readline = require("node:readline");

const RANKS = { J: 11, Q: 12, K: 13, A: 14 };
const options = { style: "low" };

/** Send one message as one line (stdout to a pipe is synchronous on Linux). */
function send(message) {
  process.stdout.write(JSON.stringify(message) + "\n");
}

/** The rank (2..14) and suit letter of a card text such as "10D", or null. */
function parseCard(text) {
  const match = /^(10|[2-9JQKA])([CDHS])$/.exec(text);
  if (!match) return null;
  const rank = RANKS[match[1]] ?? Number(match[1]);
  return { rank, suit: match[2] };
}

/** What a move text is: its kind and, for card moves, its cards summed up. */
function summarize(text, trump) {
  if (text === "pass" || text === "flip" || text === "pick") return { kind: text };
  let kind = "cards";
  let words = text.split(" ").filter((word) => word !== "");
  if (words[0] === "slough") {
    kind = "slough";
    words = words.slice(1);
  }
  const cards = words.map(parseCard);
  if (cards.length === 0 || cards.includes(null)) return { kind: "other" };
  const ranks = cards.map((card) => card.rank);
  return {
    kind,
    n: cards.length,
    low: Math.min(...ranks),
    high: Math.max(...ranks),
    trumps: cards.filter((card) => trump != null && card.suit === trump).length,
  };
}

/** True if card play a is better than card play b. */
function betterPlay(a, b) {
  if (a.trumps > 0 !== b.trumps > 0) return a.trumps === 0; // spend trumps last
  if (options.style === "high") {
    if (a.high !== b.high) return a.high > b.high;
  } else if (a.low !== b.low) {
    return a.low < b.low;
  }
  return a.n > b.n; // more cards at once: shed faster
}

/** True if slough a is better than slough b: more cards, then lower ones. */
function betterSlough(a, b) {
  if (a.n !== b.n) return a.n > b.n;
  return a.low < b.low;
}

/** The chosen move text among the legal ones (a non-empty array of strings). */
function choose(legalMoves, observation) {
  const trump = observation && typeof observation.trump === "string" ? observation.trump : null;
  let play = null;
  let slough = null;
  const words = {};
  for (const text of legalMoves) {
    if (typeof text !== "string") continue;
    const s = summarize(text, trump);
    if (s.kind === "cards") {
      if (play === null || betterPlay(s, play.s)) play = { text, s };
    } else if (s.kind === "slough") {
      if (slough === null || betterSlough(s, slough.s)) slough = { text, s };
    } else if (!(s.kind in words)) {
      words[s.kind] = text;
    }
  }
  if (slough) return slough.text;
  if (play) return play.text;
  // pass in a slough window; flip only with no card to play; pick up last
  for (const word of ["pass", "flip", "pick"]) {
    if (word in words) return words[word];
  }
  return legalMoves[0];
}

function setOption(name, value) {
  if (name === "style" && (value === "low" || value === "high")) {
    options.style = value;
  } else if (name === "style") {
    send({ type: "log", text: `style must be low or high; kept ${options.style}` });
  } else {
    send({ type: "log", text: `unknown option ignored: ${String(name)}` });
  }
}

function handle(message) {
  switch (message.type) {
    case "hello":
      send({
        type: "id",
        protocol: 1,
        name: "lowbot-js",
        author: "skitgubbe examples",
        version: "1.0",
        options: [{ name: "style", type: "choice", default: "low", choices: ["low", "high"] }],
      });
      break;
    case "isready":
      send({ type: "readyok", seq: message.seq });
      break;
    case "set_option":
      setOption(message.name, message.value);
      break;
    case "go": {
      const legal = message.legal_moves;
      if (!Array.isArray(legal) || legal.length === 0) {
        process.stderr.write("lowbot: a go without legal moves\n");
        break;
      }
      send({ type: "move", seq: message.seq, move: choose(legal, message.observation) });
      break;
    }
    case "quit":
      process.exit(0);
      break;
    default:
      // new_game, events, game_over and unknown types need nothing here
      break;
  }
}

const lines = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
lines.on("line", (line) => {
  let message;
  try {
    message = JSON.parse(line);
  } catch {
    return; // not JSON: ignore it
  }
  if (message === null || typeof message !== "object" || Array.isArray(message)) return;
  if (typeof message.type !== "string") return;
  handle(message);
});
lines.on("close", () => process.exit(0));
