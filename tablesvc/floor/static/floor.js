"use strict";
// The floor console page: a grid of tables, the alert queue, a table's hands of the day.
// Live changes come over a WebSocket that reconnects by itself; everything shown is text
// (never HTML from a message), and no hidden card ever reaches this page.
//
// The queue shows alert *groups*, one per table and alert name (the server builds them,
// tablesvc/floor/queue.py): a table that repeats itself takes one row per kind of trouble.
// A table is *silent* when the console has heard nothing from it for silent_after_s
// (tablesvc/floor/silence.py): its box or service is stuck although the broker may still
// list it online.
//
// A tournament controller, when one runs, publishes its clock and field: the header shows the
// level, blinds and ante, the time left (counted down here from the clock's wall-clock
// ends_at) and the players left. Its alerts join the queue under the pseudo-table
// ".tournament", shown as "tournament".

const state = { tables: new Map(), groups: new Map(), me: null, skew: 0, sound: false,
  connected: false, mqtt: null, seenCritical: new Set(), openTable: null, silentAfter: 15,
  tournament: null };
// the pseudo-table of the tournament controller's alerts (a dot is never part of a table id)
const TOURNAMENT = ".tournament";
const where = (tbl) => tbl === TOURNAMENT ? "tournament" : tbl;
// (table/alert id) -> when its message arrived, and when it was on screen (benchmarks)
window.floorStats = { received: {}, shown: {} };
// group key -> the alerts that arrived and wait for their group to be drawn: [[stat key, seq]]
const waitingShown = new Map();
// table id -> when (this page's clock) its silence began, for the running "silent N s"
const silentSince = new Map();

const $ = (id) => document.getElementById(id);
function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined && text !== null) e.textContent = String(text);
  return e;
}
const now = () => Date.now() + state.skew;

function seconds(s) {
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${s % 60} s`;
  return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
}
function age(ts) { return seconds(Math.max(0, Math.round((now() - Date.parse(ts)) / 1000))); }
function clock(ts) {
  const d = new Date(ts);
  return isNaN(d) ? "" : d.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", second: "2-digit" });
}
const chips = (n) => Number(n || 0).toLocaleString("en-US");
// 734.2 -> "12:14"; 3725 -> "1:02:05" (whole seconds rounded up: "0:00" means the time is up)
function countdown(s) {
  const t = Math.max(0, Math.ceil(s - 1e-6));
  const h = Math.floor(t / 3600), m = Math.floor((t % 3600) / 60), sec = t % 60;
  return (h ? `${h}:${String(m).padStart(2, "0")}` : String(m)) + `:${String(sec).padStart(2, "0")}`;
}
function cardEl(c) {
  const e = el("span", "card" + (/[hd]$/.test(c) ? " red" : ""), c);
  return e;
}

// ---------------------------------------------------------------- the grid
function openByTable() {
  const out = new Map();
  for (const g of state.groups.values()) {
    if (!g.open) continue;
    const n = out.get(g.tbl) || { critical: 0, warning: 0 };
    n.critical += g.open.critical;
    n.warning += g.open.warning;
    out.set(g.tbl, n);
  }
  return out;
}

const isSilent = (t) => t.silent_s !== null && t.silent_s !== undefined && t.online !== false;
function silentFor(id) {
  return seconds(Math.max(0, Math.round((Date.now() - (silentSince.get(id) || Date.now())) / 1000)));
}
function silentTip(id) {
  return `Nothing received from table ${id} for ${silentFor(id)} (a table says it is alive every 5 s; ` +
    `silent after ${state.silentAfter} s). Its box or its service is stuck, or cut off from the broker, ` +
    "which may still list it online. Check the table's box: power, network cable, the tablesvc service.";
}

function tile(t, openAlerts) {
  const st = t.state || {};
  const open = openAlerts.get(t.id) || { critical: 0, warning: 0 };
  const devs = Object.entries(t.devices || {});
  const devBad = devs.some(([, d]) => d.state !== "online");
  const silent = isSilent(t);
  const cls = ["tile"];
  if (t.online === false) cls.push("offline");
  if (silent) cls.push("silent");
  if (open.critical) cls.push("crit"); else if (open.warning) cls.push("warn");
  if (devBad) cls.push("devwarn");
  const e = el("div", cls.join(" "));
  e.dataset.table = t.id;
  if (silent) e.title = silentTip(t.id);
  e.append(el("div", "name", t.id));
  // the game it deals, named by the console ("Pot-limit Omaha"; a game it does not know yet
  // by its id)
  if (t.game) e.append(el("div", "game", t.game));
  const badges = el("div", "badges");
  if (t.online === false) badges.append(el("span", "badge off", "OFFLINE"));
  if (silent) badges.append(el("span", "badge silent", "SILENT"));
  if (open.critical) badges.append(el("span", "badge crit", `${open.critical} CRITICAL`));
  if (open.warning) badges.append(el("span", "badge warn", `${open.warning} WARNING`));
  if (t.online !== false && !silent && !open.critical && !open.warning) badges.append(el("span", "badge ok", "OK"));
  e.append(badges);
  const line = el("div", "line");
  if (t.online === false) {
    line.textContent = "no service: the table's box or its link is down";
  } else if (silent) {
    const n = el("b", "silent-for", silentFor(t.id));
    n.dataset.table = t.id;
    line.append("silent ", n, ": nothing heard from the table; check its box");
  } else if (st.hand) {
    line.append("Hand ", el("b", "", `#${st.hand}`), ` · ${st.street || ""}` +
      (st.pot ? ` · pot ${st.pot.toLocaleString()}` : ""));
  } else {
    line.textContent = t.online ? "between hands" : "waiting for the table";
  }
  e.append(line);
  const seats = el("div", "seats");
  const active = new Set(st.active || []);
  for (const p of st.players || []) {
    const s = el("span", st.in_hand && !active.has(p.seat) ? "out" : "",
      `${p.seat} ${p.name} ${Number(p.stack).toLocaleString()}`);
    seats.append(s);
  }
  e.append(seats);
  const dv = el("div", "devices");
  for (const [name, d] of devs.sort()) {
    const s = el("span");
    s.title = `${name}: ${d.state}${d.detail ? " (" + d.detail + ")" : ""}`;
    s.append(el("i", "dot " + (t.online === false || silent ? "" : d.state)), el("span", "label", name));
    dv.append(s);
  }
  e.append(dv);
  e.addEventListener("click", () => showTable(t.id));
  return e;
}

