// The reference client of the `nemesis serve` protocol (docs/protocol.md): it joins a seat with
// its token (or watches), draws what the server sends for this seat, and offers the current
// decision's options as buttons. It knows no game: every word and row comes from the server.
"use strict";

const PROTOCOL = 1;
const params = new URLSearchParams(location.search);
const $ = (id) => document.getElementById(id);
const socket = new WebSocket(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws`);
let current = null; // the latest update

function send(message) {
  socket.send(JSON.stringify({ protocol: PROTOCOL, ...message }));
}

function cell(tag, text) {
  const el = document.createElement(tag);
  el.textContent = text;
  return el;
}

function drawPanel(panel) {
  const table = document.createElement("table");
  if (panel.title) table.append(cell("caption", panel.title));
  if (panel.columns.length) {
    const head = table.insertRow();
    panel.columns.forEach((c) => head.append(cell("th", c)));
  }
  panel.rows.forEach((row) => {
    const tr = table.insertRow();
    row.forEach((c) => tr.append(cell("td", c)));
  });
  return table;
}

function drawList(id, lines) {
  $(id).replaceChildren(...lines.map((line) => cell("li", line)));
}

function draw(update) {
  current = update;
  const screen = update.screen;
  $("title").textContent = screen.title;
  $("counters").textContent = screen.counters.map(([k, v]) => `${k}: ${v}`).join("   ");
  $("panels").replaceChildren(...screen.panels.map(drawPanel));
  drawList("zones", screen.zones);
  drawList("log", screen.log);
  const d = update.decision;
  $("prompt").textContent = !d ? "" : d.options ? d.prompt : `Waiting for player ${d.player + 1}: ${d.prompt}`;
  $("options").replaceChildren(...(d && d.options ? d.options : []).map((o) => {
    const button = cell("button", o.label);
    button.dataset.index = o.index;
    button.addEventListener("click", () => send({ type: "choose", decision: d.id, option: o.index }));
    return button;
  }));
  $("decision").hidden = !d;
  $("result").hidden = !update.result;
  $("result").textContent = update.result ? update.result.text : "";
  $("table").hidden = false;
  document.body.dataset.decision = d ? d.id : "over"; // lets a test wait for the next update
}

function showLinks(created) {
  $("links").replaceChildren(...created.seats.map((s) => {
    const li = cell("li", `Seat ${s.seat + 1} (${s.kind}) `);
    if (s.token) {
      const a = cell("a", "join");
      a.href = `?table=${created.table}&token=${encodeURIComponent(s.token)}`;
      li.append(a);
    }
    return li;
  }));
  const watch = cell("a", "watch");
  watch.href = `?table=${created.table}`;
  $("links").append(cell("li", "Spectators: "), watch);
}

socket.addEventListener("open", () => {
  $("status").textContent = "connected";
  if (params.get("table") && params.get("token")) send({ type: "join", table: params.get("table"), token: params.get("token") });
  else if (params.get("table")) send({ type: "watch", table: params.get("table") });
  else $("create").hidden = false;
});
socket.addEventListener("close", () => { $("status").textContent = "disconnected"; });
socket.addEventListener("message", (event) => {
  const m = JSON.parse(event.data);
  if (m.type === "update") { $("error").hidden = true; draw(m); }
  else if (m.type === "joined") $("status").textContent = m.seat === null ? "watching" : `seat ${m.seat + 1}`;
  else if (m.type === "created") showLinks(m);
  else if (m.type === "error") { $("error").hidden = false; $("error").textContent = `${m.code}: ${m.message}`; }
});

$("create-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const form = new FormData(event.target);
  const list = (name) => form.get(name).split(",").map((s) => s.trim()).filter(Boolean);
  send({ type: "create", ruleset: list("ruleset"), seats: list("seats"), seed: Number(form.get("seed")) || 0 });
});
