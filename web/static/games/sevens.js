// The Sevens table: this game's parameters (the permitted values of every
// symbol, the three point amounts) always in view, the running total, the
// last card and what it asks of the next one, the table cards and every play,
// points and cards held per player, and your hand with the playable cards
// clickable, each showing the total it would make; a card whose symbol has
// two values asks which one.

import {cardFace, fitRow, isRed, parseCard} from "./cards.js";
import {chip, chips, head, playerBoxes, signed, winnersText} from "./parts.js";

const SYMBOLS = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"];
const SUIT_NAME = {C: "\u2663", D: "\u2666", H: "\u2665", S: "\u2660"};

// docs/rules.md section 3: divisible by 7 (0 too), contains the digit 7, or both
export function pointsFor(total, points) {
  const div = total % 7 === 0;
  const has7 = String(Math.abs(total)).includes("7");
  if (div) return has7 ? points[2] : points[0];
  return has7 ? points[1] : 0;
}

let choosing = null;  // the card whose value the player is choosing

// a number as read aloud: "minus 2" is clearer than a bare hyphen next to a card
const num = (x) => (x < 0 ? `\u2212${-x}` : String(x));
// "you score 5 points" / "you lose 2 points"
export function pointsWords(pts, who = "you") {
  const n = Math.abs(pts);
  const unit = `${n} point${n === 1 ? "" : "s"}`;
  return pts > 0 ? `${who} score${who === "you" ? "" : "s"} ${unit}`
    : `${who} lose${who === "you" ? "" : "s"} ${unit}`;
}

function params(ctx, p) {
  const {el} = ctx;
  return el("section", {class: "gt-params", "aria-label": "game parameters"},
    el("p", {class: "gt-caption"}, "What each card adds to the total (a card with two " +
      "values: you choose):"),
    el("div", {class: "gt-values"}, SYMBOLS.map((s, i) => el("span", {
      class: `gt-value${p.values[i].length === 2 ? " two" : ""}`,
      title: `${s} counts ${p.values[i].map(num).join(" or ")}`},
    el("b", {}, s), p.values[i].map(num).join(" or ")))),
    el("div", {class: "gt-points"},
      el("span", {}, "Total a multiple of 7: ", el("b", {}, signed(p.points[0]))),
      el("span", {}, "total has a digit 7: ", el("b", {}, signed(p.points[1]))),
      el("span", {}, "both: ", el("b", {}, signed(p.points[2]))),
      el("span", {class: "hint"}, "points for whoever makes that total")));
}

function ruleText(last) {
  const c = parseCard(last);
  const other = isRed(c.suit) ? "black" : "red";
  return `Next card: a ${other} one if you have one; else any suit but ` +
    `${SUIT_NAME[c.suit]}; else any card.`;
}

function sortHand(names) {
  const order = ["S", "H", "C", "D"];
  return names.map(parseCard).sort((a, b) => order.indexOf(a.suit) - order.indexOf(b.suit) ||
    a.rank - b.rank).map((c) => c.name);
}

