// The page: sign in, lobby, and the table (drawn by a per-game module in games/).
// The server is the authority; this page only shows what its seat is told and
// sends the moves the player clicks.

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

export function toast(text, ms = 4000) {
  const t = document.getElementById("toast");
  t.textContent = text;
  t.hidden = false;
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => { t.hidden = true; }, ms);
}

async function api(path, body) {
  const opts = body === undefined ? {} : {
    method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify(body),
  };
  const res = await fetch(path, opts);
  const data = await res.json().catch(() => ({}));
  if (!res.ok) throw new Error(data.error || `${res.status} ${res.statusText}`);
  return data;
}

export function playerName(p, seat, mySeat) {
  if (seat === mySeat) return "You";
  if (p.open) return "(open)";
  if (p.bot) return `Bot ${seat + 1}`;
  return p.name;
}

const when = (t) => new Date(t * 1000).toLocaleString([], {
  weekday: "short", hour: "2-digit", minute: "2-digit"});

// ------------------------------------------------------------------- router
async function route() {
  clearInterval(lobbyTimer);
  if (!me) {
    try { me = await api("/api/me"); } catch { me = null; }
  }
  document.getElementById("who").textContent = me ? me.name : "";
  document.getElementById("signout").hidden = !me;
  if (!me) return showAuth();
  if (!games.length) games = (await api("/api/games")).games;
  const m = location.hash.match(/^#\/table\/(\d+)/);
  if (m) return showTable(Number(m[1]));
  tableView.close();
  return showLobby();
}
window.addEventListener("hashchange", route);
document.getElementById("signout").addEventListener("click", async () => {
  await api("/api/signout", {});
  me = null;
  socket.close();
  location.hash = "#/";
  route();
});

// --------------------------------------------------------------------- auth
function showAuth() {
  const err = el("p", {class: "error", role: "alert"});
  const name = el("input", {name: "name", autocomplete: "username", required: true,
                            minlength: 3, maxlength: 24, placeholder: "user name"});
  const pw = el("input", {name: "password", type: "password", autocomplete: "current-password",
                          required: true, minlength: 8, placeholder: "password (8+ characters)"});
  const go = (path) => async (e) => {
    e.preventDefault();
    try {
      me = await api(path, {name: name.value.trim(), password: pw.value});
      route();
    } catch (x) { err.textContent = x.message; }
  };
  $app.replaceChildren(el("section", {class: "panel auth"},
    el("h1", {}, "Card table"),
    el("p", {}, "Play Spades and more against people and bots."),
    el("form", {onsubmit: go("/api/signin")},
      el("label", {}, "Name", name), el("label", {}, "Password", pw), err,
      el("div", {class: "row"},
        el("button", {type: "submit", id: "signin"}, "Sign in"),
        el("button", {type: "button", id: "signup", onclick: go("/api/signup")}, "Sign up")))));
}

// -------------------------------------------------------------------- lobby
function gameSelect(id) {
  const game = el("select", {id: `${id}-game`}, games.map((g) => el("option", {value: g.game},
    g.game.replace("_", " "))));
  if (games.some((g) => g.game === "spades")) game.value = "spades";
  const preset = el("select", {id: `${id}-preset`});
  const bot = el("select", {id: `${id}-bot`});
  const fill = () => {
    const g = games.find((x) => x.game === game.value);
    preset.replaceChildren(...g.presets.map((p) => el("option", {value: p}, p)));
    bot.replaceChildren(...g.bots.map((b) => el("option", {value: b}, b)));
    bot.value = g.default_bot;
  };
  game.addEventListener("change", fill);
  fill();
  return {game, preset, bot, info: () => games.find((x) => x.game === game.value)};
}

function showLobby() {
  const quick = gameSelect("quick");
  const wait = el("select", {id: "quick-fill"},
    el("option", {value: "0"}, "right away"), el("option", {value: "20"}, "after 20 s"),
    el("option", {value: "60", selected: true}, "after 1 min"),
    el("option", {value: "300"}, "after 5 min"), el("option", {value: ""}, "never"));
  const lists = el("div", {class: "lists"});
  const custom = gameSelect("custom");
  const seatsBox = el("div", {class: "seats"});
  const fillSeats = () => {
    const n = custom.info().players;
    seatsBox.replaceChildren(...Array.from({length: n - 1}, (_, i) => el("select",
      {class: "seat-choice"}, el("option", {value: "open"}, `seat ${i + 2}: a person`),
      custom.info().bots.map((b) => el("option", {value: `bot:${b}`}, `seat ${i + 2}: ${b}`)))));
  };
  custom.game.addEventListener("change", fillSeats);
  fillSeats();
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
  $app.replaceChildren(el("div", {class: "lobby"},
    el("section", {class: "panel"}, el("h2", {}, "Quick match"),
      el("p", {class: "hint"}, "Join the oldest table waiting for this game, or open one."),
      el("form", {onsubmit: act(() => api("/api/quickmatch", {
        game: quick.game.value, preset: quick.preset.value, bot: quick.bot.value,
        fill_after: wait.value === "" ? null : Number(wait.value)}))},
        el("label", {}, "Game", quick.game), el("label", {}, "Rules", quick.preset),
        el("label", {}, "Fill empty seats with bots", wait),
        el("label", {}, "Bot", quick.bot),
        el("button", {type: "submit", id: "quick-go"}, "Quick match"))),
    el("section", {class: "panel"}, el("h2", {}, "Your tables and invitations"), lists),
    el("section", {class: "panel"}, el("h2", {}, "New table"),
      el("form", {onsubmit: act(() => api("/api/tables", {
        game: custom.game.value, preset: custom.preset.value,
        seats: ["me", ...[...seatsBox.children].map((s) => s.value)]}))},
        el("label", {}, "Game", custom.game), el("label", {}, "Rules", custom.preset),
        seatsBox, el("button", {type: "submit"}, "Open table"))),
    el("section", {class: "panel"}, el("h2", {}, "Schedule a game"),
      el("form", {onsubmit: act(() => api("/api/schedule", {
        game: sched.game.value, preset: sched.preset.value, bot: sched.bot.value,
        starts_at: new Date(start.value).getTime() / 1000, absent: absent.value,
        players: players.value.split(",").map((s) => s.trim()).filter(Boolean)}))},
        el("label", {}, "Game", sched.game), el("label", {}, "Rules", sched.preset),
        el("label", {}, "Starts at", start),
        el("label", {}, "Players, in seat order", players),
        el("label", {}, "Who has not come 10 minutes after the start:", absent),
        el("label", {}, "Bot for absentees", sched.bot),
        el("button", {type: "submit"}, "Schedule")))));

  const line = (t, label, action) => el("li", {class: "table-line"},
    el("span", {}, `#${t.table} ${t.game.replace("_", " ")} (${t.preset}) - ${t.status}`,
      t.starts_at ? ` at ${when(t.starts_at)}` : "",
      el("small", {}, t.players.map((p, i) => playerName(p, i, null) +
        (p.bot || p.open ? "" : (t.status === "scheduled" ? (p.arrived ? " (here)" : " (not yet)")
          : (p.online ? "" : " (away)")))).join(", "))),
    el("button", {onclick: action}, label));
  const refresh = async () => {
    let data;
    try { data = await api("/api/lobby"); } catch { return; }
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

// ---------------------------------------------------------------- websocket
const socket = {
  ws: null, backoff: 500, handlers: new Set(), pending: [],
  open() {
    if (this.ws && this.ws.readyState <= 1) return;
    const url = `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws`;
    this.ws = new WebSocket(url);
    this.ws.onopen = () => {
      this.backoff = 500;
      for (const m of this.pending.splice(0)) this.ws.send(JSON.stringify(m));
      for (const h of this.handlers) h({type: "open"});
    };
    this.ws.onmessage = (e) => {
      const msg = JSON.parse(e.data);
      for (const h of this.handlers) h(msg);
    };
    this.ws.onclose = () => {
      this.ws = null;
      if (me && this.handlers.size) {
        setTimeout(() => this.open(), this.backoff);
        this.backoff = Math.min(this.backoff * 2, 8000);
      }
    };
  },
  send(msg) {
    if (this.ws && this.ws.readyState === 1) this.ws.send(JSON.stringify(msg));
    else { this.pending.push(msg); this.open(); }
  },
  close() { this.handlers.clear(); if (this.ws) this.ws.close(); },
};

// -------------------------------------------------------------------- table
// Messages are shown one at a time, in order. A game module may hold one on
// screen until the player clicks (the finished trick, A3.3); later messages
// wait in the queue meanwhile. Only the newest message may take a move.
const tableView = {
  id: null, queue: [], busy: false, module: null, root: null, last: null, handler: null,
  close() {
    if (this.handler) socket.handlers.delete(this.handler);
    if (this.id !== null) socket.send({type: "leave", table: this.id});
    Object.assign(this, {id: null, queue: [], busy: false, module: null, moduleGame: null,
                         last: null, handler: null});
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
  tableView.root = root;
  $app.replaceChildren(root);
  root.append(el("p", {class: "loading"}, `Opening table ${id}...`));
  tableView.handler = (msg) => {
    if (msg.type === "open") { socket.send({type: "join", table: id}); return; }
    if (msg.table !== id) return;
    if (msg.type === "error") { toast(msg.error); tableView.waitingMove = false; redrawLast(); return; }
    if (msg.type === "table") { tableView.queue.push(msg); pump(); }
  };
  socket.handlers.add(tableView.handler);
  if (socket.ws && socket.ws.readyState === 1) socket.send({type: "join", table: id});
  else socket.open();  // the "open" event joins
}

function redrawLast() {
  if (tableView.last && tableView.module && !tableView.busy) {
    tableView.module.draw(tableView.root, tableView.last, context(tableView.last));
  }
}

function context(msg) {
  const id = tableView.id;
  return {
    me,
    pace: PACE,
    // true when this message is the newest: only then may the player move
    live: () => tableView.queue.length === 0 && tableView.last === msg,
    move(action) {
      if (!this.live() || tableView.waitingMove) return;
      tableView.waitingMove = true;
      socket.send({type: "move", table: id, action, ply: msg.ply});
    },
    playerName: (i) => playerName(msg.players[i], i, msg.seat),
    // what kind of bot sits there ("expert"), or "" for a person
    botKind: (i) => (msg.players[i].bot ? msg.players[i].name.split("/").pop() : ""),
    el,
    // show a button and resolve when it is clicked (or the table area is tapped)
    waitClick(host, label, id = "continue") {
      return new Promise((resolve) => {
        const b = el("button", {class: "continue", id}, label);
        const done = () => { host.removeEventListener("click", done); b.remove(); resolve(); };
        b.addEventListener("click", (e) => { e.stopPropagation(); done(); });
        host.addEventListener("click", done);
        host.append(b);
      });
    },
  };
}

async function pump() {
  if (tableView.busy) return;
  tableView.busy = true;
  const id = tableView.id;
  try {
    while (tableView.queue.length && tableView.id === id) {
      const msg = tableView.queue.shift();
      const previous = tableView.last;
      tableView.last = msg;
      tableView.waitingMove = false;
      if (msg.status !== "playing" && msg.status !== "finished") {
        drawWaiting(msg);
        continue;
      }
      if (!tableView.module || tableView.moduleGame !== msg.game) {
        tableView.module = await loadModule(msg.game);
        tableView.moduleGame = msg.game;
      }
      const othersMove = msg.event && msg.event.seat !== msg.seat;
      if (othersMove && previous && PACE > 0) await sleep(PACE);
      await tableView.module.show(tableView.root, msg, context(msg));
    }
  } finally {
    tableView.busy = false;
  }
  if (tableView.last && tableView.id === id && tableView.module) redrawLast();
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

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
  }
  const stand = async () => {
    try { await api(`/api/tables/${msg.table}/stand`, {}); location.hash = "#/"; }
    catch (x) { toast(x.message); }
  };
  tableView.root.replaceChildren(el("section", {class: "panel waiting"},
    el("h2", {}, `Table ${msg.table}: ${msg.game.replace("_", " ")} (${msg.preset})`),
    el("p", {}, status),
    el("ol", {}, msg.players.map((p, i) => el("li", {},
      playerName(p, i, mySeat), p.bot || p.open ? "" : (msg.status === "scheduled"
        ? (p.arrived ? " - here" : " - not here yet") : (p.online ? " - here" : " - away"))))),
    el("div", {class: "row"},
      msg.status === "waiting" && mySeat !== null ? el("button", {onclick: stand}, "Leave table")
        : null,
      el("a", {href: "#/", class: "button"}, "Lobby"))));
}

socket.handlers.add(() => {});  // keeps the socket reconnecting while the page is open
route();
