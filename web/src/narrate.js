// Events told in sentences from one seat's point of view, places named by the hexes around
// them (as clients/narrate.py and the terminal client's TableNarrator tell them).

import { RESOURCES, RESOURCE_OF_TERRAIN } from "./live.js";
import { harbourSlotsOf, topology } from "./topology.js";

export const plural = (k, word) => `${k} ${word}${k === 1 ? "" : "s"}`;

/** "2 lumber, 1 grain"; "nothing" when empty. */
export function cardsText(cards) {
  const parts = RESOURCES.filter((r) => cards?.[r]).map((r) => `${cards[r]} ${r}`);
  return parts.length ? parts.join(", ") : "nothing";
}

export const harbourLabel = (kind) => (kind === "generic" ? "3:1" : `2:1 ${kind}`);
const COMPASS = ["east", "north-east", "north", "north-west", "west", "south-west", "south", "south-east"];
const compass = (dx, dy) => COMPASS[(((Math.round(Math.atan2(dy, dx) / (Math.PI / 4))) % 8) + 8) % 8];

/** Names of places on one board a person can find on the map. */
export class PlaceNames {
  constructor(board) {
    this.topo = topology(board.radius);
    this.board = board;
    this.harbourAt = new Map();
    harbourSlotsOf(board).forEach((e, slot) => {
      if (slot < board.harbours.length) for (const v of this.topo.edgeVertices[e]) this.harbourAt.set(v, board.harbours[slot]);
    });
    this.hexNames = this.makeHexNames();
  }

  baseName(h) {
    const name = RESOURCE_OF_TERRAIN[this.board.terrain[h]];
    return this.board.tokens[h] ? `${name} ${this.board.tokens[h]}` : name;
  }

  centre(h) {
    const xy = this.topo.vertexXY;
    const cs = this.topo.hexVertices[h];
    return [cs.reduce((a, v) => a + xy[v][0], 0) / 6, cs.reduce((a, v) => a + xy[v][1], 0) / 6];
  }

  clock(h) {
    if (this.topo.hexRing[h] === 0) return "in the middle";
    const [x, y] = this.centre(h);
    const hour = ((Math.round((90 - (Math.atan2(y, x) * 180) / Math.PI) / 30) % 12) + 12) % 12;
    return `at ${hour || 12} o'clock`;
  }

  makeHexNames() {
    const count = (names) => names.reduce((m, x) => m.set(x, (m.get(x) ?? 0) + 1), new Map());
    const coast = Math.max(...this.topo.hexRing);
    let names = this.topo.hexCoords.map((_, h) => this.baseName(h));
    let seen = count(names);
    names = names.map((x, h) => (seen.get(x) === 1 ? x : `${x} ${this.clock(h)}`));
    seen = count(names);
    return names.map((x, h) =>
      seen.get(x) === 1 ? x : `${x}, ${this.topo.hexRing[h] < coast ? "inland" : "on the coast"}`,
    );
  }

  hex(h) {
    return this.hexNames[h];
  }

  side(h, vertices) {
    const xy = this.topo.vertexXY;
    const [cx, cy] = this.centre(h);
    const px = vertices.reduce((a, v) => a + xy[v][0], 0) / vertices.length;
    const py = vertices.reduce((a, v) => a + xy[v][1], 0) / vertices.length;
    return compass(px - cx, py - cy);
  }

  vertex(v) {
    const hexes = this.topo.vertexHexes[v];
    const text =
      hexes.length === 1
        ? `the ${this.side(hexes[0], [v])} corner of ${this.hex(hexes[0])}`
        : hexes.map((h) => this.hex(h)).join(" / ");
    const harbour = this.harbourAt.get(v);
    return text + (harbour ? ` (${harbourLabel(harbour)} harbour)` : "");
  }

  edge(e) {
    const [a, b] = this.topo.edgeVertices[e];
    const hb = this.topo.vertexHexes[b];
    const shared = this.topo.vertexHexes[a].filter((h) => hb.includes(h));
    if (shared.length === 1) return `on the ${this.side(shared[0], [a, b])} side of ${this.hex(shared[0])}`;
    return "between " + shared.map((h) => this.hex(h)).join(" and ");
  }
}

const cardName = (card) => card.replaceAll("_", " ");

/** Sentences for events, for a viewer (a seat, or null for a spectator). */
export class Narrator {
  constructor(names, viewer, places) {
    this.names = names;
    this.viewer = viewer;
    this.places = places;
  }

  who(seat) {
    if (seat === null || seat === undefined) return "nobody";
    return seat === this.viewer ? "you" : this.names[seat] ?? `seat ${seat + 1}`;
  }

  verb(seat, verb) {
    return seat === this.viewer ? verb : `${verb}s`;
  }

  whose(seat) {
    return seat === this.viewer ? "your" : `${this.who(seat)}'s`;
  }