function renderGrid() {
  const grid = $("grid");
  const tables = [...state.tables.values()].sort((a, b) => a.id.localeCompare(b.id, undefined, { numeric: true }));
  const n = tables.length;
  const w = n <= 4 ? 520 : n <= 9 ? 360 : n <= 20 ? 250 : n <= 40 ? 190 : 118;
  document.documentElement.style.setProperty("--tilew", w + "px");
  grid.classList.toggle("compact", n > 40);
  const open = openByTable();
  // a tile is built again only when what it shows changed (a busy venue changes a few
  // tables between two redraws; the others keep their element)
  const next = new Map();
  for (const t of tables) {
    const o = open.get(t.id);
    const sig = JSON.stringify(t) + (o ? `|${o.critical}|${o.warning}` : "");
    const had = tiles.get(t.id);
    next.set(t.id, had && had.sig === sig ? had : { sig, el: tile(t, open) });
  }
  const order = tables.map((t) => t.id).join(",");
  if (order !== tilesOrder || !n) {
    grid.replaceChildren(...tables.map((t) => next.get(t.id).el));
    if (!n) grid.append(el("div", "empty", "No table has reported yet."));
  } else {
    for (const [id, v] of next) { const had = tiles.get(id); if (had.el !== v.el) had.el.replaceWith(v.el); }
  }
  tiles = next;
  tilesOrder = order;
  renderSummary(tables);
}
let tiles = new Map(), tilesOrder = "";

