/* teppich's game page: shows the state the server pushes (/events, or
   /state.json), asks the questions only people can answer, and POSTs the
   answer line to /answer in the format of `teppich watch --answers`.
   Plain JS, no libraries. Field names: docs/web.md. */
"use strict";

const $ = (id) => document.getElementById(id);
const cardTypes = {};      /* card id -> type, from every state seen */
let state = null;
let askKey = "";           /* the question the form was built for */

const LABELS = {
  "palace": "the palace", "adventure-a": "adventure A",
  "adventure-b": "adventure B", "adventure-c": "adventure C",
  "adventure-d": "adventure D", "adventure-e": "adventure E",
  "spice-bazaar": "the spice bazaar", "carpet-bazaar": "the carpet bazaar",
  "camel-bazaar": "the camel bazaar", "treasure": "the treasure",
  "lamp": "the magic lamp", "desert": "the desert"
};
const COLOURS = {
  red: "#c62828", blue: "#1e5bb8", green: "#2e7d32", yellow: "#f2c200",
  orange: "#ef7d00", purple: "#6a1b9a", white: "#ffffff", black: "#222"
};
const STAGES = {
  genies: "Deal the genies.",
  layout: "Lay out the cards.",
  throws: "Throw the carpets!",
  answer: "Answer the question below.",
  taking: "Take your cards and carpets.",
  over: "The game is over."
};

function el(tag, attrs, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "class") e.className = v; else e.setAttribute(k, v);
  }
  for (const k of kids) e.append(k);
  return e;
}

function cardLabel(id, type) {
  const t = type || cardTypes[id];
  return t ? (LABELS[t] || t) : "card " + id;
}

function joinAnd(items) {
  if (items.length < 2) return items.join("");
  return items.slice(0, -1).join(", ") + " and " + items[items.length - 1];
}

function player(name) {
  return (state.players || []).find((p) => p.name === name) || null;
}

/* ---- the question: an object `ask`, or parsed from the prompt ---- */

function currentAsk(s) {
  if (s.ask && s.ask.kind) return s.ask;
  const q = typeof s.question === "string" ? s.question : "";
  if (!q) return null;
  const names = [...q.matchAll(/([^\s=:]+)=\?/g)].map((m) => m[1]);
  const card = /card (\d+)/.exec(q);
  let kind = "line";
  if (s.stage === "genies" || /^genies|\bgenies\b.*NAME/.test(q)) kind = "genies";
  else if (/\blamps\b/.test(q)) kind = "lamps";
  else if (/\breveal\b/.test(q)) kind = "reveal";
  return { kind, prompt: q, players: names,
           card: card ? Number(card[1]) : undefined };
}

function radioGroup(legend, name, values, extra) {
  const fs = el("fieldset", {}, el("legend", {}, legend));
  const box = el("div", { class: "choices" });
  for (const v of values) {
    const input = el("input", { type: "radio", name, value: String(v) });
    const id = name + "-" + v;
    input.id = id;
    box.append(el("label", { class: "choice", for: id }, input,
                  el("span", {}, String(v))));
  }
  fs.append(box);
  if (extra) fs.append(extra);
  return fs;
}

function buildAskFields(ask) {
  const box = $("ask-fields");
  box.replaceChildren();
  if (ask.kind === "reveal") {
    const names = ask.players && ask.players.length ? ask.players
      : (state.players || []).map((p) => p.name);
    for (const n of names) {
      const p = player(n);
      const genies = p && p.genies && p.genies.length ? p.genies : [1, 2, 3, 4, 5, 6, 7, 8];
      box.append(radioGroup(n + " reveals genie", "g-" + n, genies));
    }
  } else if (ask.kind === "lamps") {
    for (const p of state.players || []) {
      const held = (p.holds && p.holds.lamp) || 0;
      const counts = [];
      for (let k = 0; k <= held; k++) counts.push(k);
      const fs = radioGroup(p.name + ": lamps spent as palaces", "l-" + p.name, counts);
      box.append(fs);
      const zero = fs.querySelector("input[value='0']");
      if (zero) zero.checked = true;
    }
  } else if (ask.kind === "genies") {
    for (const p of state.players || []) {
      const id = "d-" + p.name;
      box.append(el("label", { for: id }, p.name + "'s genies"),
                 el("input", { id, name: id, inputmode: "numeric",
                               autocomplete: "off", placeholder: "e.g. 8,1" }));
    }
  }
  $("ask-free").open = ask.kind === "line";
}

