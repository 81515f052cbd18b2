// Each game's board, drawn in SVG from the spectator's view of a step (public information
// only). One function per game; shared shapes below.
"use strict";

const SVG = "http://www.w3.org/2000/svg";
const SEAT_COLOURS = ["#d1495b", "#2e86ab", "#e8a33d", "#3c9d5d", "#8e5ac8", "#5d6d7e"];

function s(tag, attributes = {}, ...children) {
  const node = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  for (const child of children) node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  return node;
}
function label(x, y, text, attributes = {}) {
  return s("text", { x, y, "font-size": 13, fill: "#1d2330", ...attributes }, text);
}
function box(x, y, w, h, fill, attributes = {}) {
  return s("rect", { x, y, width: w, height: h, rx: 6, fill, stroke: "#7a7f8c", "stroke-width": 1, ...attributes });
}
function disc(x, y, r, fill, attributes = {}) {
  return s("circle", { cx: x, cy: y, r, fill, stroke: "#3b3f48", "stroke-width": 1, ...attributes });
}
function picture(width, height, game, ...children) {
  return s("svg", { viewBox: `0 0 ${width} ${height}`, class: `board-${game}`, role: "img",
                    "aria-label": `${game} board` }, s("rect", { width, height, fill: "#fffdf8" }), ...children);
}
function seatName(match, seat) {
  const bot = match.bots[seat];
  return bot === undefined || bot === "" ? `seat ${seat}` : bot;
}
function seatColour(seat) { return SEAT_COLOURS[seat % SEAT_COLOURS.length]; }
function phaseName(phase) { return String(phase || "").replace(/^[A-Z]+_PHASE_/, "").toLowerCase(); }

// Sultan: the jewels on the cushions with the face-down bids, each seat's collection.
const JEWELS = [["white", "#f4f1ea"], ["red", "#d1495b"], ["yellow", "#f2c14e"], ["green", "#3c9d5d"], ["blue", "#2e6fd1"]];
function jewelColour(jewel) {
  const index = typeof jewel === "number" ? jewel - 1 : JEWELS.findIndex(([name]) => String(jewel).endsWith(name.toUpperCase()));
  return (JEWELS[index] || ["", "#999"])[1];
}
function drawSultan(v, match) {
  const seats = v.seats || [];
  const height = 170 + 70 * seats.length;
  const parts = [label(16, 24, `round ${v.round + 1}, pass ${v.pass}, ${phaseName(v.phase)}`, { "font-weight": 600 })];
  parts.push(label(16, 50, "cushions"));
  (v.cushions || []).forEach((jewel, index) => {
    const x = 16 + index * 110;
    parts.push(box(x, 58, 100, 70, "#f6e8d4", { class: "cushion" }), disc(x + 24, 93, 15, jewelColour(jewel), { class: "jewel" }));
    (v.bids || []).filter((bid) => bid.cushion === index).forEach((bid, k) => {
      parts.push(box(x + 48 + 18 * k, 74, 16, 26, seatColour(bid.seat), { rx: 3, class: "bid" }),
                 label(x + 51 + 18 * k, 92, bid.value ? bid.value : "?", { "font-size": 11, fill: "#fff" }));
    });
  });
  JEWELS.forEach(([name, colour], k) => {
    parts.push(disc(360 + k * 52, 93, 9, colour), label(372 + k * 52, 98, `${(v.bag || {})[name] || 0}`, { "font-size": 12 }));
  });
  parts.push(label(360, 70, "bag"));
  seats.forEach((seat, index) => {
    const y = 150 + index * 70;
    parts.push(box(16, y, 600, 60, "#fff", { class: "seat" }), disc(34, y + 30, 9, seatColour(index)),
               label(50, y + 24, `${seatName(match, index)}`, { "font-weight": 600 }),
               label(50, y + 44, `score ${seat.score} · ${seat.handCount} cards in hand`, { class: "score" }));
    JEWELS.forEach(([name, colour], k) => {
      const count = (seat.collection || {})[name] || 0;
      for (let j = 0; j < count; ++j) parts.push(disc(300 + k * 62 + (j % 5) * 10, y + 18 + Math.floor(j / 5) * 14, 6, colour, { class: "collected" }));
    });
  });
  return picture(640, height, "sultan", ...parts);
}

