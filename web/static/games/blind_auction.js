// The Blind Auction table: your cards to bid with, every opponent's cards not
// yet shown, who has bid this round (never what), the prizes still face down
// and any carried prize, the scores, and the history of every round: its
// prize, all bids and who took it. When a round resolves its bids are turned
// up together and held on screen until you go on.

import {tieText} from "../help.js";
import {cardBack, cardFace, fitRow, parseCard} from "./cards.js";
import {chip, chips, head, hold, playerBoxes, winnersText} from "./parts.js";

const value = (name) => parseCard(name).rank + 2;  // 2..10, J 11, Q 12, K 13, A 14
const fmt = (x) => (Number.isInteger(x) ? String(x) : x.toFixed(1));

function roundWord(ctx, r) {
  if (r.scorers.length === 1) return `${ctx.playerName(r.scorers[0])} took ${r.taken.length > 1
    ? `${r.taken.length} prizes` : "it"} (+${fmt(r.points[r.scorers[0]])})`;
  if (r.scorers.length > 1) return `tie, split: ${r.scorers.map(ctx.playerName).join(", ")}` +
    ` +${fmt(r.points[r.scorers[0]])} each`;
  return r.carried ? "tie: carried to the next round" : "tie: nobody takes it";
}

function history(ctx, v, n) {
  const {el} = ctx;
  return el("details", {class: "gt-history", open: true},
    el("summary", {}, `Rounds (${v.rounds.length} of ${v.rules.cards_per_suit})`),
    v.rounds.length ? el("table", {class: "gt-rounds"},
      el("thead", {}, el("tr", {}, el("th", {}, "#"), el("th", {}, "Prize"),
        Array.from({length: n}, (_, s) => el("th", {}, ctx.playerName(s))),
        el("th", {}, "Result"))),
      el("tbody", {}, v.rounds.slice().reverse().map((r) => el("tr", {},
        el("td", {}, String(r.number)), el("td", {}, chip(r.prize)),
        r.bids.map((b, s) => el("td", {class: r.scorers.includes(s) ? "won" : ""}, chip(b))),
        el("td", {class: "hint"}, roundWord(ctx, r))))))
      : el("p", {class: "hint"}, "No round played yet."));
}

export function draw(root, msg, ctx) {
  const {el} = ctx;
  const v = msg.view;
  const n = v.scores.length;
  const watching = msg.seat === null;
  const live = msg.status === "playing" && ctx.live();
  const myTurn = live && v.current_player === msg.seat && msg.legal.length > 0;
  const bids = new Map(myTurn ? msg.legal.map(([a, name]) => [name.slice(4), a]) : []);
  const round = Math.min(v.rounds.length + 1, v.rules.cards_per_suit);
  const over = msg.status === "finished";

  const boxes = playerBoxes(ctx, msg, v.current_player, (s) => [
    el("div", {class: "gt-line"}, el("span", {class: "gt-score"}, fmt(v.scores[s])),
      el("span", {class: "hint"}, " pts"), over ? null : el("span", {class:
        `gt-bid${v.acted[s] ? " done" : ""}`}, v.acted[s] ? " \u2713 has bid"
        : s === v.current_player ? " bidding\u2026" : " to bid")),
    s === msg.seat ? null : el("div", {class: "gt-line gt-left"},
      el("span", {class: "hint"}, "cards left "), chips(ctx, v.remaining[s], "none")),
  ]);

  const carriedValue = v.carried.reduce((t, c) => t + value(c), 0);
  const leftValue = v.prizes_left.reduce((t, c) => t + value(c), 0);
  const prize = el("div", {class: "gt-felt ba-felt"},
    el("div", {class: "gt-stacks"},
      el("figure", {}, over ? el("div", {class: "card gt-empty"})
        : el("div", {class: "gt-prize"}, cardBack()), el("figcaption", {}, over ? "no prize left"
        : `round ${round}: prize face down`)),
      v.carried.length ? el("figure", {}, el("div", {class: "gt-carried"},
        v.carried.map((c) => cardFace(c))), el("figcaption", {},
        `carried: +${carriedValue}`)) : null),
    el("div", {class: "gt-event"}, el("span", {class: "hint"},
      `face down (${leftValue} points, order hidden): `), chips(ctx, v.prizes_left, "none")),
    el("div", {class: "status", role: "status"}, over ? winnersText(ctx, v.winners)
      : myTurn ? "Your bid: choose a card." : v.chosen ? `You bid ${v.chosen}: waiting for ` +
        `${ctx.playerName(v.current_player)}.` : `${ctx.playerName(v.current_player)} to bid.`));

  let mine = null;
  if (!watching) {
    const row = el("div", {class: "hand", "aria-label": "your cards"});
    for (const c of v.hand) {
      const a = bids.get(parseCard(c).label);
      row.append(cardFace(c, a === undefined ? {dim: myTurn} : {onclick: () => ctx.move(a)}));
    }
    mine = el("div", {class: "gt-hand"},
      v.chosen ? el("div", {class: "gt-handbar"}, el("span", {class: "hint"},
        "your sealed bid: "), cardFace(v.chosen, {extra: "small-bid"})) : null, row);
  }

  root.replaceChildren(
    head(ctx, msg, `Blind Auction \u00b7 ${n} players \u00b7 round ${round}/` +
      `${v.rules.cards_per_suit} \u00b7 ${tieText(v.rules.tie_rule)}`),
    el("div", {class: "gt auction"}, boxes, prize, mine, history(ctx, v, n)));
  const row = root.querySelector(".gt-hand .hand");
  if (row) fitRow(row);
}

function reveal(ctx, msg, r) {
  const {el} = ctx;
  return el("div", {class: "panel summary gt-summary", role: "dialog",
    "aria-label": "round result"},
  el("h2", {}, `Round ${r.number}`),
  el("div", {class: "gt-reveal"},
    el("figure", {}, cardFace(r.prize), el("figcaption", {}, `prize ${value(r.prize)}`)),
    r.bids.map((b, s) => el("figure", {class: r.scorers.includes(s) ? "won" : ""},
      cardFace(b, {extra: r.scorers.includes(s) ? "winner" : ""}),
      el("figcaption", {}, ctx.playerName(s))))),
  el("p", {}, roundWord(ctx, r)),
  msg.status === "finished" ? el("p", {class: "final"}, winnersText(ctx, msg.view.winners))
    : null);
}

export async function show(root, msg, ctx) {
  const ev = msg.event;
  if (ev && ev.resolved) {
    draw(root, msg, ctx);
    await hold(root, msg, ctx, reveal(ctx, msg, ev.resolved),
      msg.status === "finished" ? "See the final table" : "Next round", "next-round");
  }
  draw(root, msg, ctx);
}
