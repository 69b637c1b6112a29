// A complete Hexhaven agent for Node.js, with the npm packages `ws` and `@msgpack/msgpack`.
//
// It takes a seat by invite code (or comes back to one with its token), then answers every
// prompt until the game is over: it builds a city or settlement when it can, offers one
// spare card for one it lacks once a turn, declines other players' offers, and otherwise
// picks a random listed action. If the connection drops, it reconnects and rejoins with its
// token. The token is the seat: it is kept in a file readable by its owner alone, never on a
// command line. docs/agents.md walks through the same steps in Python.
//
//     npm ci --prefix examples/js
//     node examples/js/agent.js ws://127.0.0.1:8765 --invite CODE [--token-file FILE] [--name NAME] [--seed N]
//     node examples/js/agent.js ws://127.0.0.1:8765 --game GAME --token-file FILE

import { readFileSync, writeFileSync, chmodSync } from "node:fs";
import { parseArgs } from "node:util";
import WebSocket from "ws";
import { Decoder, encode } from "@msgpack/msgpack";

const PROTOCOL = 1;
const SUBPROTOCOL = "hexhaven.v1.msgpack";
const RESOURCES = ["brick", "lumber", "wool", "grain", "ore"];
// Refusals of the handshake or the seat: trying again will not help.
const LOBBY_ERRORS = new Set([
  "unsupported_version",
  "unknown_game",
  "bad_token",
  "seat_taken",
  "game_full",
  "already_started",
]);
const RECONNECTS = 5; // how many times in a row to reconnect before giving up
// The seed in game_over can exceed 2**53: read 64-bit integers as BigInt, exactly.
const decoder = new Decoder({ useBigInt64: true });

