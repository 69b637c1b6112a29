// The Hexhaven web client: the lobby, a game's table, and the links that lead to them.
// It speaks the documented protocol over one websocket to the server that served it.

import { sha256 } from "@noble/hashes/sha256";
import { bytesToHex } from "@noble/hashes/utils";
import { SEAT_COLOURS, drawBoard } from "./board.js";
import { DEV_CARDS, RESOURCES, liveView, total } from "./live.js";
import { Narrator, PlaceNames, cardsText, plural } from "./narrate.js";
import { Connection, serverUrl } from "./net.js";

// --- little DOM helpers ----------------------------------------------------------------
function h(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else if (k === "class") node.className = v;
    else node.setAttribute(k, v === true ? "" : String(v));
  }
  for (const c of children.flat(Infinity)) if (c !== null && c !== undefined && c !== false) node.append(c);
  return node;
}
const $ = (id) => document.getElementById(id);
const num = (x) => (typeof x === "bigint" ? Number(x) : x);
const seatBadge = (seat) =>
  h("span", { class: `badge seat-${seat}`, title: `seat ${seat + 1}` }, String(seat + 1));
/** Who a seat is (null: a spectator), marked so that no name can pass for another: the
 * seat's colour chip with its number (the board's colours), the name as written, and a
 * "you" badge the page adds to the viewer's own seat, which it knows by seat, never by
 * name. A spectator has a mark of its own and no name. Screen readers hear "seat 2, Ana",
 * "you, seat 1, Ana" or "spectator" (the marks themselves are hidden from them). */
function speaker(seat, name) {
  if (seat === null || seat === undefined) {
    return h("span", { class: "speaker", "data-seat": "spectator" },
      h("span", { class: "hidden" }, "spectator"),
      h("span", { class: "badge spectator", "aria-hidden": "true", title: "a spectator" }, "spectator"));
  }
  const mine = seat === state.seat;
  return h("span", { class: "speaker", "data-seat": seat, "data-mine": mine ? "true" : null },
    h("span", { class: "hidden" }, `${mine ? "you, " : ""}seat ${seat + 1}, `),
    h("span", { class: `badge seat-${seat}`, "aria-hidden": "true", title: `seat ${seat + 1}` }, String(seat + 1)),
    " ", h("bdi", { class: "name" }, name),
    mine ? [" ", h("span", { class: "badge self", "aria-hidden": "true", title: "you" }, "you")] : null);
}

// --- what the page keeps in the browser ---------------------------------------------------
const SEATS_KEY = "hexhaven.seats";
const NAME_KEY = "hexhaven.name";
function savedSeats() {
  try {
    return JSON.parse(localStorage.getItem(SEATS_KEY) ?? "{}") ?? {};
  } catch {
    return {};
  }
}
function saveSeat(game, seat, token, invite) {
  const seats = savedSeats();
  seats[game] = { seat, token, invite: invite ?? seats[game]?.invite ?? null, at: Date.now() };
  localStorage.setItem(SEATS_KEY, JSON.stringify(seats));
}
function forgetSeat(game) {
  const seats = savedSeats();
  delete seats[game];
  localStorage.setItem(SEATS_KEY, JSON.stringify(seats));
}

// --- links --------------------------------------------------------------------------------
const base = () => {
  const url = new URL(location.href);
  url.hash = "";
  url.search = "";
  return url.href;
};
/** The link that seats a friend: a private game's names its invite code (the server seats
 * nobody at a private game by its id alone), a public game's its id. Either is followed to
 * the server process that plays the game (``moved``) when several share one address. */
export const inviteLink = (game, invite) =>
  invite ? `${base()}#invite=${encodeURIComponent(invite)}` : `${base()}#join=${game}`;
export const watchLink = (game) => `${base()}#watch=${game}`;
/** What a link asks for; an invite to a seat this browser already holds leads back to it. */
function wanted() {
  const want = readHash();
  if (want && (want.kind === "invite" || want.kind === "join")) {
    const code = want.value.toUpperCase();
    const held = Object.entries(savedSeats()).find(([game, s]) =>
      want.kind === "join" ? game === want.value : s.invite?.toUpperCase() === code || game === want.game,
    );
    if (held) return { kind: "play", value: held[0] };
  }
  return want;
}
function readHash() {
  const params = new URLSearchParams(location.hash.slice(1));
  for (const kind of ["invite", "join", "watch", "play"]) {
    const value = params.get(kind);
    if (!value) continue;
    const seat = kind === "join" || kind === "invite";
    // ``as``: the name a seat was asked for at another server process, taken here at once;
    // ``game`` beside an invite code and ``invite`` beside a game id: the other half of a
    // join that names both (the page makes such links when it follows ``moved``).
    return {
      kind,
      value,
      as: seat ? params.get("as") : null,
      game: kind === "invite" ? params.get("game") : null,
      invite: kind === "join" ? params.get("invite") : null,
    };
  }
  return null;
}

// --- state --------------------------------------------------------------------------------
const KIND_ORDER = [
  "roll_dice", "play_knight", "place_settlement", "place_road", "discard", "move_robber",
  "build_settlement", "build_city", "build_road", "buy_dev_card", "play_road_building",
  "play_year_of_plenty", "play_monopoly", "accept_trade", "counter_trade", "decline_trade",
  "confirm_trade", "cancel_trade", "maritime_trade", "offer_trade", "end_turn",
];
const PLACEMENTS = {
  place_settlement: ["vertex", "Place a settlement", "place"],
  place_road: ["edge", "Place a road", "place"],
  build_settlement: ["vertex", "Build a settlement", "place"],
  build_city: ["vertex", "Build a city", "settlement"],
  build_road: ["edge", "Build a road", "place"],
  move_robber: ["hex", "Move the robber", "hex"],
};

const state = {
  conn: null,
  game: null,
  seat: null,
  token: null,
  spectator: false,
  host: false,
  invite: null,
  seedHash: null,
  players: [],
  started: false,
  view: null,
  prompt: null,
  promptAt: 0,
  sentFor: null,
  picking: null,
  dialog: null,
  log: [],
  told: 0, // the state the log has told the game up to
  batches: new Map(), // state id -> the events of the action that led to it, for the replay
  replay: null, // {step} while replaying the finished game
  views: new Map(), // state id -> the server's view at it (with events, or asked for the replay)
  refocus: false, // the focused control went with the player's move: focus the next one
  found: null, // the game an invite link opens, as the server told it (game_found)
  heardChat: false, // whether a history has brought the chat kept for the game
  over: null,
  clock: new Map(),
  status: "",
  pendingChat: [],
  lobbyGames: [],
  want: null, // what to ask once connected: {kind, value}
  asked: null, // the last join_game, watch or rejoin sent, asked again if the game is moving
  making: false, // a create_game sent, its game not made yet
  refusal: null, // why the server refused a seat: {code, game, name}, told in the join form
  offered: { boards: ["random", "spiral"], presets: [], bots: { heuristic: [], random: [], uct: [] } },
};

const names = () => {
  const count = state.view ? state.view.players : state.players.length;
  return [...Array(count).keys()].map((q) => state.players.find((p) => p.seat === q)?.name ?? `seat ${q + 1}`);
};
const YOU = /\byou(r|rs|rself)?\b/i;
/** The names the page tells the game with, where "you" is the viewer: another seat's name
 * that has "you" in it is told with its seat ("you (seat 2)"), so it reads as that seat. */
