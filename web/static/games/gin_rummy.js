// The Gin Rummy table: your hand split into its best melds with the deadwood
// counted, the up card and the whole pile, the stock, what each opponent is
// known to hold (cards taken from the pile) and has thrown, the scores, and
// draw / discard / knock controls (knock only when the rules allow it). A
// hand's end is held on screen with its summary: the knocker's melds, every
// player's layoffs, deadwood and points, and your own final melds.

import {progressText} from "../help.js";
import {cardBack, cardFace, parseCard} from "./cards.js";
import {chip, chips, head, hold, playerBoxes, winnersText} from "./parts.js";

const DRAW_STOCK = 0;
const TAKE_DISCARD = 1;

// ------------------------------------------------------------------- melds
// Ace low: A-2-3 is a run, Q-K-A is not (docs/rules.md section 2).
const low = (c) => (c.rank + 1) % 13;
export const cardPoints = (name) => Math.min(low(parseCard(name)) + 1, 10);

function candidateMelds(cs) {
  const out = [];
  const byRank = new Map();
  for (let i = 0; i < cs.length; i++) {
    const r = low(cs[i]);
    byRank.set(r, [...(byRank.get(r) || []), i]);
  }
  for (const idx of byRank.values()) {
    if (idx.length < 3) continue;
    const all = idx.reduce((m, i) => m | (1 << i), 0);
    out.push(all);
    if (idx.length === 4) for (const i of idx) out.push(all & ~(1 << i));
  }
  for (const suit of "CDHS") {
    const run = cs.map((c, i) => [low(c), i]).filter(([, i]) => cs[i].suit === suit)
      .sort((a, b) => a[0] - b[0]);
    for (let a = 0; a < run.length; a++) {
      let mask = 1 << run[a][1];
      for (let b = a + 1; b < run.length && run[b][0] === run[b - 1][0] + 1; b++) {
        mask |= 1 << run[b][1];
        if (b - a >= 2) out.push(mask);
      }
    }
  }
  return out;
}

// The split of a hand into melds that leaves the least deadwood.
export function bestSplit(names) {
  const cs = names.map(parseCard);
  const pts = names.map(cardPoints);
  const melds = candidateMelds(cs);
  const memo = new Map();
  const go = (avail) => {
    if (!avail) return {dw: 0, melds: []};
    if (memo.has(avail)) return memo.get(avail);
    const i = 31 - Math.clz32(avail & -avail);
    const rest = go(avail & ~(1 << i));
    let best = {dw: rest.dw + pts[i], melds: rest.melds};
    for (const m of melds) {
      if ((m >> i) & 1 && (m & avail) === m) {
        const r = go(avail & ~m);
        if (r.dw < best.dw) best = {dw: r.dw, melds: [m, ...r.melds]};
      }
    }
    memo.set(avail, best);
    return best;
  };
  const best = go((1 << names.length) - 1);
  const pick = (mask) => names.filter((_, i) => (mask >> i) & 1);
  const used = best.melds.reduce((a, m) => a | m, 0);
  const groups = best.melds.map((m) => sortNames(pick(m)))
    .sort((a, b) => low(parseCard(a[0])) - low(parseCard(b[0])));
  return {melds: groups, deadwood: sortNames(pick(((1 << names.length) - 1) & ~used)),
    points: best.dw};
}

// Cards in the order a player reads them: by suit, the ace low (A 2 3 4, not 2 3 4 A).
const byRankLow = (a, b) => "CDHS".indexOf(a.suit) - "CDHS".indexOf(b.suit) || low(a) - low(b);
export const sortNames = (ns) => ns.map(parseCard).sort(byRankLow).map((c) => c.name);

// --------------------------------------------------------------- the table
let memory = {table: null, hand: null, handNumber: null};
let knockMode = false;

function describe(ctx, ev) {
  if (!ev) return null;
  const who = ctx.playerName(ev.seat);
  const card = ev.card ? chip(ev.card) : null;
  if (ev.kind === "draw") {
    return ev.source === "stock" ? [who, " drew from the stock"] : [who, " took ", card,
      " from the pile"];
  }
  return ev.kind === "knock" ? [who, " knocked, discarding ", card] : [who, " discarded ", card];
}