function renderSummary(tables) {
  const s = $("summary");
  const off = tables.filter((t) => t.online === false).length;
  const quiet = tables.filter(isSilent).length;
  let crit = 0, warn = 0;
  for (const g of state.groups.values()) {
    if (g.open) { crit += g.open.critical; warn += g.open.warning; }
  }
  const pills = [el("span", "pill", `${tables.length - off - quiet} of ${tables.length} tables online`)];
  if (quiet) pills.push(el("span", "pill silent", `${quiet} silent`));
  if (off) pills.push(el("span", "pill off", `${off} offline`));
  if (crit) pills.push(el("span", "pill crit", `${crit} critical`));
  if (warn) pills.push(el("span", "pill warn", `${warn} warning`));
  if (!crit && !warn) pills.push(el("span", "pill", "no open alert"));
  s.replaceChildren(...pills);
  const rows = [...state.groups.values()].filter((g) => g.open).length;
  $("open-count").textContent = crit + warn ? `(${crit + warn} open` + (rows < crit + warn ? ` in ${rows} rows)` : ")") : "";
}

// ---------------------------------------------------------------- the tournament clock
function blindsText(lv) {
  if (!lv) return "";
  const ante = lv.ante ? ` · ${lv.ante_mode === "big_blind" ? "BB ante" : "ante"} ${chips(lv.ante)}` : "";
  return `${chips(lv.small_blind)}/${chips(lv.big_blind)}${ante}`;
}

// seconds left in the period now: a running clock counts towards its ends_at (epoch seconds,
// on the console's clock through the skew), a paused one shows what it says
function tourneyLeft(c) {
  if (c.running && c.ends_at) return Math.max(0, c.ends_at - now() / 1000);
  return Math.max(0, c.remaining_s || 0);
}

function renderTournament() {
  const t = state.tournament, box = $("tourney");
  box.classList.toggle("hidden", !t);
  if (!t) return;
  const c = t.clock || {}, f = t.field || {};
  const brk = c.on_break, lv = c.level;
  $("t-level").textContent = brk ? String(brk.name || "Break").toUpperCase() : (lv ? `LEVEL ${lv.number}` : "LEVEL –");
  $("t-blinds").textContent = brk ? (c.next_level ? `next: ${blindsText(c.next_level)}` : "") : blindsText(lv);
  $("t-left").textContent = f.players_left ? `${chips(f.players_left)} of ${chips(f.entries)} left` : "";
  box.classList.toggle("off", t.online === false);
  box.title = (c.name ? `${c.name}: ` : "") + "the tournament controller's clock" +
    (t.online === false ? " (the controller is offline: the last clock it published)" : "");
  tourneyTick();
}

function tourneyTick() {
  const t = state.tournament;
  if (!t) return;
  const c = t.clock || {};
  const left = tourneyLeft(c);
  const time = $("t-time");
  time.textContent = countdown(left);
  time.classList.toggle("low", !!c.running && left < 60 && !c.on_break);
  $("t-state").textContent = t.online === false ? "CONTROLLER OFFLINE" :
    (!c.started ? "NOT STARTED" : (!c.running ? "PAUSED" : ""));
}

// ---------------------------------------------------------------- the alert queue
function seatsText(seats) {
  if (!seats.length) return "";
  return seats.length === 1 ? ` · seat ${seats[0]}` : ` · seats ${seats.join(", ")}`;
}

function ruleLine(g) {
  const rule = el("div", "rule");
  rule.append(el("code", "", g.rule), " " + (g.title || ""), el("span", "reply", `  ${g.name}`));
  return rule;
}

// a group's open alerts: how many, the newest one's message and remedy, its age
function openCard(g) {
  const o = g.open, a = o.newest || {};
  const e = el("div", `alert ${o.severity}`);
  e.dataset.group = g.key;
  e.dataset.alert = `${g.tbl}/${o.upto}`;
  const head = el("div", "head");
  head.append(el("span", "sev", o.severity), el("span", "where", `${where(g.tbl)}${seatsText(o.seats)}`));
  if (o.count > 1) {
    const n = el("span", "count", `×${o.count}`);
    n.title = `${o.count} open alerts ${g.name} ` + (g.tbl === TOURNAMENT ? "of the tournament" : `at table ${g.tbl}`) +
      (o.critical && o.warning ? ` (${o.critical} critical, ${o.warning} warning)` : "");
    head.append(n);
  }
  const ag = el("span", "age", age(o.last_ts));
  ag.dataset.ts = o.last_ts;
  head.append(ag);
  e.append(head, ruleLine(g));
  e.append(el("div", "msg", a.message));
  if (a.remedy) e.append(el("div", "remedy", a.remedy));
  const acts = el("div", "acts");
  const b = el("button", "ack", o.count > 1 ? `Acknowledge all ${o.count}` : "Acknowledge");
  b.type = "button";
  b.addEventListener("click", () => acknowledge(g, b));
  acts.append(b);
  if (o.count > 1) {
    acts.append(el("span", "reply", `first ${clock(o.first_ts)}, newest ${clock(o.last_ts)}`));
    const all = el("button", "all", "Show each");
    all.type = "button";
    all.addEventListener("click", () => showTable(g.tbl));
    acts.append(all);
  }
  e.append(acts);
  return e;
}

