// The Spades table (requirements A3, A3.1-A3.6): four hands around a felt,
// your hand face up sorted by suit in alternating colours and high to low,
// every bid and trick count, the game score always in view, the finished
// trick kept until you go on, and the hand summary.

import {progressText} from "../help.js";
import {cardBack, cardFace, fitRow, isRed, parseCard} from "./cards.js";
import {head} from "./parts.js";

const HAND_SIZE = 13;
const PLACES = ["bottom", "left", "top", "right"];  // clockwise from you

// Suits in an order that alternates colours (A3.5), high to low within (A3.4).
// Jokers rank as the top spades.
export function sortHand(names) {
  const cards = names.map(parseCard);
  const suitOf = (c) => (c.suit === "J" ? "S" : c.suit);
  const present = ["S", "H", "C", "D"].filter((s) => cards.some((c) => suitOf(c) === s));
  const black = present.filter((s) => !isRed(s));
  const red = present.filter((s) => isRed(s));
  const [first, second] = black.length >= red.length ? [black, red] : [red, black];
  const order = [];
  for (let i = 0; i < first.length; i++) {
    order.push(first[i]);
    if (i < second.length) order.push(second[i]);
  }
  return order.flatMap((s) => cards.filter((c) => suitOf(c) === s)
    .sort((a, b) => b.rank - a.rank).map((c) => c.name));
}

function place(seat, mySeat) {
  return PLACES[(seat - mySeat + 4) % 4];
}

