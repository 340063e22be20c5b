// Runs the page's unit tests (src/*.test.ts) with node --test after esbuild bundles them.
import * as esbuild from "esbuild";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { spawnSync } from "node:child_process";

const here = dirname(fileURLToPath(import.meta.url));
const out = mkdtempSync(join(tmpdir(), "ariadne-web-test-"));
const tests = readdirSync(join(here, "src")).filter((f) => f.endsWith(".test.ts"));
await esbuild.build({
  entryPoints: tests.map((f) => join(here, "src", f)),
  bundle: true,
  platform: "node",
  format: "esm",
  outdir: out,
  outExtension: { ".js": ".mjs" },
  define: { __ENTITY_STYLE__: "{}" },
  logLevel: "warning",
});
const r = spawnSync(process.execPath, ["--test", ...readdirSync(out).map((f) => join(out, f))], { stdio: "inherit" });
rmSync(out, { recursive: true, force: true });
process.exit(r.status ?? 1);