// Moonlight Market: the cushions' columns of tiles and bids, each seat's chains and prestige.
function drawMoonlight(v, match) {
  const seats = v.seats || [];
  const parts = [label(16, 24, `round ${v.round + 1}, pass ${v.pass}, ${phaseName(v.phase)} · seals in supply ${v.sealSupply}`, { "font-weight": 600 })];
  (v.cushions || []).forEach((cushion, index) => {
    const x = 16 + index * 200;
    parts.push(box(x, 40, 188, 120, "#eee6f8", { class: "cushion" }), label(x + 8, 58, `cushion ${index}`));
    (cushion.columns || []).forEach((column, c) => (column.tiles || []).forEach((tile, t) => {
      parts.push(box(x + 10 + c * 58, 66 + t * 28, 50, 24, "#fff", { rx: 3, class: "tile" }),
                 label(x + 22 + c * 58, 83 + t * 28, `#${tile}`, { "font-size": 11 }));
    }));
    if (cushion.bidSeat >= 0)
      parts.push(disc(x + 170, 52, 10, seatColour(cushion.bidSeat), { class: "bid" }),
                 label(x + 163, 56, cushion.bidCard, { "font-size": 10, fill: "#fff" }));
  });
  const maxPrestige = Math.max(40, ...seats.map((seat) => seat.prestige || 0));
  seats.forEach((seat, index) => {
    const y = 180 + index * 86;
    const name = seat.automaton ? `${seat.name} (automaton)` : seatName(match, index);
    parts.push(box(16, y, 600, 78, "#fff", { class: "seat" }), disc(34, y + 20, 9, seatColour(index)),
               label(50, y + 24, name, { "font-weight": 600 }),
               label(50, y + 44, `prestige ${seat.prestige} · seals ${seat.seals} · hand ${seat.handCount}`, { class: "score" }),
               s("rect", { x: 50, y: y + 54, width: 200, height: 8, fill: "#eee" }),
               s("rect", { x: 50, y: y + 54, width: 200 * (seat.prestige || 0) / maxPrestige, height: 8, fill: seatColour(index), class: "prestige" }));
    (seat.chains || []).forEach((chain, c) => {
      const tiles = chain.tiles || [];
      tiles.forEach((tile, t) => parts.push(box(280 + c * 66 + t * 12, y + 14 + t * 6, 30, 18, "#f7f3e8", { rx: 2, class: "chain-tile" })));
      parts.push(label(282 + c * 66, y + 70, `${(seat.chainValues || [])[c] || 0}`, { "font-size": 11, class: "chain" }));
    });
  });
  return picture(640, 190 + 86 * seats.length, "moonlight_market", ...parts);
}

// Carat: the 6x6 board of tiles (their four corner colours and value) and the chips.
const CARAT_COLOURS = { RED: "#d1495b", GREEN: "#3c9d5d", BLUE: "#2e6fd1", YELLOW: "#f2c14e" };
function caratColour(name) { return CARAT_COLOURS[String(name).replace("CARAT_COLOUR_", "")] || "#ccc"; }
function drawCarat(v, match) {
  const cell = 64, x0 = 40, y0 = 40;
  const parts = [];
  (v.board || []).forEach((space, index) => {
    const x = x0 + (index % 6) * cell, y = y0 + Math.floor(index / 6) * cell;
    parts.push(s("rect", { x, y, width: cell, height: cell, fill: "#f4efe4", stroke: "#b9b2a3", class: "space" }));
    if (!space.tile) return;
    const corners = [[x, y], [x + cell, y], [x + cell, y + cell], [x, y + cell]];
    const cx = x + cell / 2, cy = y + cell / 2;
    (space.corners || []).forEach((colour, k) => {
      const [ax, ay] = corners[k], [bx, by] = corners[(k + 1) % 4];
      const mx = (ax + bx) / 2, my = (ay + by) / 2;
      parts.push(s("polygon", { points: `${ax},${ay} ${mx},${my} ${cx},${cy} ${(corners[(k + 3) % 4][0] + ax) / 2},${(corners[(k + 3) % 4][1] + ay) / 2}`,
                                fill: caratColour(colour), stroke: "#fff", "stroke-width": 1, class: "diamond" }));
    });
    parts.push(disc(cx, cy, 12, "#fff", { class: "tile" }),
               label(cx - 8, cy + 4, `${String(space.tile.type).slice(-1)}${space.tile.value}`, { "font-size": 11 }));
  });
  (v.chips || []).forEach((value, index) => {
    const x = x0 + (index % 7) * cell, y = y0 + Math.floor(index / 7) * cell;
    const scored = (v.chipScored || [])[index];
    parts.push(disc(x, y, 9, scored ? "#ddd" : "#fffbe8", { class: scored ? "chip scored" : "chip" }),
               label(x - 4, y + 4, value, { "font-size": 10, fill: scored ? "#999" : "#1d2330" }));
  });
  (v.seats || []).forEach((seat, index) => {
    const y = 60 + index * 44;
    parts.push(disc(x0 + 6 * cell + 50, y, 9, seatColour(index)),
               label(x0 + 6 * cell + 66, y + 4, `${seatName(match, index)}: ${seat.score} points, ${seat.handCount} tiles`, { class: "score" }));
    (seat.colours || []).forEach((colour, k) => parts.push(s("rect", { x: x0 + 6 * cell + 66 + 14 * k, y: y + 10, width: 12, height: 12, fill: caratColour(colour) })));
  });
  parts.push(label(x0 + 6 * cell + 50, 40 + 6 * cell, `${v.supplyCount} tiles face down`));
  return picture(x0 * 2 + 6 * cell + 300, y0 * 2 + 6 * cell, "carat", ...parts);
}

