"""A small value network read without numpy: a seat's encoded view (with a few inputs
derived from it) in, each seat's chance to win out (with its expected final points and
the turns the game has left).

The file (``.hvn``) is the bytes ``HXVN``, a little-endian 32-bit length, that many bytes
of JSON header, then float32 little-endian arrays: for each layer its weights (a row of
inputs for each output) and its biases. Hidden layers are ReLU; the last layer's outputs are
the win logits of the relative seats (row 0 the seat that looks), then each seat's final
points, then the turns left, the last two scaled as the header says. The input scale is
folded into the first layer, so the network reads :mod:`features.encoding`'s vector as it
is, followed by :func:`write_inputs`' derived inputs. Training writes it
(:mod:`learn.value.fit`); this module only reads and evaluates.

Evaluation is plain Python over the vector's non-zero entries (the compiled build compiles
this module with the engine). The board's blocks are the same all game: their share of the
first layer is kept for the last board seen.
"""

from __future__ import annotations

import json
import math
import struct
from array import array
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final

from engine.constants import DICE_DOTS, HARBOUR_GENERIC
from engine.rules import settlement_spots
from engine.state import GameState, Phase
from features.encoding import Encoding, encoding

MAGIC: Final = b"HXVN"
FORMAT: Final = "hexhaven-value-net/1"
EXTRAS: Final = "production-harbours-spots/1"
"""The derived inputs after the encoding: per relative seat (row 0 the seat that looks),
the dice dots its buildings collect of each resource (a city twice; none from the robber's
hex), the harbours it holds (a 2:1 of each resource, a 3:1), and, outside the set-up, how
many intersections it may build a settlement on now and the dots of the best of them."""
EXTRAS_PER_SEAT: Final = 13
_SETUP: Final = (int(Phase.SETUP_SETTLEMENT), int(Phase.SETUP_ROAD))


def input_size(players: int, radius: int = 3) -> int:
    """How many inputs the network reads: the encoding, then the derived inputs."""
    return encoding(radius, players).size + players * EXTRAS_PER_SEAT


def write_inputs(state: GameState, seat: int, out: Any, base: int = 0) -> None:
    """``seat``'s inputs for ``state`` into ``out[base:]`` (which must hold zeros): its
    encoded view, then the derived inputs (:data:`EXTRAS`), read from what it sees."""
    n = state.n
    enc = encoding(state.board.radius, n)
    enc.encode_state(state, seat, out, base)
    at = base + enc.size
    board = state.board
    topo = board.topo
    terrain = board.terrain
    tokens = board.tokens
    robber = state.robber
    harbour = board.vertex_harbour
    vlevel = state.vlevel
    setup = state.phase in _SETUP
    for k in range(n):
        q = (seat + k) % n
        row = at + k * EXTRAS_PER_SEAT
        for vertex in state.pbuild[q]:
            level = float(vlevel[vertex])
            for hx in topo.vertex_hexes[vertex]:
                token = tokens[hx]
                if token and hx != robber:
                    r = int(terrain[hx])
                    out[row + r] += level * DICE_DOTS[token]
            kind = harbour[vertex]
            if kind >= 0:
                out[row + 5 + (5 if kind == HARBOUR_GENERIC else kind)] = 1.0
        if not setup:
            spots = settlement_spots(state, q)
            best = 0
            for vertex in spots:
                dots = 0
                for hx in topo.vertex_hexes[vertex]:
                    token = tokens[hx]
                    if token:
                        dots += DICE_DOTS[token]
                if dots > best:
                    best = dots
            out[row + 11] = float(len(spots))
            out[row + 12] = float(best)


class NetFileError(ValueError):
    """A value-network file that cannot be read (its path and the reason in the message)."""