const ANSWERS = [["ok", "ok", "acknowledged by the table"], ["refused", "refused", "refused by the table"],
  ["sent", "", "sent to the table, waiting for its answer…"], ["floor", "", "acknowledged on the floor"]];

// a group's alerts acknowledged today: who, when, and the tables' answers
function doneCard(g) {
  const d = g.done;
  const e = el("div", "alert done");
  e.dataset.group = g.key;
  const head = el("div", "head");
  head.append(el("span", "where", `${where(g.tbl)} · ${g.name}`));
  if (d.count > 1) head.append(el("span", "count", `×${d.count}`));
  head.append(el("span", "age", clock(d.last_at)));
  e.append(head, ruleLine(g));
  const acts = el("div", "acts");
  acts.append(el("span", "", `acknowledged by ${d.by.join(", ") || "someone"} at ${clock(d.last_at)}`));
  for (const [st, cls, text] of ANSWERS) {
    const n = d.states[st];
    if (!n) continue;
    const words = (d.count > 1 ? `${n} ` : "") + text + (st === "refused" && d.refusal ? ` (${d.refusal})` : "");
    acts.append(el("span", "reply " + cls, words));
  }
  e.append(acts);
  return e;
}

// critical first, then the newest first: a table that needs a person now is at the top
function queueOrder(x, y) {
  return ((y.open.severity === "critical") - (x.open.severity === "critical")) ||
    y.open.last_ts.localeCompare(x.open.last_ts) || x.key.localeCompare(y.key);
}

function renderQueue() {
  const groups = [...state.groups.values()];
  const open = groups.filter((g) => g.open).sort(queueOrder);
  const done = groups.filter((g) => g.done)
    .sort((x, y) => String(y.done.last_at).localeCompare(String(x.done.last_at))).slice(0, 50);
  const o = $("open");
  o.replaceChildren(...open.map(openCard));
  if (!open.length) o.append(el("div", "empty", "Nothing needs the floor right now."));
  $("done").replaceChildren(...done.map(doneCard));
  // a screen runs all day: of the acknowledged groups it keeps only the latest
  const kept = new Set(done.map((g) => g.key));
  for (const [k, g] of state.groups) if (!g.open && !kept.has(k)) state.groups.delete(k);
  requestAnimationFrame(() => {
    const t = Date.now();
    for (const g of open) {
      const first = `${g.tbl}/${(g.open.newest || {}).alert_id}`;
      if (!(first in window.floorStats.shown)) window.floorStats.shown[first] = t;
      const waiting = waitingShown.get(g.key) || [];
      const still = waiting.filter(([k, seq]) => {
        if (seq > g.open.upto) return true;
        if (!(k in window.floorStats.shown)) window.floorStats.shown[k] = t;
        return false;
      });
      if (still.length) waitingShown.set(g.key, still); else waitingShown.delete(g.key);
    }
  });
}

// a group as the console read it: never an older reading over a newer one (the answer to our
// own acknowledgement can come after the table's answers were pushed)
function setGroup(g) {
  const had = state.groups.get(g.key);
  if (had && (had.v || 0) > (g.v || 0)) return;
  state.groups.set(g.key, g);
}

function newAlert(a) {
  const k = `${a.tbl}/${a.alert_id}`;
  if (!(k in window.floorStats.received)) window.floorStats.received[k] = Date.now();
  if (a.ack_state) return;
  const g = `${a.tbl}/${a.name}`;
  waitingShown.set(g, [...(waitingShown.get(g) || []), [k, a.seq]]);
  if (a.severity === "critical" && !state.seenCritical.has(k)) {
    state.seenCritical.add(k);
    beep();
  }
}

