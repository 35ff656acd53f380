// The page: sign in, lobby, and the table (drawn by a per-game module in games/).
// The server is the authority; this page only shows what its seat is told and
// sends the moves the player clicks.

import {botLabel, botLevel, botWords, changesText, GLOSSARY, presetLabel, presetLine, RULES,
  showRules} from "./help.js";

const $app = document.getElementById("app");
const params = new URLSearchParams(location.search);
// milliseconds between other players' moves, so a person can follow them
const PACE = Number(params.get("pace") ?? 450);

let me = null;
let games = [];
let lobbyTimer = null;

// ------------------------------------------------------------------ helpers
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === false || v == null) continue;
    if (k === "class") node.className = v;
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else if (k === "text") node.textContent = v;
    else node.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat(Infinity)) {
    if (c != null && c !== false) node.append(c instanceof Node ? c : document.createTextNode(c));
  }
  return node;
}

export function toast(text, ms = 4000, kind = "") {
  const t = document.getElementById("toast");
  t.textContent = text;
  t.className = kind;
  t.hidden = false;
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => { t.hidden = true; }, ms);
}

export async function api(path, body) {
  const opts = body === undefined ? {} : {
    method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify(body),
  };
  let res;
  try { res = await fetch(path, opts); }
  catch (err) {  // this server is gone: the page moves to a live one (the socket told us)
    const other = socket.peers.find((u) => u !== location.origin);
    if (!other) throw err;
    if (!api.moving) {  // once: a view's requests fail together, and a second move aborts the first
      api.moving = other;
      toast(`This server stopped: moving to ${other}...`, 8000);
      location.assign(other + location.pathname + location.search + location.hash);
    }
    throw new Error("this server stopped; moving to another");
  }
  const data = await res.json().catch(() => ({}));
  if (!res.ok) throw new Error(data.error || `${res.status} ${res.statusText}`);
  return data;
}

export function playerName(p, seat, mySeat) {
  if (seat === mySeat) return "You";
  if (p.open) return "(open)";
  if (p.bot) return p.label ?? `Bot ${seat + 1}`;  // an uploaded bot keeps its name
  return p.name;
}

// "Bot 4 won." / "You won." / "You and Bot 2 won (a tie)." - the one wording of a result
export function wonText(names) {
  if (!names.length) return "Nobody won.";
  return `${names.join(" and ")} won${names.length > 1 ? " (a tie)" : ""}.`;
}

const when = (t) => new Date(t * 1000).toLocaleString([], {
  weekday: "short", hour: "2-digit", minute: "2-digit"});
const gameTitle = (game) => RULES[game]?.title ?? game.replace("_", " ");
// "Spades, Killer (first over 250)"
const gameWords = (game, preset) => `${gameTitle(game)}, ${presetLabel(game, preset)}`;
const INVITE = /^#\/invite\/([A-Za-z0-9_-]{32})$/;
const minutes = (s) => {
  const m = Math.round(Math.abs(s) / 60);
  return m < 1 ? "less than a minute" : `${m} minute${m === 1 ? "" : "s"}`;
};