/* The answer line of spec section 6 from the form, or "" if incomplete. */
function answerLine(ask) {
  const free = $("ask-line").value.trim();
  if (free) return { line: free };
  const form = $("ask-form");
  const parts = [];
  if (ask.kind === "reveal") {
    const names = ask.players && ask.players.length ? ask.players
      : (state.players || []).map((p) => p.name);
    for (const n of names) {
      const c = form.querySelector(`input[name="g-${CSS.escape(n)}"]:checked`);
      if (!c) return { missing: n + ": pick a genie" };
      parts.push(n + "=" + c.value);
    }
    return { line: "reveal " + parts.join(" ") };
  }
  if (ask.kind === "lamps") {
    for (const p of state.players || []) {
      const c = form.querySelector(`input[name="l-${CSS.escape(p.name)}"]:checked`);
      parts.push(p.name + "=" + (c ? c.value : "0"));
    }
    return { line: "lamps " + parts.join(" ") };
  }
  if (ask.kind === "genies") {
    for (const p of state.players || []) {
      const v = form.querySelector(`#d-${CSS.escape(p.name)}`).value.replace(/\s+/g, "");
      if (!v) return { missing: p.name + ": which genies?" };
      parts.push(p.name + "=" + v);
    }
    return { line: "genies " + parts.join(" ") };
  }
  return { missing: "type the answer line" };
}

function showResult(text, ok) {
  const r = $("ask-result");
  r.textContent = text;
  r.className = "result " + (ok ? "ok" : "bad");
}

async function sendAnswer(ev) {
  ev.preventDefault();
  const ask = currentAsk(state || {});
  if (!ask) return;
  const a = answerLine(ask);
  if (a.missing) { showResult(a.missing, false); return; }
  const button = $("ask-send");
  button.disabled = true;
  try {
    const res = await fetch("answer", { method: "POST", body: a.line,
                                        headers: { "Content-Type": "text/plain" } });
    const text = (await res.text()).trim();
    if (res.ok) {
      showResult(res.status === 202 ? "Sent: " + a.line : "Taken: " + a.line, true);
      $("ask-line").value = "";
    } else {
      showResult(text || "Not taken (" + res.status + ")", false);
    }
  } catch (e) {
    showResult("No connection to teppich: try again", false);
  } finally {
    button.disabled = false;
  }
}

/* ---- drawing the state ---- */

function renderHeader(s) {
  const bits = [];
  if (s.round) bits.push("Round " + s.round + (s.rounds ? " of " + s.rounds : ""));
  if (s.flight) bits.push("Flight " + s.flight);
  $("where").textContent = bits.join(" \u00b7 ") || "Fliegende Teppiche";
}

function renderNow(s) {
  let text = STAGES[s.stage] || "";
  if (s.stage === "throws" && s.turn) text = s.turn + ", throw your carpet!";
  if (s.stage === "layout" && s.layer) text = s.layer + " lays out the cards.";
  $("now-text").textContent = text || "\u2026";
  const old = $("now").querySelector(".sub");
  if (old) old.remove();
  const sub = [];
  if (s.layer && s.stage !== "layout") sub.push("Layer: " + s.layer);
  if (s.carpets_landed && s.carpets_landed.length)
    sub.push("Landed: " + s.carpets_landed.join(", "));
  if (sub.length) $("now").append(el("p", { class: "sub" }, sub.join(" \u00b7 ")));
}

function renderAsk(s) {
  const ask = currentAsk(s);
  $("ask").hidden = !ask;
  if (!ask) { askKey = ""; return; }
  $("ask-prompt").textContent = ask.kind === "reveal" && ask.card !== undefined
    ? "Genie contest on " + cardLabel(ask.card, ask.card_type) + ": " +
      joinAnd(ask.players || []) + ", reveal your genies!"
    : ask.prompt || "";
  const key = JSON.stringify(ask) + JSON.stringify((s.players || []).map((p) => [p.genies, p.holds]));
  if (key !== askKey) {
    askKey = key;
    buildAskFields(ask);
    showResult("", true);
  }
}