async function acknowledge(g, button) {
  let by = state.me && state.me.user;
  if (!by) {
    by = localStorage.getItem("floorName") || "";
    by = (prompt("Your name (recorded with the acknowledgement):", by) || "").trim();
    if (!by) return;
    localStorage.setItem("floorName", by);
  }
  const label = button.textContent;
  button.disabled = true;
  button.textContent = "Sending…";
  try {
    // everything of the group up to its newest alert shown: one that came since is not
    // acknowledged unseen
    const r = await fetch("/api/ack", { method: "POST", headers: { "Content-Type": "application/json", "X-Floor": "1" },
      body: JSON.stringify({ table: g.tbl, name: g.name, upto: g.open.upto, by }) });
    const body = await r.json();
    if (!r.ok) throw new Error(body.error || r.statusText);
    setGroup(body.group);
    renderAll();
  } catch (err) {
    button.disabled = false;
    button.textContent = label;
    alert(`Not acknowledged: ${err.message}`);
  }
}

// ---------------------------------------------------------------- sound
let audio = null;
function beep() {
  if (!state.sound) return;
  try {
    audio = audio || new AudioContext();
    for (const [i, f] of [[0, 880], [1, 660], [2, 880]]) {
      const o = audio.createOscillator(), g = audio.createGain();
      o.frequency.value = f; g.gain.value = 0.15;
      o.connect(g).connect(audio.destination);
      o.start(audio.currentTime + i * 0.18); o.stop(audio.currentTime + i * 0.18 + 0.14);
    }
  } catch (e) { /* no audio device */ }
}

// ---------------------------------------------------------------- a table's hands
async function getJSON(url) {
  const r = await fetch(url, { headers: { Accept: "application/json" } });
  if (r.status === 401) { location.href = "/login"; throw new Error("log in"); }
  if (!r.ok) throw new Error(await r.text());
  return r.json();
}

function openPanel(title) {
  $("panel-title").textContent = title;
  $("panel").classList.remove("hidden");
  return $("panel-body");
}

// every alert of the table's day, one line each (the queue groups them; this lists them)
function alertList(alerts) {
  const shown = alerts.filter((a) => a.severity !== "info");
  const wrap = el("div", "table-alerts");
  wrap.append(el("h3", "", `Alerts today: ${shown.length}${alerts.length >= 200 ? " (the newest; search for more)" : ""}`));
  const list = el("div", "history");
  for (const a of shown) {
    const d = el("div", `alertline ${a.severity}`);
    d.dataset.alert = `${a.tbl}/${a.seq}`;
    d.append(el("span", "t", clock(a.ts)),
      `${a.severity.toUpperCase()} ${a.rule} ${a.name}${a.seat ? " seat " + a.seat : ""}` +
      `${a.hand ? " hand #" + a.hand : ""}: ${a.message} · ` +
      (a.ack_state ? `acknowledged by ${a.acked_by}` + (a.ack_reply ? ` (${a.ack_reply})` : "") : "open"));
    list.append(d);
  }
  wrap.append(list);
  return wrap;
}

async function showTable(id, day) {
  state.openTable = id;
  const game = (state.tables.get(id) || {}).game;
  const body = openPanel(id === TOURNAMENT ? "The tournament controller: alerts of the day" :
    `Table ${id}${game ? ` (${game})` : ""}: alerts and hands of the day`);
  body.replaceChildren(el("div", "empty", "loading…"));
  const q = new URLSearchParams({ table: id });
  if (day) q.set("day", day);
  if (id === TOURNAMENT) {  // no hands: the controller deals none
    body.replaceChildren(alertList((await getJSON(`/api/search?${q}`)).alerts));
    return;
  }
  const [got, found] = await Promise.all([getJSON(`/api/hands?${q}`), getJSON(`/api/search?${q}`)]);
  const wrap = el("div", "hands");
  const list = el("ol");
  const hist = el("div", "history");
  for (const h of got.hands) {
    const li = el("li");
    li.append(el("span", "n", `#${h.hand}`), ` ${clock(h.started)} ${h.reason || "in play"} `);
    if (h.alerts) li.append(el("span", "a", `${h.alerts} alert${h.alerts > 1 ? "s" : ""}`));
    li.addEventListener("click", async () => {
      for (const x of list.children) x.classList.remove("sel");
      li.classList.add("sel");
      showHand(hist, await getJSON(`/api/hand?table=${encodeURIComponent(id)}&start=${h.start_seq}`));
    });
    list.append(li);
  }
  if (!got.hands.length) list.append(el("li", "empty", "No hand today yet."));
  wrap.append(list, hist);
  body.replaceChildren(alertList(found.alerts), wrap);
  if (list.firstChild && list.firstChild.click) list.firstChild.click();
}

