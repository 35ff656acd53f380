// Pieces shared by the Gin Rummy, Sevens and Blind Auction tables: the title
// line, small card chips for lists, the players' boxes, and holding a moment
// (a hand's summary, a revealed round) on screen until the player goes on.

import {parseCard} from "./cards.js";

export function head(ctx, msg, text) {
  const {el} = ctx;
  return el("div", {class: "table-head"},
    el("a", {href: "#/", class: "button small"}, "\u2190 Lobby"),
    el("span", {class: "head-text"}, `Table ${msg.table} \u00b7 ${text}` +
      `${msg.seat === null ? " \u00b7 watching" : ""}`),
    el("span", {class: "head-links"}, ctx.chatButton(),
      el("button", {class: "link small", id: "table-rules", onclick: () => ctx.rules()},
        "Rules")));
}

// a card as a short coloured label ("7\u2665"), for lists that would not fit as cards
export function chip(name, extra = "") {
  const c = parseCard(name);
  const s = document.createElement("span");
  s.className = `mini${c.red ? " red" : ""}${extra ? ` ${extra}` : ""}`;
  s.dataset.card = name;
  s.textContent = `${c.label}${c.symbol}`;
  return s;
}

export function chips(ctx, names, empty = "\u2013") {
  return names.length ? ctx.el("span", {class: "minis"}, names.map((n) => chip(n)))
    : ctx.el("span", {class: "hint"}, empty);
}

// one box per player: name, what kind of bot, turn and dealer marks, then lines
export function playerBoxes(ctx, msg, turn, lines, dealer = null) {
  const {el} = ctx;
  return el("div", {class: "gt-players"}, msg.players.map((_, s) => el("div", {
    class: `gt-player${s === turn && msg.status === "playing" ? " turn" : ""}` +
      `${s === msg.seat ? " me" : ""}`, "data-seat": s},
  el("b", {}, ctx.playerName(s), ctx.botKind(s) ? el("small", {}, ` ${ctx.botKind(s)}`) : null,
    s === dealer ? el("span", {class: "chip", title: "dealer"}, "D") : null),
  lines(s))));
}

export function winnersText(ctx, winners) {
  return `Game over: ${ctx.wonText(winners.map((s) => ctx.playerName(s)))}`;
}

// Show a panel over the table until the player clicks on (a watcher: a moment).
export async function hold(root, msg, ctx, panel, label, id) {
  const overlay = ctx.el("div", {class: "overlay"}, panel);
  root.append(overlay);
  if (msg.seat === null) await new Promise((r) => setTimeout(r, Math.max(ctx.pace * 3, 300)));
  else await ctx.waitClick(panel, label, id);
  overlay.remove();
}

// +5, -3, 0
export const signed = (x) => (x > 0 ? `+${x}` : String(x));
