// Rules help for every game and preset, and the bots in words. The text follows
// the project's decided rules (docs/rules.md in the repository has every rule).

const SPADES_COMMON = [
  "Four players, each for themselves, 13 cards each; spades are trumps.",
  "Bidding: from the dealer's left, each player says how many tricks they will take. " +
    "Nil means none at all.",
  "Play: the player left of the dealer leads; everyone must follow the suit led if they " +
    "can, else may trump with a spade or throw any card. The highest spade wins the " +
    "trick, else the highest card of the suit led; the winner leads next.",
];

const GIN_COMMON = [
  "Ten cards each; the rest is the stock, and its top card starts the discard pile.",
  "Your turn: take the top card of the pile or of the stock, then discard one card. " +
    "A card just taken from the pile may not go straight back.",
  "Melds: three or four cards of one rank, or three or more in a row of one suit. The " +
    "ace is low only: A-2-3 is a run, Q-K-A is not. No card counts in two melds.",
  "Deadwood: the cards outside your melds, counted A = 1, J Q K = 10, others their " +
    "number. The table always splits your hand the best way for you.",
  "Knock: instead of a plain discard, discard and knock when the deadwood left is at " +
    "most 10. Deadwood 0 is gin. The hand ends; the least deadwood wins it and scores " +
    "the others' deadwood less its own (with two players, the difference).",
  "If the stock runs out, the hand is dead: nobody scores.",
  "The game goes to 100: the first to reach 100 or more wins (if two pass it in the " +
    "same hand, the higher total wins).",
];

const SEVENS_COMMON = [
  "2 to 9 players. Each gets 51 divided by the number of players (rounded down) " +
    "cards; the rest go face up onto the table first, counting their first value " +
    "and scoring for nobody.",
  "The game's parameters are shown at the top all game: each card symbol's value " +
    "(some have two, and you pick which when you play one), and three point amounts.",
  "Play one card: of the other colour than the last card played if you have one, " +
    "else of another suit if you can, else any card.",
  "The running total moves by the card's value. Then, if the total is divisible by 7 " +
    "(0 counts), or contains the digit 7 (minus signs ignored), or both, you earn the " +
    "matching amount - which can be negative.",
  "The game ends when every hand is empty; the most points wins (ties share the rank).",
];

const AUCTION_COMMON = [
  "The 13 diamonds are shuffled face down as the prizes. The first seat bids with " +
    "hearts, the second with clubs, and with three players the third with spades.",
  "Each round a prize is up for auction: everyone picks one of their cards in secret, " +
    "then all bids are shown at once. The single highest card takes the prize. Bid " +
    "cards are gone for good.",
  "Values: A 14, K 13, Q 12, J 11, the others their number. Your score is the value " +
    "of the prizes you took; the highest score wins, and equal scores are a draw.",
  "Ties for the highest bid follow the table's tie rule: discard - the prize goes to " +
    "nobody; carry - it stays and goes with the next prize to the next winner; split " +
    "- the tied players each score half its value.",
];