// A small seeded random generator (mulberry32), so a seed replays the same choices.
function randomGenerator(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// The decisions: given a prompt (with the seat's view in it), one action or null.
class Player {
  constructor(seed) {
    this.random = randomGenerator(seed);
    this.offeredOnTurn = -1;
  }

  pick(items) {
    return items[Math.floor(this.random() * items.length)];
  }

  choose(prompt) {
    const { actions, view } = prompt;
    const kinds = new Set(actions.map((action) => action.kind));
    if (kinds.has("decline_trade")) return { kind: "decline_trade" }; // someone else's offer
    if (kinds.has("cancel_trade")) {
      // Our own offer is open: wait while answers are pending (each brings a new prompt).
      if (view.trade.answers.includes("pending")) return null;
      const confirm = actions.find((action) => action.kind === "confirm_trade");
      return confirm ?? { kind: "cancel_trade" };
    }
    const builds = actions.filter((a) => a.kind === "build_city" || a.kind === "build_settlement");
    if (builds.length > 0) return this.pick(builds);
    if (kinds.has("end_turn") && this.offeredOnTurn !== view.turn) {
      const offer = this.offer(view.hand);
      if (offer !== null) {
        this.offeredOnTurn = view.turn;
        return offer;
      }
    }
    return this.pick(actions);
  }

  // One card we have two of for one we have none of, asked of every seat.
  offer(hand) {
    const spare = RESOURCES.filter((r) => (hand[r] ?? 0) >= 2);
    const lacking = RESOURCES.filter((r) => (hand[r] ?? 0) === 0);
    if (spare.length === 0 || lacking.length === 0) return null;
    const give = this.pick(spare);
    const get = this.pick(lacking);
    return { kind: "offer_trade", give: { [give]: 1 }, get: { [get]: 1 }, to: null };
  }

  // A safe answer after the server refused ours: end the turn, decline, or the first listed.
  fallback(prompt) {
    for (const kind of ["end_turn", "decline_trade", "cancel_trade"]) {
      const action = prompt.actions.find((a) => a.kind === kind);
      if (action) return action;
    }
    return prompt.actions[0];
  }
}

// One connection. Resolves with {over} at the end of the game, {refused} when the server
// refuses the seat, or {lost} when the connection drops first.
function session(url, seat, player) {
  return new Promise((resolve) => {
    const ws = new WebSocket(url, SUBPROTOCOL);
    const send = (message) => ws.send(encode(message));
    let lastPrompt = null;
    let lastAct = null;
    ws.on("open", () => {
      send({ type: "hello", protocol: PROTOCOL, client: "js-example 0.1", views: true });
      if (seat.token) send({ type: "rejoin", game: seat.game, token: seat.token });
      else send({ type: "join_game", invite: seat.invite, name: seat.name });
    });
    ws.on("message", (data) => {
      const message = decoder.decode(data);
      switch (message.type) {
        case "joined":
          seat.game = message.game;
          seat.token = message.token;
          seat.failures = 0;
          console.error(`seat ${message.seat} in game ${seat.game} (${keepToken(seat)})`);
          break;
        case "prompt": {
          lastPrompt = message;
          const action = player.choose(message);
          if (action !== null) {
            lastAct = { type: "act", game: seat.game, state_id: message.state_id, action };
            send(lastAct);
          }
          break;
        }
        case "error":
          console.error(`refused: ${message.code}: ${message.message}`);
          if (LOBBY_ERRORS.has(message.code)) {
            resolve({ refused: message });
            ws.close();
          } else if (message.code === "rate_limited" && lastAct !== null) {
            const again = lastAct;
            setTimeout(() => send(again), 50);
          } else if (message.code === "illegal_action" && lastPrompt !== null) {
            // Nothing changed, so no new prompt comes: answer this one safely, once.
            const action = player.fallback(lastPrompt);
            lastAct = { type: "act", game: seat.game, state_id: lastPrompt.state_id, action };
            lastPrompt = null;
            send(lastAct);
          } // stale_state: the game moved on; a newer prompt is on its way.
          break;
        case "game_over":
          resolve({ over: message });
          ws.close();
          break;
        default: // welcome, players, view, events, chat_message, pong
          break;
      }
    });
    ws.on("error", (error) => console.error(`connection error: ${error.message}`));
    ws.on("close", () => resolve({ lost: true }));
  });
}

// Keep the seat's token in seat.tokenFile (readable by its owner alone); say where it is.
function keepToken(seat) {
  const file = seat.tokenFile;
  if (file === undefined) return "its token is not kept: --token-file FILE keeps it";
  writeFileSync(file, `${seat.token}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
  return `its token is in ${file}: rejoin with --game ${seat.game} --token-file ${file}`;
}

const sleep = (ms) => new Promise((done) => setTimeout(done, ms));

async function main() {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      invite: { type: "string" },
      game: { type: "string" },
      "token-file": { type: "string" },
      name: { type: "string", default: "js-agent" },
      seed: { type: "string" },
    },
  });
  const tokenFile = values["token-file"];
  if (positionals.length !== 1 || !(values.invite || (values.game && tokenFile))) {
    console.error(
      "usage: node agent.js URL (--invite CODE [--token-file FILE] | --game GAME --token-file FILE)",
    );
    return 2;
  }
  const seed = values.seed === undefined ? Date.now() : Number(values.seed);
  const player = new Player(seed);
  // Coming back to a seat: its token is the first line of the file.
  const token = values.invite ? undefined : readFileSync(tokenFile, "utf8").split("\n")[0].trim();
  const seat = { game: values.game, token, invite: values.invite, name: values.name, tokenFile };
  seat.failures = 0;
  while (seat.failures <= RECONNECTS) {
    const result = await session(positionals[0], seat, player);
    if (result.over) {
      const { winner, points, seed: gameSeed } = result.over;
      console.log(`game over: winner ${winner}, points [${points.join(", ")}], seed ${gameSeed}`);
      return 0;
    }
    if (result.refused || !seat.token) return 1; // refused, or never seated
    seat.failures += 1;
    console.error("connection lost; reconnecting");
    await sleep(Math.min(5000, 200 * 2 ** seat.failures));
  }
  return 1;
}

process.exitCode = await main();