const toldNames = () => names().map((name, q) => (q !== state.seat && YOU.test(name) ? `${name} (seat ${q + 1})` : name));
const nameOf = (seat) => (seat === state.seat ? "you" : toldNames()[seat] ?? `seat ${seat + 1}`);
function narrator() {
  if (!state.view) return null;
  return new Narrator(toldNames(), state.seat, new PlaceNames(state.view.board));
}
function remember(line) {
  state.log.push(line);
  if (state.log.length > 2000) state.log.splice(0, state.log.length - 2000);
}
const say = (kind, text) => remember({ kind, text });
/** A chat line, kept with the seat that said it (null: a spectator). */
const sayChat = (c) => remember({ kind: "chat", seat: c.seat === null ? null : num(c.seat), name: c.name, text: c.text });
function tell(events) {
  const n = narrator();
  if (!n) return;
  const others = toldNames().filter((name, q) => q !== state.seat && YOU.test(name));
  for (const text of n.batch(events)) {
    // About the viewer: "you" said of the viewer, not within another seat's name.
    const plain = others.reduce((t, name) => t.split(name).join(" "), text);
    const you = state.seat !== null && YOU.test(plain);
    say(text.startsWith("-- ") ? "turn" : you ? "you" : "event", text);
  }
}
const send = (message) => {
  if (["join_game", "watch", "rejoin"].includes(message.type)) state.asked = message;
  state.conn.send(message);
};

// --- messages -------------------------------------------------------------------------------
function onMessage(msg) {
  if (msg.game !== undefined && msg.game !== null && state.game && msg.game !== state.game && msg.type !== "game_created") return;
  switch (msg.type) {
    case "welcome":
      break;
    case "game_list":
      state.lobbyGames = msg.games;
      break;
    case "game_found":
      state.found = msg;
      break;
    case "game_created":
      state.making = false;
      state.game = msg.game;
      state.invite = msg.invite;
      state.seedHash = msg.seed_hash;
      // A private game's creator names its code too (the server seats its creator by the id
      // alone, but the code is what any other seat takes).
      send({ type: "join_game", game: msg.game, ...(msg.invite ? { invite: msg.invite } : {}), name: myName() });
      break;
    case "joined":
      state.game = msg.game;
      state.seat = msg.seat;
      state.token = msg.token;
      state.spectator = msg.seat === null;
      state.host = msg.host;
      if (msg.seed_hash) state.seedHash = msg.seed_hash;
      state.refusal = null;
      // The invite code, if the game is private: the server tells a seat; a spectator has
      // it from the game made here, the link followed, or the seat this browser kept.
      state.invite =
        msg.invite ?? state.invite ?? wantedInvite() ?? savedSeats()[msg.game]?.invite ?? null;
      if (msg.token) {
        saveSeat(msg.game, msg.seat, msg.token, state.invite);
        history.replaceState(null, "", `#play=${msg.game}`);
      } else {
        history.replaceState(null, "", `#watch=${msg.game}`);
      }
      state.status = "";
      break;
    case "players":
      state.players = [...msg.players].sort((a, b) => a.seat - b.seat);
      if (msg.started) state.started = true;
      break;
    case "view":
      state.views.set(num(msg.view.state_id), msg.view);
      if (state.over && state.view && num(msg.view.state_id) < state.view.stateId) break; // a replay's
      state.view = liveView(msg.view);
      if (state.prompt && num(state.prompt.state_id) !== state.view.stateId) state.prompt = null;
      if (state.view.stateId > 0) state.started = true;
      break;
    case "history":
      onHistory(msg);
      break;
    case "events": {
      state.started = true;
      const sid = num(msg.state_id);
      if (msg.view) {
        state.view = liveView(msg.view);
        state.views.set(sid, msg.view);
      }
      if (state.prompt && num(state.prompt.state_id) !== sid) state.prompt = null;
      if (state.sentFor !== null && sid > state.sentFor) state.sentFor = null; // it was applied
      state.clock.clear();
      state.batches.set(sid, msg.events);
      if (sid > state.told) {
        tell(msg.events);
        state.told = sid;
      }
      break;
    }
    case "prompt":
      if (msg.seat === state.seat) {
        state.started = true;
        state.prompt = msg;
        state.promptAt = performance.now();
        state.sentFor = null;
        if (msg.view) state.view = liveView(msg.view);
        const kinds = new Set(msg.actions.map((a) => a.kind));
        const only = kinds.size === 1 ? [...kinds][0] : null;
        state.picking = only && PLACEMENTS[only] ? only : state.picking && kinds.has(state.picking) ? state.picking : null;
        if (state.dialog && !dialogStillFits(kinds)) state.dialog = null;
      }
      break;
    case "clock": {
      state.started = true;
      const now = performance.now();
      state.clock = new Map(msg.seats.map((c) => [c.seat, now + c.left * 1000]));
      break;
    }
    case "chat_message":
      sayChat(msg);
      break;
    case "game_over": {
      const again = state.over !== null;
      state.over = msg;
      state.prompt = null;
      state.picking = null;
      state.dialog = null;
      if (state.view) {
        state.view.winner = msg.winner;
        state.view.finalPoints = [...msg.points];
        state.view.phase = "game_over";
        state.view.toAct = [];
      }
      if (!again) {
        const winner = msg.winner === null ? "nobody" : nameOf(msg.winner);
        say("turn", `Game over: ${winner} won. The seed was ${String(msg.seed)}.`);
      }
      break;
    }
    case "error":
      onError(msg);
      break;
    default:
      break; // a message this page does not know: ignored, as the protocol asks
  }
  render();
}

function onHistory(msg) {
  // The view came first; the history tells what led to it. After a lost connection it
  // tells again what the log already has: only the rest is told.
  const chat = state.heardChat ? msg.chat.filter((c) => num(c.state_id) > state.told) : msg.chat;
  state.heardChat = true;
  state.pendingChat.push(...chat);
  const chatBefore = (sid) => {
    const said = state.pendingChat.filter((c) => sid === null || num(c.state_id) < sid);
    state.pendingChat = state.pendingChat.filter((c) => !said.includes(c));
    for (const c of said) sayChat(c);
  };
  for (const batch of msg.batches) {
    const sid = num(batch.state_id);
    state.batches.set(sid, batch.events);
    if (sid <= state.told) continue;
    chatBefore(sid);
    tell(batch.events);
    state.told = sid;
  }
  if (!msg.more) chatBefore(null);
}

function onError(msg) {
  const game = msg.game ?? state.game;
  if (msg.code === "moved" && msg.detail && game) {
    location.assign(movedTo(msg.detail, game));
    return;
  }
  if (msg.code === "unknown_game" && msg.detail === "moving") {
    state.status = "The game is moving to another server process; asking again in a moment…";
    const again = state.asked;
    setTimeout(() => (again && !state.view ? send(again) : onOpen()), 1000);
    render();
    return;
  }
  state.making = false;
  if (msg.code === "invite_required" || msg.code === "name_taken") {
    // No seat: told in the join form, in the page's words (what to do next beside it).
    state.refusal = { code: msg.code, game: msg.game ?? state.asked?.game ?? null, name: state.asked?.name ?? myName() };
    state.status = "";
    say("error", `Refused: ${msg.message}`);
    return;
  }
  if ((msg.code === "bad_token" || msg.code === "unknown_game") && !state.view) {
    if (game) forgetSeat(game);
    state.game = null;
    state.token = null;
    state.seat = null;
    state.spectator = false;
    state.want = null;
    history.replaceState(null, "", location.pathname + location.search);
    send({ type: "list_games", limit: 50 });
  }
  if (msg.code === "stale_state") {
    state.sentFor = null;
    return; // a newer prompt is on its way
  }
  if (msg.code === "illegal_action") state.sentFor = null;
  state.status = msg.message.charAt(0).toUpperCase() + msg.message.slice(1);
  say("error", `Refused: ${msg.message}`);
}