export const RULES = {
  spades: {
    title: "Spades",
    common: SPADES_COMMON,
    presets: {
      killer: {
        label: "Killer (first over 250)",
        line: "Make your bid exactly: every trick over it costs 10 points.",
        what: "Killer spades: the rules of the original requirements.",
        rules: [
          "Bids: nil (0) up to 13.",
          "Spades may not be led until they are broken - a spade was played on a trick " +
            "led in another suit - unless the leader holds only spades.",
          "Scoring: make your bid exactly: +10 per trick bid. Fewer tricks: -10 per " +
            "trick bid. More tricks: +10 per trick bid, -10 per extra trick.",
          "Nil: +100 if you take no trick, -100 if you take any.",
          "The game ends after a hand in which someone's total is over 250 (250 " +
            "exactly does not end it). A tie at the top plays another hand.",
        ],
      },
      cutthroat: {
        label: "Cutthroat (first to 500)",
        line: "Extra tricks score 1 each but pile up: every 5 cost 50 points.",
        what: "Cutthroat spades: the usual cutthroat rules, with bags.",
        rules: [
          "Bids: nil, or 1 to 13; the four bids may not add up to 13, so the last " +
            "bidder may not bid the one number that would make 13.",
          "Spades may be led at any time.",
          "Scoring: make your bid or more: +10 per trick bid, +1 per extra trick, and " +
            "each extra trick is a bag. Every time your bags reach 5: -50. Fewer tricks " +
            "than bid: -10 per trick bid.",
          "Nil: +50 if you take no trick, -50 if you take any (those tricks make no bags).",
          "The game ends after a hand in which someone reaches 500 or more. A tie at " +
            "the top plays another hand.",
        ],
      },
    },
  },
  gin_rummy: {
    title: "Gin Rummy",
    common: GIN_COMMON,
    presets: {
      seed: {
        label: "Original rules (2-4 players)",
        line: "No bonuses, no laying off: the least deadwood wins the hand.",
        what: "Original rules: the game of the original assignment, for 2 to 4 players.",
        rules: [
          "No bonuses and no layoffs. A tie for the least deadwood goes to the knocker " +
            "(else to the first tied player after the knocker).",
          "The hand is dead only when the stock is empty.",
        ],
      },
      standard: {
        label: "Standard (2 players)",
        line: "The usual two-player game: gin bonus, laying off, undercuts.",
        what: "Standard: the usual two-player rules of other card libraries.",
        rules: [
          "Two players only.",
          "Gin bonus: +25 for winning with gin.",
          "Layoffs: after a knock (not after gin), the other player lays deadwood cards " +
            "off onto the knocker's melds.",
          "Undercut: if the other player ends with as little deadwood as the knocker or " +
            "less, they win the hand and score 25 more.",
          "The hand is dead when only two stock cards are left.",
        ],
      },
    },
  },
  sevens: {
    title: "Sevens",
    common: SEVENS_COMMON,
    presets: {
      random: {
        label: "Surprise values",
        line: "Card values and points are drawn anew every game: see the top of the table.",
        what: "Surprise values: new card values and points for every game.",
        rules: [
          "Each symbol's first value is a whole number from -6 to 13, and about half " +
            "of the symbols get a second one. Each point amount is drawn from -10 to 10.",
        ],
      },
      classic: {
        label: "Classic values",
        line: "Cards count their number, faces 10, the ace 1 or 11.",
        what: "Classic values: the same for every game.",
        rules: [
          "Cards count their number, J Q K count 10, and the ace 1 or 11 (your choice).",
          "A total divisible by 7: +5; containing a 7: +3; both: +20.",
        ],
      },
    },
  },
  blind_auction: {
    title: "Blind Auction",
    common: AUCTION_COMMON,
    presets: {
      "2p": {label: "2 players", line: "13 prizes; a tie for the highest bid wins nothing.",
        what: "Two players, 13 rounds; a tie for the highest bid wins nothing.", rules: []},
      "3p": {label: "3 players", line: "13 prizes; a tie for the highest bid wins nothing.",
        what: "Three players, 13 rounds; a tie for the highest bid wins nothing.", rules: []},
    },
  },
};

const TIE_WORDS = {discard: "a tied bid wins nothing", carry: "a tied prize goes with the next",
  split: "tied bidders share the prize"};

// a table's tie rule in words ("a tied bid wins nothing")
export function tieText(rule) {
  return TIE_WORDS[rule] ?? `ties: ${rule}`;
}

// a preset in words: "Killer (first over 250)", and its one line; the id where unknown
export function presetLabel(game, preset) {
  return RULES[game]?.presets[preset]?.label ?? preset;
}

export function presetLine(game, preset) {
  return RULES[game]?.presets[preset]?.line ?? "";
}

// what a table's rule changes say, in words
export function changesText(game, rules = {}) {
  const out = [];
  if (rules.max_hands) out.push(`at most ${rules.max_hands} hand${rules.max_hands > 1 ? "s" : ""}`);
  if (rules.num_players) out.push(`${rules.num_players} players`);
  if (rules.cards_per_suit) {
    out.push(`${rules.cards_per_suit} cards a suit (2 to ${rules.cards_per_suit + 1}), ` +
      `${rules.cards_per_suit} rounds`);
  }
  if (rules.tie_rule) out.push(TIE_WORDS[rules.tie_rule] ?? `ties: ${rules.tie_rule}`);
  if (rules.target) out.push(`target ${rules.target}`);
  return out.join(", ");
}