function statusText(ctx, msg, myTurn) {
  const v = msg.view;
  if (msg.status === "finished") return winnersText(ctx, v.winners);
  const who = ctx.playerName(v.current_player);
  if (!myTurn) return `${who} to ${v.phase === "draw" ? "draw" : "discard"}.`;
  if (v.phase === "draw") return "Your turn: draw a card.";
  return knockMode ? "Knock: choose the card to discard." : "Discard a card.";
}

function meldGroups(ctx, split, legal, opts = {}) {
  const {el} = ctx;
  const face = (c) => {
    const a = legal.get(c);
    const extra = [opts.fresh === c ? "fresh" : "", opts.taken === c ? "taken" : ""]
      .filter(Boolean).join(" ");
    return cardFace(c, a === undefined ? {dim: opts.dim, extra} : {onclick: () => opts.play(a),
      extra});
  };
  return [
    ...split.melds.map((m) => el("div", {class: "gt-meld", title: "meld"}, m.map(face))),
    split.deadwood.length ? el("div", {class: "gt-deadwood", title: "deadwood"},
      split.deadwood.map(face)) : null,
  ];
}

export function draw(root, msg, ctx) {
  const {el} = ctx;
  const v = msg.view;
  const watching = msg.seat === null;
  const live = msg.status === "playing" && ctx.live();
  const myTurn = live && v.current_player === msg.seat && msg.legal.length > 0;
  const actions = new Set(myTurn ? msg.legal.map(([a]) => a) : []);
  const knocks = new Map();
  const discards = new Map();
  for (const [a, name] of myTurn ? msg.legal : []) {
    if (name.startsWith("knock ")) knocks.set(name.slice(6), a);
    else if (name.startsWith("discard ")) discards.set(name.slice(8), a);
  }
  if (!knocks.size) knockMode = false;
  const redraw = () => draw(root, msg, ctx);

  const boxes = playerBoxes(ctx, msg, v.current_player, (s) => [
    el("div", {class: "gt-line"}, el("span", {class: "gt-score"}, String(v.scores[s])),
      el("span", {class: "hint"}, ` / ${v.rules.target} \u00b7 ${s === v.current_player &&
        v.phase === "discard" ? 11 : 10} cards`)),
    s === msg.seat ? null : el("div", {class: "gt-line"}, el("span", {class: "hint"}, "holds "),
      chips(ctx, v.known[s], "nothing known")),
    el("div", {class: "gt-line"}, el("span", {class: "hint"}, "threw "),
      chips(ctx, v.discarded[s], "\u2013")),
  ], v.dealer);

  // the stock and the pile
  const stock = el(actions.has(DRAW_STOCK) ? "button" : "div", {
    class: `gt-stock${actions.has(DRAW_STOCK) ? " legal" : ""}`, id: "gin-stock",
    onclick: actions.has(DRAW_STOCK) ? () => ctx.move(DRAW_STOCK) : null,
    "aria-label": `stock, ${v.stock_size} cards`},
  cardBack(), el("span", {class: "gt-count"}, `${v.stock_size}`));
  const top = v.pile.length ? v.pile[v.pile.length - 1] : null;
  const upcard = top ? cardFace(top, actions.has(TAKE_DISCARD)
    ? {onclick: () => ctx.move(TAKE_DISCARD), extra: "up"} : {extra: "up"}) : el("div",
    {class: "card gt-empty"});
  if (top) upcard.id = "gin-upcard";
  const pile = el("div", {class: "gt-pile"},
    el("div", {class: "gt-under"}, v.pile.slice(-4, -1).map((c) => cardFace(c, {extra: "under"}))),
    upcard);
  const history = el("details", {class: "gt-history"},
    el("summary", {}, `Pile: ${v.pile.length} card${v.pile.length === 1 ? "" : "s"}`),
    el("div", {}, el("span", {class: "hint"}, "bottom \u2192 top: "), chips(ctx, v.pile)));
  const ev = msg.event && !msg.event.hand_over ? describe(ctx, msg.event) : null;
  const felt = el("div", {class: "gt-felt"},
    el("div", {class: "gt-stacks"},
      el("figure", {}, stock, el("figcaption", {}, "stock")),
      el("figure", {}, pile, el("figcaption", {}, v.taken ? "taken: " : "up card",
        v.taken ? chip(v.taken) : null))),
    ev ? el("div", {class: "gt-event"}, ev) : null,
    el("div", {class: "status", role: "status"}, statusText(ctx, msg, myTurn)));

  // your hand
  let mine;
  if (watching) {
    mine = el("p", {class: "hint"}, "Watching: the hands are hidden.");
  } else {
    const split = bestSplit(v.hand);
    const legal = knockMode ? knocks : discards;
    const play = (a) => { knockMode = false; ctx.move(a); };
    const fresh = msg._fresh ?? null;
    const bar = el("div", {class: "gt-handbar"},
      el("span", {class: "gt-dw", id: "gin-deadwood"}, `Deadwood ${split.points}`),
      el("span", {class: "hint"}, ` \u00b7 ${split.melds.length} meld` +
        `${split.melds.length === 1 ? "" : "s"}` +
        (v.rules.knock_limit === null ? "" : ` \u00b7 knock at ${v.rules.knock_limit} or less`)));
    if (knocks.size) {
      const after = Math.min(...[...knocks.keys()].map((c) =>
        bestSplit(v.hand.filter((x) => x !== c)).points));
      bar.append(el("button", {id: "gin-knock", class: knockMode ? "on" : "",
        onclick: () => { knockMode = !knockMode; redraw(); }},
      knockMode ? "Cancel knock" : (after === 0 ? "Gin!" : `Knock (deadwood ${after})`)));
    }
    mine = el("div", {class: "gt-hand", "aria-label": "your hand"},
      bar, el("div", {class: `gt-groups${knockMode ? " knocking" : ""}`},
        meldGroups(ctx, split, legal, {play, fresh, taken: v.taken, dim: myTurn &&
          v.phase === "discard"})));
  }

  root.replaceChildren(
    head(ctx, msg, `Gin Rummy (${ctx.preset()}) \u00b7 hand ${v.hand_number} \u00b7 ` +
      `${progressText(v.rules, v.scores)}`),
    el("div", {class: "gt gin"}, boxes, felt, history, mine));
  for (const row of root.querySelectorAll(".gt-groups")) fitGroups(row);
}

