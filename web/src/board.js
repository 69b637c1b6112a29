// The island as SVG: hexes with their numbers and pips, harbours, the robber, the pieces in
// seat colours (each with its seat's number and, for roads, its dash pattern, so no seat is
// told by colour alone), and the spots a player may choose, focusable and clickable.

import { RESOURCE_OF_TERRAIN } from "./live.js";
import { harbourLabel } from "./narrate.js";
import { harbourSlotsOf, topology } from "./topology.js";

const SVG = "http://www.w3.org/2000/svg";
const SCALE = 40;
export const SEAT_COLOURS = ["#d55e00", "#0072b2", "#f2f2f2", "#cc79a7"];
const ROAD_DASHES = ["", "10 4", "3 3", "10 3 3 3"];
const TERRAIN_COLOURS = {
  hills: "#c8643b",
  forest: "#3f7f3a",
  pasture: "#a6cf6b",
  fields: "#e8c547",
  mountains: "#9a9a9a",
  desert: "#e6d3a3",
};
const PIPS = { 2: 1, 3: 2, 4: 3, 5: 4, 6: 5, 8: 5, 9: 4, 10: 3, 11: 2, 12: 1 };

function el(tag, attrs = {}, text = null) {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) if (v !== null && v !== undefined) node.setAttribute(k, String(v));
  if (text !== null) node.textContent = text;
  return node;
}

const pt = ([x, y]) => [x * SCALE, -y * SCALE];
const fmt = (p) => `${p[0].toFixed(1)},${p[1].toFixed(1)}`;

/**
 * Draw the board of ``view`` into ``svg``. ``spots`` is null or {kind: "vertex"|"edge"|"hex",
 * ids: Set, label(id), choose(id)}: those spots are drawn as buttons.
 */
