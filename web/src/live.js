// What the page knows of its game: the last full view with the events since laid over it,
// each event changing exactly what it says (as the terminal client's LiveView does), so the
// board follows the bots' moves between prompts. The next full view replaces it.

export const RESOURCES = ["brick", "lumber", "wool", "grain", "ore"];
export const DEV_CARDS = ["knight", "victory_point", "road_building", "year_of_plenty", "monopoly"];
export const RESOURCE_OF_TERRAIN = {
  hills: "brick",
  forest: "lumber",
  pasture: "wool",
  fields: "grain",
  mountains: "ore",
  desert: "desert",
};
const COST = {
  road: { brick: 1, lumber: 1 },
  settlement: { brick: 1, lumber: 1, wool: 1, grain: 1 },
  city: { grain: 2, ore: 3 },
  dev: { wool: 1, grain: 1, ore: 1 },
};
const SPECIAL_POINTS = 2;
const ANSWER_OF = { accept: "accepted", decline: "declined", counter: "countered" };

export const total = (cards) => RESOURCES.reduce((n, r) => n + (cards?.[r] ?? 0), 0);
const copyCards = (c) => Object.fromEntries(RESOURCES.map((r) => [r, c?.[r] ?? 0]));
const n = (x) => (typeof x === "bigint" ? Number(x) : x);

/** A mutable copy of a wire view. */
export function liveView(v) {
  return {
    seat: v.seat,
    stateId: n(v.state_id),
    players: v.players,
    victoryPoints: v.victory_points,
    board: v.board,
    phase: v.phase,
    turn: v.turn,
    current: v.current,
    toAct: [...v.to_act],
    dice: v.dice ? [...v.dice] : null,
    robber: v.robber,
    settlements: new Map(v.settlements.map(([x, s]) => [x, s])),
    cities: new Map(v.cities.map(([x, s]) => [x, s])),
    roads: new Map(v.roads.map(([x, s]) => [x, s])),
    bank: copyCards(v.bank),
    deck: v.development_deck,
    devCardPlayed: v.dev_card_played,
    freeRoads: v.free_roads,
    seats: v.seats.map((p) => ({ ...p })),
    trade: v.trade
      ? {
          offerer: v.trade.offerer,
          give: copyCards(v.trade.give),
          get: copyCards(v.trade.get),
          answers: [...v.trade.answers],
          counters: v.trade.counters.map((c) => (c ? { give: copyCards(c.give), get: copyCards(c.get) } : null)),
        }
      : null,
    winner: v.winner,
    hand: v.hand ? copyCards(v.hand) : null,
    development: v.development ? { ...v.development } : null,
    developmentNew: v.development_new ? { ...v.development_new } : null,
    ownPoints: v.own_points,
    ratios: v.trade_ratios ? copyCards(v.trade_ratios) : null,
    finalPoints: v.final_points ? [...v.final_points] : null,
    victoryCards: v.victory_cards ? [...v.victory_cards] : null,
    setupRoads: v.phase.startsWith("setup") ? v.roads.length : 0,
  };
}

function cards(v, seat, counts, sign, bank = true) {
  v.seats[seat].resource_cards += sign * total(counts);
  if (seat === v.seat && v.hand) for (const r of RESOURCES) v.hand[r] += sign * (counts[r] ?? 0);
  if (bank) for (const r of RESOURCES) v.bank[r] -= sign * (counts[r] ?? 0);
}

function points(v, seat, delta) {
  v.seats[seat].points += delta;
  if (seat === v.seat && v.ownPoints !== null) v.ownPoints += delta;
}

function closeTrade(v) {
  v.trade = null;
  v.phase = "main";
  v.toAct = [v.current];
}

function award(v, which, holder) {
  for (const s of v.seats) {
    if (s[which] && s.seat !== holder) {
      s[which] = false;
      points(v, s.seat, -SPECIAL_POINTS);
    }
  }
  if (holder !== null && !v.seats[holder][which]) {
    v.seats[holder][which] = true;
    points(v, holder, SPECIAL_POINTS);
  }
}

