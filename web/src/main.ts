// Ariadne's analyst page: ask (streamed stage by stage), check every citation against its chunk,
// follow the multi-hop evidence path, explore entities and documents. All DOM is built with
// textContent — document text is data and never becomes markup.
import * as api from "./api";
import { splitAtBytes } from "./bytes";
import { draw, GEdge, GNode, subgraphCypher, typeStyle } from "./graph";

type Child = Node | string | null | undefined | false;
function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Record<string, string | boolean | number> = {}, ...kids: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === false) continue;
    if (k === "class") el.className = String(v);
    else el.setAttribute(k, v === true ? "" : String(v));
  }
  for (const c of kids) if (c !== null && c !== undefined && c !== false) el.append(c);
  return el;
}
const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
function clear(el: HTMLElement, ...kids: Child[]) {
  el.replaceChildren();
  for (const c of kids) if (c) el.append(c);
}
function errorBox(err: unknown): HTMLElement {
  if (err instanceof api.APIError) {
    const what = err.status === 401 ? "The API key is not known (401): fix or clear it above." : err.message;
    return h("p", { class: "error", role: "alert" }, `${what} `, h("code", {}, err.code), err.requestID ? h("span", { class: "muted" }, ` request ${err.requestID}`) : null);
  }
  if (err instanceof DOMException && err.name === "AbortError") return h("p", { class: "muted" }, "cancelled");
  return h("p", { class: "error", role: "alert" }, "The API could not be reached: " + String(err));
}

// ---------- configuration (GET /ui/config.json: the Neo4j Browser address) ----------
let config: api.UIConfig = { neo4j_browser_url: "" };
const configLoaded = fetch("config.json", { credentials: "omit" })
  .then((r) => (r.ok ? r.json() : config))
  .then((c) => (config = c))
  .catch(() => config);

function neo4jLink(cypher: string): HTMLElement | null {
  if (!config.neo4j_browser_url) return null;
  const href = config.neo4j_browser_url + (config.neo4j_browser_url.includes("?") ? "&" : "?") + "cmd=edit&arg=" + encodeURIComponent(cypher);
  return h("a", { class: "neo4j", href, target: "_blank", rel: "noopener noreferrer", title: cypher }, "Open in Neo4j Browser");
}

// ---------- API key (sessionStorage only) ----------
const keyInput = $<HTMLInputElement>("api-key");
keyInput.value = api.apiKey();
keyInput.addEventListener("input", () => api.setAPIKey(keyInput.value.trim()));
$("key-form").addEventListener("submit", (e) => e.preventDefault());
$("key-clear").addEventListener("click", () => {
  keyInput.value = "";
  api.setAPIKey("");
  keyInput.focus();
});

// ---------- views (hash routing: #ask, #explore, #entity/<key>, #documents, #document/<id>) ----------
const views = ["ask", "explore", "documents"] as const;
function route() {
  const hash = decodeURIComponent(location.hash.slice(1));
  let view: (typeof views)[number] = "ask";
  if (hash.startsWith("entity/") || hash === "explore") view = "explore";
  else if (hash.startsWith("document/") || hash === "documents") view = "documents";
  for (const v of views) {
    $(`view-${v}`).hidden = v !== view;
    const tab = $(`tab-${v}`);
    if (v === view) tab.setAttribute("aria-current", "page");
    else tab.removeAttribute("aria-current");
  }
  if (!panel.hidden) panel.hidden = true; // a link in the chunk panel leads elsewhere
  if (hash.startsWith("entity/")) showEntity(hash.slice("entity/".length));
  if (view === "documents") {
    if (!docsLoaded) loadDocuments(0);
    if (hash.startsWith("document/")) showDocument(hash.slice("document/".length));
  }
}
window.addEventListener("hashchange", route);