export function drawBoard(svg, view, spots, places) {
  const topo = topology(view.board.radius);
  const { terrain, tokens, harbours } = view.board;
  svg.replaceChildren();
  const extent = (Math.sqrt(3) * (view.board.radius - 0.5) + 1.55) * SCALE;
  svg.setAttribute("viewBox", `${-extent} ${-extent} ${2 * extent} ${2 * extent}`);
  svg.setAttribute("role", "group");
  svg.setAttribute("aria-label", "The island");
  const hexes = el("g", { class: "hexes" });
  // The hexes the last roll produced on (this turn's roll; not under the robber).
  const rolled = view.dice ? view.dice[0] + view.dice[1] : null;
  topo.hexCentres.forEach((c, h) => {
    const corners = topo.hexVertices[h].map((v) => fmt(pt(topo.vertexXY[v])));
    const produced = rolled !== null && tokens[h] === rolled && h !== view.robber;
    const g = el("g", { class: `hex ${terrain[h]}${produced ? " produced" : ""}`, "data-hex": h });
    g.append(el("polygon", { points: corners.join(" "), fill: TERRAIN_COLOURS[terrain[h]] }));
    const [cx, cy] = pt(c);
    g.append(el("title", {}, places.hex(h)));
    g.append(el("text", { x: cx, y: cy - 16, class: "terrain-name" }, RESOURCE_OF_TERRAIN[terrain[h]]));
    if (tokens[h]) {
      const hot = tokens[h] === 6 || tokens[h] === 8;
      g.append(el("circle", { cx, cy, r: 12, class: "token" }));
      g.append(el("text", { x: cx, y: cy + 4, class: hot ? "token-number hot" : "token-number" }, tokens[h]));
      const pips = PIPS[tokens[h]] ?? 0;
      for (let i = 0; i < pips; i++) {
        g.append(el("circle", { cx: cx + (i - (pips - 1) / 2) * 4, cy: cy + 8, r: 1.3, class: hot ? "pip hot" : "pip" }));
      }
    }
    hexes.append(g);
  });
  svg.append(hexes);

  const harbourLayer = el("g", { class: "harbours" });
  harbourSlotsOf(view.board).forEach((e, slot) => {
    if (slot >= harbours.length) return;
    const [a, b] = topo.edgeVertices[e].map((v) => pt(topo.vertexXY[v]));
    const mid = [(a[0] + b[0]) / 2, (a[1] + b[1]) / 2];
    const len = Math.hypot(mid[0], mid[1]) || 1;
    const out = [mid[0] + (mid[0] / len) * 20, mid[1] + (mid[1] / len) * 20];
    harbourLayer.append(el("line", { x1: a[0], y1: a[1], x2: out[0], y2: out[1], class: "pier" }));
    harbourLayer.append(el("line", { x1: b[0], y1: b[1], x2: out[0], y2: out[1], class: "pier" }));
    harbourLayer.append(el("circle", { cx: out[0], cy: out[1], r: 16, class: "harbour" }));
    const label = harbourLabel(harbours[slot]).split(" ");
    harbourLayer.append(el("text", { x: out[0], y: out[1] + (label.length > 1 ? -1 : 3.5), class: "harbour-label" }, label[0]));
    if (label.length > 1) harbourLayer.append(el("text", { x: out[0], y: out[1] + 9, class: "harbour-label small" }, label[1]));
  });
  svg.append(harbourLayer);

  if (view.robber >= 0) {
    const [rx, ry] = pt(topo.hexCentres[view.robber]);
    const robber = el("g", { class: "robber", "data-hex": view.robber });
    robber.append(el("title", {}, `The robber, on ${places.hex(view.robber)}`));
    robber.append(el("circle", { cx: rx + 18, cy: ry - 4, r: 8 }));
    robber.append(el("text", { x: rx + 18, y: ry - 1 }, "R"));
    svg.append(robber);
  }

  const roads = el("g", { class: "roads" });
  for (const [e, seat] of view.roads) {
    const [a, b] = topo.edgeVertices[e].map((v) => pt(topo.vertexXY[v]));
    const shrink = (p, q) => [p[0] + (q[0] - p[0]) * 0.15, p[1] + (q[1] - p[1]) * 0.15];
    const [p, q] = [shrink(a, b), shrink(b, a)];
    const g = el("g", { class: `road seat-${seat}`, "data-edge": e });
    g.append(el("line", { x1: p[0], y1: p[1], x2: q[0], y2: q[1], class: "road-edge" }));
    g.append(
      el("line", {
        x1: p[0], y1: p[1], x2: q[0], y2: q[1],
        stroke: SEAT_COLOURS[seat % 4],
        "stroke-dasharray": ROAD_DASHES[seat % 4] || null,
        class: "road-fill",
      }),
    );
    roads.append(g);
  }
  svg.append(roads);

  const buildings = el("g", { class: "buildings" });
  const piece = (v, seat, city) => {
    const [x, y] = pt(topo.vertexXY[v]);
    const s = city ? 11 : 8;
    const g = el("g", { class: `${city ? "city" : "settlement"} seat-${seat}`, "data-vertex": v });
    const shape = city
      ? `${x - s},${y + s} ${x - s},${y - s * 0.2} ${x - s * 0.2},${y - s} ${x + s * 0.4},${y - s * 0.4} ${x + s},${y - s * 0.4} ${x + s},${y + s}`
      : `${x - s},${y + s} ${x - s},${y - s * 0.2} ${x},${y - s} ${x + s},${y - s * 0.2} ${x + s},${y + s}`;
    g.append(el("polygon", { points: shape, fill: SEAT_COLOURS[seat % 4], class: "building" }));
    g.append(el("text", { x, y: y + s * 0.75, class: "seat-mark" }, seat + 1));
    buildings.append(g);
  };
  for (const [v, seat] of view.settlements) piece(v, seat, false);
  for (const [v, seat] of view.cities) piece(v, seat, true);
  svg.append(buildings);

  if (spots) {
    const layer = el("g", { class: "spots" });
    const ids = [...spots.ids].sort((a, b) => a - b);
    for (const id of ids) {
      let centre;
      if (spots.kind === "vertex") centre = pt(topo.vertexXY[id]);
      else if (spots.kind === "hex") centre = pt(topo.hexCentres[id]);
      else {
        const [a, b] = topo.edgeVertices[id].map((v) => pt(topo.vertexXY[v]));
        centre = [(a[0] + b[0]) / 2, (a[1] + b[1]) / 2];
      }
      const label = spots.label(id);
      const g = el("g", {
        class: `spot ${spots.kind}`,
        id: `spot-${spots.kind}-${id}`,
        tabindex: 0,
        role: "button",
        "aria-label": label,
        [`data-${spots.kind}`]: id,
      });
      g.append(el("title", {}, label));
      if (spots.kind === "hex") {
        // A ring inside the hex's edge: its name, number and pips stay readable.
        const inset = topo.hexVertices[id].map((v) => {
          const [x, y] = pt(topo.vertexXY[v]);
          return fmt([centre[0] + (x - centre[0]) * 0.86, centre[1] + (y - centre[1]) * 0.86]);
        });
        g.append(el("polygon", { points: inset.join(" "), class: "hex-ring" }));
      } else {
        g.append(el("circle", { cx: centre[0], cy: centre[1], r: 9 }));
      }
      const choose = (event) => {
        event.preventDefault();
        spots.choose(id);
      };
      g.addEventListener("click", choose);
      g.addEventListener("keydown", (event) => {
        if (event.key === "Enter" || event.key === " ") choose(event);
      });
      layer.append(g);
    }
    svg.append(layer);
  }
}
