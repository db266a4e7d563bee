// The reference client of the `nemesis serve` protocol (docs/protocol.md): it joins a seat with
// its token (or watches) and draws what the server sends for this seat: the board from the
// modules' layout (update.board, docs/modding.md "Drawing the board"), the seat's own cards, the
// other seats' public facts and the whole log. It knows no game: every word comes from the
// server, every shape from the layout, and a click on a drawn entity chooses the option whose
// `refs` name it.
"use strict";

const PROTOCOL = 2;
const SVG = "http://www.w3.org/2000/svg";
const PLACE_W = 124, PLACE_H = 88; // a place drawn as a box (a grid place is a hex of the grid's size)
const params = new URLSearchParams(location.search);
const $ = (id) => document.getElementById(id);
const socket = new WebSocket(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws`);
let current = null; // the latest update
let base = null, seq = 0; // the last update as the server patches it (docs/protocol.md, "Patches")
let lastTurnLog = null; // the log's length when this seat last chose (the "since your last turn" mark)
const turnKey = `nemesis-last-turn:${params.get("table")}:${params.get("token") || "watch"}`;
try { lastTurnLog = JSON.parse(sessionStorage.getItem(turnKey)); } catch (e) { lastTurnLog = null; }

// The page's own words (the `page:` section of nemesis_rules/phrases/<lang>.yaml): those of the
// language asked (?lang=) until it joins a table, then those of the table's language, sent with
// each update. The page writes no word of its own: an element with `data-word="key"` shows the
// word, `data-word-title` (placeholder, aria-label) sets the attribute.
let WORDS = {};
let status = ["connecting", {}];

function say(key, values) {
  const text = WORDS[key] === undefined ? "" : WORDS[key];
  return text.replace(/\{(\w+)\}/g, (m, name) => (values && values[name] !== undefined ? String(values[name]) : m));
}

function useWords(words) {
  if (!words || JSON.stringify(words) === JSON.stringify(WORDS)) return;
  WORDS = words;
  document.querySelectorAll("[data-word]").forEach((n) => { n.textContent = say(n.dataset.word); });
  for (const attr of ["title", "placeholder", "aria-label"]) {
    document.querySelectorAll(`[data-word-${attr}]`).forEach((n) => n.setAttribute(attr, say(n.getAttribute(`data-word-${attr}`))));
  }
  setStatus(...status);
  if (lastError && !$("error").hidden) showError(lastError);
}

function setStatus(key, values) {
  status = [key, values || {}];
  $("status").textContent = say(key, values);
}

fetch(`words/${encodeURIComponent(params.get("lang") || "en")}.json`)
  .then((r) => r.json()).then((words) => { if (!Object.keys(WORDS).length) useWords(words); }).catch(() => {});

function send(message) {
  socket.send(JSON.stringify({ protocol: PROTOCOL, ...message }));
}

function el(tag, text, cls) {
  const e = document.createElement(tag);
  if (text !== undefined && text !== null) e.textContent = text;
  if (cls) e.className = cls;
  return e;
}

function svg(tag, attrs, text) {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}

// ---- reading the view
const word = (u, key) => (u.board.names[key] !== undefined ? u.board.names[key] : String(key).replace(/_/g, " "));
const owner = (zoneKey) => zoneKey.split("@")[1];
const zoneName = (zoneKey) => zoneKey.split("@")[0];
const members = (zone) => (zone && zone.entities) || [];

function players(view) {
  return Object.keys(view.entities).filter((id) => view.entities[id].kind === "player");
}

function myId(view) {
  return view.seat === null ? null : players(view)[view.seat];
}

function colourOf(value) {
  if (typeof value !== "string") return null;
  if (CSS.supports("color", value)) return value;
  let h = 0;
  for (const c of value) h = (h * 31 + c.charCodeAt(0)) % 360;
  return `hsl(${h} 55% 55%)`;
}

// The props the catalog names (the others are the rules' bookkeeping, left out as the terminal
// does); a flag that is set reads as its name alone.
function propsText(u, props) {
  return Object.entries(props)
    .filter(([k, v]) => k in u.board.names && v !== null && v !== false && v !== 0 && !(Array.isArray(v) && !v.length))
    .map(([k, v]) => (v === true ? word(u, k) : `${word(u, k)}: ${Array.isArray(v) ? v.map((x) => word(u, x)).join(", ") : word(u, v)}`))
    .join(" · ");
}

// ---- choosing: options and the ids they name
function myOptions(u) {
  return (u.decision && u.decision.options) || [];
}

function optionsNaming(u, id) {
  return myOptions(u).filter((o) => o.refs.includes(id));
}

function choose(u, option) {
  lastTurnLog = u.view.log.length;
  sessionStorage.setItem(turnKey, JSON.stringify(lastTurnLog));
  send({ type: "choose", decision: u.decision.id, option: option.index });
}

// A click on an entity: the one option naming it is chosen; several are left in the list, marked.
function clickRef(id) {
  const u = current;
  const found = optionsNaming(u, id);
  if (found.length === 1) return choose(u, found[0]);
  document.querySelectorAll("#options button").forEach((b) => {
    b.classList.toggle("narrowed", found.some((o) => String(o.index) === b.dataset.index));
  });
  $("hint").textContent = found.length ? say("narrowed", { n: found.length, what: word(u, id) }) : "";
}

function clickable(node, u, id) {
  node.dataset.ref = id;
  if (optionsNaming(u, id).length) {
    node.classList.add("target");
    node.addEventListener("click", (event) => { event.stopPropagation(); clickRef(id); });
  }
  return node;
}

// ---- the board
function positions(u) {
  const layout = u.board.layout, view = u.view, at = {};
  Object.entries(layout.places || {}).forEach(([id, p]) => { at[id] = p; });
  const grid = layout.grid;
  if (grid) {
    const w = Math.sqrt(3) * grid.size, shifted = grid.shifted_rows === "even" ? 0 : 1;
    Object.entries(view.entities).filter(([, e]) => e.kind === grid.kind).forEach(([id, e]) => {
      const row = e.props[grid.row], col = e.props[grid.column];
      at[id] = [w * (col + 0.5 + (row % 2 === shifted ? 0.5 : 0)) + 10, grid.size * (1 + 1.5 * row) + 10];
    });
  }
  return at;
}

function links(u) {
  const rows = Object.entries(u.board.ends).map(([id, [a, b, la, lb]]) => ({ id, a, b, la, lb }));
  (u.view.links || []).forEach(([id, a, b, la, lb]) => rows.push({ id, a, b, la, lb }));
  return rows;
}

function labelText(label) {
  return Array.isArray(label) ? label.join(",") : label === null || label === undefined ? "" : String(label);
}

function drawBoard(u) {
  const board = $("board"), layout = u.board.layout;
  board.replaceChildren();
  if (!layout) { board.hidden = true; return; }
  board.hidden = false;
  board.setAttribute("viewBox", `0 0 ${layout.size[0]} ${layout.size[1]}`);
  const at = positions(u), view = u.view;
  const linkKinds = new Set(layout.links || []), stubKinds = new Set(layout.stubs || []);
  const kindOf = (id) => (view.entities[id] || {}).kind;
  const linkLayer = svg("g", { class: "links" }), placeLayer = svg("g", { class: "places" });
  const thingLayer = svg("g", { class: "things" });
  board.append(linkLayer, placeLayer, thingLayer);
  const held = heldThings(u), isStub = (l) => stubKinds.has(kindOf(l.id)) && !linkKinds.has(kindOf(l.id));
  const drawn = links(u).filter((l) => at[l.a] && at[l.b]);
  const taken = boxesOf(at, layout); // a number never covers a room nor another number, nor what lies in a link
  drawn.forEach((l) => {
    const [x1, y1] = at[l.a], [x2, y2] = at[l.b];
    if (isStub(l)) {
      const g = clickable(svg("g", { class: "stub" }), u, l.id);
      g.append(svg("circle", { cx: x1 - PLACE_W / 2 + 10, cy: y1 - PLACE_H / 2 + 10, r: 9 }),
        svg("text", { x: x1 - PLACE_W / 2 + 10, y: y1 - PLACE_H / 2 + 14, "text-anchor": "middle" }, labelText(l.la)),
        svg("title", {}, word(u, l.id)));
      placeLayer.append(g);
      return;
    }
    const laid = !layout.laid || members(view.zones[`${layout.laid}@${l.id}`]).length > 0;
    const g = clickable(svg("g", { class: laid ? "link" : "link unlaid" }), u, l.id);
    g.append(svg("line", { x1, y1, x2, y2 }), svg("title", {}, word(u, l.id)));
    linkLayer.append(g);
    if (laid && layout.numbers !== false) drawNumbers(g, l, lineOf(at[l.a], at[l.b]), taken);
  });
  const midpoints = {};
  drawn.filter((l) => !isStub(l) && (held[l.id] || []).length).forEach((l) => {
    midpoints[l.id] = linkSpot(lineOf(at[l.a], at[l.b]), held[l.id].length, taken);
  });
  const nameBottom = {};
  Object.entries(at).forEach(([id, p]) => placeLayer.append(drawPlace(u, id, p, nameBottom)));
  Object.entries(held).forEach(([where, things]) => {
    if (!things.length) return;
    if (at[where]) drawThings(u, thingLayer, things, roomRows(u, where, at[where], nameBottom[where]), where);
    else if (midpoints[where]) drawThings(u, thingLayer, things, [[midpoints[where][0] - 30, midpoints[where][0] + 30, midpoints[where][1] - 8]], where, true);
  });
  drawTracks(u, board);
  drawPiles(u, board);
}

// The board at its box's width and at most 90% of the window's height, unless that draws a
// room's name smaller than READABLE px (a tall drawing fitted to the height, a narrow window):
// then at least that size, and its box scrolls (base DECISIONS L10).
const READABLE = 10, NAME_SIZE = 12; // px on the screen; a room name's size in the drawing's units (table.css)
function fitBoard(layout) {
  const board = $("board"), box = $("board-box");
  if (!layout || !box.clientWidth) return;
  const [w, h] = layout.size, least = READABLE / NAME_SIZE;
  const fits = Math.min(box.clientWidth / w, 0.9 * window.innerHeight / h) >= least;
  board.classList.toggle("scrolled", !fits);
  board.style.minWidth = fits ? "" : `${Math.ceil(w * least)}px`;
}

// Every zone of a place or a link (but its tiles, its hidden zones and what lays a link) by
// owner, drawn together so that no two zones overlap.
function heldThings(u) {
  const layout = u.board.layout, held = {};
  Object.entries(u.view.zones).forEach(([key, zone]) => {
    const where = owner(key), name = zoneName(key);
    if (!where || (layout.tiles || []).includes(name) || (layout.hidden || []).includes(name) || name === layout.laid) return;
    (held[where] = held[where] || []).push(...members(zone));
  });
  return held;
}

function face(u, id) {
  const layout = u.board.layout;
  for (const z of layout.tiles || []) {
    const m = members(u.view.zones[`${z}@${id}`]);
    if (m.length) return m[0];
  }
  return null;
}

function drawPlace(u, id, [x, y], nameBottom) {
  const layout = u.board.layout, view = u.view;
  const shown = face(u, id);
  const g = clickable(svg("g", { class: "place" }), u, id);
  const grid = layout.grid && view.entities[id] && view.entities[id].kind === layout.grid.kind;
  let fill = null, mark = false, title = word(u, id), hidden = false;
  if (typeof shown === "string" && view.entities[shown]) {
    const props = view.entities[shown].props, f = layout.face || {};
    fill = f.colour ? colourOf(props[f.colour]) : null;
    mark = f.mark ? props[f.mark] === true : false;
    title = word(u, shown);
  } else if (shown) {
    hidden = true;
    title = "?";
  } else if (grid) {
    g.classList.add("empty");
  }
  if (grid) {
    const r = layout.grid.size, pts = [];
    for (let i = 0; i < 6; i++) {
      const a = Math.PI / 180 * (60 * i - 90);
      pts.push(`${x + r * Math.cos(a)},${y + r * Math.sin(a)}`);
    }
    g.append(svg("polygon", { points: pts.join(" ") }));
  } else {
    g.append(svg("rect", { x: x - PLACE_W / 2, y: y - PLACE_H / 2, width: PLACE_W, height: PLACE_H, rx: 8 }));
  }
  if (hidden) g.classList.add("hidden-face");
  if (fill) g.style.setProperty("--face", fill);
  if (shown || !grid) {
    const number = view.entities[id] && view.entities[id].props.number;
    const name = number !== undefined && number !== null ? `${number} · ${title}` : title;
    nameBottom[id] = drawName(g, name, x, y - PLACE_H / 2 + 6, grid ? Math.sqrt(3) * layout.grid.size - 16 : PLACE_W - 12);
  }
  if (mark) { // off the name: under a hex's top corner (its edges may hold links), on a box's upper right corner
    const [mx, my] = grid ? [x, y - 0.75 * layout.grid.size] : [x + PLACE_W / 2 - 12, y - PLACE_H / 2];
    g.append(svg("text", { x: mx, y: my + 4, class: "mark" }, "◆"));
  }
  g.append(svg("title", {}, title));
  return g;
}

// A place's name in the box's width: on one line, else on two at a smaller size, squeezed only
// when a word alone is still too wide; the whole name is the place's tooltip.
const NAME_CHARS = 17, SMALL_CHARS = 19; // what one line of a box holds at the name's size, at the smaller size
const NAME_LINES = 4; // the most a box holds above one row of what lies in it
function nameLines(name) {
  if (name.length <= NAME_CHARS) return [name];
  const words = name.split(" ");
  let best = [name];
  for (let i = 1; i < words.length; i++) {
    const split = [words.slice(0, i).join(" "), words.slice(i).join(" ")];
    if (best.length === 1 || Math.max(...split.map((l) => l.length)) < Math.max(...best.map((l) => l.length))) best = split;
  }
  if (Math.max(...best.map((l) => l.length)) <= SMALL_CHARS + 5) return best; // squeezed a little at most
  const lines = [""]; // a very long name: filled line by line (squeezed a little at most), the rest on the last
  words.forEach((w) => {
    const last = lines.length - 1;
    if (lines[last] && (lines[last] + " " + w).length > SMALL_CHARS + 2 && lines.length < NAME_LINES) lines.push(w);
    else lines[last] = lines[last] ? `${lines[last]} ${w}` : w;
  });
  return lines;
}

function drawName(g, name, x, top, width) {
  const lines = nameLines(name), small = lines.length > 1;
  lines.forEach((line, i) => {
    const t = svg("text", { x, y: top + (small ? 13 : 16) + i * 12, "text-anchor": "middle",
      class: small ? "place-name small" : "place-name" }, line);
    if (line.length * (small ? 6.1 : 7.2) > width) {
      t.setAttribute("textLength", width);
      t.setAttribute("lengthAdjust", "spacingAndGlyphs");
    }
    g.append(t);
  });
  return top + (small ? 13 : 16) + (lines.length - 1) * 12 + 3; // the name's bottom
}

// ---- link numbers: each end's number on its own line, at the first spot (from its room's
// box along the line, then beside it) that covers no room and no number already drawn; then what
// lies in the link, at the first free spot from its middle
function boxesOf(at, layout) {
  return Object.keys(layout.places || {}).filter((id) => at[id])
    .map((id) => ({ x: at[id][0] - PLACE_W / 2, y: at[id][1] - PLACE_H / 2, width: PLACE_W, height: PLACE_H }));
}

const overlaps = (a, b) => a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;

// A link's line: its length, its direction, and how far from each centre it leaves the box.
function lineOf([x1, y1], [x2, y2]) {
  const len = Math.hypot(x2 - x1, y2 - y1) || 1, ux = (x2 - x1) / len, uy = (y2 - y1) / len;
  return { x1, y1, len, ux, uy, edge: Math.min(PLACE_W / 2 / (Math.abs(ux) || 1e-9), PLACE_H / 2 / (Math.abs(uy) || 1e-9)) };
}

// The first spot, nearest `from` first (toward `dir`; both ways when 0), whose box (`size`, from
// the spot) covers nothing taken; the box is taken. Null when there is none.
function freeSpot(line, from, dir, size, asides, taken) {
  const { x1, y1, len, ux, uy, edge } = line;
  for (let d = 0; d <= Math.max(len - 2 * edge, 0); d += 3) {
    for (const along of dir ? [from + dir * d] : [from + d, from - d]) {
      for (const aside of asides) {
        const cx = x1 + ux * along - uy * aside, cy = y1 + uy * along + ux * aside;
        const box = { x: cx + size.x, y: cy + size.y, width: size.width, height: size.height };
        if (!taken.some((b) => overlaps(b, box))) { taken.push(box); return [cx, cy]; }
      }
    }
  }
  return null;
}

function drawNumbers(g, l, line, taken) {
  const { x1, y1, len, ux, uy, edge } = line;
  const once = labelText(l.la) === labelText(l.lb) && edge + 12 >= 0.45 * len; // a short link with one number at both ends: once, in its middle
  const ends = once ? [[l.la, len / 2, 0]] : [[l.la, edge, 1], [l.lb, len - edge, -1]];
  ends.forEach(([label, from, dir]) => {
    const text = labelText(label);
    if (!text) return;
    const t = svg("text", { x: 0, y: 0, class: "number" }, text);
    g.append(t);
    const m = t.getBBox(), size = m.width ? m : { x: -4 * text.length, y: -12, width: 8 * text.length, height: 15 };
    const baseline = 4.5; // the number's middle on the spot
    const [cx, cy] = freeSpot(line, from, dir, { x: size.x - 1, y: size.y + baseline, width: size.width + 2, height: size.height },
      [0, 11, -11, 20, -20], taken) || [x1 + ux * from, y1 + uy * from];
    t.setAttribute("x", cx);
    t.setAttribute("y", cy + baseline);
  });
}

// Where what lies in a link goes (its row's middle): beside the line's middle when free, else the
// first free spot from there.
function linkSpot(line, n, taken) {
  const width = Math.min(60, 16 * n), side = 11;
  return freeSpot(line, line.len / 2, 0, { x: -width / 2, y: -9, width, height: 21 }, [side, -side, 0, 2 * side, -2 * side], taken)
    || [line.x1 + line.ux * line.len / 2 - side * line.uy, line.y1 + line.uy * line.len / 2 + side * line.ux];
}

// ---- what lies in a place: in rows inside its shape, under its name
const ROW = 21, GAP = 4, FIGURE_W = 22;

// The rows [left, right, top] free inside a place's box or hex, from under its name down.
function roomRows(u, id, [x, y], below) {
  const layout = u.board.layout, grid = layout.grid && (u.view.entities[id] || {}).kind === layout.grid.kind;
  const r = grid ? layout.grid.size : 0, half = grid ? Math.sqrt(3) * r / 2 : PLACE_W / 2;
  const top = below !== undefined ? below + 3 : y - (grid ? r / 2 : PLACE_H / 2) + 4;
  const bottom = grid ? y + r : y + PLACE_H / 2 - 3;
  const widthAt = (dy) => (!grid || Math.abs(dy) <= r / 2 ? half : half * (r - Math.abs(dy)) / (r / 2)); // a hex narrows past its sides
  const rows = [];
  for (let t = top; t + ROW - 2 <= bottom; t += ROW) {
    const w = Math.min(widthAt(t - 1 - y), widthAt(t + ROW - 2 - y)) - 6;
    if (w * 2 >= FIGURE_W) rows.push([x - w, x + w, t]);
  }
  if (!rows.length) rows.push([x - half + 6, x + half - 6, bottom - ROW + 2]); // a name that fills its place: one row at its foot, never none
  return rows;
}

// One drawn thing: a figure (disc), a labelled chip, or a dot (a chip that leaves its place's
// numbers readable); `ids` are the entities it stands for, `n` of them when grouped.
function thingItem(u, t, dot) {
  const layout = u.board.layout, fig = layout.figures || {}, ent = typeof t === "string" ? u.view.entities[t] : null;
  const name = ent ? word(u, t) : "?", ids = ent ? [t] : [];
  if (ent && (fig.kinds || []).includes(ent.kind)) {
    return { shape: "figure", ids, name, n: 1, injuries: (fig.injuries && ent.props[fig.injuries]) || 0,
      colour: colourOf(fig.colour ? ent.props[fig.colour] : ent.kind) || colourOf(ent.component) };
  }
  const badge = (layout.badges || []).map((b) => ent && ent.props[b]).filter((v) => typeof v === "string");
  const short = ent ? chipName(u, ent, name) : name;
  const full = badge.length ? `${short}: ${word(u, badge[0])}` : short;
  return { shape: dot ? "dot" : "chip", ids, name, n: 1, text: full.length > CHIP_CHARS ? `${full.slice(0, CHIP_CHARS - 1)}…` : full,
    colour: colourOf(ent ? ent.component || ent.kind : name) };
}

// A chip's name without its kind's last word, so that chips in a room read apart ("Malfunction
// marker" of the kind "Marker": "Malfunction"; "Adult token (1/3)": "Adult (1/3)"), then, while
// longer than a chip, without its first words ("Character Corpse (blue)": "Corpse (blue)"); the
// whole name stays in its tooltip (base DECISIONS L11).
const CHIP_CHARS = 15;
function chipName(u, ent, name) {
  const noun = ((u.board.kinds || {})[ent.kind] || "").split(" ").pop().toLowerCase();
  let words = name.split(" ").filter((w) => w.toLowerCase() !== noun);
  if (!noun || !words.length) words = name.split(" ");
  while (words.length > 1 && words.join(" ").length > CHIP_CHARS) words = words.slice(1);
  return words.join(" ");
}

// Whether letters on this colour read better light than dark (WCAG's relative luminance).
const colourProbe = document.createElement("canvas").getContext("2d"); // reads any CSS colour as "#rrggbb"
function lightInk(colour) {
  colourProbe.fillStyle = "#000";
  colourProbe.fillStyle = colour || "#000";
  const hex = colourProbe.fillStyle; // "#rrggbb" (a colour with transparency reads "rgba(...)": left dark)
  if (!/^#[0-9a-f]{6}$/i.test(hex)) return false;
  const [r, g, b] = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16) / 255)
    .map((c) => (c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4));
  return 0.2126 * r + 0.7152 * g + 0.0722 * b < 0.18;
}

// Alike things (same shape, name, colour, injuries) as one item counted "×N".
function grouped(items) {
  const groups = new Map();
  items.forEach((it) => {
    const key = [it.shape, it.name, it.text, it.colour, it.injuries].join("|");
    const g = groups.get(key);
    if (g) { g.n += 1; g.ids.push(...it.ids); } else groups.set(key, { ...it, ids: [...it.ids] });
  });
  return [...groups.values()];
}

const countText = (it) => (it.n > 1 ? `×${it.n}` : "");
const marksWidth = (it) => (it.injuries ? 7 * (1 + String(it.injuries).length) : 0) + (it.n > 1 ? 2 + 6.5 * countText(it).length : 0);

function itemWidth(it, widest) {
  if (it.shape === "figure") return FIGURE_W + marksWidth(it);
  if (it.shape === "dot") return 12 + marksWidth(it);
  return Math.min(widest, 8 + 6.2 * (it.text.length + (it.n > 1 ? 1 + countText(it).length : 0)));
}

// The items in the rows, left to right, or null when they do not fit.
function fitRows(items, rows, centred) {
  const widest = Math.max(...rows.map(([l, r]) => r - l)), placed = [];
  let row = 0, x = rows.length ? rows[0][0] : 0;
  for (const it of items) {
    const w = itemWidth(it, widest);
    while (row < rows.length && x + w > rows[row][1] + 0.5) { row += 1; x = row < rows.length ? rows[row][0] : 0; }
    if (row >= rows.length) return null;
    placed.push({ it, x, y: rows[row][2], w });
    x += w + GAP;
  }
  if (centred && rows.length) { // a link's dots centred on it
    const used = Math.max(...placed.filter((p) => p.y === rows[0][2]).map((p) => p.x + p.w), rows[0][0]);
    const shift = Math.max(0, (rows[0][1] - used) / 2);
    placed.forEach((p) => { p.x += shift; });
  }
  return placed;
}

// Each thing on its own; if they do not fit, alike ones counted; then chips as dots; at last the
// rest as a "+N" chip (all of them in its tooltip).
function layoutThings(u, things, rows, small) {
  const figuresFirst = (items) => [...items].sort((a, b) => (b.shape === "figure") - (a.shape === "figure")); // discs share a row
  const plain = figuresFirst(things.map((t) => thingItem(u, t, small))), dots = figuresFirst(things.map((t) => thingItem(u, t, true)));
  for (const items of [plain, grouped(plain), grouped(dots)]) {
    const placed = fitRows(items, rows, small);
    if (placed) return placed;
  }
  const items = grouped(dots);
  for (let keep = items.length - 1; keep >= 0; keep--) {
    const rest = items.slice(keep), more = { shape: "chip", ids: rest.flatMap((it) => it.ids), n: 1,
      name: rest.map((it) => (it.n > 1 ? `${it.name} ×${it.n}` : it.name)).join(", "), text: `+${rest.reduce((s, it) => s + it.n, 0)}` };
    const placed = fitRows([...items.slice(0, keep), more], rows, small);
    if (placed) return placed;
  }
  return [];
}

// What lies in a place or a link (`small`: chips as dots, so that its numbers stay readable), in
// the rows given: figures as discs (their colour, a count, their injuries), the rest as chips;
// each tooltip names every entity drawn there.
function drawThings(u, layer, things, rows, where, small) {
  layoutThings(u, things, rows, small).forEach(({ it, x, y, w }) => {
    const target = it.ids.find((id) => optionsNaming(u, id).length) || it.ids[0];
    const cls = it.shape === "figure" ? "figure" : it.shape === "dot" ? "chip dot" : "chip";
    const g = target ? clickable(svg("g", { class: cls }), u, target) : svg("g", { class: cls });
    g.dataset.place = where;
    let marks = x + (it.shape === "figure" ? FIGURE_W : 12);
    if (it.shape === "dot") {
      g.append(svg("circle", { cx: x + 6, cy: y + 9, r: 5, fill: it.colour }));
    } else if (it.shape === "figure") {
      g.append(svg("circle", { cx: x + 10, cy: y + 9, r: 10, fill: it.colour }),
        svg("text", { x: x + 10, y: y + 13, "text-anchor": "middle", class: lightInk(it.colour) ? "light" : "" }, it.name.slice(0, 2)));
    } else {
      const label = it.n > 1 ? `${it.text} ${countText(it)}` : it.text;
      g.append(svg("rect", { x, y, width: w, height: 18, rx: 4 }), svg("text", { x: x + 4, y: y + 13 }, label));
      marks = null;
    }
    if (marks !== null && it.n > 1) {
      g.append(svg("text", { x: marks, y: y + 13, class: "count" }, countText(it)));
      marks += 2 + 6.5 * countText(it).length;
    }
    if (marks !== null && it.injuries) g.append(svg("text", { x: marks, y: y + 13, class: "injuries" }, `✕${it.injuries}`));
    g.append(svg("title", {}, it.ids.length ? it.ids.map((id) => thingTitle(u, id)).join("\n") : it.name));
    layer.append(g);
  });
}

function thingTitle(u, id) {
  const props = propsText(u, u.view.entities[id].props);
  return props ? `${word(u, id)} — ${props}` : word(u, id);
}

// ---- the column beside the board: tracks and piles, each in a box of the same width
const PANEL_W = 190;

// A text in a box's width: at a smaller size when too wide, squeezed when still too wide.
function fitText(g, t, width) {
  g.append(t);
  if (t.getComputedTextLength() <= width) return t;
  t.classList.add("small");
  if (t.getComputedTextLength() > width) {
    t.setAttribute("textLength", width);
    t.setAttribute("lengthAdjust", "spacingAndGlyphs");
  }
  return t;
}

// A track's spaces: 1 to the entity's prop when the layout names one, else the counter's bounds.
function trackSpaces(u, t) {
  const ent = t.entity ? u.view.entities[t.entity] : null;
  if (ent && t.spaces && ent.props[t.spaces]) return [1, ent.props[t.spaces]];
  return (u.board.bounds || {})[t.counter] || [1, 0];
}

function drawTracks(u, board) {
  (u.board.layout.tracks || []).forEach((t) => {
    const value = u.view.counters[t.counter], [x, y] = t.at, [first, last] = trackSpaces(u, t);
    const g = svg("g", { class: "track" });
    g.append(svg("rect", { x, y, width: PANEL_W, height: 44, rx: 4, class: "panel" }), svg("title", {}, word(u, t.counter)));
    board.append(g);
    fitText(g, svg("text", { x: x + 8, y: y + 16 }, word(u, t.counter)), PANEL_W - 16);
    g.append(svg("text", { x: x + 8, y: y + 36, class: "count" }, value === undefined ? "-" : String(value)));
    const cell = Math.min(12, (PANEL_W - 42) / Math.max(last - first + 1, 1));
    for (let i = first; i <= last; i++) {
      g.append(svg("rect", { x: x + 34 + (i - first) * cell, y: y + 26, width: cell - 1, height: 12, class: i === value ? "on" : "" }));
    }
  });
}

function drawPiles(u, board) {
  Object.entries(u.board.layout.piles || {}).forEach(([zone, [x, y]]) => {
    const z = u.view.zones[zone];
    const g = svg("g", { class: "pile" });
    g.append(svg("rect", { x, y, width: PANEL_W, height: 38, rx: 4 }), svg("title", {}, word(u, zone)));
    board.append(g);
    fitText(g, svg("text", { x: x + 8, y: y + 16 }, word(u, zone)), PANEL_W - 16);
    g.append(svg("text", { x: x + 8, y: y + 32, class: "count" }, z ? String(z.size) : "-"));
  });
}

// ---- the seat and the others
function cardItem(u, entry) {
  const li = el("li", null, "card");
  if (typeof entry !== "string") {
    li.textContent = `? ${word(u, entry.face_down || "")}${entry.back ? ` (${word(u, entry.back)})` : ""}`;
    return li;
  }
  const ent = u.view.entities[entry] || { props: {} };
  li.append(el("b", word(u, entry)));
  if (u.board.texts[entry]) li.append(el("div", u.board.texts[entry], "text"));
  const props = propsText(u, ent.props);
  if (props) li.append(el("div", props, "props"));
  Object.entries(u.view.zones).filter(([k]) => owner(k) === entry).forEach(([k, z]) => {
    li.append(el("div", `${word(u, zoneName(k))}: ${z.size}`, "props")); // ammo, tokens on it
  });
  return clickable(li, u, entry);
}

function zonesOf(u, who, withCards) {
  const box = el("div");
  Object.entries(u.view.zones).filter(([k, z]) => owner(k) === who && z.size).forEach(([k, z]) => {
    box.append(el("h3", `${word(u, zoneName(k))} (${z.size})`));
    if (withCards && z.entities) {
      const ul = el("ul", null, "cards");
      z.entities.forEach((e) => ul.append(cardItem(u, e)));
      box.append(ul);
    } else if (z.entities || z.public || z.backs) {
      const shown = (z.entities || z.public || []).map((e) => (typeof e === "string" ? word(u, e) : "?"));
      if (z.backs) shown.push(...z.backs.filter((b) => b).map((b) => `? (${word(u, b)})`));
      box.append(el("p", shown.join(", "), "props"));
    }
  });
  return box;
}

function playerCard(u, id) {
  const ent = u.view.entities[id];
  const div = el("div", null, "player");
  const character = ent.props.character;
  div.append(el("h3", `${word(u, id)}${typeof character === "string" ? ` — ${word(u, character)}` : ""}`));
  div.append(el("p", propsText(u, Object.fromEntries(Object.entries(ent.props).filter(([k]) => k !== "character"))), "props"));
  return div;
}

function drawSeat(u) {
  const me = myId(u.view);
  $("seat").hidden = !me;
  if (me) $("me").replaceChildren(playerCard(u, me), zonesOf(u, me, true));
  $("others").replaceChildren(...players(u.view).filter((p) => p !== me).map((p) => {
    const box = playerCard(u, p);
    box.append(zonesOf(u, p, false));
    return box;
  }));
}

// ---- the decision, the turn, the history
function drawDecision(u) {
  const d = u.decision, mine = myOptions(u).length > 0;
  const who = d ? word(u, players(u.view)[d.player] || "") : "";
  $("prompt").textContent = !d ? "" : mine ? d.prompt : say("waiting_for", { who, prompt: d.prompt });
  $("hint").textContent = mine && myOptions(u).some((o) => o.refs.length) ? say("click_hint") : "";
  $("options").replaceChildren(...myOptions(u).map((o) => {
    const button = el("button", o.label);
    button.dataset.index = o.index;
    button.addEventListener("click", () => choose(u, o));
    button.addEventListener("mouseenter", () => o.refs.forEach((r) => document.querySelectorAll(`[data-ref="${CSS.escape(r)}"]`).forEach((n) => n.classList.add("hover"))));
    button.addEventListener("mouseleave", () => document.querySelectorAll(".hover").forEach((n) => n.classList.remove("hover")));
    return button;
  }));
  $("decision").hidden = !d;
  const turn = $("turn");
  turn.hidden = !d;
  turn.className = mine ? "mine" : "";
  turn.textContent = !d ? "" : mine ? say("your_turn", { prompt: d.prompt }) : say("deciding", { who });
  document.body.classList.toggle("my-turn", mine);
}

// the actions the seat is not offered now, greyed, each with why (DECISIONS.md U5)
function drawUnavailable(u) {
  const list = (u.decision && u.decision.unavailable) || [];
  $("unavailable").replaceChildren(...list.map((a) => {
    const li = el("li", a.label);
    li.title = a.reason;
    li.dataset.action = a.action;
    li.append(el("small", a.reason));
    return li;
  }));
}

function drawHistory(u) {
  const filter = $("filter").value.trim().toLowerCase();
  const items = [];
  u.view.log.forEach((entry, i) => {
    if (i === lastTurnLog && i < u.view.log.length) items.push(el("li", say("since_last_turn"), "since"));
    if (filter && !entry.text.toLowerCase().includes(filter)) return;
    const li = el("li", entry.text);
    if (lastTurnLog !== null && i >= lastTurnLog) li.classList.add("new");
    items.push(li);
  });
  const box = $("history"), atEnd = box.scrollTop + box.clientHeight >= box.scrollHeight - 20;
  box.replaceChildren(...items);
  if (atEnd) box.scrollTop = box.scrollHeight;
}

function drawResult(u) {
  const box = $("result");
  box.hidden = !u.result;
  if (!u.result) return;
  box.replaceChildren(el("h2", u.result.text));
  players(u.view).forEach((p, seat) => {
    const div = playerCard(u, p);
    div.classList.toggle("winner", u.result.winners.includes(seat));
    div.append(zonesOf(u, p, true));
    box.append(div);
  });
}

function drawScreen(u) {
  const screen = u.screen;
  $("title").textContent = screen.title;
  const onBoard = new Set(((u.board.layout || {}).tracks || []).map((t) => word(u, t.counter))); // drawn as tracks already
  $("counters").textContent = screen.counters.filter(([k]) => !onBoard.has(k)).map(([k, v]) => `${k}: ${v}`).join("   ");
  $("panels").replaceChildren(...(u.board.layout ? [] : screen.panels.map(drawPanel)));
}

function drawPanel(panel) {
  const table = el("table");
  if (panel.title) table.append(el("caption", panel.title));
  if (panel.columns.length) {
    const head = table.insertRow();
    panel.columns.forEach((c) => head.append(el("th", c)));
  }
  panel.rows.forEach((row) => {
    const tr = table.insertRow();
    row.forEach((c) => tr.append(el("td", c)));
  });
  return table;
}

function draw(update) {
  current = update;
  drawScreen(update);
  drawBoard(update);
  drawSeat(update);
  drawDecision(update);
  drawUnavailable(update);
  drawHistory(update);
  drawResult(update);
  $("table").hidden = false;
  fitBoard(update.board.layout);
  document.body.dataset.decision = update.decision ? update.decision.id : "over"; // lets a test wait for the next update
}

let lastError = null; // shown again once the words arrive (an error can come first)

function showError(m) {
  lastError = m;
  const text = WORDS[`error_${m.code}`] || say("refused");
  $("error").hidden = false;
  $("error").textContent = text.endsWith(".") || text.endsWith(":") ? `${text} (${m.message})` : `${text}: ${m.message}`;
  $("error").dataset.code = m.code;
}

function showLinks(created) {
  $("links").replaceChildren(...created.seats.map((s) => {
    const li = el("li", `${say("seat_link", { n: s.seat + 1, kind: s.kind })} `);
    if (s.token) {
      const a = el("a", say("join"));
      a.href = `?table=${created.table}&token=${encodeURIComponent(s.token)}${langParam}`;
      li.append(a);
    }
    return li;
  }));
  const watch = el("a", say("watch"));
  watch.href = `?table=${created.table}${langParam}`;
  $("links").append(el("li", `${say("spectators")} `), watch);
}

let langParam = params.get("lang") ? `&lang=${encodeURIComponent(params.get("lang"))}` : "";

socket.addEventListener("open", () => {
  setStatus("connected");
  if (params.get("table") && params.get("token")) send({ type: "join", table: params.get("table"), token: params.get("token"), patches: true });
  else if (params.get("table")) send({ type: "watch", table: params.get("table"), patches: true });
  else $("create").hidden = false;
});
socket.addEventListener("close", () => setStatus("disconnected"));
socket.addEventListener("message", (event) => {
  const m = JSON.parse(event.data);
  if (m.type === "update") received(m);
  else if (m.type === "patch") patched(m);
  else if (m.type === "joined") setStatus(m.seat === null ? "watching" : "seat", { n: m.seat + 1 });
  else if (m.type === "created") showLinks(m);
  else if (m.type === "error") showError(m);
});

// A full update, or one rebuilt from a patch: kept (without type, protocol and seq) as the next
// patch's base, then drawn.
function received(update) {
  const { type, protocol, seq: number, ...document } = update;
  base = document;
  seq = number;
  useWords(document.board.words);
  $("error").hidden = true;
  draw({ type, ...document });
}

// A patch against the last update; a gap in the numbering or a patch that does not apply asks
// the server for the whole view again.
function patched(m) {
  if (base === null || m.seq !== seq + 1) { send({ type: "full" }); return; }
  let document;
  try { document = applyPatch(base, m.ops); } catch (e) { send({ type: "full" }); return; }
  received({ type: "update", seq: m.seq, ...document });
}

window.addEventListener("resize", () => { if (current) fitBoard(current.board.layout); });
$("filter").addEventListener("input", () => { if (current) drawHistory(current); });
$("create-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const form = new FormData(event.target);
  const list = (name) => form.get(name).split(",").map((s) => s.trim()).filter(Boolean);
  const options = Object.fromEntries(list("options").map((kv) => kv.split("=").map((s) => s.trim())));
  const lang = form.get("lang").trim() || "en";
  langParam = `&lang=${encodeURIComponent(lang)}`;
  send({ type: "create", ruleset: list("ruleset"), seats: list("seats"), seed: Number(form.get("seed")) || 0, options, lang });
});
