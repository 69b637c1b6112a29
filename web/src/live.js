// What the page knows of its game: the server's last view of it, in the forms the page
// draws. The page asks for views with events (`event_views` in its hello), so each action
// brings the view after it; nothing here works out what an event changed.

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
export const total = (cards) => RESOURCES.reduce((n, r) => n + (cards?.[r] ?? 0), 0);
const copyCards = (c) => Object.fromEntries(RESOURCES.map((r) => [r, c?.[r] ?? 0]));
const n = (x) => (typeof x === "bigint" ? Number(x) : x);

/** A wire view in the forms the page draws. */
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
  };
}