  capital(line) {
    for (let seat = 0; seat < this.names.length; seat++) {
      if (seat === this.viewer) continue;
      const name = this.names[seat];
      if (line.startsWith(name) && !/^[\p{L}\p{N}]/u.test(line.slice(name.length))) return line;
    }
    return line.charAt(0).toUpperCase() + line.slice(1);
  }

  roll(rolled, produced) {
    const [a, b] = rolled.dice;
    let text = `${this.who(rolled.seat)} rolled ${a + b} (${a}+${b})`;
    if (!produced) return text;
    const gains = produced.gains.flatMap((g, q) =>
      RESOURCES.some((r) => g[r]) ? [`${this.who(q)} got ${cardsText(g)}`] : [],
    );
    text += ": " + (gains.length ? gains.join("; ") : "nobody produced anything");
    if (produced.short.length) text += ` (the bank ran short of ${produced.short.join(", ")})`;
    return text;
  }

  describe(e) {
    const w = (s) => this.who(s);
    switch (e.kind) {
      case "settlement_built":
        return `${w(e.seat)} built a settlement at ${this.places.vertex(e.vertex)}`;
      case "city_built":
        return `${w(e.seat)} built a city at ${this.places.vertex(e.vertex)}`;
      case "road_built":
        return `${w(e.seat)} built a road ${this.places.edge(e.edge)}` + (e.free ? " (free)" : "");
      case "robber_moved":
        return (
          `${w(e.seat)} moved the robber to ${this.places.hex(e.hex)}` +
          (e.victim !== null ? ` to rob ${w(e.victim)}` : "")
        );
      case "starting_resources":
        return `${w(e.seat)} took ${cardsText(e.cards)} from the second settlement`;
      case "dice_rolled":
        return this.roll(e, null);
      case "produced":
        return this.roll({ seat: null, dice: [0, 0] }, e);
      case "discards_owed":
        return "discards owed: " + e.owed.flatMap((k, q) => (k ? [`${w(q)} ${k}`] : [])).join(", ");
      case "discarded":
        return `${w(e.seat)} discarded ${cardsText(e.cards)}`;
      case "stolen":
        return `${w(e.thief)} stole ${e.resource ? `1 ${e.resource}` : "a card"} from ${w(e.victim)}`;
      case "dev_card_bought":
        return `${w(e.seat)} bought ${e.card ? `a ${cardName(e.card)}` : "a development card"}`;
      case "dev_card_played":
        return `${w(e.seat)} played a ${cardName(e.card)}`;
      case "year_of_plenty_taken":
        return `${w(e.seat)} took ${cardsText(e.cards)} from the bank`;
      case "monopoly_taken":
        return `${w(e.seat)} took ${e.taken.reduce((a, b) => a + b, 0)} ${e.resource} by monopoly`;
      case "maritime_traded":
        return `${w(e.seat)} traded ${e.count} ${e.give} to the bank for 1 ${e.get}`;
      case "trade_offered":
        return `${w(e.seat)} ${this.verb(e.seat, "offer")} ${cardsText(e.give)} for ${cardsText(e.get)} to ${e.to.map(w).join(", ")}`;
      case "trade_answered":
        if (e.answer === "counter" && e.give && e.get)
          return `${w(e.seat)} ${this.verb(e.seat, "counter")}: ${cardsText(e.give)} for ${cardsText(e.get)}`;
        return `${w(e.seat)} ${this.verb(e.seat, e.answer)}`;
      case "trade_completed":
        return `${w(e.offerer)} traded ${cardsText(e.give)} to ${w(e.partner)} for ${cardsText(e.get)}`;
      case "trade_closed":
        if (e.reason === "declined") return `nobody took ${this.whose(e.seat)} offer`;
        if (e.reason === "cancelled") return `${w(e.seat)} withdrew ${e.seat === this.viewer ? "your" : "the"} offer`;
        return `${this.whose(e.seat)} offer is off (${e.reason})`;
      case "longest_road_changed":
        if (e.holder === null) return "nobody holds the longest road now";
        return `${w(e.holder)} ${this.verb(e.holder, "hold")} the longest road (${e.length})`;
      case "largest_army_changed":
        if (e.holder === null) return "nobody holds the largest army now";
        return `${w(e.holder)} ${this.verb(e.holder, "hold")} the largest army (${e.knights})`;
      case "turn_started":
        return `-- turn ${e.turn}: ${w(e.seat)} --`;
      case "game_won":
        return `${w(e.winner)} won! Final points: ${e.points.map((p, q) => `${w(q)} ${p}`).join(", ")}`;
      default:
        return null;
    }
  }

  /** Sentences for one action's events, a roll and its production told together. */
  batch(events) {
    const lines = [];
    for (let i = 0; i < events.length; i++) {
      const e = events[i];
      if (e.kind === "dice_rolled") {
        const next = events[i + 1];
        const produced = next?.kind === "produced" ? next : null;
        lines.push(this.roll(e, produced));
        if (produced) i += 1;
        continue;
      }
      const line = this.describe(e);
      if (line) lines.push(line);
    }
    return lines.map((l) => this.capital(l));
  }
}