export function draw(root, msg, ctx, frozen = null) {
  const {el} = ctx;
  const v = msg.view;
  const mySeat = msg.seat ?? 0;
  const watching = msg.seat === null;
  const result = frozen?.summary;
  // while a hand-ending trick is on show, the view already holds the next hand:
  // show the finished hand's numbers instead
  const bids = result ? result.bids : v.bids;
  const tricks = result ? result.tricks : v.tricks;
  const scores = result ? result.totals : v.scores;
  const dealer = result ? result.dealer : v.dealer;
  const played = (s) => v.plays.filter((p) => p[0] === s).length;
  const counts = [0, 1, 2, 3].map((s) => (result ? 0 : HAND_SIZE - played(s)));
  const trick = frozen ? frozen.trick : v.trick;
  const myTurn = !frozen && msg.status === "playing" && v.current_player === msg.seat &&
    ctx.live();
  const legal = new Map((myTurn ? msg.legal : []).map(([a, n]) => [n, a]));
  const bags = v.rules.bag_limit != null;

  const bidText = (s) => (bids[s] === null ? "-" : bids[s] === 0 ? "Nil" : String(bids[s]));
  const name = (s) => ctx.playerName(s);
  // who leads the trick, and whether spades are broken: the server's marks (web adapter)
  const marks = frozen ? null : msg.marks;
  const leader = marks?.leader ?? null;
  const leadChip = (s) => (s === leader ? el("span", {class: "chip lead", title:
    "leads this trick"}, "lead") : null);

  // A3.1, A3.2: bids, tricks taken and the game score, always on screen
  const board = el("table", {class: "scoreboard", "aria-label": "score board"},
    el("thead", {}, el("tr", {}, el("th", {}, ""),
      [0, 1, 2, 3].map((s) => el("th", {class: s === v.current_player && !frozen ? "turn" : "",
        title: name(s)},
        name(s), s === dealer ? el("span", {class: "chip", title: "dealer"}, "D") : null)))),
    el("tbody", {},
      el("tr", {}, el("th", {}, "Bid"), [0, 1, 2, 3].map((s) => el("td", {class: "bid"},
        bidText(s)))),
      el("tr", {}, el("th", {}, "Won"), [0, 1, 2, 3].map((s) => el("td", {class: "won"},
        String(tricks[s])))),
      el("tr", {class: "total"}, el("th", {}, "Score"), [0, 1, 2, 3].map((s) => el("td",
        {class: "score"}, String(scores[s])))),
      bags ? el("tr", {}, el("th", {}, "Bags"), [0, 1, 2, 3].map((s) => el("td", {},
        String((result ? result.bags : v.bags)[s])))) : null));

  const badge = (s) => el("div", {class: `badge${s === v.current_player && !frozen &&
      msg.status === "playing" ? " turn" : ""}`},
    el("b", {}, name(s), ctx.botKind(s) ? el("small", {}, ` ${ctx.botKind(s)}`) : null,
      s === dealer ? el("span", {class: "chip"}, "D") : null, leadChip(s)),
    el("span", {class: "bt"}, `bid ${bidText(s)} \u00b7 won ${tricks[s]}`));

  const felt = el("div", {class: "felt"});
  const bidding = myTurn && v.phase === "bid";

  for (const s of [0, 1, 2, 3]) {
    const where = place(s, mySeat);
    if (where === "bottom") continue;
    felt.append(el("div", {class: `seat ${where}`, "data-seat": s}, badge(s),
      el("div", {class: "backs"}, Array.from({length: counts[s]}, () => cardBack("small")))));
  }
  const center = el("div", {class: "trick"});
  for (const [s, c] of trick) {
    const win = frozen && s === frozen.winner;
    center.append(el("div", {class: `slot ${place(s, mySeat)}`},
      cardFace(c, {extra: win ? "winner" : ""})));
  }
  if (!bidding) felt.append(center);  // nothing on the table while bidding: the bids are

  let status;
  if (msg.status === "finished" && !frozen) {
    status = `Game over: ${ctx.wonText(v.winners.map(name))}`;
  } else if (frozen) {
    status = `${name(frozen.winner)} took the trick.`;
  } else if (v.phase === "bid") {
    status = myTurn ? "Your bid." : `${name(v.current_player)} to bid.`;
  } else {
    const leads = v.trick.length === 0;
    status = myTurn ? `Your turn: ${leads ? "lead" : "play"} a card.`
      : `${name(v.current_player)} to ${leads ? "lead" : "play"}.`;
  }
  const foot = el("div", {class: "felt-foot"}, marks?.notes?.length ? el("div", {
    class: "felt-note", id: "spades-marks"}, marks.notes.map((n) => el("span", {
    class: n.includes("not") ? "" : "on"}, n))) : null,
  el("div", {class: "status", role: "status"}, status));
  felt.append(foot);

  // your own bid, tricks and the dealer chip are on the score board
  const mine = el("div", {class: "seat bottom"});
  const row = el("div", {class: "hand", "aria-label": "your hand"});
  if (watching) {
    for (let i = 0; i < counts[mySeat]; i++) row.append(cardBack());
  } else if (!result) {
    for (const c of sortHand(v.hand)) {
      const a = legal.get(c);
      // while bidding every card counts: none is dimmed
      row.append(cardFace(c, a === undefined ? {dim: myTurn && v.phase !== "bid"}
        : {onclick: () => ctx.move(a)}));
    }
  }
  mine.append(row);

  if (bidding) {
    // the bids sit on the felt, so the hand below never moves
    const ok = new Set(msg.legal.map(([a]) => a));
    foot.append(el("div", {class: "bids", role: "group", "aria-label": "your bid"},
      Array.from({length: 14}, (_, b) => el("button", {
        class: "bid-button", "data-bid": b, disabled: !ok.has(b),
        onclick: () => ctx.move(b)}, b === 0 ? "Nil" : String(b)))));
  }

  const game = el("div", {class: "spades"}, board, felt, mine);
  root.replaceChildren(head(ctx, msg, `Spades, ${ctx.preset()} \u00b7 hand ` +
    `${result ? result.hand_number : v.hand_number} \u00b7 ` +
    `${progressText(v.rules, scores)}`), game);
  fitRow(row);
  for (const b of felt.querySelectorAll(".backs")) fitRow(b);
  return {felt, foot};
}

