"use strict";
// The floor console page: a grid of tables, the alert queue, a table's hands of the day.
// Live changes come over a WebSocket that reconnects by itself; everything shown is text
// (never HTML from a message), and no hidden card ever reaches this page.

const state = { tables: new Map(), alerts: new Map(), me: null, skew: 0, sound: false,
  connected: false, mqtt: null, seenCritical: new Set(), openTable: null };
// (table/alert id) -> when its message arrived, and when it was on screen (benchmarks)
window.floorStats = { received: {}, shown: {} };

const $ = (id) => document.getElementById(id);
function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined && text !== null) e.textContent = String(text);
  return e;
}
const key = (a) => `${a.tbl}/${a.seq}`;
const now = () => Date.now() + state.skew;

function age(ts) {
  const s = Math.max(0, Math.round((now() - Date.parse(ts)) / 1000));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${s % 60} s`;
  return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
}
function clock(ts) {
  const d = new Date(ts);
  return isNaN(d) ? "" : d.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", second: "2-digit" });
}
function cardEl(c) {
  const e = el("span", "card" + (/[hd]$/.test(c) ? " red" : ""), c);
  return e;
}

// ---------------------------------------------------------------- the grid
function openByTable() {
  const out = new Map();
  for (const a of state.alerts.values()) {
    if (a.ack_state || (a.severity !== "critical" && a.severity !== "warning")) continue;
    const n = out.get(a.tbl) || { critical: 0, warning: 0 };
    n[a.severity]++;
    out.set(a.tbl, n);
  }
  return out;
}

function tile(t, openAlerts) {
  const st = t.state || {};
  const open = openAlerts.get(t.id) || { critical: 0, warning: 0 };
  const devs = Object.entries(t.devices || {});
  const devBad = devs.some(([, d]) => d.state !== "online");
  const cls = ["tile"];
  if (t.online === false) cls.push("offline");
  if (open.critical) cls.push("crit"); else if (open.warning) cls.push("warn");
  if (devBad) cls.push("devwarn");
  const e = el("div", cls.join(" "));
  e.dataset.table = t.id;
  e.append(el("div", "name", t.id));
  const badges = el("div", "badges");
  if (t.online === false) badges.append(el("span", "badge off", "OFFLINE"));
  if (open.critical) badges.append(el("span", "badge crit", `${open.critical} CRITICAL`));
  if (open.warning) badges.append(el("span", "badge warn", `${open.warning} WARNING`));
  if (t.online !== false && !open.critical && !open.warning) badges.append(el("span", "badge ok", "OK"));
  e.append(badges);
  const line = el("div", "line");
  if (t.online === false) {
    line.textContent = "no service: the table's box or its link is down";
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
    s.append(el("i", "dot " + (t.online === false ? "" : d.state)), el("span", "label", name));
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
  let crit = 0, warn = 0;
  for (const a of state.alerts.values()) {
    if (!a.ack_state) { if (a.severity === "critical") crit++; else warn++; }
  }
  const pills = [el("span", "pill", `${tables.length - off} of ${tables.length} tables online`)];
  if (off) pills.push(el("span", "pill off", `${off} offline`));
  if (crit) pills.push(el("span", "pill crit", `${crit} critical`));
  if (warn) pills.push(el("span", "pill warn", `${warn} warning`));
  if (!crit && !warn) pills.push(el("span", "pill", "no open alert"));
  s.replaceChildren(...pills);
  $("open-count").textContent = crit + warn ? `(${crit + warn} open)` : "";
}

// ---------------------------------------------------------------- the alert queue
function alertCard(a) {
  const done = !!a.ack_state;
  const e = el("div", `alert ${a.severity}${done ? " done" : ""}`);
  e.dataset.alert = key(a);
  const head = el("div", "head");
  head.append(el("span", "sev", a.severity),
    el("span", "where", `${a.tbl}${a.seat ? " · seat " + a.seat : ""}`));
  const ag = el("span", "age", done ? clock(a.acked_at) : age(a.ts));
  ag.dataset.ts = a.ts;
  if (!done) head.append(ag); else head.append(el("span", "age", `hand #${a.hand ?? "-"}`));
  e.append(head);
  const rule = el("div", "rule");
  rule.append(el("code", "", a.rule), " " + (a.title || ""), el("span", "reply", `  ${a.name}`));
  e.append(rule);
  if (!done) {
    e.append(el("div", "msg", a.message));
    if (a.remedy) e.append(el("div", "remedy", a.remedy));
  }
  const acts = el("div", "acts");
  if (!done) {
    const b = el("button", "ack", "Acknowledge");
    b.type = "button";
    b.addEventListener("click", () => acknowledge(a, b));
    acts.append(b);
  } else {
    acts.append(el("span", "", `acknowledged by ${a.acked_by} at ${clock(a.acked_at)}`));
    const cls = a.ack_state === "ok" ? "ok" : a.ack_state === "refused" ? "refused" : "";
    const text = a.ack_state === "sent" ? "sent to the table, waiting for its answer…" : (a.ack_reply || "");
    acts.append(el("span", "reply " + cls, text));
  }
  e.append(acts);
  return e;
}