function line(ev) {
  const s = ev.seat ? `seat ${ev.seat} ` : "";
  const cards = (xs) => { const f = document.createDocumentFragment(); for (const c of xs || []) { f.append(cardEl(c), " "); } return f; };
  const d = el("div");
  d.append(el("span", "t", clock(ev.ts)));
  switch (ev.type) {
    case "hand_started":
      d.append(`Hand #${ev.hand} starts: button seat ${ev.button}, blinds ${ev.small_blind}/${ev.big_blind}` +
        (ev.ante ? `, ante ${ev.ante}` : "") + ", " + (ev.seats || []).map((p) => `${p.seat} ${p.name} ${p.stack}`).join(", "));
      break;
    case "card_dealt":
      d.append(`${s}gets card ${ev.n}` + (ev.face_up ? " face up: " : " (face down)"));
      if (ev.face_up && ev.card) d.append(cardEl(ev.card));
      break;
    case "burn": d.append(`burn before the ${ev.before}`); break;
    case "board": d.append(`${ev.street}: `, cards(ev.cards), ` board `, cards(ev.board)); break;
    case "action":
      d.append(`${s}${ev.action.replace(/_/g, " ")}` + (ev.amount ? ` ${ev.amount}` : "") +
        (ev.to ? ` (to ${ev.to})` : "") + ` · stack ${ev.stack} · pot ${ev.pot}`);
      break;
    case "draw": d.append(`${s}discards ${ev.discarded}, receives ${ev.received}`); break;
    case "showdown":
      d.append(`${s}` + (ev.tabled ? "shows " : "mucks unseen"));
      if (ev.tabled) d.append(cards(ev.cards), ev.rank ? `: ${ev.rank}` : "");
      break;
    case "pot_awarded": d.append(`${ev.pot} pot ${ev.amount} to seat ${(ev.seats || []).join(", ")}`); break;
    case "hand_ended":
      d.append(`hand ends (${ev.reason}); stacks ` + (ev.stacks || []).map((p) => `${p.seat}: ${p.stack}`).join(", "));
      break;
    case "alert":
      d.className = `alertline ${ev.severity}`;
      d.append(`${ev.severity.toUpperCase()} ${ev.rule} ${ev.name}${ev.seat ? " seat " + ev.seat : ""}: ${ev.message}`);
      break;
    default: d.append(`${ev.type}`);
  }
  return d;
}

function showHand(target, hand) {
  const head = el("h3", "", `Hand #${hand.hand} · ${hand.reason || "in play"} · ${hand.alerts.length} alert(s)`);
  const rows = hand.events.map(line);
  target.replaceChildren(head, ...rows);
}

async function search(form) {
  const q = new URLSearchParams();
  for (const [k, v] of new FormData(form)) if (String(v).trim()) q.set(k, String(v).trim());
  const body = openPanel(`Search ${q.toString().replace(/&/g, ", ").replace(/=/g, ": ") || "today"}`);
  try {
    const got = await getJSON(`/api/search?${q}`);
    const t = el("table", "results");
    const hr = el("tr");
    for (const h of ["time", "table", "seat", "hand", "severity", "rule", "alert", "acknowledged"]) hr.append(el("th", "", h));
    t.append(hr);
    for (const a of got.alerts) {
      const tr = el("tr");
      for (const v of [clock(a.ts), where(a.tbl), a.seat ?? "", a.hand ?? "", a.severity, `${a.rule} ${a.title}`, `${a.name}: ${a.message}`,
        a.ack_state ? `${a.acked_by} ${clock(a.acked_at)}` : "open"]) tr.append(el("td", "", v));
      t.append(tr);
    }
    body.replaceChildren(el("h3", "", `${got.alerts.length} alert(s)`), t);
    if (got.events.length) {
      const h = el("div", "history");
      for (const ev of got.events) { const d = line(ev); d.prepend(el("b", "", `${ev.table} `)); h.append(d); }
      body.append(el("h3", "", `${got.events.length} event(s), newest first`), h);
    }
  } catch (err) { body.replaceChildren(el("div", "empty", `Search failed: ${err.message}`)); }
}