/** Lay one event (in this page's form) over the view. */
export function apply(v, e) {
  switch (e.kind) {
    case "settlement_built":
      v.settlements.set(e.vertex, e.seat);
      v.seats[e.seat].settlements_left -= 1;
      points(v, e.seat, 1);
      if (!e.free) cards(v, e.seat, COST.settlement, -1);
      if (v.phase.startsWith("setup")) {
        v.phase = "setup_road";
        v.current = e.seat;
        v.toAct = [e.seat];
      }
      break;
    case "road_built":
      v.roads.set(e.edge, e.seat);
      v.seats[e.seat].roads_left -= 1;
      if (!e.free) cards(v, e.seat, COST.road, -1);
      else if (v.phase.startsWith("setup")) {
        v.setupRoads += 1;
        const order = [...Array(v.players).keys()];
        const snake = [...order, ...order.reverse()];
        if (v.setupRoads < snake.length) {
          v.phase = "setup_settlement";
          v.current = snake[v.setupRoads];
          v.toAct = [v.current];
        }
      } else if (v.freeRoads) {
        v.freeRoads -= 1;
        if (!v.freeRoads) v.phase = v.dice ? "main" : "pre_roll"; // road building may precede the roll
      }
      break;
    case "city_built":
      v.settlements.delete(e.vertex);
      v.cities.set(e.vertex, e.seat);
      v.seats[e.seat].settlements_left += 1;
      v.seats[e.seat].cities_left -= 1;
      points(v, e.seat, 1);
      cards(v, e.seat, COST.city, -1);
      break;
    case "starting_resources":
      cards(v, e.seat, e.cards, +1);
      break;
    case "dice_rolled":
      v.dice = [...e.dice];
      v.phase = "main";
      break;
    case "produced":
      e.gains.forEach((g, q) => cards(v, q, g, +1));
      break;
    case "discards_owed":
      e.owed.forEach((k, q) => {
        v.seats[q].discards_owed = k;
      });
      v.phase = "discard";
      v.toAct = e.owed.flatMap((k, q) => (k ? [q] : []));
      break;
    case "discarded": {
      cards(v, e.seat, e.cards, -1);
      const s = v.seats[e.seat];
      s.discards_owed = Math.max(0, s.discards_owed - total(e.cards));
      v.toAct = v.seats.filter((x) => x.discards_owed).map((x) => x.seat);
      if (!v.toAct.length) {
        v.phase = "move_robber";
        v.toAct = [v.current];
      }
      break;
    }
    case "robber_moved":
      v.robber = e.hex;
      v.phase = v.dice ? "main" : "pre_roll";
      break;
    case "stolen":
      v.seats[e.thief].resource_cards += 1;
      v.seats[e.victim].resource_cards -= 1;
      if (e.resource && v.hand) {
        if (v.seat === e.thief) v.hand[e.resource] += 1;
        else if (v.seat === e.victim) v.hand[e.resource] -= 1;
      }
      break;
    case "dev_card_bought":
      cards(v, e.seat, COST.dev, -1);
      v.seats[e.seat].development_cards += 1;
      v.deck -= 1;
      if (e.seat === v.seat && e.card) {
        if (v.development) v.development[e.card] += 1;
        if (v.developmentNew) v.developmentNew[e.card] += 1;
        if (e.card === "victory_point" && v.ownPoints !== null) v.ownPoints += 1;
      }
      break;
    case "dev_card_played":
      v.seats[e.seat].development_cards -= 1;
      v.devCardPlayed = true;
      if (e.card === "knight") {
        v.seats[e.seat].knights += 1;
        v.phase = "move_robber";
      } else if (e.card === "road_building") {
        v.phase = "road_building";
        v.freeRoads = 2;
      }
      if (e.seat === v.seat && v.development) v.development[e.card] -= 1;
      break;
    case "year_of_plenty_taken":
      cards(v, e.seat, e.cards, +1);
      break;
    case "monopoly_taken": {
      e.taken.forEach((k, q) => cards(v, q, { [e.resource]: k }, -1, false));
      const sum = e.taken.reduce((a, b) => a + b, 0);
      cards(v, e.seat, { [e.resource]: sum }, +1, false);
      break;
    }
    case "maritime_traded":
      cards(v, e.seat, { [e.give]: e.count }, -1);
      cards(v, e.seat, { [e.get]: 1 }, +1);
      break;
    case "trade_offered":
      v.trade = {
        offerer: e.seat,
        give: copyCards(e.give),
        get: copyCards(e.get),
        answers: [...Array(v.players).keys()].map((q) => (e.to.includes(q) ? "pending" : "not_asked")),
        counters: new Array(v.players).fill(null),
      };
      v.phase = "trade";
      v.toAct = [e.seat, ...e.to];
      break;
    case "trade_answered":
      if (v.trade) {
        v.trade.answers[e.seat] = ANSWER_OF[e.answer] ?? e.answer;
        if (e.give && e.get) v.trade.counters[e.seat] = { give: copyCards(e.give), get: copyCards(e.get) };
      }
      v.toAct = v.toAct.filter((q) => q !== e.seat);
      break;
    case "trade_completed":
      cards(v, e.offerer, e.give, -1, false);
      cards(v, e.offerer, e.get, +1, false);
      cards(v, e.partner, e.get, -1, false);
      cards(v, e.partner, e.give, +1, false);
      closeTrade(v);
      break;
    case "trade_closed":
      closeTrade(v);
      break;
    case "longest_road_changed":
      award(v, "has_longest_road", e.holder);
      if (e.holder !== null) v.seats[e.holder].longest_road = e.length;
      break;
    case "largest_army_changed":
      award(v, "has_largest_army", e.holder);
      break;
    case "turn_started":
      v.current = e.seat;
      v.turn = e.turn;
      v.toAct = [e.seat];
      v.dice = null;
      v.phase = "pre_roll";
      v.devCardPlayed = false;
      v.freeRoads = 0;
      if (v.developmentNew) for (const k of DEV_CARDS) v.developmentNew[k] = 0;
      break;
    case "game_won":
      v.winner = e.winner;
      v.finalPoints = [...e.points];
      v.victoryCards = [...e.victory_cards];
      v.phase = "game_over";
      v.toAct = [];
      break;
    default:
      break; // an event this page does not know changes nothing it shows
  }
}