/** The page of the server process at ``wsUrl`` (the ``moved`` answer's detail), asking there
 * what was asked here: the seat (under the name given), the seat held, the seat an invite
 * code offers, or a watch. */
function movedTo(wsUrl, game) {
  const there = new URL(wsUrl);
  there.protocol = there.protocol === "wss:" ? "https:" : "http:";
  if (!there.pathname.endsWith("/")) there.pathname += "/";
  there.search = "";
  const asked = state.asked;
  const params = new URLSearchParams();
  if (asked?.type === "join_game") {
    if (asked.invite) {
      params.set("invite", asked.invite);
      params.set("game", game);
    } else params.set("join", game);
    params.set("as", asked.name);
  } else if (asked?.type === "rejoin" || state.token) params.set("play", game);
  else if (state.want?.kind === "invite") {
    params.set("invite", state.want.value); // asked only what the code opens: offered there
    params.set("game", game);
  } else params.set("watch", game);
  there.hash = params.toString();
  return there.href;
}

function dialogStillFits(kinds) {
  const d = state.dialog;
  if (!d) return false;
  if (d.kind === "offer") return kinds.has("end_turn");
  if (d.kind === "counter") return kinds.has("decline_trade");
  return kinds.has(d.kind);
}

// --- connecting and the first request ----------------------------------------------------------
function onOpen() {
  state.status = "";
  if (state.game && state.token) {
    send({ type: "rejoin", game: state.game, token: state.token, history: true });
    return;
  }
  if (state.game && state.spectator) {
    send({ type: "watch", game: state.game, history: true });
    return;
  }
  const want = state.want;
  if (!want || (want.kind === "join" && !want.as)) {
    // The lobby's games; a public game's link learns from them whether it has a seat left.
    send({ type: "list_games", limit: 50 });
    if (!want) return;
  }
  if (want.kind === "invite" && !want.as) send({ type: "find_game", invite: want.value }); // ...a private one's, so
  if (want.kind === "play") {
    const saved = savedSeats()[want.value];
    if (saved) {
      state.game = want.value;
      state.token = saved.token;
      state.seat = saved.seat;
      send({ type: "rejoin", game: want.value, token: saved.token, history: true });
    } else {
      send({ type: "watch", game: want.value, history: true });
    }
  } else if (want.kind === "watch") {
    state.spectator = true;
    send({ type: "watch", game: want.value, history: true });
  } else if ((want.kind === "join" || want.kind === "invite") && want.as) {
    localStorage.setItem(NAME_KEY, want.as);
    send(joinRequest(want, want.as));
  }
}

function onLost(wasOpen) {
  state.status = wasOpen
    ? "The connection to the server was lost; trying again…"
    : "The server cannot be reached; trying again…";
  render();
}

// --- actions -------------------------------------------------------------------------------
function act(action) {
  if (!state.prompt) return;
  state.sentFor = num(state.prompt.state_id);
  state.picking = null;
  state.dialog = null;
  state.status = "";
  send({ type: "act", game: state.game, state_id: state.prompt.state_id, action });
  render();
}
const myName = () => (localStorage.getItem(NAME_KEY) || "").trim() || "guest";

function spotOf(a) {
  return a.vertex ?? a.edge ?? a.hex;
}

function choices() {
  const p = state.prompt;
  const v = state.view;
  if (!p || !v || state.sentFor !== null || state.over) return [];
  const byKind = new Map();
  for (const a of p.actions) {
    if (!byKind.has(a.kind)) byKind.set(a.kind, []);
    byKind.get(a.kind).push(a);
  }
  if (byKind.has("end_turn")) byKind.set("offer_trade", []);
  if (byKind.has("decline_trade")) byKind.set("counter_trade", []);
  const out = [];
  for (const kind of KIND_ORDER) {
    const acts = byKind.get(kind);
    if (!acts) continue;
    out.push(...choicesFor(kind, acts));
  }
  return out;
}

function choicesFor(kind, acts) {
  const v = state.view;
  const c = (label, run) => ({ label, run, kind });
  if (PLACEMENTS[kind]) {
    let [what, label] = PLACEMENTS[kind];
    if (kind === "build_road" && v.phase === "road_building") label = "Build a free road";
    const spots = new Set(acts.map(spotOf)).size;
    const count = what === "hex" ? `${spots} ${spots === 1 ? "hex" : "hexes"}` : plural(spots, "place");
    return [c(`${label} (${count})…`, () => { state.picking = kind; state.dialog = null; render(); focusFirstSpot(); })];
  }
  const once = (label) => [c(label, () => act(acts[0]))];
  switch (kind) {
    case "roll_dice": return once("Roll the dice");
    case "play_knight": return once("Play a knight (move the robber)");
    case "buy_dev_card": return once("Buy a development card");
    case "play_road_building": return once("Play road building");
    case "play_year_of_plenty": return [c("Play year of plenty…", () => openDialog({ kind, acts }))];
    case "play_monopoly": return [c("Play monopoly…", () => openDialog({ kind, acts }))];
    case "discard": {
      const owed = v.seats[state.seat]?.discards_owed ?? 0;
      if (!owed) return [];
      return [c(`Discard ${plural(owed, "card")}…`, () => openDialog({ kind, acts, owed, cards: {} }))];
    }
    case "maritime_trade": return [c("Trade with the bank…", () => openDialog({ kind, acts }))];
    case "offer_trade": return [c("Offer a trade to the players…", () => openDialog({ kind: "offer", give: {}, get: {}, to: new Set(otherSeats()) }))];
    case "accept_trade": {
      const t = v.trade;
      return once(t ? `Accept the offer: give ${cardsText(t.get)}, get ${cardsText(t.give)}` : "Accept the offer");
    }
    case "decline_trade": return once("Decline the offer");
    case "counter_trade": return [c("Counter-offer…", () => openDialog({ kind: "counter", give: {}, get: {} }))];
    case "confirm_trade":
      return acts.map((a) => c(confirmLabel(a), () => act(a)));
    case "cancel_trade": return once("Cancel your offer");
    case "end_turn": return once("End the turn");
    default: return once(kind.replaceAll("_", " "));
  }
}

function confirmLabel(a) {
  const t = state.view.trade;
  const who = names()[a.partner];
  if (!t) return `Trade with ${who}`;
  let give = t.give;
  let get = t.get;
  const counter = t.counters[a.partner];
  if (t.answers[a.partner] === "countered" && counter) [give, get] = [counter.get, counter.give];
  return `Trade with ${who}: give ${cardsText(give)}, get ${cardsText(get)}`;
}

const otherSeats = () => [...Array(state.view.players).keys()].filter((q) => q !== state.seat);

function openDialog(d) {
  state.dialog = d;
  state.picking = null;
  render();
  const first = document.querySelector("#dialog button, #dialog input");
  first?.focus();
}

function focusFirstSpot() {
  document.querySelector("#board .spot")?.focus();
}