// one part of a hand's points in words: "bid 4 made", "2 overtricks", "nil failed"
function partText(what, points, result, s) {
  const bid = result.bids[s];
  const over = result.tricks[s] - bid;
  if (what === "bid made") return `bid ${bid} made`;
  if (what === "set") return `bid ${bid} missed (${result.tricks[s]} taken)`;
  if (what === "overtricks") return `${over} overtrick${over === 1 ? "" : "s"}`;
  if (what === "bags") return "bags reached the limit";
  if (what === "nil") return points > 0 ? "nil made" : "nil failed";
  return what;
}

// A3.6: bids, tricks and the hand's score for everyone, how it came, then the totals
function summary(root, msg, ctx, result, breakdown) {
  const {el} = ctx;
  const bags = msg.view.rules.bag_limit != null;
  const over = msg.status === "finished";
  const panel = el("div", {class: "panel summary", role: "dialog", "aria-label": "hand summary"},
    el("h2", {}, `Hand ${result.hand_number} summary`),
    el("table", {},
      el("thead", {}, el("tr", {}, el("th", {}, "Player"), el("th", {}, "Bid"),
        el("th", {}, "Won"), el("th", {}, "Hand"), bags ? el("th", {}, "Bags") : null,
        el("th", {}, "Total"))),
      el("tbody", {}, [0, 1, 2, 3].map((s) => el("tr", {class: s === msg.seat ? "me" : ""},
        el("td", {}, ctx.playerName(s)),
        el("td", {}, result.bids[s] === 0 ? "Nil" : String(result.bids[s])),
        el("td", {}, String(result.tricks[s])),
        el("td", {class: result.points[s] < 0 ? "neg" : "pos"},
          (result.points[s] > 0 ? "+" : "") + result.points[s]),
        bags ? el("td", {}, String(result.bags[s])) : null,
        el("td", {}, String(result.totals[s])))))),
    breakdown ? el("ul", {class: "breakdown", "aria-label": "how the points came"},
      breakdown.map((parts, s) => el("li", {"data-seat": s}, el("b", {},
        `${ctx.playerName(s)}: `), parts.map(([what, points], i) => el("span", {
        class: points < 0 ? "neg" : "pos", "data-points": points},
      `${i ? ", " : ""}${partText(what, points, result, s)} ${points > 0 ? "+" : ""}${points}`
        .replace("-", "\u2212"))), parts.length > 1 ? ` = ${result.points[s] > 0 ? "+" : ""}` +
        `${result.points[s]}`.replace("-", "\u2212") : null))) : null,
    over ? el("p", {class: "final"}, `Game over: ${ctx.wonText(msg.view.winners
      .map(ctx.playerName))}`) : null);
  const overlay = el("div", {class: "overlay"}, panel);
  root.append(overlay);
  return {overlay, panel, label: over ? "See the final table" : "Next hand"};
}

export async function show(root, msg, ctx) {
  const ev = msg.event;
  if (ev && ev.trick) {
    // A3.3: the four cards stay until the player goes on
    const result = ev.hand_over ? msg.view.last_hand : null;
    const frozen = {trick: ev.trick, winner: ev.winner, summary: result};
    // a watcher has nobody to wait for: the table goes on after a moment
    const hold = msg.seat === null ? () => new Promise((r) => setTimeout(r, 1500))
      : (host, label, id, place) => ctx.waitClick(host, label, id, place);
    const {felt, foot} = draw(root, msg, ctx, frozen);
    await hold(felt, ev.hand_over ? "Hand summary" : "Next trick", "next-trick", foot);
    if (result) {
      const s = summary(root, msg, ctx, result, ev.breakdown);
      await hold(s.panel, s.label, "next-hand");
      s.overlay.remove();
    }
  }
  draw(root, msg, ctx);
}