class ValueNet:
    """A loaded value network (:meth:`load` or :meth:`from_bytes`)."""

    def __init__(
        self,
        header: dict[str, object],
        weights: list[list[list[float]]],
        biases: list[list[float]],
    ) -> None:
        self.header = header
        players = header["players"]
        radius = header["radius"]
        if not isinstance(players, int) or not isinstance(radius, int):
            raise NetFileError("the header's players and radius must be integers")
        self.players: int = players
        self.radius: int = radius
        self.encoding: Encoding = encoding(radius, players)
        self.weights = weights
        self.biases = biases
        points_scale = header.get("points_scale", 1.0)
        turns_scale = header.get("turns_scale", 1.0)
        self.points_scale: float = float(points_scale)  # type: ignore[arg-type]
        self.turns_scale: float = float(turns_scale)  # type: ignore[arg-type]
        self.board_size: int = self.encoding.board_size
        self._board_key: object = None
        self._board_sums: list[float] = []
        self.size: int = input_size(players, radius)
        self._x: list[float] = [0.0] * self.size
        self.turn_index: int = self.encoding.block("turn").offset
        cap = header.get("turn_cap", 255)
        self.turn_cap: float = float(cap)  # type: ignore[arg-type]

    # --- reading ------------------------------------------------------------------------
    @classmethod
    def load(cls, path: str | Path) -> ValueNet:
        """The network in the file at ``path``; NetFileError saying what is wrong."""
        try:
            data = Path(path).read_bytes()
        except OSError as exc:
            raise NetFileError(f"{path}: {exc.strerror or exc}") from exc
        try:
            return cls.from_bytes(data)
        except NetFileError as exc:
            raise NetFileError(f"{path}: {exc}") from exc

    @classmethod
    def from_bytes(cls, data: bytes) -> ValueNet:
        """The network a file's bytes hold."""
        if data[:4] != MAGIC or len(data) < 8:
            raise NetFileError("not a value-network file (it does not start with HXVN)")
        (length,) = struct.unpack_from("<I", data, 4)
        try:
            header = json.loads(data[8 : 8 + length].decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise NetFileError(f"its header is not JSON ({exc})") from exc
        if not isinstance(header, dict) or header.get("format") != FORMAT:
            raise NetFileError(f"its header's format is not {FORMAT}")
        sizes = header.get("sizes")
        if (
            not isinstance(sizes, list)
            or len(sizes) < 2
            or not all(isinstance(s, int) and s > 0 for s in sizes)
        ):
            raise NetFileError("its header's sizes must be a list of layer widths")
        values = array("f")
        body = data[8 + length :]
        expected = sum(sizes[i] * sizes[i + 1] + sizes[i + 1] for i in range(len(sizes) - 1))
        if len(body) != 4 * expected:
            raise NetFileError(
                f"it holds {len(body) // 4} numbers, not the {expected} its sizes need"
            )
        values.frombytes(body)
        if struct.pack("=I", 1) != struct.pack("<I", 1):  # a big-endian machine
            values.byteswap()
        weights: list[list[list[float]]] = []
        biases: list[list[float]] = []
        at = 0
        for i in range(len(sizes) - 1):
            n_in, n_out = sizes[i], sizes[i + 1]
            rows = [list(values[at + j * n_in : at + (j + 1) * n_in]) for j in range(n_out)]
            at += n_in * n_out
            weights.append(rows)
            biases.append(list(values[at : at + n_out]))
            at += n_out
        net = cls(header, weights, biases)
        if header.get("extras") != EXTRAS:
            raise NetFileError(f"its derived inputs are not {EXTRAS}")
        size = net.size
        if sizes[0] != size:
            raise NetFileError(f"it reads {sizes[0]} inputs; the encoding and extras have {size}")
        if sizes[-1] != 2 * net.players + 1:
            raise NetFileError(f"it has {sizes[-1]} outputs, not {2 * net.players + 1}")
        return net

    # --- evaluating ---------------------------------------------------------------------
    def raw(self, x: Sequence[float], board_key: object = None) -> list[float]:
        """The last layer's outputs for the encoded vector ``x``. With ``board_key`` (an
        object that stays the same while the board does), the board's share of the first
        layer is kept between calls."""
        w1 = self.weights[0]
        b1 = self.biases[0]
        start = 0
        if board_key is not None:
            if board_key is not self._board_key:
                self._board_sums = self._first_layer(x, 0, self.board_size, b1)
                self._board_key = board_key
            sums = self._board_sums
            start = self.board_size
        else:
            sums = b1
        index: list[int] = []
        value: list[float] = []
        turn = self.turn_index
        for i in range(start, len(x)):
            v = x[i]
            if v != 0.0:
                if i == turn and v > self.turn_cap:  # the data kept turns up to the cap
                    v = self.turn_cap
                index.append(i)
                value.append(v)
        k = len(index)
        h: list[float] = []
        for j in range(len(w1)):
            row = w1[j]
            s = sums[j]
            for t in range(k):
                s += value[t] * row[index[t]]
            h.append(s if s > 0.0 else 0.0)
        last = len(self.weights) - 1
        for layer in range(1, last + 1):
            w = self.weights[layer]
            b = self.biases[layer]
            out: list[float] = []
            n_in = len(h)
            for j in range(len(w)):
                row = w[j]
                s = b[j]
                for i in range(n_in):
                    s += h[i] * row[i]
                out.append(s if layer == last or s > 0.0 else 0.0)
            h = out
        return h

    def _first_layer(self, x: Sequence[float], lo: int, hi: int, b1: list[float]) -> list[float]:
        w1 = self.weights[0]
        sums: list[float] = []
        for j in range(len(w1)):
            row = w1[j]
            s = b1[j]
            for i in range(lo, hi):
                v = x[i]
                if v != 0.0:
                    s += v * row[i]
            sums.append(s)
        return sums

    def win(self, x: Sequence[float], board_key: object = None) -> list[float]:
        """Each relative seat's chance to win (row 0: the seat whose view ``x`` is)."""
        return softmax(self.raw(x, board_key)[: self.players])

    def outputs(
        self, x: Sequence[float], board_key: object = None
    ) -> tuple[list[float], list[float], float]:
        """(each relative seat's chance to win, its expected final points, the turns left)."""
        out = self.raw(x, board_key)
        n = self.players
        points = [p * self.points_scale for p in out[n : 2 * n]]
        return softmax(out[:n]), points, out[2 * n] * self.turns_scale

    def state_win(self, state: GameState, seat: int) -> list[float]:
        """``seat``'s network view of ``state``: each relative seat's chance to win, read
        only from what ``view(state, seat)`` shows."""
        x = self._x
        for i in range(len(x)):
            x[i] = 0.0
        write_inputs(state, seat, x)
        return self.win(x, state.board)


def softmax(logits: Sequence[float]) -> list[float]:
    """The softmax of ``logits``."""
    top = max(logits)
    e = [math.exp(v - top) for v in logits]
    total = sum(e)
    return [v / total for v in e]


def write(
    path: str | Path,
    header: dict[str, object],
    layers: Sequence[tuple[Sequence[Sequence[float]], Sequence[float]]],
) -> None:
    """Write a network file: ``header`` (``format`` and ``sizes`` are filled in) and each
    layer's (weights as rows of outputs, biases)."""
    sizes = [len(layers[0][0][0])] + [len(b) for _, b in layers]
    head = dict(header, format=FORMAT, sizes=sizes, extras=EXTRAS)
    text = json.dumps(head, sort_keys=True).encode("utf-8")
    values = array("f")
    for rows, bias in layers:
        for row in rows:
            values.extend(float(v) for v in row)
        values.extend(float(v) for v in bias)
    if struct.pack("=I", 1) != struct.pack("<I", 1):
        values.byteswap()
    Path(path).write_bytes(MAGIC + struct.pack("<I", len(text)) + text + values.tobytes())


__all__ = [
    "EXTRAS",
    "FORMAT",
    "NetFileError",
    "ValueNet",
    "input_size",
    "softmax",
    "write",
    "write_inputs",
]