// ------------------------------------------------------------------- router
async function route() {
  clearInterval(lobbyTimer);
  if (!me) {
    try { me = (await api("/api/session")).user; } catch { me = null; }
  }
  drawTopbar();
  const invite = location.hash.match(INVITE);
  if (!me) {
    tableView.close();
    return showAuth("signin", invite ? invite[1] : null);
  }
  if (!games.length) games = (await api("/api/games")).games;
  if (invite) return acceptInvite(invite[1]);
  const m = location.hash.match(/^#\/table\/(\d+)/);
  document.body.dataset.view = m ? "table" : "lobby";
  if (m) return showTable(Number(m[1]));
  if (location.hash.startsWith("#/arena")) {
    tableView.close();
    return (await import("/static/arena.js")).showArena($app, me, games);
  }
  tableView.close();
  return showLobby();
}

// An invite link seats whoever opens it (an account or a guest); the token leaves the
// address bar and the history at once.
async function acceptInvite(token) {
  try {
    const t = await api("/api/invite", {token});
    location.replace(`#/table/${t.table}`);
  } catch (x) {
    toast(x.message, 6000);
    location.replace("#/");
  }
}

function drawTopbar() {
  const who = document.getElementById("who");
  who.replaceChildren(me ? me.name : "");
  if (me?.guest) {
    who.append(" (guest) ", el("button", {class: "link", id: "keep",
      title: "Keep your tables and results: make an account", onclick: () => {
        tableView.close();
        showAuth("signup");
      }}, "Make an account"));
  }
  document.getElementById("signout").hidden = !me;
}
window.addEventListener("hashchange", route);
document.getElementById("signout").addEventListener("click", async () => {
  try { await api("/api/signout", {}); } catch { /* signed out anyway */ }
  me = null;
  tableView.close();
  socket.close();
  location.hash = "#/";
  route();
});

// Escape closes the topmost overlay: the rules, the chat, the game over panel, or goes on
// from a held summary (its button)
document.addEventListener("keydown", (e) => {
  if (e.key !== "Escape") return;
  const rules = [...document.querySelectorAll(".rules-overlay")].pop();
  if (rules) { rules.remove(); return; }
  const chat = document.getElementById("chat");
  if (chat && !chat.hidden) {
    chat.hidden = true;
    chat.parentElement?.classList.remove("chat-open");
    return;
  }
  const over = document.getElementById("game-over");
  if (over) { over.remove(); return; }
  const held = document.querySelector(".overlay button.continue");
  if (held) held.click();
});

// --------------------------------------------------------------------- auth
// Two forms, one shown at a time, so Enter always does what the shown form says.
function showAuth(mode = "signin", invite = null) {
  const signup = mode === "signup";
  const adopting = signup && me?.guest;
  const err = el("p", {class: "error", role: "alert"});
  const name = el("input", {name: "name", autocomplete: "username", required: true,
                            minlength: 3, maxlength: 24, placeholder: "user name"});
  const pw = el("input", {name: "password", type: "password", required: true, minlength: 8,
                          autocomplete: signup ? "new-password" : "current-password",
                          placeholder: "password (8+ characters)"});
  const submit = async (e) => {
    e.preventDefault();
    try {
      me = await api(signup ? "/api/signup" : "/api/signin",
        {name: name.value.trim(), password: pw.value});
      if (adopting) location.hash = "#/";
      route();
    } catch (x) { err.textContent = x.message; }
  };
  const tab = (which, label) => el("button", {type: "button", id: `tab-${which}`,
    class: `tab${mode === which ? " on" : ""}`, "aria-pressed": String(mode === which),
    onclick: () => showAuth(which, invite)}, label);
  // "Play now": a guest session and, unless a friend's link is open, a game against bots
  // at once (Spades, the first preset, the strongest bot); the lobby is a click away
  const guest = async () => {
    try {
      me = await api("/api/guest", invite ? {invite} : {});
      if (me.table) return location.replace(`#/table/${me.table}`);
      if (me.invite_error) toast(me.invite_error, 6000);
      if (!invite) {
        const t = await api("/api/quickmatch", {game: "spades", fill_after: 0});
        return location.replace(`#/table/${t.table}`);
      }
      location.replace("#/");  // the link was over: the lobby (the hash change routes)
    } catch (x) { err.textContent = x.message; }
  };
  $app.replaceChildren(el("section", {class: "panel auth"},
    el("h1", {}, adopting ? "Keep your results" : "Card table"),
    el("p", {}, adopting ? "Choose a name and a password: your tables and results come " +
      "with you." : "Play Spades, Gin Rummy, Sevens and Blind Auction against people and bots."),
    invite ? el("p", {class: "invited"}, "You are invited to a table: sign in, make an " +
      "account, or play as a guest to take your seat.") : null,
    adopting ? null : el("div", {class: "tabs", role: "group"}, tab("signin", "Sign in"),
      tab("signup", "New account")),
    el("form", {id: "auth-form", onsubmit: submit},
      el("label", {}, "Name", name), el("label", {}, "Password", pw), err,
      el("div", {class: "row"},
        el("button", {type: "submit", id: "auth-go"}, signup ? "Create account" : "Sign in")),
      signup ? el("p", {class: "hint"}, "3 to 24 letters, digits, '.', '_' or '-'; a " +
        "password of 8 characters or more.") : null),
    adopting ? el("a", {href: "#/", class: "button", id: "auth-back"}, "Back to the lobby")
      : el("div", {class: "guest-box"},
        el("button", {type: "button", id: "guest-go", onclick: guest}, "Play now as a guest"),
        el("p", {class: "hint"}, invite ? "No account needed: take the seat your friend " +
          "kept for you. Make an account later to keep your results." : "No account " +
          "needed: a game of Spades against bots starts at once (the lobby has the other " +
          "games). Make an account later to keep your results."))));
  name.focus();
}

// -------------------------------------------------------------------- lobby
const presetOf = (g, name) => g.presets.find((p) => p.name === name) ?? g.presets[0];

function botOptions(g, specs, seat = null) {
  return specs.map((b) => el("option", {value: seat === null ? b : `bot:${b}`,
    title: botWords(b, g.bots[b])[1]}, seat === null ? botLabel(b) : `seat ${seat}: ` +
    `${botLabel(b)} (bot)`));
}

// a line under a bot menu saying what the chosen bot does
function botHint(info, select) {
  const hint = el("p", {class: "hint bot-hint"});
  const update = () => {
    const spec = select.value.replace(/^bot:/, "");
    hint.textContent = spec && spec !== "open" ? `${botLabel(spec)}: ` +
      `${botWords(spec, info().bots[spec])[1]}.` : "";
  };
  select.addEventListener("change", update);
  return {hint, update};
}

function gameSelect(id) {
  const game = el("select", {id: `${id}-game`}, games.map((g) => el("option", {value: g.game},
    gameTitle(g.game))));
  if (games.some((g) => g.game === "spades")) game.value = "spades";
  const preset = el("select", {id: `${id}-preset`});
  const bot = el("select", {id: `${id}-bot`});
  const info = () => games.find((x) => x.game === game.value);
  const botText = botHint(info, bot);
  const fillBots = () => {
    const p = presetOf(info(), preset.value);
    bot.replaceChildren(...botOptions(info(), p.bots));
    if (p.default_bot) bot.value = p.default_bot;
    botText.update();
  };
  const fill = () => {
    preset.replaceChildren(...info().presets.map((p) => el("option", {value: p.name,
      title: presetLine(game.value, p.name)}, presetLabel(game.value, p.name))));
    fillBots();
    presetHint.textContent = presetLine(game.value, preset.value);
  };
  const presetHint = el("p", {class: "hint preset-hint", id: `${id}-preset-hint`});
  game.addEventListener("change", fill);
  preset.addEventListener("change", () => {
    fillBots();
    presetHint.textContent = presetLine(game.value, preset.value);
  });
  fill();
  const rules = el("button", {type: "button", class: "link rules-link", id: `${id}-rules`,
    onclick: () => showRules(el, game.value, preset.value)}, "Rules of this game");
  return {game, preset, presetHint, bot, botHint: botText.hint, rules, info};
}

// The length and player choices a table may change: the rules fields each game declares
// editable (server: web.lobby, envs.rules_base.editable), and each preset's player counts.

function ruleChoices(custom) {
  const players = el("select", {id: "custom-players"});
  const length = el("select", {id: "custom-length"});
  const playersLabel = el("label", {}, "Players", players);
  const lengthLabel = el("label", {}, "Length", length);
  const fill = () => {
    const g = custom.info();
    const p = presetOf(g, custom.preset.value);
    const counts = p.player_counts;
    players.replaceChildren(...counts.map((n) => el("option", {value: n}, `${n} players`)));
    players.value = String(p.players);
    playersLabel.hidden = counts.length < 2;
    const lengths = g.rule_fields.includes("cards_per_suit")
      ? [["", "13 rounds"], ["8", "8 rounds (cards 2 to 9)"], ["5", "5 rounds (cards 2 to 6)"]]
      : g.rule_fields.includes("max_hands")
        ? [["", "the whole game"], ["1", "one hand"], ["3", "at most 3 hands"]] : [];
    length.replaceChildren(...lengths.map(([v, t]) => el("option", {value: v}, t)));
    lengthLabel.hidden = !lengths.length;
  };
  const changes = () => {
    const g = custom.info();
    const out = {};
    if (!playersLabel.hidden && Number(players.value) !== presetOf(g, custom.preset.value)
      .players) out.num_players = Number(players.value);
    if (!lengthLabel.hidden && length.value) {
      out[g.rule_fields.includes("cards_per_suit") ? "cards_per_suit" : "max_hands"] =
        Number(length.value);
    }
    return out;
  };
  return {players, length, playersLabel, lengthLabel, fill, changes};
}

function showLobby() {
  const quick = gameSelect("quick");
  // bots at once by default: waiting for people is the choice
  const wait = el("select", {id: "quick-fill"},
    el("option", {value: "0", selected: true}, "play bots at once"),
    el("option", {value: "20"}, "wait 20 s for people, then bots"),
    el("option", {value: "60"}, "wait 1 min for people, then bots"),
    el("option", {value: "300"}, "wait 5 min for people, then bots"),
    el("option", {value: ""}, "only people (no bots)"));
  const lists = el("div", {class: "lists"});

  // a new table: rules, then as many seat menus as the rules have seats, each
  // offering the bots that can play those rules (the server says which)
  const custom = gameSelect("custom");
  const choices = ruleChoices(custom);
  const seatsBox = el("div", {class: "seats"});
  const seatHints = el("div", {});
  let asked = 0;
  const fillSeats = async () => {
    const ask = ++asked;
    seatsBox.dataset.asked = ask;  // the menus are up to date when "shown" equals it
    const g = custom.info();
    let answer;
    try {
      answer = await api("/api/bots", {game: g.game, preset: custom.preset.value,
                                       rules: choices.changes()});
    } catch (x) { toast(x.message); return; }
    if (ask !== asked) return;  // a later choice is on its way
    const old = [...seatsBox.querySelectorAll("select")].map((s) => s.value);
    seatsBox.replaceChildren(...Array.from({length: answer.players - 1}, (_, i) => {
      const select = el("select", {class: "seat-choice", "aria-label": `seat ${i + 2}`},
        el("option", {value: "open"}, `seat ${i + 2}: a person`),
        botOptions(g, answer.bots, i + 2));
      if (old[i] && [...select.options].some((o) => o.value === old[i])) select.value = old[i];
      return select;
    }));
    seatsBox.dataset.shown = ask;
    seatHints.replaceChildren(el("p", {class: "hint"}, answer.bots.length
      ? "Bots here can all play these rules." : "No bot can play these rules: invite people."));
  };
  const refill = () => { choices.fill(); fillSeats(); };
  custom.game.addEventListener("change", refill);
  custom.preset.addEventListener("change", refill);
  choices.players.addEventListener("change", fillSeats);
  choices.length.addEventListener("change", fillSeats);
  refill();

  const sched = gameSelect("sched");
  const start = el("input", {type: "datetime-local", id: "sched-start"});
  const soon = new Date(Date.now() + 15 * 60000);
  start.value = new Date(soon - soon.getTimezoneOffset() * 60000).toISOString().slice(0, 16);
  const players = el("input", {id: "sched-players", value: me.name,
                               placeholder: "names, comma-separated; bot:spades/expert for a bot"});
  const absent = el("select", {id: "sched-absent"},
    el("option", {value: "bot"}, "replace them with bots"),
    el("option", {value: "cancel"}, "cancel the game"));

  const enter = (t) => { location.hash = `#/table/${t.table}`; };
  const act = (fn) => async (e) => {
    e.preventDefault();
    try { enter(await fn()); } catch (x) { toast(x.message); }
  };
  const invitations = el("section", {class: "panel invitations", id: "invitations",
    role: "status", hidden: true});
  const scheduleForm = me.guest ? el("section", {class: "panel", id: "guest-note"},
    el("h2", {}, "Schedule a game"),
    el("p", {}, "Scheduling games with other people needs an account: guests play at once " +
      "against bots, or at a table a friend invites them to."),
    el("button", {type: "button", onclick: () => showAuth("signup")},
      "Make an account (keeps your tables)")) : null;
  $app.replaceChildren(invitations, el("div", {class: "lobby"},
    el("section", {class: "panel"}, el("h2", {}, "Quick match"),
      el("p", {class: "hint"}, "Join the oldest table waiting for this game, or open one."),
      el("form", {onsubmit: act(() => api("/api/quickmatch", {
        game: quick.game.value, preset: quick.preset.value, bot: quick.bot.value,
        fill_after: wait.value === "" ? null : Number(wait.value)}))},
        el("label", {}, "Game", quick.game), el("label", {}, "Rules", quick.preset),
        quick.presetHint, quick.rules,
        el("label", {}, "Empty seats", wait),
        el("label", {}, "Bot", quick.bot), quick.botHint,
        el("button", {type: "submit", id: "quick-go"}, "Quick match"))),
    el("section", {class: "panel"}, el("h2", {}, "Your tables and invitations"), lists),
    el("section", {class: "panel"}, el("h2", {}, "New table"),
      el("form", {id: "custom-form", onsubmit: act(() => api("/api/tables", {
        game: custom.game.value, preset: custom.preset.value, rules: choices.changes(),
        seats: ["me", ...[...seatsBox.querySelectorAll("select")].map((s) => s.value)]}))},
        el("label", {}, "Game", custom.game), el("label", {}, "Rules", custom.preset),
        custom.presetHint, custom.rules, choices.playersLabel, choices.lengthLabel,
        el("p", {class: "hint"}, "You take seat 1."), seatsBox, seatHints,
        el("button", {type: "submit", id: "custom-go"}, "Open table"))),
    scheduleForm ?? el("section", {class: "panel"}, el("h2", {}, "Schedule a game"),
      el("form", {onsubmit: act(() => api("/api/schedule", {
        game: sched.game.value, preset: sched.preset.value, bot: sched.bot.value,
        starts_at: new Date(start.value).getTime() / 1000, absent: absent.value,
        players: players.value.split(",").map((s) => s.trim()).filter(Boolean)}))},
        el("label", {}, "Game", sched.game), el("label", {}, "Rules", sched.preset),
        sched.presetHint, sched.rules,
        el("label", {}, "Starts at", start),
        el("label", {}, "Players, in seat order", players),
        el("label", {}, "Who has not come 10 minutes after the start:", absent),
        el("label", {}, "Bot for absentees", sched.bot), sched.botHint,
        el("button", {type: "submit"}, "Schedule")))));

  const line = (t, label, action) => el("li", {class: "table-line"},
    el("span", {}, `#${t.table} ${gameWords(t.game, t.preset)}` +
      `${changesText(t.game, t.rules) ? `; ${changesText(t.game, t.rules)}` : ""} - ` +
      `${t.status}`, t.starts_at ? ` at ${when(t.starts_at)}` : "",
      el("small", {}, t.players.map((p, i) => playerName(p, i, null) +
        (p.bot || p.open ? "" : (t.status === "scheduled" ? (p.arrived ? " (here)" : " (not yet)")
          : (p.away ? " (a bot plays)" : p.online ? "" : " (away)")))).join(", "))),
    el("button", {onclick: action}, label));
  let first = true;
  const refresh = async () => {
    let data;
    try { data = await api("/api/lobby"); } catch { return; }
    drawInvitations(invitations, data, first);
    first = false;
    const sit = (t) => async () => {
      try { await api(`/api/tables/${t.table}/sit`, {}); enter(t); } catch (x) { toast(x.message); }
    };
    lists.replaceChildren(
      el("ul", {}, data.mine.length ? data.mine.map((t) => line(t, "Open", () => enter(t)))
        : el("li", {class: "hint"}, "None yet.")),
      el("h3", {}, "Open tables"),
      el("ul", {}, data.open.length ? data.open.map((t) => line(t, "Join", sit(t)))
        : el("li", {class: "hint"}, "No table is waiting for players.")),
      el("h3", {}, "Being played"),
      el("ul", {}, data.playing.length ? data.playing.map((t) => line(t, "Watch", () => enter(t)))
        : el("li", {class: "hint"}, "Nothing right now.")));
  };
  refresh();
  lobbyTimer = setInterval(refresh, 3000);
}

// Your scheduled games: who invited you and when each starts ("in 12 minutes"), counted
// from the server's clock; the first is also a toast when the lobby opens (at sign-in).
function drawInvitations(box, data, announce) {
  const list = data.invitations ?? [];
  box.hidden = !list.length;
  const lines = list.map((t) => {
    const wait = t.starts_at - data.now;
    const when = wait > 30 ? `starts in ${minutes(wait)}` : wait > -30 ? "starts now"
      : `started ${minutes(wait)} ago: open it to play`;
    const who = t.mine ? "Your game" : `${t.host ?? "Someone"} invited you`;
    return {t, text: `${who}: ${gameWords(t.game, t.preset)}, ${when}` +
      `${t.arrived ? " (you are there)" : ""}.`};
  });
  box.replaceChildren(el("h2", {}, "Your scheduled games"), el("ul", {}, lines.map(({t, text}) =>
    el("li", {class: "table-line invitation", "data-table": t.table}, el("span", {}, text),
      el("button", {onclick: () => { location.hash = `#/table/${t.table}`; }}, "Open")))));
  if (announce && lines.length) toast(lines[0].text, 8000, "info");
}

// ---------------------------------------------------------------- websocket
// The page's own server first; when a socket cannot be opened, the next of the live
// servers the last one named ("peers"), so a page whose server died goes on through
// another without a reload.
const wsUrl = (base) => base.replace(/^http/, "ws") + "/ws";
const socket = {
  ws: null, backoff: 500, handlers: new Set(), pending: [], peers: [], at: 0,
  open() {
    if (this.ws && this.ws.readyState <= 1) return;
    const urls = [location.origin, ...this.peers.filter((u) => u !== location.origin)];
    const url = wsUrl(urls[this.at % urls.length]);
    let opened = false;
    this.ws = new WebSocket(url);
    this.ws.onopen = () => {
      opened = true;
      this.backoff = 500;
      for (const m of this.pending.splice(0)) this.ws.send(JSON.stringify(m));
      for (const h of this.handlers) h({type: "open"});
    };
    this.ws.onmessage = (e) => {
      const msg = JSON.parse(e.data);
      if (msg.type === "peers") {
        const now = urls[this.at % urls.length];
        this.peers = msg.peers;
        const next = [location.origin, ...this.peers.filter((u) => u !== location.origin)];
        this.at = Math.max(0, next.indexOf(now));
        return;
      }
      for (const h of [...this.handlers]) h(msg);
    };
    this.ws.onclose = () => {
      this.ws = null;
      if (!opened || this.backoff > 500) this.at += 1;  // try the next server
      if (me && this.handlers.size) {
        banner("Connection lost: reconnecting (a table whose server stopped goes on at " +
          "another one by itself)...");
        setTimeout(() => this.open(), this.backoff);
        this.backoff = Math.min(this.backoff * 2, 8000);
      }
    };
  },
  send(msg) {
    if (this.ws && this.ws.readyState === 1) this.ws.send(JSON.stringify(msg));
    else { this.pending.push(msg); this.open(); }
  },
  close() { this.handlers.clear(); this.pending = []; if (this.ws) this.ws.close(); },
};

// -------------------------------------------------------------------- table
// Messages are shown one at a time, in order. A game module may hold one on
// screen until the player clicks (the finished trick, A3.3); later messages
// wait in the queue meanwhile. Only the newest message may take a move.
const tableView = {
  id: null, queue: [], busy: false, module: null, moduleGame: null, root: null, bar: null,
  extra: null, last: null, handler: null, timer: null, waitingMove: false, session: 0, sentMove: null,
  holding: false, chat: null, inviteUrl: null,
  close() {
    if (this.handler) socket.handlers.delete(this.handler);
    if (this.id !== null) socket.send({type: "leave", table: this.id});
    clearInterval(this.timer);
    for (const o of document.querySelectorAll(".overlay")) o.remove();
    Object.assign(this, {id: null, queue: [], busy: false, module: null, moduleGame: null,
                         root: null, bar: null, extra: null, last: null, handler: null,
                         timer: null, waitingMove: false, session: this.session + 1, sentMove: null,
                         holding: false, chat: null, inviteUrl: null});
  },
};

async function loadModule(game) {
  try { return await import(`/static/games/${game}.js`); }
  catch { return await import("/static/games/generic.js"); }
}

function showTable(id) {
  if (tableView.id === id) return;
  tableView.close();
  tableView.id = id;
  const root = el("div", {class: "table-page"});
  const bar = el("div", {class: "clock-bar", id: "clock-bar", role: "status", hidden: true});
  const extra = el("div", {class: "table-extra"});
  const chat = chatBox(id);
  Object.assign(tableView, {root, bar, extra, chat});
  $app.replaceChildren(el("div", {class: "table-wrap"}, bar,
    el("div", {class: "pending-banner", id: "pending-banner", role: "status", hidden: true}),
    root, extra, chat.panel));
  root.append(el("p", {class: "loading"}, `Opening table ${id}...`));
  tableView.handler = (msg) => {
    if (msg.type === "open") {
      socket.send({type: "join", table: id});
      // a move sent just before the connection broke may be lost: send it again (once
      // stored, the table's move number refuses the copy: that refusal is not shown)
      if (tableView.waitingMove && tableView.sentMove) socket.send({...tableView.sentMove, id: "again"});
      return;
    }
    if (msg.table !== id) return;
    if (msg.type === "error") {
      if (msg.id === "again") return;
      toast(msg.error);
      tableView.waitingMove = false;
      banner(null);
      redrawLast();
      return;
    }
    if (msg.type === "chat") { chat.add(msg.lines, msg.history); return; }
    if (msg.type === "table") { tableView.queue.push(msg); pump(); }
  };
  socket.handlers.add(tableView.handler);
  tableView.timer = setInterval(drawClock, 1000);
  if (socket.ws && socket.ws.readyState === 1) socket.send({type: "join", table: id});
  else socket.open();  // the "open" event joins
}

// The table chat: a panel opened from the table's "Chat" button; lines are shown as text
// (textContent), never as HTML. Players of the table may write; watchers read.
function chatBox(id) {
  const list = el("ol", {class: "chat-lines", "aria-live": "polite"});
  const input = el("input", {id: "chat-input", maxlength: 200, autocomplete: "off",
    placeholder: "Say something (200 characters)", "aria-label": "chat message"});
  const form = el("form", {class: "chat-form", onsubmit: (e) => {
    e.preventDefault();
    const text = input.value.trim();
    if (!text) return;
    socket.send({type: "chat", table: id, text});
    input.value = "";
  }}, input, el("button", {type: "submit", id: "chat-send", class: "small"}, "Send"));
  const panel = el("section", {class: "panel chat", id: "chat", role: "dialog",
    "aria-label": "table chat", hidden: true},
  el("div", {class: "chat-head"}, el("b", {}, "Table chat"),
    el("button", {class: "link", id: "chat-close", onclick: () => {
      panel.hidden = true;
      panel.parentElement?.classList.remove("chat-open");
    }},
      "Close")), list, form);
  let unread = 0;
  const button = () => document.getElementById("chat-open");
  const mark = () => {
    const b = button();
    if (b) b.textContent = unread ? `Chat (${unread})` : "Chat";
  };
  return {
    panel,
    add(lines, history) {
      for (const l of lines) {
        const who = tableView.last && l.seat !== null && l.seat !== undefined
          ? playerName(tableView.last.players[l.seat], l.seat, tableView.last.seat) : l.name;
        list.append(el("li", {}, el("b", {}, `${who}: `), l.text));
      }
      while (list.children.length > 50) list.firstChild.remove();
      list.scrollTop = list.scrollHeight;
      if (panel.hidden && !history) { unread += lines.length; mark(); }
    },
    toggle() {
      panel.hidden = !panel.hidden;
      panel.parentElement?.classList.toggle("chat-open", !panel.hidden);
      const seated = tableView.last && tableView.last.seat !== null;
      form.hidden = !seated;
      if (!panel.hidden) { unread = 0; mark(); if (seated) input.focus(); }
    },
    button() {
      return el("button", {class: "link small", id: "chat-open", onclick: () => this.toggle()},
        unread ? `Chat (${unread})` : "Chat");
    },
  };
}

function redrawLast() {
  if (tableView.last && tableView.module && !tableView.busy) {
    tableView.module.draw(tableView.root, tableView.last, context(tableView.last));
    markTerms(tableView.root);
  }
}

// Game words explained where they appear: each glossary word in the table's text (not in
// buttons or fields) and each chip becomes a term; a tap or a click shows its sentence.
const TERMS = new RegExp(`\\b(${Object.keys(GLOSSARY).sort((a, b) => b.length - a.length)
  .map((t) => t.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).filter((t) => t.length > 1)
  .join("|")})\\b`, "i");
function markTerms(root) {
  if (!root) return;
  for (const chip of root.querySelectorAll(".chip:not([data-term])")) {
    const key = chip.textContent.trim().toLowerCase() === "d" ? "d"
      : chip.classList.contains("lead") ? "lead" : null;
    if (key) Object.assign(chip.dataset, {term: key});
  }
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT, {acceptNode: (n) =>
    n.parentElement.closest("button, select, option, input, textarea, .term, .card, " +
      ".chat, script, style") || !TERMS.test(n.data)
      ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT});
  const nodes = [];
  while (walker.nextNode()) nodes.push(walker.currentNode);
  for (const node of nodes) {
    const parts = node.data.split(TERMS);  // the matches at odd places
    node.replaceWith(...parts.map((text, i) => (i % 2 ? el("span", {class: "term",
      "data-term": text.toLowerCase(), tabindex: 0, role: "button"}, text) : text)));
  }
}