function renderQueue() {
  const all = [...state.alerts.values()];
  const open = all.filter((a) => !a.ack_state)
    .sort((x, y) => (y.ts.localeCompare(x.ts)) || (y.seq - x.seq));
  const done = all.filter((a) => a.ack_state)
    .sort((x, y) => String(y.acked_at).localeCompare(String(x.acked_at))).slice(0, 50);
  const o = $("open");
  o.replaceChildren(...open.map(alertCard));
  if (!open.length) o.append(el("div", "empty", "Nothing needs the floor right now."));
  $("done").replaceChildren(...done.map(alertCard));
  // a screen runs all day: of the acknowledged alerts it keeps only the latest
  const kept = new Set(done.map(key));
  for (const [k, a] of state.alerts) if (a.ack_state && !kept.has(k)) state.alerts.delete(k);
  requestAnimationFrame(() => {
    const t = Date.now();
    for (const a of open) {
      const k = `${a.tbl}/${a.alert_id}`;
      if (!(k in window.floorStats.shown)) window.floorStats.shown[k] = t;
    }
  });
}

const RANK = { "": 0, sent: 1, ok: 2, refused: 2, floor: 2 };
function addAlert(a) {
  const k = key(a);
  const isNew = !state.alerts.has(k);
  // the table's answer may overtake the answer to our own request: never go back
  if (!isNew && (RANK[state.alerts.get(k).ack_state] || 0) > (RANK[a.ack_state] || 0)) return;
  state.alerts.set(k, a);
  if (isNew && a.severity === "critical" && !a.ack_state && !state.seenCritical.has(k)) {
    state.seenCritical.add(k);
    beep();
  }
}

async function acknowledge(a, button) {
  let by = state.me && state.me.user;
  if (!by) {
    by = localStorage.getItem("floorName") || "";
    by = (prompt("Your name (recorded with the acknowledgement):", by) || "").trim();
    if (!by) return;
    localStorage.setItem("floorName", by);
  }
  button.disabled = true;
  button.textContent = "Sending…";
  try {
    const r = await fetch("/api/ack", { method: "POST", headers: { "Content-Type": "application/json", "X-Floor": "1" },
      body: JSON.stringify({ table: a.tbl, seq: a.seq, by }) });
    const body = await r.json();
    if (!r.ok) throw new Error(body.error || r.statusText);
    addAlert(body.alert);
    renderAll();
  } catch (err) {
    button.disabled = false;
    button.textContent = "Acknowledge";
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

async function showTable(id, day) {
  state.openTable = id;
  const body = openPanel(`Table ${id}: hands of the day`);
  body.replaceChildren(el("div", "empty", "loading…"));
  const q = new URLSearchParams({ table: id });
  if (day) q.set("day", day);
  const got = await getJSON(`/api/hands?${q}`);
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
  body.replaceChildren(wrap);
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
      for (const v of [clock(a.ts), a.tbl, a.seat ?? "", a.hand ?? "", a.severity, `${a.rule} ${a.title}`, `${a.name}: ${a.message}`,
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
function renderAll() { renderGrid(); renderQueue(); }
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
      state.tables = new Map(msg.tables.map((t) => [t.id, t]));
      state.alerts = new Map();
      for (const a of msg.alerts) { state.alerts.set(key(a), a); if (a.severity === "critical") state.seenCritical.add(key(a)); }
      state.mqtt = msg.mqtt;
      setLink();
      renderAll();
    } else if (msg.kind === "tables") {
      for (const t of msg.tables) state.tables.set(t.id, t);
      soon();
    } else if (msg.kind === "alert") {
      const a = msg.alert, k = `${a.tbl}/${a.alert_id}`;
      if (!(k in window.floorStats.received)) window.floorStats.received[k] = Date.now();
      addAlert(a);
      renderQueue();  // the queue at once; the tiles and counts with the next grid redraw
      soon();
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