// shrink the gaps between and inside the meld groups until the hand fits
function fitGroups(row) {
  const cards = [...row.querySelectorAll(".card")];
  if (!cards.length) return;
  const w = cards[0].getBoundingClientRect().width;
  const groups = row.children.length;
  const room = row.clientWidth - 8 * groups;
  const step = Math.min(w * 1.02, (room - w * groups) / Math.max(1, cards.length - groups));
  for (const g of row.children) {
    [...g.children].slice(1).forEach((c) => { c.style.marginLeft = `${step - w}px`; });
  }
}
window.addEventListener("resize", () => {
  for (const row of document.querySelectorAll(".gt-groups")) fitGroups(row);
});

// ------------------------------------------------------------ hand summary
// "You knocked and score 2.", "Bot 2 knocked and was undercut: you score 27."
export function headline(ctx, result, mySeat) {
  if (result.knocker === null) return "The stock ran out: a dead hand, nobody scores.";
  const who = (s) => (s === mySeat ? "you" : ctx.playerName(s));
  const Who = (s) => (s === mySeat ? "You" : ctx.playerName(s));
  const scores = (s) => (s === mySeat ? "score" : "scores");
  const k = result.knocker;
  const w = result.winner;
  const pts = result.points[w];
  const how = result.gin ? "went gin" : "knocked";
  if (w === k) return `${Who(k)} ${how} and ${scores(k)} ${pts}.`;
  return `${Who(k)} ${how} and ${k === mySeat ? "were" : "was"} undercut: ` +
    `${who(w)} ${scores(w)} ${pts}.`;
}