// ---------- the chunk panel: a citation's quote highlighted at its byte offsets ----------
const panel = $("chunk-panel");
const panelBody = $("chunk-body");
let panelOpener: HTMLElement | null = null;
let panelAbort: AbortController | null = null;

interface Highlight {
  start: number;
  end: number;
  quote?: string;
}

async function openChunk(chunkID: string, hl?: Highlight, opener?: HTMLElement) {
  panelAbort?.abort();
  panelAbort = new AbortController();
  panelOpener = opener ?? (document.activeElement as HTMLElement);
  panel.hidden = false;
  panel.dataset.chunkId = chunkID;
  panel.dataset.state = "loading";
  clear(panelBody, h("p", { class: "muted" }, "loading " + chunkID + " …"));
  $("chunk-title").focus();
  try {
    const { chunk } = await api.getJSON<{ chunk: api.Chunk }>(`/v1/chunks/${api.enc(chunkID)}`, panelAbort.signal);
    const meta = h(
      "dl",
      { class: "meta" },
      h("dt", {}, "Document"),
      h("dd", {}, h("a", { href: "#document/" + api.enc(chunk.doc_id) }, chunk.title || chunk.doc_id), " ", h("code", {}, chunk.doc_id)),
      h("dt", {}, "Section"),
      h("dd", {}, chunk.heading || "—"),
      h("dt", {}, "Version"),
      h("dd", {}, String(chunk.doc_version)),
      h("dt", {}, "Updated"),
      h("dd", {}, chunk.updated || "—"),
      h("dt", {}, "Language"),
      h("dd", {}, chunk.lang || "—"),
      h("dt", {}, "Readable by"),
      h("dd", {}, aclChips(chunk.acl)),
      h("dt", {}, "Chunk"),
      h("dd", {}, h("code", {}, chunk.chunk_id)),
    );
    const text = h("div", { class: "chunk-text", tabindex: 0, "aria-label": "Chunk text" });
    let note: HTMLElement | null = null;
    if (hl) {
      const s = splitAtBytes(chunk.text, hl.start, hl.end);
      if (!s) {
        text.append(chunk.text);
        note = h("p", { class: "error" }, `The offsets ${hl.start}–${hl.end} do not fall on this chunk's characters.`);
      } else {
        const mark = h("mark", { class: "quote", "data-start": hl.start, "data-end": hl.end }, s.quote);
        text.append(s.before, mark, s.after);
        if (hl.quote !== undefined && hl.quote !== s.quote) {
          note = h("p", { class: "error" }, "The text at the offsets differs from the cited quote.");
        } else {
          note = h("p", { class: "ok" }, `✓ The quote is the chunk's bytes ${hl.start}–${hl.end}.`);
        }
      }
    } else {
      text.append(chunk.text);
    }
    clear(panelBody, meta, note, text);
    panel.dataset.state = "ready";
    panelBody.querySelector("mark")?.scrollIntoView({ block: "nearest" });
  } catch (err) {
    if (err instanceof DOMException && err.name === "AbortError") return;
    clear(panelBody, err instanceof api.APIError && err.status === 404 ? h("p", { class: "error", role: "alert" }, "This chunk does not exist or you may not read it.") : errorBox(err));
    panel.dataset.state = "error";
  }
}
function closeChunk() {
  panelAbort?.abort();
  panel.hidden = true;
  panelOpener?.focus();
}
$("chunk-close").addEventListener("click", closeChunk);
document.addEventListener("keydown", (e) => {
  if (e.key === "Escape" && !panel.hidden) closeChunk();
});

function aclChips(acl: string[] | null | undefined): HTMLElement {
  const span = h("span", { class: "acl" });
  for (const g of acl ?? []) span.append(h("span", { class: "label" + (g === "all" ? " public" : "") }, g));
  if (!acl || acl.length === 0) span.append(h("span", { class: "label public" }, "all"));
  return span;
}