// The explanation of one term, beside it, with the game's rules a tap away.
function explainTerm(target) {
  document.getElementById("term-pop")?.remove();
  const term = target.dataset.term;
  const text = GLOSSARY[term];
  if (!text) return;
  const msg = tableView.last;
  const pop = el("div", {class: "term-pop panel", id: "term-pop", role: "tooltip"},
    el("b", {}, term === "d" ? "D (dealer)" : term[0].toUpperCase() + term.slice(1)), ": ",
    text, " ", msg ? el("button", {class: "link", id: "term-rules", onclick: () => {
      pop.remove();
      showRules(el, msg.game, msg.preset, msg.rules || {});
    }}, "The rules") : null);
  document.body.append(pop);
  const r = target.getBoundingClientRect();
  const w = pop.offsetWidth;
  pop.style.left = `${Math.max(4, Math.min(innerWidth - w - 4, r.left + r.width / 2 - w / 2))}px`;
  const below = r.bottom + 6 + pop.offsetHeight < innerHeight;
  pop.style.top = `${below ? r.bottom + 6 : Math.max(4, r.top - 6 - pop.offsetHeight)}px`;
}
document.addEventListener("click", (e) => {
  const term = e.target.closest?.("[data-term]");
  if (term) { e.stopPropagation(); explainTerm(term); return; }
  if (!e.target.closest?.("#term-pop")) document.getElementById("term-pop")?.remove();
}, true);
document.addEventListener("keydown", (e) => {
  if (e.key === "Escape") document.getElementById("term-pop")?.remove();
  else if (e.key === "Enter" && e.target.dataset?.term) explainTerm(e.target);
});