const PIECES = { roads: 15, settlements: 5, cities: 4 };
const BANK_PER_RESOURCE = 19;
const DEV_DECK = 25;

/** The game as it was before its first action, as ``v``'s viewer saw it then: the same
 * board and seats, nothing built, full bank and deck, the robber on the first desert. */
export function initialView(v) {
  const zeros = (names) => Object.fromEntries(names.map((k) => [k, 0]));
  const desert = v.board.terrain.indexOf("desert");
  return {
    seat: v.seat,
    stateId: 0,
    players: v.players,
    victoryPoints: v.victoryPoints,
    board: v.board,
    phase: "setup_settlement",
    turn: 0,
    current: 0,
    toAct: [0],
    dice: null,
    robber: desert,
    settlements: new Map(),
    cities: new Map(),
    roads: new Map(),
    bank: Object.fromEntries(RESOURCES.map((r) => [r, BANK_PER_RESOURCE])),
    deck: DEV_DECK,
    devCardPlayed: false,
    freeRoads: 0,
    seats: [...Array(v.players).keys()].map((seat) => ({
      seat,
      points: 0,
      resource_cards: 0,
      development_cards: 0,
      knights: 0,
      roads_left: PIECES.roads,
      settlements_left: PIECES.settlements,
      cities_left: PIECES.cities,
      longest_road: 0,
      has_longest_road: false,
      has_largest_army: false,
      discards_owed: 0,
    })),
    trade: null,
    winner: null,
    hand: v.hand ? zeros(RESOURCES) : null,
    development: v.development ? zeros(DEV_CARDS) : null,
    developmentNew: v.developmentNew ? zeros(DEV_CARDS) : null,
    ownPoints: v.ownPoints !== null ? 0 : null,
    ratios: null,
    finalPoints: null,
    victoryCards: null,
    setupRoads: 0,
  };
}