function chooseSpot(id) {
  const kind = state.picking;
  const acts = state.prompt.actions.filter((a) => a.kind === kind && spotOf(a) === id);
  if (!acts.length) return;
  if (kind === "move_robber" && acts.length > 1) {
    openDialog({ kind: "victim", acts });
    return;
  }
  act(acts[0]);
}

// --- rendering --------------------------------------------------------------------------------
// What had the keyboard's focus, found again after the page is drawn anew.
function focusKey() {
  const a = document.activeElement;
  if (!a || a === document.body) return null;
  return a.id ? `#${CSS.escape(a.id)}` : null;
}

// --- the replay of the finished game, from the events this page was told ------------------
function replayable() {
  const final = state.view?.stateId ?? 0;
  if (!final || state.batches.size !== final) return false;
  for (let sid = 1; sid <= final; sid++) if (!state.batches.has(sid)) return false;
  return true;
}

// The view at a step is the server's: kept from the events that brought it, or asked for.
function replayView(step) {
  const kept = state.views.get(step);
  return kept ? liveView(kept) : null;
}

function replayTo(step) {
  state.replay = { step: Math.max(0, Math.min(state.view.stateId, step)) };
  if (!state.views.has(state.replay.step)) {
    state.conn.send({ type: "view_at", game: state.game, state_id: state.replay.step });
  }
  render();
}

function replayPanel(v) {
  const step = state.replay.step;
  const last = state.batches.size;
  const n = narrator();
  const said = step ? n.batch(state.batches.get(step)) : ["The island before the first settlement."];
  const button = (id, label, to, off) => h("button", { id, onclick: () => replayTo(to), disabled: off }, label);
  return h("section", { class: "card", id: "replay" },
    h("h2", {}, `Replay: action ${step} of ${last}`),
    h("p", { class: "small" }, `Turn ${v.turn}`),
    h("ul", { id: "replay-said" }, said.map((t) => h("li", {}, t))),
    h("div", { class: "row" },
      button("replay-start", "« Start", 0, step === 0), " ",
      button("replay-back", "◀ Back", step - 1, step === 0), " ",
      button("replay-forward", "Forward ▶", step + 1, step === last), " ",
      button("replay-end", "End »", last, step === last), " ",
      h("button", { id: "replay-close", onclick: () => { state.replay = null; render(); } }, "Close")),
    h("p", { class: "small" }, "The arrow keys step too."));
}

function render() {
  const shown = state.replay && state.view ? replayView(state.replay.step) : null;
  if (shown) {
    const live = state.view;
    state.view = shown;
    try {
      draw();
    } finally {
      state.view = live;
    }
    return;
  }
  draw();
}

function draw() {
  const app = $("app");
  const focused = focusKey();
  const chat = $("chat-text")?.value ?? "";
  const inGame = state.game && (state.view || state.players.length);
  app.replaceChildren(inGame ? gameScreen() : lobbyScreen());
  app.dataset.state = state.view ? String(state.view.stateId) : ""; // the state drawn
  $("status").textContent = state.status;
  $("status").hidden = !state.status;
  if (inGame && state.view) {
    const spots = spotsToShow();
    drawBoard($("board"), state.view, spots, new PlaceNames(state.view.board));
  }
  const log = $("log");
  if (log) log.scrollTop = log.scrollHeight;
  fitBar();
  if ($("chat-text")) $("chat-text").value = chat;
  const again = focused ? document.querySelector(focused) : null;
  if (again) again.focus({ preventScroll: true });
  else if (focused) state.refocus = true; // what had the focus is gone (a spot chosen, a dialog sent)
  if (!again && state.refocus && state.prompt && state.sentFor === null) {
    // ...so the next thing to do has it, once there is one: Enter goes on from a click.
    const next = document.querySelector("#dialog button, #board .spot, #actions button");
    if (next) {
      next.focus({ preventScroll: true });
      state.refocus = false;
    }
  }
}

function spotsToShow() {
  if (!state.picking || !state.prompt || state.sentFor !== null) return null;
  const kind = state.picking;
  const [what, label] = PLACEMENTS[kind];
  const acts = state.prompt.actions.filter((a) => a.kind === kind);
  const places = new PlaceNames(state.view.board);
  const name = (id) => (what === "vertex" ? places.vertex(id) : what === "edge" ? places.edge(id) : places.hex(id));
  return { kind: what, ids: new Set(acts.map(spotOf)), label: (id) => `${label}: ${name(id)}`, choose: chooseSpot };
}

// The lobby: a name, a new game, the public games, and the seats kept in this browser.
function lobbyScreen() {
  const want = state.want;
  const nameInput = h("input", {
    id: "name", maxlength: 32, value: myName() === "guest" ? "" : myName(), placeholder: "your name",
    autocomplete: "nickname",
    oninput: (e) => localStorage.setItem(NAME_KEY, e.target.value),
  });
  const section = [h("h1", {}, "Hexhaven"), h("label", { for: "name" }, "Your name "), nameInput];
  const refused = state.refusal;
  if (want && (want.kind === "invite" || want.kind === "join")) {
    const game = want.kind === "join" ? want.value : want.game ?? state.found?.game ?? refused?.game;
    const private_ = refused?.code === "invite_required";
    // The game says whether a seat is left before anyone asks: a public one in the lobby's
    // list, one of an invite code in the server's answer to find_game.
    const listed = want.kind === "join" ? state.lobbyGames.find((g) => g.game === game) : state.found?.summary;
    const closed = listed?.started ? "started" : listed && listed.seated >= listed.players ? "full" : null;
    const heading = private_ ? "This game is private"
      : closed === "started" ? "This game has started"
      : closed === "full" ? "This game is full" : "You are invited to a game";
    const note = refused ? refusalNote(refused)
      : closed === "started" ? h("p", { id: "no-seat" }, "It is under way, so its seats are taken: you can watch it.")
      : closed === "full" ? h("p", { id: "no-seat" }, "Every seat is taken: you can watch it.")
      : h("p", {}, "Take a seat at the table: type your name above and sit down.");
    section.push(
      h("section", { class: "card", id: "seat-offer" },
        h("h2", {}, heading),
        note,
        private_ || closed ? null : h("button", { id: "take-seat", onclick: takeSeat }, "Take a seat"),
        " ",
        game ? h("button", { id: "watch-instead", onclick: () => watch(game) }, "Watch instead") : null,
      ),
    );
    return h("main", { class: "lobby" }, section);
  }
  if (refused) section.push(h("div", { class: "card" }, refusalNote(refused)));
  section.push(createForm());
  const mine = Object.entries(savedSeats());
  if (mine.length) {
    section.push(
      h("section", { class: "card" }, h("h2", {}, "Your seats"),
        h("ul", {}, mine.map(([game, s]) => h("li", {}, `Game ${game}, seat ${s.seat + 1} `,
          h("button", { onclick: () => rejoin(game) }, "Back to the table"))))),
    );
  }
  section.push(
    h("section", { class: "card" },
      h("h2", {}, "Open games"),
      h("button", { onclick: () => send({ type: "list_games", limit: 50 }) }, "Refresh"),
      state.lobbyGames.length
        ? h("ul", { id: "games" }, state.lobbyGames.map((g) =>
            h("li", {},
              `${g.name || g.game}: ${g.seated}/${g.players} seated, ${g.victory_points} points, ${g.board} board${g.started ? ", under way" : ""} `,
              g.started ? null : h("button", { onclick: () => joinById(g.game) }, "Sit down"),
              " ",
              h("button", { onclick: () => watch(g.game) }, "Watch"))))
        : h("p", {}, "No public game is open."),
    ),
  );
  return h("main", { class: "lobby" }, section);
}