function typeBadge(type: string): HTMLElement {
  const s = typeStyle(type);
  const b = h("span", { class: "type" }, type || "entity");
  b.style.backgroundColor = s.color;
  b.style.borderColor = s.border;
  b.style.color = s.text;
  return b;
}

/** chunkButtons lists supporting chunks; each opens the chunk panel. */
function chunkButtons(ids: string[]): HTMLElement {
  const ul = h("ul", { class: "chunks" });
  for (const id of ids) {
    const b = h("button", { type: "button", class: "chip", "data-chunk-id": id }, id);
    b.addEventListener("click", () => openChunk(id, undefined, b));
    ul.append(h("li", {}, b));
  }
  if (ids.length === 0) ul.append(h("li", { class: "muted" }, "no supporting chunk you may read"));
  return ul;
}

/** graphBlock draws a graph with a text list of its edges (the keyboard's way to the same data). */
function graphBlock(title: string, nodes: GNode[], edges: GEdge[], cypher: string, onNode?: (n: GNode) => void): HTMLElement {
  const canvas = h("div", { class: "graph", role: "img", "aria-label": `${title}: ${nodes.length} entities, ${edges.length} relations` });
  const support = h("div", { class: "edge-support", "aria-live": "polite" });
  const names = new Map(nodes.map((n) => [n.key, n.name]));
  const list = h("ul", { class: "edges" });
  const showEdge = (e: GEdge) => {
    clear(support, h("h4", {}, `${names.get(e.from) ?? e.from} —${e.type}→ ${names.get(e.to) ?? e.to}`), h("p", { class: "muted" }, "Supporting chunks:"), chunkButtons(e.chunkIDs));
    (support.querySelector("button") as HTMLElement | null)?.focus();
  };
  edges.forEach((e) => {
    const b = h("button", { type: "button", class: "edge" }, h("span", {}, names.get(e.from) ?? e.from), h("span", { class: "rel" }, ` —${e.type}→ `), h("span", {}, names.get(e.to) ?? e.to), h("span", { class: "muted" }, ` (${e.chunkIDs.length} chunk${e.chunkIDs.length === 1 ? "" : "s"})`));
    if (e.cited) b.append(h("span", { class: "cited-note" }, " ✓ cited"));
    b.addEventListener("click", () => showEdge(e));
    list.append(h("li", { class: e.cited ? "cited" : "" }, b));
  });
  const nodeList = h("ul", { class: "nodes", "aria-label": "Entities" });
  for (const n of nodes) nodeList.append(h("li", { "data-key": n.key }, typeBadge(n.type), " ", n.name));
  const block = h("div", { class: "graph-block" }, h("div", { class: "graph-head" }, h("h3", {}, title), neo4jLink(cypher)), canvas, nodeList, list, support);
  // Cytoscape needs the container in the document to measure it.
  requestAnimationFrame(() => draw(canvas, nodes, edges, showEdge, onNode));
  return block;
}

// ---------- asking ----------
const STATUS_TEXT: Record<api.Status, string> = {
  answered: "Answered — code checked that every quote is verbatim from a chunk you may read; whether the quotes answer the question is the generator's reading: check them, and the chain of a multi-hop answer.",
  not_found: "Not found — the documents you may read do not say.",
  refused: "Refused — the generated answers failed verification after the retries.",
  index_empty: "Index empty — nothing has been ingested yet.",
  unavailable: "Unavailable — a store or model stayed down; retry later.",
};

const askForm = $<HTMLFormElement>("ask-form");
const question = $<HTMLTextAreaElement>("question");
const stages = $("stages");
const result = $("result");
let askAbort: AbortController | null = null;

question.addEventListener("keydown", (e) => {
  if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
    e.preventDefault();
    askForm.requestSubmit();
  }
});

