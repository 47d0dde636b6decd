"use strict";
// The room's clock screen: the view drawn big, and the countdown ticked here between views.

let view = null;

// Shrink an element's font until its text fits its box (a long name or big blinds must
// never be cut off); it starts again from the stylesheet's size every time.
function fit(e) {
  e.style.fontSize = "";
  const base = parseFloat(getComputedStyle(e).fontSize);
  for (let scale = 0.95; e.scrollWidth > e.clientWidth + 1 && scale >= 0.4; scale -= 0.05) {
    e.style.fontSize = `${base * scale}px`;
  }
}
const FITTED = ["name", "level", "blinds", "ante", "next-label", "next-blinds", "next-ante", "next-break",
  "next-break-name", "players", "entries", "average", "average-bb", "pool", "first"];

function periodAfterBreak(c) {
  return c.next_level;
}

function draw() {
  if (!view) return;
  const c = view.clock, f = view.field;
  const first = (c.structure || []).find((p) => p.kind === "level") || null;
  const lv = c.level || first;
  const brk = c.on_break;
  document.body.classList.toggle("onbreak", !!brk);
  T.$("name").textContent = view.name || "Tournament";
  document.title = `${view.name || "Tournament"}: clock`;
  T.$("level").textContent = brk ? (brk.name || "Break").toUpperCase() : (lv ? `LEVEL ${lv.number}` : "–");
  const state = T.$("state");
  const waiting = !c.started, paused = c.started && !c.running;
  state.classList.toggle("hidden", !(waiting || paused));
  state.classList.toggle("waiting", waiting);
  state.textContent = waiting ? "NOT STARTED" : (paused ? "PAUSED" : "");
  if (brk) {
    const after = periodAfterBreak(c);
    T.$("blinds").textContent = after ? `Level ${after.number}: ${T.blinds(after)}` : "";
    T.$("ante").textContent = after ? `after the break · ${T.ante(after)}` : "";
  } else {
    T.$("blinds").textContent = T.blinds(lv);
    T.$("ante").textContent = lv ? T.ante(lv) : "";
  }
  const nx = c.next_level;
  T.$("next-label").textContent = brk ? "After the break" : "Next level";
  T.$("next-blinds").textContent = nx ? T.blinds(nx) : "last level";
  T.$("next-ante").textContent = nx ? `L${nx.number} · ${T.ante(nx)}` : "";
  T.$("next-break-name").textContent = c.next_break ? `${c.next_break.name}, ${T.minutes(c.next_break.minutes)}` : "";
  T.$("players").textContent = f.players_left ? T.chips(f.players_left) : "–";
  T.$("entries").textContent = `of ${T.chips(f.entries)} entries`;
  T.$("average").textContent = f.players_left ? T.chips(f.average_stack) : "–";
  T.$("average-bb").textContent = f.average_bb ? `${Math.round(f.average_bb)} BB` : "";
  T.$("pool").textContent = f.prize_pool ? T.chips(f.prize_pool) : "–";
  const top = (view.payouts || [])[0];
  T.$("first").textContent = top ? `1st: ${T.chips(top.prize)}` : "";
  tick();
  for (const id of FITTED) fit(T.$(id));
  document.querySelectorAll(".label").forEach(fit);
}

function tick() {
  if (!view) return;
  const c = view.clock;
  const left = T.remaining(c);
  const time = T.$("time");
  const text = T.clock(left);
  if (time.textContent !== text) {
    const refit = time.textContent.length !== text.length;
    time.textContent = text;
    if (refit) fit(time);
  }
  time.classList.toggle("paused", c.started && !c.running);
  time.classList.toggle("waiting", !c.started);
  time.classList.toggle("low", c.running && left < 60 && !c.on_break);
  const tb = T.toBreak(c);
  const nb = T.$("next-break"), nbText = tb === null ? "none" : T.clock(tb);
  if (nb.textContent !== nbText) nb.textContent = nbText;
}

T.live((v) => { view = v; draw(); }, (up) => {
  const link = T.$("link");
  link.className = "link " + (up ? "up" : "down");
  link.textContent = up ? "live" : "reconnecting…";
});
setInterval(tick, 100);