function context(msg) {
  const id = tableView.id;
  return {
    me,
    pace: PACE,
    // true when this message is the newest: only then may the player move
    live: () => tableView.id === id && tableView.queue.length === 0 && tableView.last === msg,
    // a move is pending until the server's answer: the clicked card leaves the hand as
    // "sending...", the clock stops, and a slow answer gets a banner (moveSent)
    move(action) {
      if (!this.live() || tableView.waitingMove) return;
      tableView.waitingMove = true;
      moveSent(globalThis.event?.target?.closest?.("button"));
      tableView.sentMove = {type: "move", table: id, action, ply: msg.ply};
      socket.send(tableView.sentMove);
    },
    playerName: (i) => playerName(msg.players[i], i, msg.seat),
    // what kind of bot sits there ("Expert"), or "" for a person
    botKind: (i) => (msg.players[i].bot ? botLevel(msg.players[i].name) : ""),
    chatButton: () => (tableView.chat ? tableView.chat.button() : null),
    wonText,
    // the preset's short name ("Killer"), for table headers
    preset: () => presetLabel(msg.game, msg.preset).replace(/ \(.*\)$/, ""),
    rules: () => showRules(el, msg.game, msg.preset, msg.rules || {}),
    el,
    // show a button and resolve when it is clicked (or the table area is tapped)
    // (the button goes into ``place``, a part of the host, when given)
    // A finished trick ("next-trick") may go on by itself after a moment: the player's
    // setting (the box beside the button, kept with the account)
    waitClick(host, label, buttonId = "continue", place = host) {
      return new Promise((resolve) => {
        const b = el("button", {class: "continue", id: buttonId}, label);
        let timer = null;
        let box = null;
        const done = () => {
          clearTimeout(timer);
          host.removeEventListener("click", done);
          b.remove();
          box?.remove();
          resolve();
        };
        b.addEventListener("click", (e) => { e.stopPropagation(); done(); });
        host.addEventListener("click", done);
        place.append(b);
        if (buttonId !== "next-trick") return;
        const check = el("input", {type: "checkbox", id: "auto-tricks"});
        box = el("label", {class: "auto-tricks", title: "collect each trick by itself"},
          check, " by itself");
        box.addEventListener("click", (e) => e.stopPropagation());
        const arm = () => {
          clearTimeout(timer);
          if (check.checked) timer = setTimeout(done, AUTO_TRICK_MS);
        };
        check.addEventListener("change", () => {
          setPref("auto_tricks", check.checked);
          arm();
        });
        place.append(box);
        prefs().then((p) => { check.checked = Boolean(p.auto_tricks); arm(); });
      });
    },
  };
}

