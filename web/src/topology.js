// The island's graph for a board radius, numbered exactly as the engine numbers it
// (engine/topology.py): hexes ring by ring from the centre, each ring from its eastmost hex
// counter-clockwise; vertices ring by ring by angle; edges by their vertex ids.

const DIRECTIONS = [[1, 0], [1, -1], [0, -1], [-1, 0], [-1, 1], [0, 1]];
const HARBOUR_VERTEX_RATIO = 0.6;
const TWO_PI = 2 * Math.PI;

const add = (a, b) => [a[0] + b[0], a[1] + b[1]];
const key = (h) => `${h[0]},${h[1]}`;
const hexDistance = (h) => (Math.abs(h[0]) + Math.abs(h[1]) + Math.abs(h[0] + h[1])) / 2;
const pixel = (h) => [Math.sqrt(3) * (h[0] + h[1] / 2), -1.5 * h[1]];

function ringHexes(k) {
  if (k === 0) return [[0, 0]];
  const out = [];
  let h = [k, 0];
  for (const d of [2, 3, 4, 5, 0, 1]) {
    for (let i = 0; i < k; i++) {
      out.push(h);
      h = add(h, DIRECTIONS[d]);
    }
  }
  return out;
}

// Python's round(x, 9) for the angles the engine sorts by.
const round9 = (x) => Number(x.toFixed(9));
const angle = (xy) => {
  let a = Math.atan2(xy[1], xy[0]) % TWO_PI;
  if (a < 0) a += TWO_PI;
  return round9(a);
};

export function harbourCount(radius) {
  const coastVertices = (2 * (radius - 1) + 1) * 6;
  let touching = Math.floor(coastVertices * HARBOUR_VERTEX_RATIO);
  touching -= touching % 2;
  return touching / 2;
}

const cache = new Map();

/** The topology of a board radius (>= 3), built once. */
export function topology(radius) {
  if (cache.has(radius)) return cache.get(radius);
  const hexCoords = [];
  const hexRing = [];
  for (let k = 0; k < radius; k++) {
    for (const h of ringHexes(k)) {
      hexCoords.push(h);
      hexRing.push(k);
    }
  }
  const hexIndex = new Map(hexCoords.map((h, i) => [key(h), i]));

  // A vertex is the three hexes (land or sea) meeting at it; an edge, two.
  const corners = new Map(); // corner key -> its three hexes, in first-met order
  const hexCornerKeys = [];
  const hexSideKeys = [];
  const sideKeyOf = (a, b) => [key(a), key(b)].sort().join("|");
  for (const h of hexCoords) {
    const cs = [];
    const ss = [];
    for (let i = 0; i < 6; i++) {
      const a = add(h, DIRECTIONS[i]);
      const b = add(h, DIRECTIONS[(i + 1) % 6]);
      const ck = [key(h), key(a), key(b)].sort().join("|");
      if (!corners.has(ck)) corners.set(ck, [h, a, b]);
      cs.push(ck);
      ss.push(sideKeyOf(h, a));
    }
    hexCornerKeys.push(cs);
    hexSideKeys.push(ss);
  }
  const cornerXY = (hs) => {
    const pts = hs.map(pixel);
    return [(pts[0][0] + pts[1][0] + pts[2][0]) / 3, (pts[0][1] + pts[1][1] + pts[2][1]) / 3];
  };
  const cornerRing = (hs) => Math.min(...hs.map(hexDistance));
  const vkeys = [...corners.keys()].map((k) => {
    const hs = corners.get(k);
    const xy = cornerXY(hs);
    return { k, hs, xy, ring: cornerRing(hs), angle: angle(xy) };
  });
  vkeys.sort((a, b) => a.ring - b.ring || a.angle - b.angle);
  const vid = new Map(vkeys.map((v, i) => [v.k, i]));

  const sideEnds = new Map();
  for (let hi = 0; hi < hexCoords.length; hi++) {
    const cs = hexCornerKeys[hi];
    for (let i = 0; i < 6; i++) {
      const sk = hexSideKeys[hi][i];
      if (!sideEnds.has(sk)) {
        const v1 = vid.get(cs[(i + 5) % 6]);
        const v2 = vid.get(cs[i]);
        sideEnds.set(sk, [Math.min(v1, v2), Math.max(v1, v2)]);
      }
    }
  }
  const ekeys = [...sideEnds.keys()];
  ekeys.sort((a, b) => {
    const x = sideEnds.get(a);
    const y = sideEnds.get(b);
    return x[0] - y[0] || x[1] - y[1];
  });
  const eid = new Map(ekeys.map((k, i) => [k, i]));
  const edgeVertices = ekeys.map((k) => sideEnds.get(k));

  const nV = vkeys.length;
  const vertexHexes = vkeys.map((v) =>
    v.hs.filter((h) => hexIndex.has(key(h))).map((h) => hexIndex.get(key(h))).sort((a, b) => a - b),
  );
  const vertexEdges = Array.from({ length: nV }, () => []);
  edgeVertices.forEach(([a, b], e) => {
    vertexEdges[a].push(e);
    vertexEdges[b].push(e);
  });
  const hexVertices = hexCornerKeys.map((cs) => cs.map((k) => vid.get(k)));
  const hexEdges = hexSideKeys.map((ss) => ss.map((k) => eid.get(k)));
  const vertexXY = vkeys.map((v) => v.xy);

  const edgeLand = new Array(ekeys.length).fill(0);
  for (const sides of hexEdges) for (const s of sides) edgeLand[s] += 1;
  const coast = [];
  edgeLand.forEach((n, e) => {
    if (n === 1) coast.push(e);
  });
  const midAngle = (e) => {
    const [a, b] = edgeVertices[e];
    return angle([(vertexXY[a][0] + vertexXY[b][0]) / 2, (vertexXY[a][1] + vertexXY[b][1]) / 2]);
  };
  const coastAngles = new Map(coast.map((e) => [e, midAngle(e)]));
  coast.sort((a, b) => coastAngles.get(a) - coastAngles.get(b));
  // Evenly spaced, rounded to the nearest coast edge, counter-clockwise from the east
  // side of the eastmost hex: the printed frame on the standard island (engine/topology.py).
  const nH = harbourCount(radius);
  const eastTip = hexEdges[hexCoords.findIndex(([q, r]) => q === radius - 1 && r === 0)][0];
  const start = coast.indexOf(eastTip);
  const harbourSlots = [];
  for (let i = 0; i < nH; i++) {
    const step = Math.floor((2 * i * coast.length + nH) / (2 * nH));
    harbourSlots.push(coast[(start + step) % coast.length]);
  }
  // Harbour layout 1, the slots of boards stored before they said their layout: evenly
  // spaced from one coast edge past the first counter-clockwise from due east.
  const evenHarbourSlots = [];
  for (let i = 0; i < nH; i++) evenHarbourSlots.push(coast[(1 + Math.floor((i * coast.length) / nH)) % coast.length]);
  const hexCentres = hexCoords.map(pixel);
  const topo = {
    radius,
    hexCoords,
    hexRing,
    hexCentres,
    hexVertices,
    hexEdges,
    vertexHexes,
    vertexEdges,
    vertexXY,
    edgeVertices,
    coastEdges: coast,
    harbourSlots,
    evenHarbourSlots,
  };
  cache.set(radius, topo);
  return topo;
}

/** The harbour slots of a board (``view.board``): those of its harbour layout. */
export const harbourSlotsOf = (board) => {
  const topo = topology(board.radius);
  return board.harbour_layout === 1 ? topo.evenHarbourSlots : topo.harbourSlots;
};
