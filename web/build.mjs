// Builds the web client into server/webclient/, the package data `hexhaven serve` ships,
// and records there (build.json) the hash of the sources it was built from, which a Python
// test recomputes to check that the shipped build matches the source.

import { createHash } from "node:crypto";
import { copyFileSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const here = dirname(fileURLToPath(import.meta.url));
const out = join(here, "..", "server", "webclient");
const sha = (bytes) => createHash("sha256").update(bytes).digest("hex");

function walk(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? walk(path) : [path];
  });
}

/** The sources' hash: each file's path (from web/) and hash, in path order. */
function sourceHash() {
  const files = [...walk(join(here, "src")), ...["package.json", "package-lock.json", "build.mjs"].map((f) => join(here, f))];
  const lines = files
    .map((f) => relative(here, f).split("\\").join("/"))
    .sort()
    .map((f) => `${f}\n${sha(readFileSync(join(here, f)))}\n`);
  return sha(lines.join(""));
}

rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
await build({
  entryPoints: [join(here, "src", "main.js")],
  bundle: true,
  format: "esm",
  target: "es2020",
  minify: true,
  legalComments: "none",
  outfile: join(out, "app.js"),
  logLevel: "warning",
});
copyFileSync(join(here, "src", "index.html"), join(out, "index.html"));
copyFileSync(join(here, "src", "style.css"), join(out, "app.css"));
const shipped = Object.fromEntries(
  readdirSync(out).sort().map((name) => [name, sha(readFileSync(join(out, name)))]),
);
writeFileSync(join(out, "build.json"), JSON.stringify({ source: sourceHash(), files: shipped }, null, 2) + "\n");
console.log(`built the web client into ${relative(process.cwd(), out) || "."}`);