function stage(name: string, label: string): HTMLElement {
  const li = h("li", { class: "stage pending", "data-stage": name }, h("span", { class: "stage-name" }, label), h("span", { class: "stage-body" }, "waiting"));
  stages.append(li);
  return li;
}
function setStage(li: HTMLElement, state: "active" | "done" | "failed", ...body: Child[]) {
  li.className = "stage " + state;
  const b = li.querySelector(".stage-body") as HTMLElement;
  clear(b, ...body);
}

askForm.addEventListener("submit", async (e) => {
  e.preventDefault();
  const q = question.value.trim();
  if (!q) return;
  askAbort?.abort();
  askAbort = new AbortController();
  const debug = $<HTMLInputElement>("debug").checked;
  const mode = $<HTMLSelectElement>("mode").value;
  clear(stages);
  clear(result);
  result.dataset.status = "pending";
  const t0 = performance.now();
  const ms = () => h("span", { class: "ms" }, ` ${Math.round(performance.now() - t0)} ms`);
  const sRoute = stage("route", "Route");
  const sRetr = stage("retrieval", "Retrieval");
  const sVer = stage("verification", "Verification");
  const sAns = stage("answer", "Answer");
  setStage(sRoute, "active", "routing …");
  const btn = $<HTMLButtonElement>("ask-btn");
  btn.disabled = true;
  try {
    await api.ask(
      { question: q, mode, debug },
      {
        route(d) {
          setStage(sRoute, "done", h("strong", {}, d.route), ` by ${d.classifier}`, d.reasons?.length ? h("span", { class: "muted" }, " — " + d.reasons.join("; ")) : null, ms());
          setStage(sRetr, "active", "retrieving …");
        },
        retrieval(d) {
          const steps = (d.steps ?? []).map((s) => `${s.strategy}: ${s.hits} hits${s.weak ? " (weak, escalated)" : ""}`).join(" → ");
          setStage(sRetr, "done", h("strong", {}, `${d.hits} chunks`), ` via ${d.route}`, steps ? h("span", { class: "muted" }, " — " + steps) : null, ms());
          setStage(sVer, "active", "generating and verifying …");
        },
        verification(d) {
          const prev = sVer.querySelector(".stage-body")?.textContent?.startsWith("attempt") ? (sVer.querySelector(".stage-body")!.textContent ?? "") + " · " : "";
          const what = d.ok ? (d.status === "not_found" ? "no answer in the fragments" : `${d.verified_claims ?? 0} claims verified`) : `failed: ${d.error ?? (d.failures ? d.failures.length + " quotes did not check" : "no verified claim")}`;
          setStage(sVer, d.ok ? "done" : "active", prev + `attempt ${d.attempt}: ${what}`, ms());
        },
        answer(r) {
          if (sRoute.classList.contains("pending") || sRoute.classList.contains("active")) setStage(sRoute, "done", r.route ?? "—");
          for (const s of [sRetr, sVer]) if (!s.classList.contains("done")) setStage(s, r.status === "answered" ? "done" : "failed", s === sVer ? r.status : "—");
          setStage(sAns, r.status === "answered" ? "done" : "failed", h("strong", {}, r.status), ms());
          renderAnswer(r);
        },
      },
      askAbort.signal,
    );
  } catch (err) {
    for (const s of [sRoute, sRetr, sVer, sAns]) if (!s.classList.contains("done")) setStage(s, "failed", "—");
    result.dataset.status = "error";
    clear(result, errorBox(err));
  } finally {
    btn.disabled = false;
  }
});

