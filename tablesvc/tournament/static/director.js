"use strict";
// The director's page: the whole view drawn on every change, and the director's actions sent
// to POST /api/action. Every answer is shown (a refused action in red, until the next one or
// until closed). Names are set as text only.

let view = null;
const el = T.el, $ = T.$;
const armed = new Map(); // a destructive button's key -> when its confirmation runs out

function seatOf(at) { return at ? `${at[0]}/${at[1]}` : "–"; }
function ordinal(n) {
  const s = ["th", "st", "nd", "rd"], v = n % 100;
  return n + (s[(v - 20) % 10] || s[v] || s[0]);
}

// ---------------------------------------------------------------- actions
function notice(ok, text) {
  const box = $("notice");
  box.className = "notice " + (ok ? "ok" : "error");
  $("notice-text").textContent = text;
}
$("notice-close").addEventListener("click", () => {
  $("notice").className = "notice hidden";
});

function summary(data) {
  if (data === null || data === undefined || typeof data !== "object") return "";
  const parts = Object.entries(data).map(([k, v]) => `${k} ${typeof v === "object" ? JSON.stringify(v) : v}`);
  return parts.length ? ` (${parts.join(", ")})` : "";
}

async function act(body, label) {
  const what = label || body.action.replace(/_/g, " ");
  let answer;
  try {
    const r = await fetch("/api/action", {
      method: "POST", credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-Tournament": "1" },
      body: JSON.stringify(body),
    });
    if (r.status === 401) { T.toLogin(); return null; }
    answer = await r.json();
  } catch (err) {
    notice(false, `${what}: no answer from the controller (${err})`);
    return null;
  }
  if (answer.ok) notice(true, `Done: ${what}${summary(answer.data)}`);
  else notice(false, `${what}: ${answer.error || "refused"}`);
  return answer;
}

function button(text, cls, onClick) {
  const b = el("button", cls, text);
  b.type = "button";
  b.addEventListener("click", onClick);
  return b;
}

// A button that asks for a second click within four seconds (breaking a table, removing a
// player). CSP forbids inline scripts, not confirm(), but a second click is quicker at a table.
function confirmButton(key, text, sure, body, label) {
  const on = (armed.get(key) || 0) > Date.now();
  const b = button(on ? sure : text, on ? "danger armed" : "danger", () => {
    if ((armed.get(key) || 0) > Date.now()) {
      armed.delete(key);
      act(body, label);
    } else {
      armed.set(key, Date.now() + 4000);
      setTimeout(draw, 4100);
    }
    draw();
  });
  return b;
}

document.querySelectorAll("#controls button, #draw").forEach((b) => {
  b.addEventListener("click", () => {
    const body = { action: b.dataset.act };
    if (b.dataset.levels) body.levels = Number(b.dataset.levels);
    if (b.dataset.minutes) body.minutes = Number(b.dataset.minutes);
    act(body, b.textContent.trim().toLowerCase());
  });
});

$("register").addEventListener("submit", async (e) => {
  e.preventDefault();
  const name = $("reg-name").value.trim(), id = $("reg-id").value.trim();
  const body = { action: "register", name };
  if (id) body.player = id;
  const answer = await act(body, `register ${name}`);
  if (answer && answer.ok) {
    $("reg-name").value = "";
    $("reg-id").value = "";
    $("reg-name").focus();
  }
});