export function draw(root, msg, ctx) {
  const {el} = ctx;
  const v = msg.view;
  const p = v.params;
  const watching = msg.seat === null;
  const live = msg.status === "playing" && ctx.live();
  const myTurn = live && v.current_player === msg.seat && msg.legal.length > 0;
  const options = new Map();  // card -> [[action, value]]
  for (const [a] of myTurn ? msg.legal : []) {
    const name = `${SYMBOLS[(a >> 1) % 13]}${"CDHS"[Math.floor((a >> 1) / 13)]}`;
    const value = p.values[(a >> 1) % 13][a & 1];
    options.set(name, [...(options.get(name) || []), [a, value]]);
  }
  if (!options.has(choosing)) choosing = null;
  const redraw = () => draw(root, msg, ctx);
  const play = (a) => { choosing = null; ctx.move(a); };

  const boxes = playerBoxes(ctx, msg, v.current_player, (s) => el("div", {class: "gt-line"},
    el("span", {class: "gt-score"}, String(v.scores[s])), el("span", {class: "hint"},
      ` pts \u00b7 ${v.hand_sizes[s]} card${v.hand_sizes[s] === 1 ? "" : "s"}`)));

  const lastPlay = v.plays.length ? v.plays[v.plays.length - 1] : null;
  const ev = msg.event;
  const felt = el("div", {class: "gt-felt sevens-felt"},
    el("div", {class: "gt-stacks"},
      el("figure", {}, el("div", {class: "gt-total", id: "sevens-total"}, String(v.total)),
        el("figcaption", {}, "running total")),
      el("figure", {}, cardFace(v.last_card, {extra: "up"}),
        el("figcaption", {}, lastPlay ? `${ctx.playerName(lastPlay[0])} played it, counting ` +
          `${num(lastPlay[2])}` : "last table card"))),
    el("div", {class: "gt-event"}, msg.status === "finished" ? null : ruleText(v.last_card)),
    ev ? el("div", {class: "gt-event"}, ctx.playerName(ev.seat), " played ", chip(ev.card),
      ` counting ${num(ev.value)}: the total is ${num(ev.total)}`, ev.points ? el("b", {
        class: ev.points > 0 ? "pos" : "neg"}, ` (${ev.seat === msg.seat ? pointsWords(ev.points)
        : pointsWords(ev.points, "they")})`) : null) : null,
    el("div", {class: "status", role: "status"}, msg.status === "finished"
      ? winnersText(ctx, v.winners) : myTurn ? "Your turn: play a card."
        : `${ctx.playerName(v.current_player)} to play.`));

  // the running total after each play, counted back from the total now
  const totals = [];
  for (let i = v.plays.length - 1, t = v.total; i >= 0; t -= v.plays[i][2], i--) totals[i] = t;
  // in the order they happened, the latest last (the twelve latest; the rest folded)
  const shown = Math.max(0, v.plays.length - 12);
  const plays = el("details", {class: "gt-history", open: true},
    el("summary", {}, `Table cards and plays (${v.table.length + v.plays.length})`),
    el("div", {}, el("span", {class: "hint"}, "dealt face up first: "), chips(ctx, v.table)),
    shown ? el("p", {class: "hint"}, `\u2026 ${shown} earlier play${shown === 1 ? "" : "s"}`)
      : null,
    el("ol", {class: "gt-plays", start: shown + 1},
      v.plays.map(([s, c, value], i) => [s, c, value, totals[i]]).slice(shown)
        .map(([s, c, value, t]) => el("li", {}, `${ctx.playerName(s)} `, chip(c),
          ` ${signed(value)}, total ${num(t)}`))));

  let mine = null;
  if (!watching) {
    const row = el("div", {class: "hand", "aria-label": "your hand"});
    for (const c of sortHand(v.hand)) {
      const opts = options.get(c);
      row.append(opts ? cardFace(c, {onclick: () => {
        if (opts.length === 1) play(opts[0][0]);
        else { choosing = c; redraw(); }
      }, extra: choosing === c ? "chosen" : ""}) : cardFace(c, {dim: myTurn}));
    }
    // the plays that would score (or cost) points, best first
    const scoring = [...options].flatMap(([c, opts]) => opts.map(([a, value]) =>
      ({c, a, value, total: v.total + value, pts: pointsFor(v.total + value, p.points)})))
      .filter((o) => o.pts !== 0).sort((x, y) => y.pts - x.pts);
    const hints = myTurn ? el("div", {class: "gt-options"},
      el("span", {class: "hint"}, scoring.length ? "Plays that score (tap to play):"
        : "No card you can play scores or costs points now."),
      scoring.map((o) => el("button", {class: `gt-option ${o.pts > 0 ? "pos" : "neg"}`,
        "data-action": o.a, onclick: () => play(o.a)}, chip(o.c),
      `${options.get(o.c).length === 2 ? ` counting ${num(o.value)}` : ""}: total ` +
        `${num(o.total)}, ${pointsWords(o.pts)}`))) : null;
    let chooser = null;
    if (choosing) {
      chooser = el("div", {class: "gt-choose", role: "group", "aria-label": "choose a value"},
        el("span", {}, "Play ", chip(choosing), " counting:"),
        options.get(choosing).map(([a, value]) => {
          const t = v.total + value;
          const pts = pointsFor(t, p.points);
          return el("button", {class: "value-button", "data-action": a, "data-value": value,
            "data-total": t, onclick: () => play(a)},
          `${num(value)}: total ${num(t)}${pts ? `, ${pointsWords(pts)}` : ""}`);
        }),
        el("button", {class: "link", onclick: () => { choosing = null; redraw(); }}, "cancel"));
    }
    // the hand first: it stays in one place however many plays score (on a phone a long
    // list above it pushed the hand below the fold)
    mine = el("div", {class: "gt-hand"}, row, chooser || hints);
  }

  root.replaceChildren(
    head(ctx, msg, `Sevens (${ctx.preset()}) \u00b7 ${v.num_players} players`),
    el("div", {class: "gt sevens"}, params(ctx, p), boxes, felt, mine, plays));
  const row = root.querySelector(".gt-hand .hand");
  if (row) fitRow(row);
}

export async function show(root, msg, ctx) {
  choosing = null;
  draw(root, msg, ctx);
}
