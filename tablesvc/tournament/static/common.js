"use strict";
// What both tournament pages share: the live view over a WebSocket that reconnects by itself,
// the countdown between two views, and the formatting of chips and times. Everything drawn is
// text (textContent), never HTML from the view: player names come from registration.

const T = {};

T.$ = (id) => document.getElementById(id);

T.el = function (tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined && text !== null) e.textContent = String(text);
  return e;
};

T.chips = (n) => (n === null || n === undefined) ? "–" : Math.round(n).toLocaleString("en-US");

// 734.2 -> "12:14"; 3725 -> "1:02:05" (a countdown shows whole seconds, rounded up, so that
// "0:00" means the time is up)
T.clock = function (s) {
  const t = Math.max(0, Math.ceil(s - 1e-6));
  const h = Math.floor(t / 3600), m = Math.floor((t % 3600) / 60), sec = t % 60;
  const mm = h ? String(m).padStart(2, "0") : String(m);
  return (h ? `${h}:` : "") + `${mm}:${String(sec).padStart(2, "0")}`;
};

T.minutes = (m) => Number.isInteger(m) ? `${m} min` : `${m.toFixed(1)} min`;

T.blinds = (lv) => lv ? `${T.chips(lv.small_blind)} / ${T.chips(lv.big_blind)}` : "–";

T.ante = function (lv) {
  if (!lv || !lv.ante) return "no ante";
  return lv.ante_mode === "big_blind" ? `BB ante ${T.chips(lv.ante)}` : `ante ${T.chips(lv.ante)}`;
};

// The server's clock minus this page's, from the time sent with every view.
T.skew = 0;
T.serverNow = () => (Date.now() / 1000) + T.skew;

// Seconds left in the current period, now: a running clock counts towards its wall-clock
// ends_at, a paused one (or one not started) shows what the view says.
T.remaining = function (c) {
  if (c.running && c.ends_at) return Math.max(0, c.ends_at - T.serverNow());
  return Math.max(0, c.remaining_s || 0);
};

// Seconds to the next break, now (the view's figure was true when the view was built, at
// ends_at - remaining_s).
T.toBreak = function (c) {
  if (c.next_break_in_s === null || c.next_break_in_s === undefined) return null;
  if (c.running && c.ends_at) {
    const built = c.ends_at - c.remaining_s;
    return Math.max(0, built + c.next_break_in_s - T.serverNow());
  }
  return c.next_break_in_s;
};

// The session is gone (the controller restarted: sessions live in its memory, or it ran
// out): to the login page, which sends the browser back to this page.
T.toLogin = function () {
  const back = location.pathname === "/clock" ? "/clock" : "/";
  location.replace("/login?next=" + encodeURIComponent(back));
};

// After the WebSocket closed: a browser does not say why a handshake failed, so ask the API
// whether this page still has a session (401: log in again; no answer: the controller is
// down, keep trying).
T.checkSession = function () {
  return fetch("/api/me", { credentials: "same-origin" }).then((r) => {
    if (r.status === 401) T.toLogin();
    return r.status !== 401;
  }).catch(() => true);
};

// Connect to /ws; onView(view) for every view, onLink(up) when the link changes. A view whose
// running clock reached zero is asked for again (the level after it has begun on the server).
// A page whose session is gone goes to the login page instead of reconnecting for ever.
T.live = function (onView, onLink) {
  let view = null, retry = 500, refetching = false;
  function got(v, serverTime) {
    if (serverTime) T.skew = serverTime - Date.now() / 1000;
    view = v;
    onView(v);
  }
  function connect() {
    const ws = new WebSocket((location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/ws");
    ws.onopen = () => { retry = 500; onLink(true); };
    ws.onmessage = (m) => {
      const msg = JSON.parse(m.data);
      if (msg.kind === "view") got(msg.view, msg.now);
    };
    ws.onclose = () => {
      onLink(false);
      T.checkSession().then((ok) => {
        if (!ok) return;
        setTimeout(connect, retry);
        retry = Math.min(retry * 2, 5000);
      });
    };
  }
  connect();
  setInterval(() => {
    if (!view || refetching || !view.clock.running || T.remaining(view.clock) > 0) return;
    refetching = true;
    fetch("/api/view", { credentials: "same-origin" }).then((r) => {
      if (r.status === 401) { T.toLogin(); return null; }
      const at = Number(r.headers.get("X-Server-Time"));
      return r.ok ? r.json().then((v) => got(v, at)) : null;
    }).catch(() => null).finally(() => setTimeout(() => { refetching = false; }, 1000));
  }, 250);
};