// what ends the game, in words ("first over 250"; "one hand" for a one-hand table, whose
// header claims no target)
export function targetText(rules) {
  if (!rules) return "";
  if (rules.max_hands === 1) return "one hand";
  if (rules.target == null) return "";
  const to = rules.target_inclusive === false ? `first over ${rules.target}`
    : `first to ${rules.target}`;
  return rules.max_hands ? `${to}, at most ${rules.max_hands} hands` : to;
}

// the race to the target: "first over 250: 180 / 120 / 90 / 60" (scores in seat order)
export function progressText(rules, scores) {
  const what = targetText(rules);
  if (!what || rules.max_hands === 1 || !scores) return what;
  return `${what}: ${scores.join(" / ")}`;
}

// [level, nickname, what it does] of each bot: levels a newcomer can pick by
const BOTS = {
  random: ["Beginner", "random", "plays any legal move at random: the easiest opponent"],
  "spades/spade-count": ["Easy", "spade counter", "bids the number of spades it holds; " +
    "plain play"],
  "spades/count-bid": ["Easy", "high-card counter", "bids by its high cards (A 1, K 1/2, " +
    "Q 1/4) and long spades; plain play"],
  "spades/modified-count": ["Medium", "careful bidder", "also values short side suits, bids " +
    "nil with weak hands and tries to set your nil"],
  "spades/rule": ["Medium", "by the book", "a plain rule bot: bids by count, leads by the book"],
  "spades/expert": ["Hard", "card counter", "remembers every card, knows who is out of a " +
    "suit, ducks and attacks nils"],
  "spades/search": ["Hardest", "thinks ahead, slow", "the hard bot, trying each move on many " +
    "possible deals first: the strongest, and slow"],
  "gin_rummy/simple": ["Easy", "simple", "takes the up card only to meld, throws its highest " +
    "loose card, knocks as soon as it may"],
  "gin_rummy/expert": ["Hard", "card counter", "tracks the cards, looks a draw ahead, avoids " +
    "feeding you, and knocks when it pays"],
  "gin_rummy/search": ["Hardest", "thinks ahead, slow", "the hard bot, trying each move on " +
    "many possible deals first: strong, and slow"],
  "sevens/greedy": ["Easy", "grabs points", "takes the most points it can right now"],
  "sevens/lookahead": ["Medium", "looks ahead", "points now, less what the next player could " +
    "score in reply"],
  "blind_auction/high-early": ["Easy", "big spender", "bids its highest card, to win the " +
    "early prizes"],
  "blind_auction/save-high": ["Easy", "saver", "bids its lowest card, and its highest when " +
    "prizes are carried"],
  "blind_auction/match": ["Medium", "matcher", "bids the card nearest the prize's expected " +
    "value"],
  "blind_auction/mirror": ["Medium", "mirror", "beats your middle card cheaply if it can, " +
    "else throws its lowest"],
  "blind_auction/equilibrium": ["Perfect", "game theory", "plays the exact game-theory " +
    "optimum (2 players, 8 cards a suit or fewer)"],
};

// [label, what it does] of a bot spec ("Hard (card counter)"); the server's own line for
// any other bot. The spec stays the bot's id in every request.
export function botWords(spec, serverText = "") {
  const b = BOTS[spec];
  if (b) return [`${b[0]} (${b[1]})`, b[2]];
  if (spec.startsWith("arena:")) return ["Uploaded bot", serverText || "a network from the arena"];
  if (spec.startsWith("checkpoint:")) {
    return ["Trained network", `learned by self-play${serverText ? ` - ${serverText}` : ""}`];
  }
  return [spec.split("/").pop(), serverText];
}

export function botLabel(spec) {
  const [name] = botWords(spec);
  return spec.startsWith("checkpoint:") ? `${name} (${spec.slice(11).replace(".onnx", "")})`
    : name;
}

// a bot's level alone, for the players' name boxes ("Hard"; "Trained" for a network)
export function botLevel(spec) {
  if (BOTS[spec]) return BOTS[spec][0];
  if (spec.startsWith("arena:")) return "Uploaded";
  return spec.startsWith("checkpoint:") ? "Trained" : spec.split("/").pop();
}

