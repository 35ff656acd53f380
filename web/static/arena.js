// The bot arena (#/arena): upload a trained bot, the leaderboard of each game and rules,
// your bots (and why one was taken off), and a table against any uploaded bot.
// The server checks and runs everything (web/arena.py); this page only shows and asks.

import {api, el, toast} from "./app.js";
import {botLabel, presetLabel, RULES} from "./help.js";

// a mean with its 95% interval; with one sample there is none, and that is said
const pct = (e) => e ? `${(e.mean * 100).toFixed(0)}%` +
  (e.ci95 == null ? " (± ?)" : ` ± ${(e.ci95 * 100).toFixed(0)}`) : "-";
const num = (e, digits = 1) => e ? e.mean.toFixed(digits) +
  (e.ci95 == null ? " (± ?)" : ` ± ${e.ci95.toFixed(digits)}`) : "-";
const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;
const title = (game) => RULES[game]?.title ?? game.replace("_", " ");


function readFile(file, how) {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(reader.result);
    reader.onerror = () => reject(new Error(`cannot read ${file.name}`));
    if (how === "text") reader.readAsText(file); else reader.readAsDataURL(file);
  });
}

export async function showArena($app, me, games, pick = null) {
  // "Spades, Killer (first over 250)"; the player count where it is not the preset's own
  const divisionName = (d) => {
    const own = games.find((g) => g.game === d.game)?.presets
      .find((p) => p.name === d.preset)?.players;
    return `${title(d.game)}, ${presetLabel(d.game, d.preset)}` +
      (own === d.players ? "" : `, ${d.players} players`);
  };
  const info = await api("/api/arena");
  const limits = info.limits;
  const divisions = info.divisions;
  const choose = el("select", {id: "arena-division"}, divisions.map((d, i) =>
    el("option", {value: i}, divisionName(d) + (d.uploads ? ` (${d.uploads} uploaded)` : ""))));
  // the division asked for (after an upload), else the first with uploads
  const wanted = divisions.findIndex((d) => pick && d.game === pick.game &&
    d.preset === pick.preset && d.players === pick.players);
  const first = wanted >= 0 ? wanted : divisions.findIndex((d) => d.uploads);
  choose.value = String(first >= 0 ? first : 0);
  const again = (d) => showArena($app, me, games, d);
  const board = el("div", {id: "arena-board"});
  const mine = el("div", {id: "arena-mine"});

  const playAgainst = (d, spec) => async () => {
    const g = games.find((x) => x.game === d.game);
    const preset = g.presets.find((p) => p.name === d.preset);
    const rules = preset.players === d.players ? {} : {num_players: d.players};
    try {
      const others = (await api("/api/bots", {game: d.game, preset: d.preset, rules}))
        .default_bot;
      const seats = ["me", `bot:${spec}`, ...Array(d.players - 2).fill(`bot:${others}`)];
      const t = await api("/api/tables", {game: d.game, preset: d.preset, rules, seats});
      location.hash = `#/table/${t.table}`;
    } catch (x) { toast(x.message); }
  };

  const drawBoard = async () => {
    const d = divisions[Number(choose.value)];
    let b;
    try {
      b = await api(`/api/arena/leaderboard?game=${encodeURIComponent(d.game)}` +
        `&preset=${encodeURIComponent(d.preset)}&players=${d.players}`);
    } catch (x) { board.replaceChildren(el("p", {class: "error"}, x.message)); return; }
    const names = Object.fromEntries(b.bots.map((r) => [r.bot, r.kind === "uploaded" ? r.name
      : botLabel(r.bot)]));
    // measured rows are numbered; provisional ones (too few deals) follow, unnumbered
    const rows = b.bots.map((r, i) => el("tr", {"data-bot": r.bot,
      class: r.provisional ? "provisional" : null},
      el("td", {}, r.rank && !r.provisional ? String(i + 1) : ""),
      el("td", {}, names[r.bot], el("small", {}, r.kind), r.provisional && r.rank
        ? el("small", {class: "prov", title: `fewer than ${b.provisional} deals: not ranked ` +
          "above a bot with more"}, `provisional: ${plural(r.deals, "deal")}`) : null,
        r.kind === "uploaded"
        ? el("button", {class: "small play-against", onclick: playAgainst(d, r.bot)},
          "Play against it") : null),
      el("td", {}, String(r.deals)), el("td", {}, pct(r.win)), el("td", {}, num(r.score)),
      el("td", {}, num(r.rank, 2))));
    const vs = b.head_to_head.map((h) => el("tr", {},
      el("td", {}, names[h.bot] ?? h.bot), el("td", {}, names[h.vs] ?? h.vs),
      el("td", {}, pct(h)), el("td", {}, String(h.n))));
    board.replaceChildren(...[
      el("p", {class: "hint"}, `${plural(b.deals, "deal")} counted ` +
        `(${plural(b.games, "game")})` + (b.playing ? `; ${b.playing} being played now` : "") +
        `. Each uploaded bot plays ${plural(b.target, "deal")}, each in every seat. Ranked ` +
        `by average place; ± is a 95% interval over deals. A bot with fewer than ` +
        `${plural(b.provisional, "deal")} is provisional: listed after the measured ones, ` +
        "since a few deals are mostly luck."),
      el("div", {class: "scroll"}, el("table", {class: "arena-table", id: "arena-ranks"},
        el("thead", {}, el("tr", {}, ["#", "bot", "deals", "won", "mean score",
          "avg place"].map((h) => el("th", {}, h)))),
        el("tbody", {}, rows))),
      vs.length ? el("h3", {}, "Head to head: how often the first finished above the second")
        : null,
      vs.length ? el("div", {class: "scroll"}, el("table", {class: "arena-table",
        id: "arena-h2h"}, el("thead", {}, el("tr", {}, ["bot", "against", "above", "deals"]
        .map((h) => el("th", {}, h)))), el("tbody", {}, vs))) : null].filter(Boolean));
  };

  const drawMine = async () => {
    const {bots} = await api("/api/arena/mine");
    mine.replaceChildren(bots.length ? el("ul", {}, bots.map((b) => el("li", {
      class: "table-line", "data-bot": b.spec},
    el("span", {}, `${b.name}: ${divisionName(b)} - ${b.status}`,
      b.reason ? el("small", {class: "reason"}, b.reason) : null),
    b.status === "listed" ? el("button", {class: "small withdraw", onclick: async () => {
      try { await api(`/api/arena/bots/${b.id}/withdraw`, {}); } catch (x) { toast(x.message); }
      again(divisions[Number(choose.value)]);
    }}, "Withdraw") : null))) : el("p", {class: "hint"}, "None yet."));
  };

  const name = el("input", {id: "arena-name", maxlength: 32, placeholder: "a name for it"});
  const onnx = el("input", {id: "arena-onnx", type: "file", accept: ".onnx"});
  const card = el("input", {id: "arena-card", type: "file", accept: ".json"});
  const err = el("p", {class: "error", role: "alert", id: "arena-error"});
  const go = el("button", {type: "submit", id: "arena-upload"}, "Upload");
  const upload = async (e) => {
    e.preventDefault();
    err.textContent = "";
    if (!onnx.files[0] || !card.files[0]) { err.textContent = "choose both files"; return; }
    go.disabled = true;
    go.textContent = "Checking...";
    try {
      let cardJson;
      try { cardJson = JSON.parse(await readFile(card.files[0], "text")); }
      catch { throw new Error("the card is not JSON"); }
      const model = (await readFile(onnx.files[0], "data")).split(",", 2)[1] ?? "";
      const r = await api("/api/arena/bots", {name: name.value.trim(), card: cardJson, model});
      toast(`${name.value.trim()} passed the checks and is listed`);
      again(r);
      return;
    } catch (x) { err.textContent = x.message; }
    go.disabled = false;
    go.textContent = "Upload";
  };
  choose.addEventListener("change", drawBoard);

  $app.replaceChildren(el("div", {class: "lobby arena"},
    el("section", {class: "panel"}, el("h2", {}, "Bot arena"),
      el("p", {class: "hint"}, "Trained bots play each other and the house bots on the " +
        "same cards from every seat. Pick a game to see its ranking."),
      el("label", {}, "Game and rules", choose), board),
    el("section", {class: "panel"}, el("h2", {}, "Upload a bot"),
      el("p", {class: "hint"}, "The .onnx file and its .json card, as train exports them " +
        `(at most ${(limits.max_bytes / 2 ** 20).toFixed(0)} MiB). Before it plays, the ` +
        "server checks the card against its games, the network's operators, shapes and " +
        `outputs on sample deals, and its speed (${limits.check_move_seconds} s a move); ` +
        `in play it has ${limits.move_seconds} s a move and ${limits.memory_mib} MiB. A bot ` +
        "that fails, is late, or gives no number or an illegal move is taken off."),
      el("form", {id: "arena-form", onsubmit: upload},
        el("label", {}, "Name", name), el("label", {}, "Network (.onnx)", onnx),
        el("label", {}, "Card (.json)", card), err, go)),
    el("section", {class: "panel"}, el("h2", {}, "Your bots"), mine)));
  drawBoard();
  drawMine();
}