// Mercado: the marker track, the eight market tiles with each seat's coins, and the seats' bags.
const COINS = [["gold", "#e0b325"], ["silver", "#b8bcc4"], ["copper", "#c26b3a"], ["turquoise", "#3fb8af"], ["white", "#f4f1ea"], ["black", "#2b2b2b"]];
function coinRow(parts, x, y, coins, cls) {
  let k = 0;
  for (const [name, colour] of COINS)
    for (let j = 0; j < ((coins || {})[name] || 0); ++j, ++k) parts.push(disc(x + (k % 6) * 11, y + Math.floor(k / 6) * 11, 5, colour, { class: cls }));
}
function drawMercado(v, match) {
  const t = v.table || {};
  const seats = t.seats || [];
  const parts = [label(16, 24, `${phaseName(t.phase)} · active ${seatName(match, t.activeSeat)} · items ${t.itemDeckSize}, perfumes ${t.perfumeDeckSize} in the decks`, { "font-weight": 600 })];
  for (let space = 0; space < 30; ++space) {  // the track around the board
    const angle = (space / 30) * 2 * Math.PI, cx = 150 + 110 * Math.cos(angle), cy = 170 + 110 * Math.sin(angle);
    parts.push(disc(cx, cy, 9, space === t.startSpace ? "#fde68a" : "#f3f1ec", { class: "track" }));
  }
  seats.forEach((seat, index) => {
    const space = ((t.startSpace || 0) + (seat.progress || 0)) % 30, angle = (space / 30) * 2 * Math.PI;
    parts.push(disc(150 + (110 - 14 - 6 * (seat.stackHeight || 0)) * Math.cos(angle), 170 + (110 - 14 - 6 * (seat.stackHeight || 0)) * Math.sin(angle), 7, seatColour(index), { class: "marker" }));
  });
  (t.display || []).forEach((tile, position) => {
    const x = 300 + (position % 4) * 120, y = 50 + Math.floor(position / 4) * 150;
    parts.push(box(x, y, 110, 140, "#fff7e6", { class: "market-tile" }), label(x + 8, y + 18, `tile #${tile}`));
    seats.forEach((seat, index) => coinRow(parts, x + 12, y + 34 + index * 24, (seat.edges || [])[position], "coin"));
  });
  seats.forEach((seat, index) => {
    const y = 340 + index * 54;
    parts.push(box(16, y, 760, 48, "#fff", { class: "seat" }), disc(34, y + 24, 9, seatColour(index)),
               label(50, y + 20, seatName(match, index), { "font-weight": 600 }),
               label(50, y + 38, `progress ${seat.progress} · seals ${seat.seals} · privileges ${seat.privilegeCount}`, { class: "score" }));
    coinRow(parts, 380, y + 12, seat.bag, "bag-coin");
  });
  return picture(800, 350 + 54 * seats.length, "mercado", ...parts);
}