// ---------------------------------------------------------------- drawing
function drawHeader() {
  const c = view.clock, f = view.field;
  $("name").textContent = view.name;
  $("venue").textContent = view.venue;
  document.title = `${view.name}: director`;
  const lv = c.level;
  $("c-level").textContent = c.on_break ? (c.on_break.name || "Break") :
    (lv ? `Level ${lv.number} · ${T.blinds(lv)}${lv.ante ? " · " + T.ante(lv) : ""}` : "–");
  const st = $("c-state");
  const state = !c.started ? "waiting" : (c.running ? "running" : "paused");
  st.className = "pill " + state;
  st.textContent = { waiting: "not started", running: "running", paused: "PAUSED" }[state];
  $("start").disabled = c.started;
  $("pause").disabled = !c.running;
  $("resume").disabled = !c.started || c.running;
  for (const id of ["level-down", "level-up", "minute-down", "minute-up"]) $(id).disabled = !c.started;
  const fd = $("field");
  fd.replaceChildren();
  const add = (label, value) => {
    const s = el("span", null, label + " ");
    s.appendChild(el("b", null, value));
    fd.appendChild(s);
  };
  add("players", `${T.chips(f.players_left)} / ${T.chips(f.entries)}`);
  add("avg", `${T.chips(f.average_stack)}${f.average_bb ? ` (${Math.round(f.average_bb)} BB)` : ""}`);
  if (f.chip_leader) add("leader", `${f.chip_leader.name} ${T.chips(f.chip_leader.stack)}`);
  add("pool", T.chips(f.prize_pool));
}

function drawStructure() {
  const c = view.clock, body = $("structure").tBodies[0];
  body.replaceChildren();
  c.structure.forEach((p, i) => {
    const tr = el("tr", p.kind === "break" ? "break" : "");
    tr.dataset.period = i;
    if (i === c.period) tr.classList.add("now");
    else if (i < c.period) tr.classList.add("past");
    if (p.kind === "break") {
      const td = el("td", null, p.name || "Break");
      td.colSpan = 3;
      tr.append(td, el("td", null, p.minutes));
    } else {
      tr.append(el("td", null, p.number), el("td", null, T.blinds(p)),
        el("td", null, p.ante ? (p.ante_mode === "big_blind" ? `${T.chips(p.ante)} BB` : T.chips(p.ante)) : "–"),
        el("td", null, p.minutes));
    }
    body.appendChild(tr);
  });
}

function drawPayouts() {
  const body = $("payouts").tBodies[0];
  body.replaceChildren();
  const byPlace = new Map();
  for (const p of view.players) if (p.place) byPlace.set(p.place, [...(byPlace.get(p.place) || []), p.name]);
  for (const row of view.payouts) {
    const tr = el("tr");
    tr.append(el("td", null, ordinal(row.place)), el("td", "num", T.chips(row.prize)),
      el("td", null, (byPlace.get(row.place) || []).join(", ")));
    body.appendChild(tr);
  }
  $("pool").textContent = view.field.prize_pool ? `pool ${T.chips(view.field.prize_pool)}` : "";
}

function seatRow(t, seat, reported, wanted, gone) {
  const row = el("div", "seat");
  row.dataset.seat = seat;
  const marks = el("span", "marks");
  if (t.button === seat) marks.appendChild(el("span", "mark btn", "D"));
  if (t.small_blind === seat) marks.appendChild(el("span", "mark sb", "SB"));
  if (t.big_blind === seat) marks.appendChild(el("span", "mark bb", "BB"));
  let who = "empty", stack = null;
  if (reported) {
    who = reported.name;
    stack = reported.stack;
    if (gone.has(reported.name)) row.classList.add("busted");
  } else if (wanted) {
    who = wanted.name;
    stack = wanted.stack;
    row.classList.add("arriving");
  } else {
    row.classList.add("empty");
  }
  const whoEl = el("span", "who", who);
  if (reported && reported.moving) {
    whoEl.appendChild(el("span", "moving", ` → ${seatOf(reported.moving)}`));
    row.classList.add("leaving");
  } else if (reported && wanted && wanted.name !== reported.name) {
    whoEl.appendChild(el("span", "moving", ` (then ${wanted.name})`));
  }
  if (wanted && wanted.no_show) whoEl.appendChild(el("span", "dim", " no-show"));
  const tools = el("span", "tools");
  if (wanted) {
    const mv = button("move", "move", () => openPlayer(wanted.player));
    mv.title = `move ${wanted.name} to another seat, or remove him`;
    tools.appendChild(mv);
  }
  row.append(el("span", "no", seat), marks, whoEl, el("span", "stack", stack === null ? "" : T.chips(stack)), tools);
  return row;
}