// What the new-game form holds between drawings of the page.
const form = {
  players: 4, bots: 3, kind: "uct", strength: "quick", points: 10, radius: 3, board: "random",
  timer: "", offerWindow: "20", private: true, spectatorChat: false,
};
const BOARD_NAMES = {
  random: "random (the official set-up)",
  spiral: "spiral (the rulebook's)",
  balanced: "balanced (a constraint model's board)",
  fair: "fair (a random set-up that scores fair)",
};
const presetOf = (board) => (board.startsWith("preset:") ? state.offered.presets.find((p) => `preset:${p.name}` === board) : null);

/** Why the server gave no seat, in a sentence that says what to do. */
function refusalNote(refused) {
  const text = refused.code === "invite_required"
    ? `${refused.game ? `Game ${refused.game}` : "This game"} is private: it seats only those who have its invite link (the one with “#invite=” in it). Ask its host for that link, or watch the game instead.`
    : `Someone at this table is already called “${refused.name}”. Choose another name above, then take a seat.`;
  return h("p", { id: "seat-refused", class: "refused", role: "alert", "data-code": refused.code }, text);
}

function createForm() {
  const field = (label, input) => h("label", {}, label, " ", input);
  const select = (id, key, options, redraw = false) =>
    h("select", { id, onchange: (e) => { form[key] = e.target.value; if (redraw) render(); } },
      options.map(([value, text]) => h("option", { value, selected: String(value) === String(form[key]) }, text)));
  const boards = [
    ...state.offered.boards.map((b) => [b, BOARD_NAMES[b] ?? b]),
    ...state.offered.presets.map((p) => [`preset:${p.name}`, `preset ${p.name} (radius ${p.radius})`]),
  ];
  const preset = presetOf(form.board);
  const strengths = state.offered.bots[form.kind] ?? [];
  const kinds = Object.keys(state.offered.bots).map((k) => [k, k === "uct" ? "uct (search)" : k]);
  return h("form", { class: "card", id: "create", onsubmit: createGame },
    h("h2", {}, "New game"),
    field("Players", select("players", "players", [[2, "2"], [3, "3"], [4, "4"]])),
    field("Bots", select("bots", "bots", [[0, "none"], [1, "1"], [2, "2"], [3, "3"]])),
    field("Bot kind", select("bot-kind", "kind", kinds, true)),
    strengths.length
      ? field("Bot strength", select("bot-strength", "strength", [["", "default"], ...strengths.map((x) => [x, x])]))
      : null,
    field("Victory points", h("input", { id: "points", type: "number", min: 3, max: 20, value: form.points, oninput: (e) => { form.points = e.target.value; } })),
    field("Board", select("board-kind", "board", boards, true)),
    preset
      ? h("span", { class: "small" }, `radius ${preset.radius}`)
      : field("Board radius", select("radius", "radius", [[3, "3 (standard)"], [4, "4"], [5, "5"]])),
    field("Turn timer", select("timer", "timer", [["", "none"], [30, "30 s"], [60, "60 s"], [120, "2 min"]])),
    field("Time to answer an offer", select("offer-window", "offerWindow", [[10, "10 s"], [20, "20 s"], [30, "30 s"], [60, "60 s"]])),
    field("Private (invite only)", h("input", { id: "private", type: "checkbox", checked: form.private, onchange: (e) => { form.private = e.target.checked; } })),
    field("Spectators may chat", h("input", { id: "spectator-chat", type: "checkbox", checked: form.spectatorChat, onchange: (e) => { form.spectatorChat = e.target.checked; } })),
    h("button", { type: "submit", id: "create-game", disabled: state.making }, "Create the game"),
    state.making
      ? h("p", { id: "making", role: "status" },
          form.board === "balanced" || form.board === "fair"
            ? `Making the game: the server is drawing a ${form.board} board, which takes it a moment…`
            : "Making the game…")
      : null,
  );
}

function createGame(event) {
  event.preventDefault();
  if (state.making) return;
  const players = Number(form.players);
  const bots = Math.min(Number(form.bots), players - 1);
  const points = Number(form.points);
  if (!(points >= 3 && points <= 20)) {
    state.status = "Victory points go from 3 to 20.";
    render();
    return;
  }
  const preset = presetOf(form.board);
  const bot = { kind: form.kind };
  if (form.strength && (state.offered.bots[form.kind] ?? []).includes(form.strength)) bot.strength = form.strength;
  const options = {
    players,
    victory_points: points,
    board: preset ? "preset" : form.board,
    radius: preset ? preset.radius : Number(form.radius),
    bots: Array.from({ length: bots }, () => ({ ...bot })),
    private: form.private,
    spectator_chat: form.spectatorChat,
  };
  if (preset) options.preset = preset.name;
  if (form.timer) options.turn_timer = Number(form.timer);
  options.offer_window = Number(form.offerWindow);
  state.making = true;
  state.status = "";
  send({ type: "create_game", options });
  render();
}

/** The invite code the link followed names, if any. */
function wantedInvite() {
  const want = state.want;
  if (!want) return null;
  return want.kind === "invite" ? want.value : want.invite ?? null;
}
/** The ``join_game`` a link asks for: by game id, by invite code, or by both. */
function joinRequest(want, name) {
  const game = want.kind === "join" ? want.value : want.game;
  const invite = want.kind === "invite" ? want.value : want.invite;
  return { type: "join_game", ...(game ? { game } : {}), ...(invite ? { invite } : {}), name };
}
function takeSeat() {
  const want = state.want;
  if (!want) return;
  state.refusal = null;
  send(joinRequest(want, myName()));
  render();
}
function joinById(game) {
  state.refusal = null;
  send({ type: "join_game", game, name: myName() });
  render();
}
function watch(game) {
  state.spectator = true;
  send({ type: "watch", game, history: true });
}
function rejoin(game) {
  const saved = savedSeats()[game];
  if (!saved) return;
  state.game = game;
  state.token = saved.token;
  state.seat = saved.seat;
  send({ type: "rejoin", game, token: saved.token, history: true });
}

// The table: the board, the players, your hand, what you may do, the log and chat. On a
// laptop it is one screen: the board on the left at full height, and a column beside it
// with whose turn it is, the clock and the dice, the moves (and the offer on the table),
// the hand beside the building costs, the players and the log. On a phone (the style
// sheet's narrow layout) the board is on top, the moves sit in a bar fixed at the bottom of
// the screen, and the other panels open one at a time from a row of tabs.
let phoneTab = null; // the panel a phone shows (null: the default, the hand when seated)

