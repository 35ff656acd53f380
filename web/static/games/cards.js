// Drawing playing cards, shared by every game's table. Card names are those of
// envs/cards.py: rank then suit ("AS", "10H", "2C"), jokers "LJ" and "BJ".

const SYMBOLS = {C: "\u2663", D: "\u2666", H: "\u2665", S: "\u2660"};
const RANKS = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"];

export function parseCard(name) {
  if (name === "BJ" || name === "LJ") {
    return {name, rank: name === "BJ" ? 14 : 13, suit: "J", label: name === "BJ" ? "BJ" : "LJ",
            symbol: "\u2605", red: name === "BJ"};
  }
  const suit = name.slice(-1);
  const label = name.slice(0, -1);
  return {name, rank: RANKS.indexOf(label), suit, label, symbol: SYMBOLS[suit],
          red: suit === "H" || suit === "D"};
}

export function isRed(suit) { return suit === "H" || suit === "D"; }

// A face-up card; clickable when onclick is given.
export function cardFace(name, {onclick = null, dim = false, extra = ""} = {}) {
  const c = parseCard(name);
  const node = document.createElement(onclick ? "button" : "div");
  node.className = `card${c.red ? " red" : ""}${onclick ? " legal" : ""}${dim ? " dim" : ""}` +
    (extra ? ` ${extra}` : "");
  node.dataset.card = name;
  node.setAttribute("aria-label", name);
  node.innerHTML = `<span class="corner">${c.label}<br>${c.symbol}</span>` +
    `<span class="pip">${c.symbol}</span>`;
  if (onclick) node.addEventListener("click", onclick);
  else node.setAttribute("aria-disabled", "true");
  return node;
}

export function cardBack(extra = "") {
  const node = document.createElement("div");
  node.className = `card back${extra ? ` ${extra}` : ""}`;
  return node;
}

// On a phone held upright a long hand takes two rows of bigger cards (the screen has the
// height for it), not one row of thin strips.
const UPRIGHT = matchMedia("(orientation: portrait) and (max-width: 600px)");

// A row whose width changes (the chat opening beside the table, a rotation) is fitted
// again, in the next frame (not inside the observer, which would report itself).
const widths = new WeakMap();
const resized = new ResizeObserver((entries) => {
  for (const e of entries) {
    if (widths.get(e.target) === e.contentRect.width) continue;
    widths.set(e.target, e.contentRect.width);
    requestAnimationFrame(() => { if (e.target.isConnected) fitRow(e.target); });
  }
});

// Overlap the cards of a row so that all fit its width.
export function fitRow(row) {
  resized.observe(row);
  const cards = [...row.children];
  if (cards.length < 2) return;
  const twoRows = row.classList.contains("hand") && UPRIGHT.matches && cards.length > 7 &&
    !cards[0].classList.contains("back");
  row.classList.toggle("two-rows", twoRows);
  if (twoRows) {
    for (const c of cards) c.style.marginLeft = "";
    return;
  }
  const w = cards[0].getBoundingClientRect().width;
  const room = row.clientWidth - w - 4;
  const step = Math.min(w * 1.05, room / (cards.length - 1));
  for (const c of cards.slice(1)) c.style.marginLeft = `${step - w}px`;
}

// keep every row of cards fitted when the window changes size (phone rotation)
window.addEventListener("resize", () => {
  for (const row of document.querySelectorAll(".hand, .backs")) fitRow(row);
});