// ---------------------------------------------------------------- live feed
function renderAll() { renderGrid(); renderQueue(); renderTournament(); }

// a table's view; its silence counted on this page's clock from the seconds the console gave
function setTable(t) {
  if (isSilent(t)) {
    if (!silentSince.has(t.id)) silentSince.set(t.id, Date.now() - t.silent_s * 1000);
  } else {
    silentSince.delete(t.id);
  }
  state.tables.set(t.id, t);
}
let pending = false;
function soon() { if (!pending) { pending = true; setTimeout(() => { pending = false; renderGrid(); }, 100); } }

function setLink() {
  const l = $("link");
  if (!state.connected) { l.className = "link down"; l.textContent = "console link lost: reconnecting…"; }
  else if (state.mqtt && !state.mqtt.connected) { l.className = "link down"; l.textContent = "broker unreachable"; }
  else { l.className = "link up"; l.textContent = "live"; }
}

function connect(delay) {
  const ws = new WebSocket(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws`);
  ws.onopen = () => { state.connected = true; delay = 500; setLink(); };
  ws.onmessage = (m) => {
    const msg = JSON.parse(m.data);
    if (msg.kind === "snapshot") {
      state.skew = Date.parse(msg.now) - Date.now();
      state.silentAfter = msg.silent_after_s;
      silentSince.clear();
      state.tables = new Map();
      for (const t of msg.tables) setTable(t);
      state.groups = new Map(msg.groups.map((g) => [g.key, g]));
      state.tournament = msg.tournament || null;
      state.mqtt = msg.mqtt;
      setLink();
      renderAll();
    } else if (msg.kind === "tables") {
      for (const t of msg.tables) setTable(t);
      soon();
    } else if (msg.kind === "alert") {
      newAlert(msg.alert);  // (its group follows at once)
    } else if (msg.kind === "group") {
      setGroup(msg.group);
      renderQueue();  // the queue at once; the tiles and counts with the next grid redraw
      soon();
    } else if (msg.kind === "tournament") {
      state.tournament = msg.tournament || null;
      renderTournament();
    } else if (msg.kind === "mqtt") {
      state.mqtt = msg; setLink();
    }
  };
  ws.onclose = () => {
    state.connected = false; setLink();
    setTimeout(() => connect(Math.min(delay * 2, 8000)), delay);
  };
}

function tick() {
  $("clock").textContent = new Date(now()).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", second: "2-digit" });
  for (const e of document.querySelectorAll("#open .age[data-ts]")) e.textContent = age(e.dataset.ts);
  tourneyTick();
  for (const e of document.querySelectorAll("#grid .silent-for")) {
    e.textContent = silentFor(e.dataset.table);
    e.closest(".tile").title = silentTip(e.dataset.table);
  }
}

async function main() {
  state.me = await getJSON("/api/me");
  $("venue").textContent = state.me.name;
  document.title = `Floor console · ${state.me.name}`;
  if (state.me.user) {
    const b = el("button", "", `${state.me.user} · log out`);
    b.addEventListener("click", async () => { await fetch("/logout", { method: "POST", headers: { "X-Floor": "1" } }); location.href = "/login"; });
    $("who").append(b);
  }
  const snd = $("sound");
  if (!state.me.sound) snd.classList.add("hidden");
  snd.addEventListener("click", () => { state.sound = !state.sound; snd.textContent = state.sound ? "Sound on" : "Sound off"; if (state.sound) beep(); });
  $("panel-close").addEventListener("click", () => { $("panel").classList.add("hidden"); state.openTable = null; });
  document.addEventListener("keydown", (e) => { if (e.key === "Escape") $("panel").classList.add("hidden"); });
  $("search").addEventListener("submit", (e) => { e.preventDefault(); search(e.target); });
  setInterval(tick, 1000); tick();
  connect(500);
}
main();