function gameScreen() {
  const v = state.view;
  const header = h("header", { class: "bar top" },
    h("div", { class: "title-row" },
      h("h1", { class: "game-title" }, `Game ${state.game}`),
      state.spectator ? h("span", { class: "tag" }, "watching") : state.seat !== null ? h("span", {}, " you are ", seatBadge(state.seat), ` ${names()[state.seat] ?? ""}`) : null,
      v && state.started ? null : h("span", {}, " · waiting for the start")),
    v && state.started ? turnRow(v) : null,
    v && state.started ? seatStrip(v) : null,
  );
  const boardBox = h("div", { class: "board-box" }, dialogPanel());
  const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
  svg.id = "board";
  boardBox.append(svg);
  const logPanel = h("section", { class: "card log-card", id: "panel-log" },
    h("h2", {}, "Log"),
    h("ol", { id: "log", "aria-live": "polite", "aria-label": "Game log", tabindex: "0" }, state.log.slice(-300).map(logLine)),
    h("form", { id: "chat", onsubmit: sendChat },
      h("label", { for: "chat-text", class: "hidden" }, "Say"),
      h("input", { id: "chat-text", maxlength: 500, placeholder: "say something to the table", autocomplete: "off" }),
      h("button", { type: "submit" }, "Say")),
  );
  const seated = state.seat !== null && v?.hand;
  const panels = [
    ["hand", "Hand", seated ? handPanel() : null],
    ["costs", "Costs", costsPanel(seated ? v.hand : null)],
    ["players", "Players", playersPanel()],
    ["log", "Log", logPanel],
  ].filter(([, , panel]) => panel);
  const open = panels.some(([key]) => key === phoneTab) ? phoneTab : panels[0][0];
  for (const [key, , panel] of panels) {
    panel.classList.add("panel");
    if (key !== open) panel.classList.add("shut");
  }
  const tabs = h("nav", { class: "tabs", "aria-label": "Panels" }, panels.map(([key, label, panel]) =>
    h("button", { type: "button", "aria-controls": panel.id, "aria-expanded": key === open ? "true" : "false",
      onclick: () => { phoneTab = key; render(); } }, label)));
  const side = h("aside", { class: "side" },
    !state.started ? waitingRoom() : null,
    state.replay ? replayPanel(v) : null,
    state.over ? gameOverPanel() : null,
    actionsPanel(),
    tabs,
    h("div", { class: "hand-row" }, panels.filter(([key]) => key === "hand" || key === "costs").map(([, , p]) => p)),
    panels.filter(([key]) => key === "players" || key === "log").map(([, , p]) => p),
  );
  return h("main", { class: "game play" }, h("div", { class: "table" }, header, boardBox, side));
}

/** Leaves room under the page for the phone's bar of moves (fixed at the bottom of the
 * screen), so that nothing on the page stays hidden under it. */
function fitBar() {
  const bar = $("actions");
  const fixed = bar && getComputedStyle(bar).position === "fixed";
  document.documentElement.style.setProperty("--bar", `${fixed ? bar.offsetHeight : 0}px`);
}
window.addEventListener("resize", () => fitBar());

/** Whose turn it is and what they are doing, the seconds left on their clock, and the last
 * roll drawn as two dice. */
function turnRow(v) {
  const left = v.phase === "game_over" ? null : secondsLeft(v.current);
  return h("div", { class: "turn-row", id: "turn" },
    h("span", { class: "turn-no" }, `Turn ${v.turn}`),
    h("span", { class: "whose", id: "whose" }, v.phase === "game_over" ? null : seatBadge(v.current), " ", phaseText(v)),
    left !== null ? h("span", { class: "timer clock", "data-timer": v.current }, `${Math.ceil(left)} s left`) : null,
    v.dice ? diceFaces(v.dice) : h("span", { class: "small", id: "dice" }, "no roll yet"));
}

// Where a die's pips lie on a 3×3 grid (0–8, row by row), for 1 to 6.
const PIPS = { 1: [4], 2: [0, 8], 3: [0, 4, 8], 4: [0, 2, 6, 8], 5: [0, 2, 4, 6, 8], 6: [0, 2, 3, 5, 6, 8] };

/** The last roll as two die faces with their pips (inline SVG). */
function diceFaces([a, b]) {
  const NS = "http://www.w3.org/2000/svg";
  const el = (tag, attrs) => {
    const node = document.createElementNS(NS, tag);
    for (const [k, val] of Object.entries(attrs)) node.setAttribute(k, String(val));
    return node;
  };
  const svg = el("svg", { id: "dice", class: "dice", viewBox: "0 0 62 28", role: "img", "aria-label": `rolled ${a} and ${b}: ${a + b}` });
  [a, b].forEach((n, i) => {
    const x = i * 34 + 1;
    svg.append(el("rect", { class: "die", x, y: 1, width: 26, height: 26, rx: 5, "data-pips": n }));
    for (const p of PIPS[n] ?? []) {
      svg.append(el("circle", { class: `die-pip${a + b === 7 ? " seven" : ""}`, cx: x + 6 + (p % 3) * 7, cy: 7 + Math.floor(p / 3) * 7, r: 2.6 }));
    }
  });
  return h("span", { class: "dice-box", title: `dice ${a} + ${b} = ${a + b}` }, svg, h("strong", { class: "dice-sum" }, String(a + b)));
}

/** Every seat in one line: its mark, points, cards and clock (on a phone, where the
 * players' panel is folded away). */
function seatStrip(v) {
  return h("ul", { class: "strip", "aria-label": "Seats" }, names().map((name, q) => {
    const s = v.seats[q];
    const left = secondsLeft(q);
    const points = q === state.seat && v.ownPoints !== null ? v.ownPoints : s?.points ?? 0;
    return h("li", { class: `chip${v.current === q ? " current" : ""}`, "data-seat": q },
      seatBadge(q), " ", h("bdi", { class: "chip-name" }, name), ` ${points} pt · ${s?.resource_cards ?? 0} cards`,
      left !== null ? h("span", { class: "timer", "data-timer": q }, `${Math.ceil(left)} s left`) : null);
  }));
}

// What each thing costs (the rules card), in the order a turn builds them.
const COSTS = [
  ["road", { brick: 1, lumber: 1 }],
  ["settlement", { brick: 1, lumber: 1, wool: 1, grain: 1 }],
  ["city", { grain: 2, ore: 3 }],
  ["development card", { wool: 1, grain: 1, ore: 1 }],
];
const affords = (hand, cost) => Object.entries(cost).every(([r, n]) => (hand[r] ?? 0) >= n);

/** The building costs, each marked when ``hand`` (null: a spectator's) covers it. */
function costsPanel(hand) {
  return h("section", { class: "card", id: "costs" },
    h("h2", {}, "Building costs"),
    h("ul", { class: "costs" }, COSTS.map(([what, cost]) => {
      const can = hand ? affords(hand, cost) : false;
      return h("li", { class: can ? "can" : "", "data-cost": what },
        h("span", { class: "cost-name" }, what),
        h("span", { class: "cost-cards" }, Object.entries(cost).map(([r, n]) => h("span", { class: `res ${r}` }, `${n > 1 ? `${n} ` : ""}${r}`))),
        hand ? h("span", { class: "cost-can", title: can ? "your hand covers it" : null }, can ? "✓" : "") : null);
    })));
}

/** A line of the log; a chat line with who said it (:func:`speaker`), the viewer's own
 * marked by its seat. */
function logLine(l) {
  if (l.kind !== "chat") return h("li", { class: l.kind }, l.text);
  const mine = l.seat !== null && l.seat === state.seat;
  return h("li", { class: mine ? "chat mine" : "chat", "data-seat": l.seat ?? "spectator", "data-mine": mine ? "true" : null },
    speaker(l.seat, l.name), h("span", { class: "said" }, `: ${l.text}`));
}

function phaseText(v) {
  if (v.phase === "game_over") return "game over";
  const who = nameOf(v.current);
  switch (v.phase) {
    case "setup_settlement": return `${who} ${who === "you" ? "place" : "places"} a settlement`;
    case "setup_road": return `${who} ${who === "you" ? "place" : "places"} a road`;
    case "pre_roll": return `${who} to roll`;
    case "discard": return "discarding after a seven";
    case "move_robber": return `${who} ${who === "you" ? "move" : "moves"} the robber`;
    case "trade": return "a trade is on offer";
    case "road_building": return `${who} ${who === "you" ? "build" : "builds"} free roads`;
    default: return `${who} ${who === "you" ? "are" : "is"} on turn`;
  }
}