function drawTables() {
  const box = $("tables");
  box.replaceChildren();
  const wantedAt = new Map(), gone = new Set();
  for (const p of view.players) {
    if (p.status === "seated" && p.table) wantedAt.set(`${p.table}/${p.seat}`, p);
    if (p.status === "out" || p.status === "removed") gone.add(p.name);
  }
  let players = 0;
  for (const t of view.tables) {
    const tile = el("div", "tile" + (t.online ? "" : " offline") + (t.open ? "" : " closed"));
    tile.dataset.table = t.table;
    const head = el("div", "head");
    head.append(el("span", "tname", t.table),
      el("span", "badge " + (t.online ? "online" : "offline"), t.online ? "online" : "OFFLINE"));
    if (!t.open) head.appendChild(el("span", "badge closed", "closed"));
    tile.appendChild(head);
    const reported = new Map(t.players.map((p) => [p.seat, p]));
    let here = 0;
    const rows = [];
    for (let s = 1; s <= t.seats; s++) {
      const w = wantedAt.get(`${t.table}/${s}`) || null;
      if (w) here += 1;
      rows.push(seatRow(t, s, reported.get(s) || null, w, gone));
    }
    players += here;
    const lvl = t.level_acked !== null && t.level_acked !== undefined ? view.clock.structure[t.level_acked] : null;
    const line = [`${here} player${here === 1 ? "" : "s"}`];
    if (t.hand !== null && t.hand !== undefined) line.push(`hand ${t.hand}${t.in_hand ? " (playing)" : ""}`);
    line.push(lvl ? `plays level ${lvl.number}` : "level not taken yet");
    tile.appendChild(el("div", "line", line.join(" · ")));
    tile.append(...rows);
    const foot = el("div", "foot");
    foot.appendChild(t.open ? confirmButton(`break:${t.table}`, "Break table", `Break ${t.table}? click again`, { action: "break_table", table: t.table })
      : button("Open table", "", () => act({ action: "open_table", table: t.table })));
    foot.lastChild.classList.add("break-table");
    tile.appendChild(foot);
    box.appendChild(tile);
  }
  $("tables-count").textContent = `${view.tables.length} tables, ${players} seated`;
}

function list(id, items, empty) {
  const box = $(id);
  box.replaceChildren(...(items.length ? items : [el("div", "none", empty)]));
  const count = $(`${id}-count`);
  if (count) count.textContent = items.length ? String(items.length) : "";
}

function drawLists() {
  list("suggestions", view.suggestions.map((s) => {
    const it = el("div", "item suggestion");
    it.dataset.suggestion = s.id;
    it.appendChild(el("div", "what", `Move ${s.name} from ${seatOf(s.from)} to ${seatOf(s.to)} (${s.rule})`));
    it.appendChild(el("div", "why", s.reason));
    const b = el("div", "buttons");
    b.append(button("Accept (move now)", "primary accept", () => act({ action: "accept_suggestion", id: s.id }, `move ${s.name}`)),
      button("Dismiss", "dismiss", () => act({ action: "dismiss_suggestion", id: s.id })));
    it.appendChild(b);
    return it;
  }), "The tables are balanced.");
  list("moves", view.moves.map((m) => {
    const it = el("div", "item info");
    it.dataset.move = m.id;
    it.appendChild(el("div", "what", `${m.name || m.player}: ${seatOf(m.from)} → ${seatOf(m.to)}`));
    it.appendChild(el("div", "why", `${m.state}: the player moves when his hand is over`));
    const b = el("div", "buttons");
    b.appendChild(button("Cancel", "cancel", () => act({ action: "cancel_move", id: m.id })));
    it.appendChild(b);
    return it;
  }), "No moves waiting.");
  const byId = new Map(view.players.map((p) => [p.player, p]));
  list("alerts", [...view.alerts].reverse().map((a) => {
    const it = el("div", "item " + a.severity);
    it.appendChild(el("div", "what", `${a.name}${a.rule ? " · " + a.rule : ""}`));
    it.appendChild(el("div", null, a.message));
    it.appendChild(el("div", "why", a.remedy));
    const p = a.name === "no_show_stack_removal_due" ? byId.get(a.player) : null;
    if (p && inPlay(p)) {
      const b = el("div", "buttons");
      b.appendChild(removeButton(p, "Remove the stack"));
      it.appendChild(b);
    }
    return it;
  }), "No alerts.");
  list("busts", view.busts.map((b) => {
    const it = el("div", "item");
    it.appendChild(el("div", "what", `${ordinal(b.place)}: ${b.name}`));
    const when = b.at ? new Date(b.at).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" }) : "";
    it.appendChild(el("div", "why", `${b.table || ""}${b.hand !== null && b.hand !== undefined ? ", hand " + b.hand : ""} ${when}`));
    return it;
  }), "Nobody is out yet.");
}