// Morgenland: the caves with their treasure, the city, the gate, the palace rooms with their
// artifacts, every seat's tokens on the spaces and each seat's treasure.
const MORGENLAND_SPACES = ["cave 1", "cave 2", "cave 3", "cave 4", "cave 5", "tent", "djinn", "market", "caravan", "gate",
                           "room 1", "room 2", "room 3", "room 4", "room 5"];
const TREASURE = ["#e0b325", "#b8bcc4", "#c26b3a", "#3fb8af", "#8e5ac8"];
function drawMorgenland(v, match) {
  const seats = v.seats || [];
  const spaces = 10 + (v.rooms || []).length;
  const parts = [label(16, 24, `round ${v.round} of ${v.maxRounds} · ${phaseName(v.phase)}`, { "font-weight": 600 })];
  for (let space = 0; space < spaces; ++space) {
    const x = 16 + (space % 5) * 150, y = 40 + Math.floor(space / 5) * 130;
    const kind = space < 5 ? "cave" : space === 9 ? "gate" : space >= 10 ? "room" : "city";
    const fill = { cave: "#efe2cf", city: "#e6eef7", gate: "#f3d9d9", room: "#efe6f7" }[kind];
    parts.push(box(x, y, 140, 120, fill, { class: `space ${kind}` }), label(x + 8, y + 18, MORGENLAND_SPACES[space], { "font-weight": 600 }));
    if (space < 5) {  // the cave's shelf of treasure
      ((v.shelves || [])[space]?.units || []).forEach((count, kind) => {
        for (let j = 0; j < count; ++j) parts.push(s("rect", { x: x + 8 + j * 9, y: y + 26 + kind * 12, width: 7, height: 9, fill: TREASURE[kind % 5], class: "treasure" }));
      });
    } else if (space >= 10) {  // a palace room: face-down artifacts and the face-up one
      const room = v.rooms[space - 10];
      for (let j = 0; j < room.stackSize; ++j) parts.push(s("rect", { x: x + 8 + j * 6, y: y + 28, width: 20, height: 28, fill: "#6d5a8a", stroke: "#fff", class: "artifact" }));
      if (room.faceUp >= 0) parts.push(box(x + 80, y + 26, 40, 32, "#fff", { class: "artifact face-up" }), label(x + 88, y + 47, `#${room.faceUp}`, { "font-size": 11 }));
    }
  }
  seats.forEach((seat, index) => (seat.tokens || []).forEach((token, k) => {
    if (token.space < 0 || token.space >= spaces) return;
    const x = 16 + (token.space % 5) * 150 + 16 + (index * 3 + k % 3) * 14, y = 40 + Math.floor(token.space / 5) * 130 + 100;
    parts.push(disc(x, y, 7, seatColour(index), { class: "token" }));
    if (token.faceUp) parts.push(label(x - 4, y + 4, token.value, { "font-size": 9, fill: "#fff" }));
  }));
  const top = 50 + Math.ceil(spaces / 5) * 130;
  seats.forEach((seat, index) => {
    const y = top + index * 50;
    parts.push(box(16, y, 740, 44, "#fff", { class: "seat" }), disc(34, y + 22, 9, seatColour(index)),
               label(50, y + 18, seatName(match, index), { "font-weight": 600 }),
               label(50, y + 36, `artifacts ${seat.artifacts} · treasure ${seat.treasureTotal} · spells ${seat.spellCount}${seat.entered ? " · in the palace" : ""}`, { class: "score" }));
    ((seat.treasure || {}).units || []).forEach((count, kind) => {
      for (let j = 0; j < Math.min(count, 20); ++j) parts.push(s("rect", { x: 400 + kind * 70 + (j % 10) * 6, y: y + 10 + Math.floor(j / 10) * 12, width: 5, height: 9, fill: TREASURE[kind % 5] }));
    });
  });
  return picture(770, top + 50 * seats.length + 10, "morgenland", ...parts);
}

const DRAW = { sultan: drawSultan, moonlight_market: drawMoonlight, carat: drawCarat, mercado: drawMercado, morgenland: drawMorgenland };

function drawBoard(game, view, match) {
  const draw = DRAW[game];
  if (!draw) return el("p", { class: "muted" }, `no picture for ${game} yet`);
  return draw(view.view || {}, match);
}