function summary(ctx, msg, result, finalHand, knockerDeadwood) {
  const {el} = ctx;
  const n = result.totals.length;
  const over = msg.status === "finished";
  const name = (s) => ctx.playerName(s);
  let mySplit = finalHand ? bestSplit(finalHand) : null;
  const iKnocked = result.knocker !== null && result.knocker === msg.seat;
  if (mySplit && iKnocked) {  // the melds the engine scored (layoffs went onto them)
    const melded = new Set(result.knocker_melds.flat());
    mySplit = {melds: result.knocker_melds, deadwood: finalHand.filter((c) => !melded.has(c))};
  }
  const group = (names, extra = "") => el("span", {class: `gt-group${extra}`},
    sortNames(names).map((c) => chip(c)));
  return el("div", {class: "panel summary gt-summary", role: "dialog",
    "aria-label": "hand summary"},
  el("h2", {}, `Hand ${result.hand_number} summary`),
  el("p", {id: "gin-headline"}, headline(ctx, result, msg.seat)),
  result.knocker === null || (iKnocked && mySplit) ? null : el("p", {class: "gt-knocker"},
    el("span", {class: "hint"}, `${name(result.knocker)}: melds `),
    result.knocker_melds.map((m) => group(m)),
    knockerDeadwood && knockerDeadwood.length ? [el("span", {class: "hint"}, " deadwood "),
      group(knockerDeadwood, " dw")] : null),
  mySplit ? el("p", {class: "gt-mine"}, el("span", {class: "hint"}, iKnocked
    ? "You: melds " : "Your hand: melds "), mySplit.melds.map((m) => group(m)),
  mySplit.deadwood.length ? [el("span", {class: "hint"}, " deadwood "),
    group(mySplit.deadwood, " dw")] : null) : null,
  el("table", {},
    el("thead", {}, el("tr", {}, el("th", {}, "Player"), el("th", {}, "Deadwood"),
      el("th", {}, "Laid off"), el("th", {}, "Hand"), el("th", {}, "Total"))),
    el("tbody", {}, Array.from({length: n}, (_, s) => el("tr", {class: s === msg.seat ? "me"
      : ""},
    el("td", {}, name(s), s === result.knocker ? el("small", {}, " (knocked)") : null),
    el("td", {}, result.deadwood.length ? String(result.deadwood[s]) : "\u2013"),
    el("td", {}, result.laid_off.length && result.laid_off[s].length
      ? chips(ctx, result.laid_off[s]) : "\u2013"),
    el("td", {class: result.points[s] > 0 ? "pos" : ""},
      result.points[s] > 0 ? `+${result.points[s]}` : "0"),
    el("td", {}, String(result.totals[s])))))),
  over ? el("p", {class: "final"}, winnersText(ctx, msg.view.winners)) : null);
}

export async function show(root, msg, ctx) {
  const v = msg.view;
  const prev = memory.table === msg.table ? memory : null;
  const ev = msg.event;
  knockMode = false;
  // the card just drawn, marked in the hand
  if (prev && prev.hand && v.hand.length && prev.handNumber === v.hand_number &&
      ev && ev.kind === "draw" && ev.seat === msg.seat) {
    msg._fresh = v.hand.find((c) => !prev.hand.includes(c)) ?? null;
  }
  if (ev && ev.hand_over && v.last_hand) {
    let finalHand = null;
    if (msg.seat !== null && prev && prev.hand) {
      finalHand = prev.hand.filter((c) => !(ev.seat === msg.seat && c === ev.card));
    }
    // the finished hand stays on the table under its summary: the next hand's deal
    // (and its header) come after
    if (prev && prev.msg) draw(root, prev.msg, {...ctx, live: () => false});
    else draw(root, msg, ctx);
    await hold(root, msg, ctx, summary(ctx, msg, v.last_hand, finalHand, ev.knocker_deadwood),
      msg.status === "finished" ? "See the final table" : "Next hand", "next-hand");
  }
  memory = {table: msg.table, hand: v.hand, handNumber: v.hand_number, msg};
  draw(root, msg, ctx);
}