function renderFlight(s) {
  const f = s.last_flight;
  $("flight").hidden = !f;
  if (!f) return;
  $("flight-h").textContent = "Flight " + f.flight + (f.round ? " of round " + f.round : "");
  const claims = $("claims");
  claims.replaceChildren();
  for (const c of f.claims || []) {
    const what = (c.cards || []).map((id, k) => cardLabel(id, c.types && c.types[k]));
    claims.append(el("li", {}, c.player + " takes " + joinAnd(what)));
  }
  if (!(f.claims || []).length) claims.append(el("li", {}, "Nobody takes a card."));
  const contests = $("contests");
  contests.replaceChildren();
  for (const c of f.contests || []) {
    const who = joinAnd(c.players || []);
    const li = el("li", {}, "Genie contest on " + cardLabel(c.card, c.type) + ": " + who);
    if (c.winner) li.append(" \u2192 " + c.winner + " wins");
    else li.append(el("span", { class: "open" }, " \u2192 reveal!"));
    contests.append(li);
  }
}

function renderScores(s) {
  const body = $("scores").querySelector("tbody");
  body.replaceChildren();
  const winners = (s.final && s.final.winners) || [];
  for (const p of s.players || []) {
    const name = el("td", {});
    for (const c of p.colours || [])
      name.append(el("span", { class: "chip", style: "background:" + (COLOURS[c] || c),
                               title: c, "aria-hidden": "true" }));
    name.append(p.name);
    const total = s.final && s.final.totals && p.name in s.final.totals
      ? s.final.totals[p.name] : (p.score !== undefined ? p.score : p.palace_points);
    const row = el("tr", {}, name,
      el("td", { class: "num" }, String(p.cards !== undefined ? p.cards : "")),
      el("td", { class: "genies" }, (p.genies || []).join(" ")),
      el("td", { class: "num" }, total === undefined ? "" : String(total)));
    if (winners.includes(p.name)) row.className = "winner";
    else if (s.turn === p.name) row.className = "turn";
    body.append(row);
  }
  const fin = $("final");
  fin.hidden = !s.final;
  if (s.final) fin.textContent = winners.length
    ? (winners.length > 1 ? "Winners: " : "Winner: ") + joinAnd(winners) + "!"
    : "Nobody wins: a tie.";
}

function renderSay(s) {
  const lines = s.say || [];
  $("log").hidden = !lines.length;
  const list = $("say");
  list.replaceChildren();
  for (const l of lines.slice(-8).reverse()) {
    const text = typeof l === "string" ? l : l.text;
    list.append(el("li", { class: l.tone || "" }, text));
  }
}

function render(s) {
  state = s;
  for (const c of s.table || []) if (c.type) cardTypes[c.id] = c.type;
  for (const c of (s.last_flight && s.last_flight.claims) || [])
    (c.cards || []).forEach((id, k) => { if (c.types && c.types[k]) cardTypes[id] = c.types[k]; });
  renderHeader(s);
  renderNow(s);
  renderAsk(s);
  renderFlight(s);
  renderScores(s);
  renderSay(s);
}

/* ---- the camera picture ---- */

function loadFrame(n) {
  const img = $("frame");
  img.onload = () => { $("no-frame").hidden = true; img.hidden = false; };
  img.onerror = () => { img.hidden = true; $("no-frame").hidden = false; };
  img.src = "frame.jpg?n=" + n;
}

/* ---- keeping up to date ---- */

function setLink(text, live) {
  $("link").textContent = text;
  $("link").className = "link" + (live ? " live" : "");
}

async function poll() {
  try {
    const res = await fetch("state.json", { cache: "no-store" });
    if (res.ok) render(await res.json());
  } catch (e) { /* next time */ }
}

function listen() {
  if (!window.EventSource) {
    setLink("updating every 3 s", true);
    setInterval(poll, 3000);
    return;
  }
  const es = new EventSource("events");
  es.addEventListener("open", () => setLink("live", true));
  es.addEventListener("error", () => setLink("reconnecting\u2026", false));
  es.addEventListener("state", (ev) => {
    try { render(JSON.parse(ev.data)); } catch (e) { /* keep the last */ }
  });
  es.addEventListener("frame", (ev) => loadFrame(ev.data));
}

$("ask-form").addEventListener("submit", sendAnswer);
$("frame").hidden = true;
poll();
loadFrame(Date.now());
listen();
