// tablesvc broadcast overlay: draws the pictures the overlay server pushes over a WebSocket.
// The server sends a whole picture of the (delayed) table on every change and at once on
// connect, so a page opened mid-hand, or reconnected, shows the current hand straight away.
(() => {
  "use strict";
  const SUIT = { s: "\u2660", h: "\u2665", d: "\u2666", c: "\u2663" };
  const params = new URLSearchParams(location.search);
  if (params.get("background") === "felt") document.body.classList.add("preview");
  const $ = (sel, root = document) => root.querySelector(sel);
  const fmt = (n) => Number(n || 0).toLocaleString("en-US");
  const seats = new Map(); // seat number -> element
  let layout = ""; // the layout and the seats' places the elements were built for

  function pct(x) {
    if (x === null || x === undefined) return "";
    if (x > 0 && x < 1) return "<1%";
    if (x > 99 && x < 100) return ">99%";
    return Math.round(x) + "%";
  }

  function cardEl(card) {
    const el = document.createElement("div");
    if (!card) {
      el.className = "card back";
      return el;
    }
    el.className = "card " + card[1];
    el.dataset.card = card;
    const r = document.createElement("span");
    r.className = "r";
    r.textContent = card[0] === "T" ? "10" : card[0];
    const s = document.createElement("span");
    s.className = "s";
    s.textContent = SUIT[card[1]] || "?";
    el.append(r, s);
    return el;
  }

  function setCards(box, cards, down) {
    const list = cards && cards.length ? cards : Array(down || 0).fill(null);
    const key = list.map((c) => c || "?").join(",");
    if (box.dataset.key === key) return;
    box.dataset.key = key;
    box.replaceChildren(...list.map(cardEl));
  }

  // where each place's panel sits (its centre) for 6-, 9- and 10-handed tables: clockwise
  // from the dealer's place at the top centre, laid out by hand so that no two panels overlap.
  // The picture says the layout and each seat's place in it (the server fits the layout to
  // the players, or keeps the one configured, where seat n sits at place n - 1)
  const PLACES = {
    6: [[1320, 190], [1720, 540], [1320, 900], [600, 900], [200, 540], [600, 190]],
    9: [[1330, 185], [1710, 380], [1700, 680], [1380, 945], [960, 960], [540, 945],
      [220, 680], [210, 380], [590, 185]],
    10: [[1330, 185], [1700, 330], [1730, 590], [1640, 845], [1230, 960], [690, 960],
      [280, 845], [190, 590], [220, 330], [590, 185]],
  };
  const CX = 960, CY = 540; // the middle of the table

  function place(el, at, n) {
    const [x, y] = (PLACES[n] || PLACES[10])[at];
    el.style.left = x + "px";
    el.style.top = y + "px";
    // the bet lies just off the panel, towards the middle of the table
    const bet = $(".bet", el);
    const d = Math.hypot(CX - x, CY - y) || 1;
    bet.style.left = `calc(50% + ${((CX - x) / d) * 265}px)`;
    bet.style.top = `calc(50% + ${((CY - y) / d) * 185}px)`;
  }

  function build(n, list) {
    const root = $("#seats");
    root.replaceChildren();
    seats.clear();
    for (const { seat, place: at } of list) {
      const el = document.createElement("div");
      el.className = "seat empty";
      el.dataset.seat = seat;
      el.dataset.place = at;
      el.innerHTML =
        '<div class="bet"><span class="chip"></span><span class="amount"></span></div>' +
        '<div class="panel">' +
        '<div class="badges"><span class="drew-badge"></span><span class="allin-badge">ALL IN</span>' +
        '<span class="winner-badge">WINNER</span><span class="dealer">D</span></div>' +
        '<div class="top"><div class="cards"></div>' +
        '<div class="odds"><div class="win"></div><div class="sub"></div></div></div>' +
        '<div class="namebar"><img class="photo" alt="" hidden><img class="flag" alt="" hidden>' +
        '<span class="name"></span><span class="stack"></span></div>' +
        '<div class="tag"></div></div>';
      place(el, at, n);
      root.append(el);
      seats.set(seat, el);
    }
  }

  // served on this machine the token is in the page's URL, and every request carries it;
  // served beyond it the page traded the token for a cookie, and its URL has none
  const token = params.get("token");
  const withToken = (path) => (token ? path + "?token=" + encodeURIComponent(token) : path);

  function setImage(img, src) {
    if (src) {
      src = withToken(src);
      if (img.getAttribute("src") !== src) img.src = src;
      img.hidden = false;
    } else {
      img.hidden = true;
    }
  }

  function renderSeat(el, s, v, leader) {
    el.classList.toggle("empty", !s);
    if (!s) return;
    const inHand = s.in_hand;
    el.classList.toggle("out", !inHand);
    const live = inHand && !s.folded && s.win !== null && s.win !== undefined;
    // the cards the seat was dealt, whatever the game: four or five (Omaha, draw) take
    // smaller cards, and five overlap a little while the odds stand beside them
    const n = inHand ? (s.cards && s.cards.length ? s.cards.length : s.down || 0) : 0;
    el.classList.toggle("many", n >= 4);
    el.classList.toggle("crowded", n >= 5 && live);
    el.classList.toggle("folded", inHand && s.folded);
    el.classList.toggle("mucked", inHand && s.mucked);
    el.classList.toggle("all-in", inHand && s.all_in && !s.folded);
    el.classList.toggle("winner", s.winner);
    el.classList.toggle("dealer-seat", v.button === s.seat && v.hand !== null);
    el.classList.toggle("betting", inHand && s.bet > 0);
    $(".bet .amount", el).textContent = fmt(s.bet);
    $(".name", el).textContent = s.name;
    $(".stack", el).textContent = fmt(s.stack);
    setImage($(".photo", el), s.photo);
    setImage($(".flag", el), s.flag);
    setCards($(".cards", el), inHand ? s.cards : null, inHand ? s.down : 0);
    el.dataset.win = live ? String(s.win) : "";
    el.dataset.cards = (s.cards || []).join(" ");
    $(".win", el).textContent = live ? pct(s.win) : "";
    const sub = [];
    // (no-break spaces: a narrow seat's figures wrap between them, not inside one)
    if (live && s.tie >= 0.5) sub.push("TIE\u00a0" + pct(s.tie));
    if (live && s.outs !== null && s.outs !== undefined && s.seat !== leader) {
      sub.push(s.outs === 0 ? "DRAWING\u00a0DEAD" :
        s.outs + (s.outs === 1 ? "\u00a0OUT" : "\u00a0OUTS"));
    }
    $(".sub", el).textContent = sub.join(" \u00b7 ");
    const tag = [];
    $(".winner-badge", el).textContent = s.winner ? "WINS " + fmt(s.won) : "";
    if (inHand && s.folded) tag.push("FOLD");
    if (inHand && s.mucked) tag.push("MUCKS");
    const drew = inHand && s.drew !== null && s.drew !== undefined;
    el.classList.toggle("drew", drew);
    $(".drew-badge", el).textContent = drew ? (s.drew ? "DRAWS " + s.drew : "STANDS PAT") : "";
    // the hand in words comes when the game has one to say (hold'em and Omaha from the flop,
    // draw from the deal), from the win probabilities and then the showdown
    if (inHand && !s.folded && s.hand) tag.push(s.hand);
    $(".tag", el).textContent = tag.join(" \u00b7 ");
  }

  // the tournament strip: the controller's level and its blinds and ante (or the break and
  // the level after it), and the chip leader; hidden when no controller publishes a clock
  function blinds(lv) {
    if (!lv || !lv.big_blind) return "";
    const ante = lv.ante ? ` \u00b7 ${lv.ante_mode === "big_blind" ? "BB ANTE" : "ANTE"} ${fmt(lv.ante)}` : "";
    return `${fmt(lv.small_blind)}/${fmt(lv.big_blind)}${ante}`;
  }

  function renderTournament(t) {
    const strip = $("#tourney");
    strip.hidden = !t;
    if (!t) return;
    const lv = t.level;
    $("#t-level").textContent = t.on_break ? t.on_break : (lv ? "LEVEL " + lv.number : "");
    $("#t-blinds").textContent = t.on_break ?
      (t.next_level ? `NEXT ${blinds(t.next_level)}` : "") : blinds(lv);
    const leader = $("#t-leader");
    leader.replaceChildren();
    if (t.leader && t.leader.name) {
      const label = document.createElement("span");
      label.className = "label";
      label.textContent = "CHIP LEADER";
      const stack = document.createElement("span");
      stack.className = "stack";
      stack.textContent = fmt(t.leader.stack);
      const name = document.createElement("span");
      name.className = "name";
      name.textContent = t.leader.name;
      leader.append(label, " ", name, " ", stack);
    }
  }

  function render(v) {
    renderTournament(v.tournament || null);
    const places = v.seats.map((s) => ({ seat: s.seat, place: s.place }));
    const key = v.layout + ":" + places.map((p) => p.seat + "@" + p.place).join(",");
    if (key !== layout) {
      build(v.layout, places);
      layout = key;
    }
    document.body.classList.toggle("has-table", v.seats.length > 0);
    document.body.dataset.hand = v.hand === null ? "" : String(v.hand);
    document.body.dataset.street = v.street || "";
    $("#table").textContent = v.table ? "TABLE " + v.table.split("/").pop() : "";
    $("#game").textContent = v.game || "";
    $("#handno").textContent = v.hand !== null ? "HAND " + v.hand : "";
    const lv = v.level || {};
    const parts = [];
    if (lv.big_blind) parts.push(`BLINDS ${fmt(lv.small_blind)}/${fmt(lv.big_blind)}`);
    if (lv.ante) parts.push("ANTE " + fmt(lv.ante));
    $("#level").textContent = parts.join(" \u00b7 ");
    setCards($("#board"), v.board, 0);
    const pot = $("#pot");
    pot.classList.toggle("empty", !v.pot);
    $(".amount", pot).textContent = fmt(v.pot);
    const pots = v.pots.length > 1 ? v.pots : [];
    $("#pots").replaceChildren(...pots.map((p) => {
      const el = document.createElement("div");
      el.className = "pot";
      el.dataset.name = p.name;
      el.innerHTML = '<span class="label"></span><span class="amount"></span>';
      $(".label", el).textContent = p.name;
      $(".amount", el).textContent = fmt(p.amount);
      return el;
    }));
    const last = $("#last");
    last.replaceChildren();
    if (v.last_action && v.in_hand) {
      const who = document.createElement("span");
      who.className = "who";
      who.textContent = v.last_action.name;
      last.append(who, document.createTextNode(v.last_action.text));
    }
    const bySeat = new Map(v.seats.map((s) => [s.seat, s]));
    let leader = null, best = -1;
    for (const s of v.seats) {
      if (s.in_hand && !s.folded && s.win !== null && s.win > best) {
        best = s.win;
        leader = s.seat;
      }
    }
    for (const [seat, el] of seats) renderSeat(el, bySeat.get(seat), v, leader);
  }

  let retry = 0;
  function connect() {
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    const ws = new WebSocket(`${scheme}//${location.host}${withToken("/ws")}`);
    ws.onopen = () => {
      retry = 0;
      document.body.dataset.connected = "true";
    };
    ws.onmessage = (msg) => render(JSON.parse(msg.data));
    ws.onclose = () => {
      document.body.dataset.connected = "false";
      retry = Math.min(retry + 1, 5);
      setTimeout(connect, 250 * 2 ** retry); // 0.5 s doubling to 8 s
    };
  }
  connect();
})();