function renderAnswer(r: api.QueryResponse) {
  result.dataset.status = r.status;
  result.dataset.requestId = r.request_id;
  const banner = h("div", { class: `status status-${r.status}`, role: "status" }, h("strong", { class: "status-code" }, r.status), " ", STATUS_TEXT[r.status] ?? "");
  if (r.reason && r.status !== "answered") banner.append(h("div", { class: "reason" }, "Reason: " + r.reason));
  if (r.degraded?.includes("graph"))
    banner.append(h("div", { class: "reason degraded" }, "The graph store is unavailable: this comes from the document search alone (no entity links, no multi-hop paths)."));
  const out: HTMLElement[] = [banner];
  if (r.claims.length > 0) {
    const ol = h("ol", { class: "claims" });
    r.claims.forEach((c) => {
      const chips = h("span", { class: "chips" });
      for (const cit of c.citations) {
        const chip = h(
          "button",
          { type: "button", class: "chip cite" + (cit.verified ? " verified" : ""), "data-chunk-id": cit.chunk_id, "data-start": cit.start, "data-end": cit.end, title: `${cit.title} — ${cit.chunk_id}, bytes ${cit.start}–${cit.end}` },
          (cit.verified ? "✓ " : "") + (cit.title || cit.doc_id),
        );
        chip.addEventListener("click", () => openChunk(cit.chunk_id, { start: cit.start, end: cit.end, quote: cit.quote }, chip));
        chips.append(chip);
      }
      ol.append(h("li", { class: "claim" }, h("p", {}, c.text), chips));
    });
    out.push(h("h2", {}, "Claims"), ol);
  }
  if (r.paths.length > 0) {
    const nodes = new Map<string, GNode>();
    const edges = new Map<string, GEdge>();
    for (const p of r.paths) {
      for (const n of p.nodes) nodes.set(n.key, { key: n.key, name: n.name, type: n.type });
      for (const e of p.edges) {
        const k = `${e.from}\u0000${e.type}\u0000${e.to}`;
        const have = edges.get(k);
        if (have) have.chunkIDs = [...new Set([...have.chunkIDs, ...e.chunk_ids])];
        else edges.set(k, { from: e.from, to: e.to, type: e.type, chunkIDs: [...e.chunk_ids] });
      }
    }
    const cited = new Set(r.citations.map((c) => c.chunk_id));
    for (const c of r.claims) for (const ct of c.citations) cited.add(ct.chunk_id);
    const ns = [...nodes.values()];
    // Relations backed by a cited chunk first: they are the chain the answer stands on.
    const es = [...edges.values()].map((e) => ({ ...e, cited: e.chunkIDs.some((id) => cited.has(id)) })).sort((a, b) => Number(!!b.cited) - Number(!!a.cited));
    const block = graphBlock(`Evidence path${r.paths.length > 1 ? "s" : ""} (${r.paths.length})`, ns, es, subgraphCypher(es, ns), (n) => (location.hash = "entity/" + api.enc(n.key)));
    block.id = "path-graph";
    out.push(block);
  }
  if (r.trace) out.push(traceBlock(r.trace));
  out.push(h("p", { class: "muted small" }, `request ${r.request_id}`));
  clear(result, ...out);
}