function waitingRoom() {
  const link = inviteLink(state.game, state.invite);
  return h("section", { class: "card", id: "waiting" },
    h("h2", {}, "Waiting for players"),
    state.host
      ? h("p", {}, state.invite ? "This game is private: send your friends this invite link to sit down: " : "Send your friends this link to sit down: ",
          h("input", { id: "invite-link", readonly: true, value: link, "aria-label": "Invite link", onfocus: (e) => e.target.select() }),
          " ", h("button", { onclick: () => navigator.clipboard?.writeText(link) }, "Copy"))
      : h("p", {}, "The host starts the game."),
    h("p", {}, "Spectators watch with ", h("a", { href: watchLink(state.game), id: "watch-link" }, "this link"), "."),
    state.host ? h("button", { id: "start", onclick: () => send({ type: "start_game", game: state.game }) }, "Start the game") : null,
  );
}

function secondsLeft(seat) {
  if (seat === state.seat && state.prompt?.deadline) {
    return Math.max(0, state.prompt.deadline - (performance.now() - state.promptAt) / 1000);
  }
  const until = state.clock.get(seat);
  return until === undefined ? null : Math.max(0, (until - performance.now()) / 1000);
}

function playersPanel() {
  const v = state.view;
  const rows = names().map((name, q) => {
    const info = state.players.find((p) => p.seat === q);
    const s = v?.seats[q];
    const tags = [];
    if (info?.bot) tags.push("bot");
    if (info?.away) tags.push("away");
    if (info && !info.connected && !info.bot) tags.push("disconnected");
    const left = secondsLeft(q);
    return h("li", { class: `player${v && v.current === q ? " current" : ""}${info ? "" : " empty"}`, "data-seat": q },
      info ? speaker(q, name) : h("span", {}, seatBadge(q), " ", h("em", { class: "tag" }, "empty seat")), tags.length ? h("span", { class: "tag" }, ` ${tags.join(", ")}`) : null,
      s ? h("div", { class: "counts" },
        `${plural(q === state.seat && v.ownPoints !== null ? v.ownPoints : s.points, "point")} · ${plural(s.resource_cards, "card")} · ${s.development_cards} development · ${plural(s.knights, "knight")} · road ${s.longest_road}`,
        s.has_longest_road ? " · longest road" : "", s.has_largest_army ? " · largest army" : "",
        s.discards_owed ? ` · owes ${s.discards_owed}` : "") : null,
      left !== null ? h("div", { class: "timer", "data-timer": q }, `${Math.ceil(left)} s left`) : null,
    );
  });
  return h("section", { class: "card", id: "panel-players" }, h("h2", {}, "Players"), h("ul", { class: "players" }, rows),
    v ? h("p", { class: "small" }, `Bank: ${cardsText(v.bank)} · ${v.deck} development cards left · first to ${v.victoryPoints} points`) : null);
}

function handPanel() {
  const v = state.view;
  const dev = v.development ?? {};
  const fresh = v.developmentNew ?? {};
  const held = DEV_CARDS.filter((k) => dev[k]).map((k) => `${dev[k]} ${k.replaceAll("_", " ")}${fresh[k] ? ` (${fresh[k]} new)` : ""}`);
  const afford = COSTS.filter(([, cost]) => affords(v.hand, cost)).map(([what]) => what);
  return h("section", { class: "card", id: "hand" },
    h("h2", {}, "Your hand"),
    h("ul", { class: "cards" }, RESOURCES.map((r) => h("li", { class: `res ${r}` }, h("span", { class: "n" }, String(v.hand[r])), ` ${r}`))),
    h("p", { id: "afford" }, afford.length ? `You can afford: ${afford.join(", ")}` : "You can afford nothing yet"),
    h("p", {}, `Development cards: ${held.length ? held.join(", ") : "none"}`),
    v.ratios ? h("p", { class: "small" }, `Bank ratios: ${RESOURCES.map((r) => `${r} ${v.ratios[r]}:1`).join(", ")}`) : null,
  );
}

function actionsPanel() {
  if (state.over || state.seat === null || !state.started) return null;
  const list = choices();
  let note = "";
  if (state.sentFor !== null) note = "Sent; waiting for the server…";
  else if (!state.prompt) note = state.started ? `Waiting for ${state.view ? nameOf(state.view.current) : "the others"}…` : "";
  const picking = state.picking && state.prompt && state.sentFor === null
    ? h("p", { class: "picking" }, `${PLACEMENTS[state.picking][1]}: choose a highlighted spot on the board (Tab moves between them, Enter chooses). `,
        list.length > 1 ? h("button", { onclick: () => { state.picking = null; render(); } }, "Back") : null)
    : null;
  const tradeNote = state.view?.trade ? h("p", { class: "small", id: "trade" }, tradeText(state.view.trade), offerClock()) : null;
  return h("section", { class: "card", id: "actions" }, h("h2", {}, "Your move"), tradeNote, picking,
    note ? h("p", {}, note) : null,
    h("div", { class: "buttons" }, list.map((c, i) => h("button", { id: `act-${c.kind}-${i}`, "data-kind": c.kind, onclick: c.run }, c.label))));
}

function tradeText(t) {
  const answers = t.answers.flatMap((a, q) => (a === "not_asked" || q === t.offerer ? [] : [`${nameOf(q)}: ${a}`]));
  const offer = `${nameOf(t.offerer)} ${t.offerer === state.seat ? "offer" : "offers"} ${cardsText(t.give)} for ${cardsText(t.get)}.`;
  const kinds = new Set((state.prompt?.actions ?? []).map((a) => a.kind));
  const cannot = t.answers[state.seat] === "pending" && kinds.has("decline_trade") && !kinds.has("accept_trade");
  return [
    offer,
    answers.length ? `${answers.join(", ")}.` : "",
    cannot ? `You cannot accept it: you do not hold ${cardsText(t.get)}.` : "",
  ].filter(Boolean).join(" ");
}

/** The seconds left before the open offer closes (its asked seats' clock), or null. */
function offerLeft() {
  const t = state.view?.trade;
  if (!t) return null;
  const lefts = t.answers.flatMap((a, q) => (a === "pending" ? [secondsLeft(q)] : [])).filter((x) => x !== null);
  return lefts.length ? Math.max(...lefts) : null;
}

function offerClock() {
  const left = offerLeft();
  return left === null ? null : h("span", { "data-offer-timer": "" }, ` Closes in ${Math.ceil(left)} s.`);
}

function stepper(which, side, r, max, onChange) {
  const value = side[r] ?? 0;
  const change = (d) => () => {
    const next = Math.max(0, Math.min(max, value + d));
    side[r] = next;
    onChange();
  };
  return h("div", { class: "stepper" },
    h("span", { class: "res-name" }, r),
    h("button", { type: "button", id: `${which}-${r}-less`, "aria-label": `one ${r} less (${which})`, onclick: change(-1), disabled: value <= 0 }, "−"),
    h("output", { "data-res": r }, String(value)),
    h("button", { type: "button", id: `${which}-${r}-more`, "aria-label": `one ${r} more (${which})`, onclick: change(1), disabled: value >= max }, "+"));
}