function drawPlayers() {
  const body = $("players").tBodies[0];
  body.replaceChildren();
  let rank = 0, waiting = 0;
  for (const p of view.players) {
    const tr = el("tr", p.status);
    tr.dataset.player = p.player;
    if (p.status === "registered") waiting += 1;
    const pos = p.status === "out" ? ordinal(p.place || 0) : (p.status === "seated" ? String(++rank) : "");
    const where = p.status === "out" ? (p.prize ? `won ${T.chips(p.prize)}` : "out") :
      p.status === "removed" ? "removed" : (p.table ? `${p.table}/${p.seat}` : "waiting");
    const tdName = el("td", "name", p.name);
    tdName.title = `${p.name} (${p.player})`;
    const acts = el("td");
    if (p.status === "registered") {
      acts.appendChild(button("Seat", "seat-late", () => act({ action: "seat_late", player: p.player }, `seat ${p.name}`)));
    }
    if (inPlay(p)) {
      const ns = button(p.no_show ? "No-show ✓" : "No-show?", "no-show" + (p.no_show ? " on" : ""),
        () => act({ action: "no_show", player: p.player, no_show: !p.no_show }, `${p.name} ${p.no_show ? "is here" : "no-show"}`));
      ns.title = p.no_show ? "marked as not here: click when the player arrives" : "click when the player has not arrived";
      acts.appendChild(ns);
      if (p.no_show) acts.appendChild(removeButton(p, "Remove"));
    }
    tr.append(el("td", null, pos), tdName, el("td", null, where),
      el("td", "num", inPlay(p) ? T.chips(p.stack) : ""), acts);
    body.appendChild(tr);
  }
  $("waiting").textContent = waiting ? `${waiting} registered and waiting for a seat` : "nobody waiting for a seat";
  $("draw").disabled = waiting === 0;
}

function inPlay(p) { return p.status === "seated" || p.status === "registered"; }

function removeButton(p, text) {
  const b = confirmButton(`remove:${p.player}`, text, "Sure? click again",
    { action: "remove", player: p.player }, `remove ${p.name}`);
  b.classList.add("remove");
  b.title = "take the player and his stack out of the tournament (a no-show at the end of level 2, a disqualification)";
  return b;
}

// ---------------------------------------------------------------- a player's dialog
// Opened from a seat's "move" button: move the player to a free seat of an open table, or
// remove him. It lives outside what every view redraws, so a choice in it survives a push.
const dialog = $("player-dialog");
let chosen = null; // the player in the dialog
let removeArmed = 0;

// The seats of ``t`` nobody holds: not a player the controller seats there, not one the table
// shows there, not one a queued move still has to leave.
function freeSeats(t) {
  const taken = new Set(t.players.map((r) => r.seat));
  for (const p of view.players) if (p.status === "seated" && p.table === t.table) taken.add(p.seat);
  for (const m of view.moves) if (m.from[0] === t.table) taken.add(m.from[1]);
  const free = [];
  for (let s = 1; s <= t.seats; s++) if (!taken.has(s)) free.push(s);
  return free;
}

function options(select, items, keep) {
  const same = select.options.length === items.length &&
    items.every((it, i) => select.options[i].value === it.value &&
      select.options[i].textContent === it.text && select.options[i].disabled === !!it.disabled);
  if (same) return;
  const before = keep !== undefined ? keep : select.value;
  select.replaceChildren(...items.map((it) => {
    const o = el("option", null, it.text);
    o.value = it.value;
    o.disabled = !!it.disabled;
    return o;
  }));
  const usable = items.filter((it) => !it.disabled);
  if (usable.some((it) => it.value === before)) select.value = before;
  else if (usable.length) select.value = usable[0].value;
}