function traceBlock(t: api.Trace): HTMLElement {
  const d = h("details", { class: "trace", open: true }, h("summary", {}, "Trace"));
  const r = t.router;
  d.append(
    h("h4", {}, "Router"),
    h("p", {}, h("strong", {}, r.route), ` (${r.classifier})`),
    h("ul", {}, ...(r.reasons ?? []).map((x) => h("li", {}, x))),
  );
  if (r.features && Object.keys(r.features).length) d.append(h("p", { class: "muted" }, "features: " + Object.entries(r.features).map(([k, v]) => `${k}=${v}`).join(", ")));
  if (t.linked_entities?.length) d.append(h("h4", {}, "Linked entities"), h("ul", {}, ...t.linked_entities.map((l) => h("li", {}, typeBadge(l.type), ` ${l.name} ← «${l.surface}»`))));
  if (t.steps?.length) {
    const tb = h("tbody");
    for (const s of t.steps) tb.append(h("tr", {}, h("td", {}, s.strategy), h("td", {}, String(s.hits)), h("td", {}, s.top_score.toFixed(3)), h("td", {}, s.coverage.toFixed(2)), h("td", {}, s.weak ? "weak → escalate" : "ok"), h("td", {}, s.duration_ms.toFixed(1)), h("td", {}, s.note ?? "")));
    d.append(h("h4", {}, "Retrieval steps"), h("div", { class: "scroll" }, h("table", {}, h("thead", {}, h("tr", {}, ...["strategy", "hits", "top score", "coverage", "evidence", "ms", "note"].map((x) => h("th", { scope: "col" }, x)))), tb)));
  }
  d.append(h("h4", {}, "Retries"), t.retries?.length ? h("ul", {}, ...t.retries.map((x) => h("li", {}, `${x.operation} attempt ${x.attempt}, waited ${x.wait_ms} ms: ${x.error}`))) : h("p", { class: "muted" }, "none"));
  if (t.generation_attempts?.length) d.append(h("h4", {}, `Generation (${t.generator})`), h("ul", {}, ...t.generation_attempts.map((a) => h("li", {}, `#${a.n} ${a.outcome}${a.error ? ": " + a.error : ""} — ${a.duration_ms.toFixed(1)} ms`))));
  if (t.timings_ms) d.append(h("h4", {}, "Timings (ms)"), h("p", {}, Object.entries(t.timings_ms).map(([k, v]) => `${k} ${v.toFixed(1)}`).join(" · ")));
  return d;
}

// ---------- entities ----------
const entityQ = $<HTMLInputElement>("entity-q");
const entityResults = $("entity-results");
const entityView = $("entity-view");
$("entity-form").addEventListener("submit", async (e) => {
  e.preventDefault();
  const q = entityQ.value.trim();
  if (!q) return;
  clear(entityResults, h("li", { class: "muted" }, "searching …"));
  try {
    const { entities } = await api.getJSON<{ entities: api.Entity[] }>(`/v1/entities?q=${api.enc(q)}&limit=20`);
    clear(entityResults);
    if (entities.length === 0) entityResults.append(h("li", { class: "muted" }, "no entity by that name"));
    for (const en of entities) {
      const a = h("a", { href: "#entity/" + api.enc(en.key), class: "entity" }, typeBadge(en.type), " ", en.name, " ", h("code", { class: "muted" }, en.key));
      entityResults.append(h("li", {}, a));
    }
  } catch (err) {
    clear(entityResults, h("li", {}, errorBox(err)));
  }
});

async function showEntity(key: string) {
  clear(entityView, h("p", { class: "muted" }, "loading " + key + " …"));
  try {
    const { entity, neighbors } = await api.getJSON<{ entity: api.Entity; neighbors: api.Neighbor[] }>(`/v1/entities/${api.enc(key)}/neighbors`);
    const nodes = new Map<string, GNode>([[entity.key, { key: entity.key, name: entity.name, type: entity.type, center: true }]]);
    const edges: GEdge[] = [];
    for (const n of neighbors) {
      nodes.set(n.entity.key, { key: n.entity.key, name: n.entity.name, type: n.entity.type });
      edges.push(n.direction === "out" ? { from: entity.key, to: n.entity.key, type: n.relation, chunkIDs: n.chunk_ids } : { from: n.entity.key, to: entity.key, type: n.relation, chunkIDs: n.chunk_ids });
    }
    const head = h(
      "div",
      { class: "entity-head" },
      h("h2", {}, typeBadge(entity.type), " ", entity.name),
      h("p", {}, h("code", {}, entity.key), entity.doc_id ? h("span", {}, " · described in ", h("a", { href: "#document/" + api.enc(entity.doc_id) }, entity.doc_id)) : null),
      entity.aliases.length ? h("p", { class: "muted" }, "also: " + entity.aliases.join(", ")) : null,
    );
    const cypher = `MATCH (n:Entity {key: '${entity.key.replace(/\\/g, "\\\\").replace(/'/g, "\\'")}'})-[r]-(m:Entity) RETURN n, r, m`;
    clear(entityView, head, graphBlock(`Neighbourhood (${neighbors.length} relations)`, [...nodes.values()], edges, cypher, (n) => n.key !== entity.key && (location.hash = "entity/" + api.enc(n.key))));
  } catch (err) {
    clear(entityView, err instanceof api.APIError && err.status === 404 ? h("p", { class: "error" }, "No such entity.") : errorBox(err));
  }
}