function swapProblem(give, get) {
  if (!total(give) || !total(get)) return "Choose cards to give and cards to get.";
  if (RESOURCES.some((r) => give[r] && get[r])) return "A resource cannot be on both sides.";
  return null;
}

function dialogPanel() {
  const d = state.dialog;
  if (!d || !state.prompt || state.sentFor !== null) return null;
  const v = state.view;
  const hand = v.hand ?? {};
  const close = h("button", { type: "button", onclick: () => { state.dialog = null; render(); } }, "Cancel");
  const rerender = () => render();
  let body;
  switch (d.kind) {
    case "discard": {
      const chosen = total(d.cards);
      body = [h("h2", {}, `Discard ${plural(d.owed, "card")}`),
        RESOURCES.map((r) => stepper("discard", d.cards, r, hand[r] ?? 0, rerender)),
        h("p", {}, `${chosen} of ${d.owed} chosen`),
        h("button", { type: "button", id: "send-discard", disabled: chosen !== d.owed, onclick: () => act({ kind: "discard", cards: { ...d.cards } }) }, "Discard"), " ", close];
      break;
    }
    case "victim":
      body = [h("h2", {}, "Whom to rob?"), h("div", { class: "buttons" }, d.acts.map((a) =>
        h("button", { type: "button", onclick: () => act(a) }, a.victim === null ? "Rob nobody" : `Rob ${names()[a.victim]} (${plural(v.seats[a.victim].resource_cards, "card")})`))), close];
      break;
    case "play_year_of_plenty":
      body = [h("h2", {}, "Year of plenty: two cards from the bank"), h("div", { class: "buttons" }, d.acts.map((a) =>
        h("button", { type: "button", onclick: () => act(a) }, cardsText(a.cards)))), close];
      break;
    case "play_monopoly":
      body = [h("h2", {}, "Monopoly: which resource?"), h("div", { class: "buttons" }, d.acts.map((a) =>
        h("button", { type: "button", onclick: () => act(a) }, `All the ${a.resource} of the others`))), close];
      break;
    case "maritime_trade":
      body = [h("h2", {}, "Trade with the bank"), h("div", { class: "buttons" }, d.acts.map((a) =>
        h("button", { type: "button", onclick: () => act(a) }, `Give ${a.ratio} ${a.give}, get 1 ${a.get}`))), close];
      break;
    case "offer":
    case "counter": {
      const problem = swapProblem(d.give, d.get);
      const recipients = d.kind === "offer"
        ? h("fieldset", {}, h("legend", {}, "Ask"), otherSeats().map((q) =>
            h("label", {}, h("input", { type: "checkbox", id: `ask-${q}`, checked: d.to.has(q), onchange: (e) => { if (e.target.checked) d.to.add(q); else d.to.delete(q); render(); } }), " ", seatBadge(q), ` ${names()[q]} `)))
        : null;
      const noOne = d.kind === "offer" && d.to.size === 0;
      const send_ = () => {
        if (d.kind === "offer") {
          const everyone = d.to.size === otherSeats().length;
          act({ kind: "offer_trade", give: { ...d.give }, get: { ...d.get }, to: everyone ? null : [...d.to].sort() });
        } else act({ kind: "counter_trade", give: { ...d.give }, get: { ...d.get } });
      };
      body = [h("h2", {}, d.kind === "offer" ? "Offer a trade" : "Counter-offer"),
        h("div", { class: "sides" },
          h("div", {}, h("h3", {}, "You give"), RESOURCES.map((r) => stepper("give", d.give, r, hand[r] ?? 0, rerender))),
          h("div", {}, h("h3", {}, "You get"), RESOURCES.map((r) => stepper("get", d.get, r, 19, rerender)))),
        recipients,
        h("p", {}, problem ?? (noOne ? "Choose whom to ask." : `Give ${cardsText(d.give)}, get ${cardsText(d.get)}.`)),
        h("button", { type: "button", id: "send-offer", disabled: Boolean(problem) || noOne, onclick: send_ }, d.kind === "offer" ? "Offer" : "Counter"), " ", close];
      break;
    }
    default:
      return null;
  }
  return h("section", { class: "card dialog", id: "dialog", role: "dialog", "aria-label": "choose" }, body);
}

function gameOverPanel() {
  const o = state.over;
  const winner = o.winner === null ? "Nobody" : nameOf(o.winner);
  const digest = bytesToHex(sha256(new TextEncoder().encode(String(o.seed))));
  let check;
  if (!state.seedHash) check = `Seed ${String(o.seed)}: sha256 ${digest.slice(0, 16)}…`;
  else if (digest === state.seedHash) check = `Seed ${String(o.seed)}: matches the hash published at the start (${digest.slice(0, 16)}…).`;
  else check = `Seed ${String(o.seed)}: does NOT match the published hash ${state.seedHash.slice(0, 16)}…`;
  return h("section", { class: "card", id: "game-over" },
    h("h2", {}, "Game over"),
    h("p", { id: "winner" }, `${winner === "you" ? "You" : winner} won.`),
    h("ol", { class: "scores" }, o.points.map((p, q) => h("li", {}, seatBadge(q), ` ${names()[q]}: ${plural(p, "point")}`))),
    h("p", { id: "seed-check" }, check),
    replayable() && !state.replay ? h("button", { id: "replay-open", onclick: () => replayTo(0) }, "Replay the game") : null, " ",
    h("button", { onclick: () => { forgetSeat(state.game); location.hash = ""; location.reload(); } }, "Back to the lobby"));
}

function sendChat(event) {
  event.preventDefault();
  const input = $("chat-text");
  const text = input.value.trim();
  if (!text) return;
  send({ type: "chat", game: state.game, text });
  input.value = "";
}

// --- start ------------------------------------------------------------------------------------
function start() {
  state.want = wanted();
  // What this server offers a new game (its boards, presets and bots), beside the page.
  fetch("options.json")
    .then((reply) => (reply.ok ? reply.json() : null))
    .then((offered) => {
      if (offered) {
        state.offered = offered;
        render();
      }
    })
    .catch(() => {});
  state.conn = new Connection(serverUrl(location.href), { onMessage, onOpen, onLost });
  state.conn.open();
  render();
  setInterval(() => {
    for (const node of document.querySelectorAll("[data-timer]")) {
      const left = secondsLeft(Number(node.dataset.timer));
      if (left !== null) node.textContent = `${Math.ceil(left)} s left`;
    }
    for (const node of document.querySelectorAll("[data-offer-timer]")) {
      const left = offerLeft();
      if (left !== null) node.textContent = ` Closes in ${Math.ceil(left)} s.`;
    }
  }, 1000);
  window.addEventListener("hashchange", () => location.reload());
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && (state.dialog || state.picking)) {
      // Back to the list of moves (a placement that is the only move stays offered).
      const only = state.prompt && new Set(state.prompt.actions.map((a) => a.kind)).size === 1;
      state.dialog = null;
      if (!only) state.picking = null;
      render();
      document.querySelector("#actions button")?.focus();
      return;
    }
    if (!state.replay || event.target.closest?.("input, textarea, select")) return;
    if (event.key === "ArrowLeft") replayTo(state.replay.step - 1);
    else if (event.key === "ArrowRight") replayTo(state.replay.step + 1);
  });
  const failed = () => {
    state.status = "Something went wrong in the page; reloading it brings you back to your seat.";
    $("status").textContent = state.status;
    $("status").hidden = false;
  };
  window.addEventListener("error", failed);
  window.addEventListener("unhandledrejection", failed);
}

start();