function fillSeats() {
  const t = view.tables.find((x) => x.table === $("move-table").value);
  const free = t ? freeSeats(t) : [];
  options($("move-seat"), free.length ? free.map((s) => ({ value: String(s), text: String(s) }))
    : [{ value: "", text: "none free", disabled: true }]);
  $("move-go").disabled = !free.length;
}

function fillDialog(first) {
  const p = view.players.find((x) => x.player === chosen);
  if (!p || p.status !== "seated") { closePlayer(); return; }
  $("pd-name").textContent = p.name;
  $("pd-from").textContent = `from ${p.table}/${p.seat}`;
  const tables = view.tables.filter((t) => t.open).map((t) => {
    const n = freeSeats(t).length;
    return { value: t.table, text: `${t.table} (${n} free)`, disabled: n === 0 };
  });
  // the first time: another table with a free seat, the one with the fewest players
  let pick;
  if (first) {
    const others = view.tables.filter((t) => t.open && t.table !== p.table && freeSeats(t).length);
    const count = (t) => view.players.filter((x) => x.status === "seated" && x.table === t.table).length;
    others.sort((a, b) => count(a) - count(b) || a.table.localeCompare(b.table));
    pick = others.length ? others[0].table : p.table;
  }
  options($("move-table"), tables, pick);
  fillSeats();
  const rm = $("pd-remove");
  const on = removeArmed > Date.now();
  rm.textContent = on ? `Remove ${p.name}? click again` : "Remove from the tournament";
  rm.classList.toggle("armed", on);
}

function openPlayer(pid) {
  chosen = pid;
  removeArmed = 0;
  $("move-table").replaceChildren();
  fillDialog(true);
  if (chosen !== null && !dialog.open) dialog.showModal();
}

function closePlayer() {
  chosen = null;
  if (dialog.open) dialog.close();
}

dialog.addEventListener("close", () => { chosen = null; });
$("pd-close").addEventListener("click", closePlayer);
$("move-table").addEventListener("change", fillSeats);
$("move-form").addEventListener("submit", (e) => {
  e.preventDefault();
  const p = view.players.find((x) => x.player === chosen);
  const table = $("move-table").value, seat = Number($("move-seat").value);
  if (!p || !table || !seat) return;
  closePlayer();
  act({ action: "move", player: p.player, table, seat }, `move ${p.name} to ${table}/${seat}`);
});
$("pd-remove").addEventListener("click", () => {
  const p = view.players.find((x) => x.player === chosen);
  if (!p) return;
  if (removeArmed > Date.now()) {
    closePlayer();
    act({ action: "remove", player: p.player }, `remove ${p.name}`);
    return;
  }
  removeArmed = Date.now() + 4000;
  setTimeout(() => { if (chosen) fillDialog(false); }, 4100);
  fillDialog(false);
});

function draw() {
  if (!view) return;
  drawHeader();
  drawStructure();
  drawPayouts();
  drawTables();
  drawLists();
  drawPlayers();
  if (chosen !== null) fillDialog(false);
  tick();
}

function tick() {
  if (!view) return;
  const c = view.clock, t = $("c-time");
  const text = T.clock(T.remaining(c));
  if (t.textContent !== text) t.textContent = text;
  t.classList.toggle("paused", c.started && !c.running);
}

fetch("/api/me", { credentials: "same-origin" }).then((r) => {
  if (r.status === 401) { T.toLogin(); return null; }
  return r.json();
}).then((me) => {
  if (!me) return;
  $("who").textContent = me.login ? me.user : "";
}).catch(() => null);
T.live((v) => { view = v; draw(); }, (up) => {
  const link = $("link");
  link.className = "link " + (up ? "up" : "down");
  link.textContent = up ? "live" : "reconnecting…";
});
setInterval(tick, 200);