// The rules of one game (and preset), as an overlay with a close button.
export function showRules(el, game, preset = null, changes = {}) {
  const g = RULES[game];
  if (!g) return;
  const presets = Object.entries(g.presets);
  const close = () => overlay.remove();
  const body = el("div", {class: "panel rules-help", role: "dialog", "aria-label": "rules"},
    el("h2", {}, `${g.title}: the rules`),
    el("ul", {}, g.common.map((line) => el("li", {}, line))),
    presets.map(([name, p]) => el("section", {class: name === preset ? "current" : ""},
      el("h3", {}, `${p.label ?? name}${name === preset ? " (this table)" : ""}`),
      el("p", {}, p.what), p.rules.length ? el("ul", {}, p.rules.map((r) => el("li", {}, r)))
        : null)),
    preset && changesText(game, changes) ? el("p", {class: "hint"},
      `This table changes: ${changesText(game, changes)}.`) : null,
    el("p", {class: "hint"}, "Every move is checked by the server; the full rules page " +
      "is docs/rules.md."),
    el("button", {id: "rules-close", onclick: close}, "Close"));
  const overlay = el("div", {class: "overlay rules-overlay", onclick: (e) => {
    if (e.target === overlay) close();
  }}, body);
  document.body.append(overlay);
}

// Every game word the table shows, in one plain sentence: a tap (or a click) on the word
// or chip shows it, with a link to the game's whole rules (app.js markTerms). Keys are
// lower case; the longest match wins ("spades broken" before "spades").
export const GLOSSARY = {
  "trick": "One card from each player in turn; the highest card of the suit led (or the " +
    "highest spade) wins the trick.",
  "tricks": "One card from each player in turn; the highest card of the suit led (or the " +
    "highest spade) wins the trick.",
  "lead": "Playing the first card of a trick; the others must follow its suit if they can.",
  "nil": "A bid of zero tricks: 100 points if you take none, minus 100 if you take any.",
  "bid": "How many tricks you say you will take this hand; you score only if you make it.",
  "bids": "How many tricks each player said they would take this hand.",
  "overtricks": "Tricks taken beyond your bid: a point each now, but they add up as bags.",
  "overtrick": "A trick taken beyond your bid: a point now, but it adds up as a bag.",
  "bags": "Overtricks counted over the game: every 10 bags cost 100 points.",
  "bag": "An overtrick counted over the game: every 10 bags cost 100 points.",
  "spades broken": "A spade has been played, so spades may now be led.",
  "spades not broken yet": "Nobody has played a spade yet, so you may lead one only when " +
    "you hold nothing else.",
  "d": "The dealer of this hand; the player to the dealer's left bids and leads first.",
  "dealer": "The dealer of this hand; the player to the dealer's left bids and leads first.",
  "deadwood": "Cards in your hand that are in no meld; their points count against you.",
  "meld": "Three or more cards of one rank, or three or more in a row in one suit.",
  "melds": "Sets of three or more cards of one rank, or three or more in a row in one suit.",
  "knock": "End the hand when your deadwood is low enough; the hands are then compared.",
  "stock": "The face-down pile you may draw from instead of taking the up card.",
  "up card": "The face-up top card of the discards, which you may take instead of drawing.",
  "laid off": "Cards the other player added to your melds, so they no longer count as " +
    "their deadwood.",
  "lay off": "Add your loose cards to the knocker's melds so they no longer count as " +
    "deadwood.",
  "gin": "Knocking with no deadwood at all: a bonus, and nothing can be laid off.",
  "undercut": "The other player has as little deadwood as the knocker or less, and wins " +
    "the hand with a bonus.",
  "surprise values": "Each card counts a value drawn for this game (shown beside it), not " +
    "its face.",
  "multiple of 7": "A running total that lands on 7, 14, 21 and so on scores for the " +
    "player who made it.",
  "tied bid": "When the highest bids are equal, nobody takes the prize card (or it is " +
    "split, as the rules say).",
  "a tied bid wins nothing": "When the highest bids are equal, nobody takes the prize card.",
};
