// Builds the analyst page into dist/ (or the folder given as the first argument):
//   dist/index.html                the page, referring to the hashed bundle names
//   dist/app-<hash>.js             src/main.ts with Cytoscape.js, minified (esbuild)
//   dist/app-<hash>.css            src/style.css, minified
//   dist/favicon.svg
// Entity colours come from deploy/neo4j/browser-style.grass, so the page and Neo4j Browser agree.
// The output depends only on the sources and package-lock.json: `make ui` twice gives the same bytes.
import * as esbuild from "esbuild";
import { readFileSync, writeFileSync, mkdirSync, rmSync, readdirSync } from "node:fs";
import { join, basename, dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const out = process.argv[2] ? resolve(process.argv[2]) : join(here, "dist");

// node.Client { color: #D9534F; border-color: #B52B27; ... }  →  {Client: {color, border}}
function grassColours(text) {
  const styles = {};
  const re = /node\.(\w+)\s*\{([^}]*)\}/g;
  for (let m; (m = re.exec(text)); ) {
    const body = m[2];
    const color = /(?:^|;)\s*color:\s*(#[0-9A-Fa-f]{6})/.exec(body);
    const border = /border-color:\s*(#[0-9A-Fa-f]{6})/.exec(body);
    const textColor = /text-color-internal:\s*(#[0-9A-Fa-f]{6})/.exec(body);
    if (color) {
      styles[m[1]] = { color: color[1], border: border ? border[1] : color[1], text: textColor ? textColor[1] : "#FFFFFF" };
    }
  }
  return styles;
}
const grass = readFileSync(join(here, "..", "deploy", "neo4j", "browser-style.grass"), "utf8");
const colours = grassColours(grass);
if (!colours.Client || !colours.Person) throw new Error("browser-style.grass: entity colours not found");

rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
const result = await esbuild.build({
  entryPoints: { app: join(here, "src", "main.ts") },
  bundle: true,
  minify: true,
  format: "iife",
  target: ["es2020"],
  outdir: out,
  entryNames: "[name]-[hash]",
  legalComments: "none",
  metafile: true,
  define: { __ENTITY_STYLE__: JSON.stringify(colours) },
  logLevel: "warning",
});
const css = await esbuild.build({
  entryPoints: { app: join(here, "src", "style.css") },
  bundle: true,
  minify: true,
  outdir: out,
  entryNames: "[name]-[hash]",
  metafile: true,
  logLevel: "warning",
});
const outputs = (r) => Object.keys(r.metafile.outputs).map((p) => basename(p));
const js = outputs(result).find((f) => f.endsWith(".js"));
const cssFile = outputs(css).find((f) => f.endsWith(".css"));
const html = readFileSync(join(here, "src", "index.html"), "utf8")
  .replace("{{APP_JS}}", js)
  .replace("{{APP_CSS}}", cssFile);
writeFileSync(join(out, "index.html"), html);
writeFileSync(join(out, "favicon.svg"), readFileSync(join(here, "src", "favicon.svg")));
for (const f of readdirSync(out).sort()) console.log(`${out}/${f}`);
