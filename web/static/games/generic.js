// The table for a game that has no table of its own yet: the players, your
// view as the server sends it (your seat's PlayerView, nothing more), your
// cards face up, and one button per legal action.

import {cardFace, fitRow} from "./cards.js";
import {head} from "./parts.js";

const CARD = /^(10|[2-9JQKA])[CDHS]$|^[BL]J$/;

function value(x) {
  if (Array.isArray(x)) return x.map(value).join(x.every((y) => !Array.isArray(y)) ? " " : " | ");
  if (x && typeof x === "object") {
    return Object.entries(x).map(([k, y]) => `${k}: ${value(y)}`).join("; ");
  }
  return x === null ? "-" : String(x);
}

export function draw(root, msg, ctx) {
  const {el} = ctx;
  const v = msg.view || {};
  const live = msg.status === "playing" && ctx.live();
  const hand = Array.isArray(v.hand) && v.hand.every((c) => CARD.test(c)) ? v.hand : null;
  const byName = new Map((live ? msg.legal : []).map(([a, n]) => [n, a]));
  const row = el("div", {class: "hand"});
  for (const c of hand || []) {
    const a = byName.get(c);
    row.append(cardFace(c, a === undefined ? {} : {onclick: () => ctx.move(a)}));
  }
  const skip = new Set(["hand", "rules", "game"]);
  root.replaceChildren(
    head(ctx, msg, `${msg.game.replace("_", " ")} (${ctx.preset()})`),
    el("section", {class: "panel generic"},
      el("ol", {class: "players"}, msg.players.map((p, i) => el("li",
        {class: v.current_player === i ? "turn" : ""}, ctx.playerName(i)))),
      msg.status === "finished" ? el("p", {class: "final"},
        `Game over: ${value(msg.result)}`) : null,
      el("dl", {}, Object.entries(v).filter(([k]) => !skip.has(k)).map(([k, x]) => [
        el("dt", {}, k.replaceAll("_", " ")), el("dd", {}, value(x))])),
      hand ? el("h3", {}, "Your cards") : null, row,
      live && msg.legal.length ? el("div", {class: "actions"}, msg.legal.map(([a, n]) =>
        el("button", {onclick: () => ctx.move(a), "data-action": a}, n))) : null));
  fitRow(row);
}

export async function show(root, msg, ctx) {
  draw(root, msg, ctx);
}