async function pump() {
  if (tableView.busy) return;
  tableView.busy = true;
  const session = tableView.session;
  const here = () => tableView.session === session;  // the player has not left the table
  try {
    while (tableView.queue.length && here()) {
      const msg = tableView.queue.shift();
      const previous = tableView.last;
      tableView.last = msg;
      tableView.waitingMove = false;
      if (socket.ws?.readyState === 1) banner(null);
      if (msg.notice) toast(msg.notice, 6000);
      drawClock();
      if (msg.status !== "playing" && msg.status !== "finished") {
        drawWaiting(msg);
        continue;
      }
      if (!tableView.module || tableView.moduleGame !== msg.game) {
        const module = await loadModule(msg.game);
        if (!here()) return;
        tableView.module = module;
        tableView.moduleGame = msg.game;
      }
      const module = tableView.module;
      const othersMove = msg.event && msg.event.seat !== msg.seat;
      if (othersMove && previous && PACE > 0) await sleep(PACE);
      if (!here()) return;
      tableView.holding = Boolean(msg.event?.hold);
      drawClock();
      const shown = module.show(tableView.root, msg, context(msg));
      markTerms(tableView.root);  // what is drawn at once; a held trick's text too
      await shown;
      if (!here()) return;
      markTerms(tableView.root);
      if (tableView.holding && msg.seat !== null) {
        socket.send({type: "ready", table: msg.table, ply: msg.ply});  // my clock may run
      }
      tableView.holding = false;
      if (msg.status === "finished" && tableView.queue.length === 0) drawGameOver(msg);
    }
  } finally {
    if (here()) tableView.busy = false;
  }
  if (here() && tableView.last && tableView.module) redrawLast();
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// The player's settings (/api/prefs), read once per sign-in.
const AUTO_TRICK_MS = 1200;  // how long a finished trick shows when it goes on by itself
let prefsOf = {user: null, read: null};
function prefs() {
  if (prefsOf.user !== me?.id || !prefsOf.read) {
    prefsOf = {user: me?.id, read: api("/api/prefs").catch(() => ({}))};
  }
  return prefsOf.read;
}
async function setPref(key, value) {
  try {
    prefsOf = {user: me?.id, read: Promise.resolve(await api("/api/prefs", {[key]: value}))};
  } catch (err) {
    toast(`Not saved: ${err.message}`, 4000, "error");
  }
}

// A move on its way: the card that was clicked is marked "sending...", the other legal
// cards wait, and after 1.5 s without an answer a banner says why (the table's server
// may be handing it to another one; the page reconnects by itself).
function moveSent(button) {
  if (button) {
    button.classList.add("sending");
    button.setAttribute("aria-busy", "true");
  }
  for (const b of document.querySelectorAll(".table-page button.legal, .bid-button")) {
    b.disabled = true;
  }
  drawClock();
  clearTimeout(moveSent.timer);
  const session = tableView.session;
  moveSent.timer = setTimeout(() => {
    if (tableView.session === session && tableView.waitingMove) {
      banner("Your move is on its way: the table is moving to another server and goes on " +
        "there by itself.");
    }
  }, 1500);
}

// The banner over the table for a wait the player did not choose (null: none).
function banner(text) {
  const b = document.getElementById("pending-banner");
  if (!b) return;
  b.hidden = !text;
  b.textContent = text || "";
}

// The turn clock: your time for a move, and who a bot is playing for.
function drawClock() {
  const bar = tableView.bar;
  const msg = tableView.last;
  if (!bar || !msg) return;
  const mine = msg.seat !== null && msg.players[msg.seat]?.away;
  const c = msg.clock;
  let content = null;
  if (tableView.waitingMove && msg.status === "playing") {
    content = "Sending your move...";  // the clock waits for the server's answer
  } else if (mine && msg.status === "playing") {
    content = [el("span", {}, "Your time ran out: a bot is playing for you. "),
      el("button", {id: "back", class: "small", onclick: () => socket.send({type: "back",
        table: msg.table})}, "I'm back")];
  } else if (c && msg.status === "playing" && c.seat === msg.seat &&
             (tableView.holding || c.held)) {
    content = "Your move next: your clock waits while the last moves are on show.";
  } else if (c && msg.status === "playing") {
    if (!msg._received) msg._received = Date.now() / 1000;
    const left = Math.max(0, Math.round(c.bot_at - c.now - (Date.now() / 1000 - msg._received)));
    const clock = `${Math.floor(left / 60)}:${String(left % 60).padStart(2, "0")}`;
    if (c.seat === msg.seat) content = `Your move: ${clock} left, then a bot plays for you.`;
    else if (!msg.players[c.seat].online) {
      content = `${playerName(msg.players[c.seat], c.seat, msg.seat)} has left: a bot ` +
        `plays for them in ${clock}.`;
    }
    bar.classList.toggle("urgent", left <= 10);
  }
  if (!(c && msg.status === "playing")) bar.classList.remove("urgent");
  bar.hidden = content === null;
  if (content !== null) bar.replaceChildren(...[content].flat());
}

// Game over: the final standings, every hand's result, and the same seats again.
function drawGameOver(msg) {
  const old = document.getElementById("game-over");
  if (old) old.remove();
  const v = msg.view || {};
  const n = msg.players.length;
  const scores = v.scores ?? msg.result?.scores ?? [];
  const winners = v.winners ?? msg.result?.winners ?? [];
  const name = (s) => playerName(msg.players[s], s, msg.seat);
  const order = Array.from({length: n}, (_, s) => s).sort((a, b) => scores[b] - scores[a]);
  const rank = (s) => 1 + scores.filter((x) => x > scores[s]).length;
  const fmt = (x) => (Number.isInteger(x) ? String(x) : x.toFixed(1));
  const hands = msg.hands ?? [];
  const again = async () => {
    try {
      const t = await api(`/api/tables/${msg.table}/again`, {});
      location.hash = `#/table/${t.table}`;
    } catch (x) { toast(x.message); }
  };
  const close = () => panel.parentElement.remove();
  const panel = el("div", {class: "panel summary game-over", role: "dialog",
    "aria-label": "game over"},
  el("h2", {}, "Game over"),
  el("p", {class: "final"}, wonText(winners.map(name))),
  el("table", {class: "standings"},
    el("thead", {}, el("tr", {}, el("th", {}, "#"), el("th", {}, "Player"),
      el("th", {}, "Score"))),
    el("tbody", {}, order.map((s) => el("tr", {class: s === msg.seat ? "me" : ""},
      el("td", {}, String(rank(s))), el("td", {}, name(s)), el("td", {}, fmt(scores[s])))))),
  hands.length ? el("details", {class: "hands", open: hands.length <= 8},
    el("summary", {}, `${hands.length} hand${hands.length === 1 ? "" : "s"}`),
    el("table", {},
      el("thead", {}, el("tr", {}, el("th", {}, "Hand"),
        Array.from({length: n}, (_, s) => el("th", {}, name(s))))),
      el("tbody", {}, hands.map((h, i) => el("tr", {},
        el("td", {}, String(h.hand_number ?? i + 1)),
        Array.from({length: n}, (_, s) => el("td", {},
          `${h.points[s] > 0 ? "+" : ""}${fmt(h.points[s])}`,
          el("small", {}, ` = ${fmt(h.totals[s])}`)))))))) : null,
  el("div", {class: "row"},
    msg.seat !== null ? el("button", {id: "play-again", onclick: again},
      msg.result?.again ? "Join the new game" : "Play again") : null,
    el("a", {href: "#/", class: "button", id: "to-lobby"}, "Lobby"),
    el("button", {class: "link", id: "see-table", onclick: close}, "See the table")));
  tableView.extra.append(el("div", {class: "overlay", id: "game-over"}, panel));
}

function drawWaiting(msg) {
  const mySeat = msg.seat;
  let status = "";
  if (msg.status === "waiting") {
    status = msg.fill_at ? `Waiting for players; bots fill the empty seats at ${when(msg.fill_at)}.`
      : "Waiting for players to join.";
  } else if (msg.status === "scheduled") {
    status = `Starts at ${when(msg.starts_at)} once everyone is here; ` +
      (msg.absent === "bot" ? "bots take the seats of those not here 10 minutes later."
        : "without everyone 10 minutes later it is cancelled.");
  } else if (msg.status === "cancelled") {
    status = `Cancelled: ${msg.result?.cancelled ?? ""}`;
  } else if (msg.status === "abandoned") {
    status = `Closed: ${msg.result?.abandoned ?? "nobody was at the table"}.`;
  }
  const stand = async () => {
    try { await api(`/api/tables/${msg.table}/stand`, {}); location.hash = "#/"; }
    catch (x) { toast(x.message); }
  };
  const link = el("div", {class: "invite-box"});
  const showLink = (url) => {
    const field = el("input", {id: "invite-link", readonly: true, value: url,
        "aria-label": "invite link", onfocus: (e) => e.target.select()});
      link.replaceChildren(el("p", {class: "hint"}, "Send this link: whoever opens it takes " +
        "an open seat (no account needed)."), field,
      el("button", {class: "small", id: "invite-copy", onclick: async () => {
        try { await navigator.clipboard.writeText(url); toast("Link copied.", 2000, "info"); }
        catch { field.select(); }
      }}, "Copy"));
  };
  const invite = async () => {
    try {
      const t = await api(`/api/tables/${msg.table}/invite`, {});
      tableView.inviteUrl = `${location.origin}${t.link}`;
      if (tableView.last === msg) drawWaiting(msg);
    } catch (x) { toast(x.message); }
  };
  if (tableView.inviteUrl) showLink(tableView.inviteUrl);
  const canInvite = msg.status === "waiting" && mySeat !== null &&
    msg.players.some((p) => p.open);
  tableView.root.replaceChildren(el("section", {class: "panel waiting"},
    el("h2", {}, `Table ${msg.table}: ${gameWords(msg.game, msg.preset)}`),
    el("p", {class: "hint"}, presetLine(msg.game, msg.preset)),
    changesText(msg.game, msg.rules) ? el("p", {class: "hint"},
      changesText(msg.game, msg.rules)) : null,
    el("p", {}, status),
    el("ol", {}, msg.players.map((p, i) => el("li", {},
      playerName(p, i, mySeat), p.bot ? ` - ${botLabel(p.name)} (bot)` : "",
      p.bot || p.open ? "" : (msg.status === "scheduled"
        ? (p.arrived ? " - here" : " - not here yet") : (p.online ? " - here" : " - away"))))),
    canInvite ? link : null,
    el("div", {class: "row"},
      canInvite && !tableView.inviteUrl ? el("button", {id: "invite-go", onclick: invite},
        "Invite a friend") : null,
      msg.status === "waiting" && mySeat !== null ? el("button", {onclick: stand}, "Leave table")
        : null,
      tableView.chat ? tableView.chat.button() : null,
      el("button", {class: "link", onclick: () => showRules(el, msg.game, msg.preset,
        msg.rules || {})}, "Rules"),
      el("a", {href: "#/", class: "button"}, "Lobby"))));
}

socket.handlers.add(() => {});  // keeps the socket reconnecting while the page is open
route();