// ---------- documents ----------
const PAGE = 25;
let docsLoaded = false;
let docOffset = 0;
async function loadDocuments(offset: number) {
  docsLoaded = true;
  docOffset = offset;
  const list = $("doc-list");
  clear(list, h("p", { class: "muted" }, "loading …"));
  try {
    const r = await api.getJSON<{ documents: api.DocumentMeta[]; total: number }>(`/v1/documents?limit=${PAGE}&offset=${offset}`);
    const tb = h("tbody");
    for (const d of r.documents) {
      tb.append(
        h(
          "tr",
          {},
          h("td", {}, h("a", { href: "#document/" + api.enc(d.id) }, d.title || d.id), h("div", { class: "muted small" }, d.id)),
          h("td", {}, d.type, h("div", { class: "muted small" }, d.lang)),
          h("td", {}, "v" + d.version, h("div", { class: "muted small" }, d.updated)),
          h("td", {}, aclChips(d.acl)),
          h("td", { class: "num" }, String(d.chunks ?? "")),
        ),
      );
    }
    clear(list, h("table", { class: "docs" }, h("caption", {}, `${r.total} documents you may read`), h("thead", {}, h("tr", {}, ...["title", "type", "version", "readable by", "chunks"].map((x) => h("th", { scope: "col" }, x)))), tb));
    $<HTMLButtonElement>("doc-prev").disabled = offset === 0;
    $<HTMLButtonElement>("doc-next").disabled = offset + PAGE >= r.total;
    $("doc-page").textContent = r.total ? ` ${offset + 1}–${Math.min(offset + PAGE, r.total)} of ${r.total} ` : "";
  } catch (err) {
    clear(list, errorBox(err));
  }
}
$("doc-prev").addEventListener("click", () => loadDocuments(Math.max(0, docOffset - PAGE)));
$("doc-next").addEventListener("click", () => loadDocuments(docOffset + PAGE));

async function showDocument(id: string) {
  const view = $("doc-view");
  clear(view, h("p", { class: "muted" }, "loading " + id + " …"));
  try {
    const { document: d, chunks } = await api.getJSON<{ document: api.DocumentMeta; chunks: api.DocChunk[] }>(`/v1/documents/${api.enc(id)}`);
    const items = chunks.map((c) => {
      const open = h("button", { type: "button", class: "chip" }, "chunk " + c.position);
      open.addEventListener("click", () => openChunk(c.chunk_id, undefined, open));
      return h("article", { class: "doc-chunk", "data-chunk-id": c.chunk_id }, h("h4", {}, c.heading || "—", " ", open), h("div", { class: "chunk-text" }, c.text));
    });
    clear(
      view,
      h("h2", {}, d.title || d.id),
      h("dl", { class: "meta" }, h("dt", {}, "Id"), h("dd", {}, h("code", {}, d.id)), h("dt", {}, "Type"), h("dd", {}, d.type), h("dt", {}, "Language"), h("dd", {}, d.lang), h("dt", {}, "Version"), h("dd", {}, String(d.version)), h("dt", {}, "Updated"), h("dd", {}, d.updated), h("dt", {}, "Readable by"), h("dd", {}, aclChips(d.acl))),
      ...items,
    );
  } catch (err) {
    clear(view, err instanceof api.APIError && err.status === 404 ? h("p", { class: "error" }, "This document does not exist or you may not read it.") : errorBox(err));
  }
}

configLoaded.then(route);
document.documentElement.dataset.ready = "1";
