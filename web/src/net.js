// One websocket to the server that served the page, msgpack in binary frames, with hello
// said first. It comes back after a lost connection and says so; what to ask again (a
// rejoin, a watch) is the page's business.

import { decode, encode } from "@msgpack/msgpack";

export const PROTOCOL = 1;
const SUBPROTOCOL = "hexhaven.v1.msgpack";

/** The websocket address of the server that served this page (its path prefix kept). */
export function serverUrl(href) {
  const url = new URL(".", href);
  url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
  url.hash = "";
  url.search = "";
  return url.href;
}

export class Connection {
  constructor(url, { onMessage, onOpen, onLost }) {
    this.url = url;
    this.onMessage = onMessage;
    this.onOpen = onOpen;
    this.onLost = onLost;
    this.socket = null;
    this.ready = false;
    this.retry = 0;
    this.queue = [];
    this.closed = false;
  }

  open() {
    const socket = new WebSocket(this.url, [SUBPROTOCOL]);
    socket.binaryType = "arraybuffer";
    this.socket = socket;
    socket.addEventListener("open", () => {
      this.retry = 0;
      this.write({ type: "hello", protocol: PROTOCOL, client: "hexhaven-web 0.1", views: true, event_views: true });
    });
    socket.addEventListener("message", (event) => {
      if (!(event.data instanceof ArrayBuffer)) return;
      const message = decode(new Uint8Array(event.data), { useBigInt64: true });
      if (message?.type === "welcome") {
        this.ready = true;
        this.onOpen();
        for (const queued of this.queue.splice(0)) this.write(queued);
      }
      this.onMessage(message);
    });
    socket.addEventListener("close", () => {
      const was = this.ready;
      this.ready = false;
      if (this.closed) return;
      this.onLost(was);
      const pause = Math.min(5000, 250 * 2 ** this.retry);
      this.retry += 1;
      setTimeout(() => this.open(), pause);
    });
  }

  write(message) {
    this.socket.send(encode(message, { useBigInt64: true }));
  }

  /** Send now if the session is open, else once it is. */
  send(message) {
    if (this.ready) this.write(message);
    else this.queue.push(message);
  }
}
