// The API's shapes (httpapi/openapi.yaml) and the calls the page makes. Every request goes to
// the page's own origin; the API key is sent as a bearer token and lives in sessionStorage only.
import { readEvents } from "./sse";

export type Status = "answered" | "not_found" | "refused" | "index_empty" | "unavailable";

export interface Citation {
  chunk_id: string;
  doc_id: string;
  title: string;
  quote: string;
  start: number;
  end: number;
  verified: boolean;
}
export interface Claim {
  text: string;
  citations: Citation[];
}
export interface PathNode {
  key: string;
  name: string;
  type: string;
  doc_id?: string;
}
export interface PathEdge {
  from: string;
  to: string;
  type: string;
  chunk_ids: string[];
}
export interface Path {
  nodes: PathNode[];
  edges: PathEdge[];
}
export interface Decision {
  route: string;
  classifier: string;
  reasons: string[] | null;
  features?: Record<string, number>;
}
export interface Step {
  strategy: string;
  hits: number;
  top_score: number;
  coverage: number;
  weak: boolean;
  note?: string;
  duration_ms: number;
}
export interface Trace {
  router: Decision;
  linked_entities: { key: string; name: string; type: string; surface: string; latin_name: boolean }[] | null;
  steps: Step[] | null;
  retries: { operation: string; attempt: number; wait_ms: number; error: string }[] | null;
  timings_ms: Record<string, number> | null;
  generator: string;
  generation_attempts: { n: number; outcome: string; error?: string; duration_ms: number; failures?: unknown[] }[] | null;
}
export interface QueryResponse {
  status: Status;
  answer: string;
  reason?: string;
  route?: string;
  citations: Citation[];
  claims: Claim[];
  paths: Path[];
  /** the stores the answer went without: "graph" when Neo4j was unavailable */
  degraded?: string[];
  trace?: Trace;
  request_id: string;
}
export interface Entity {
  key: string;
  name: string;
  type: string;
  doc_id?: string;
  aliases: string[];
}
export interface Neighbor {
  relation: string;
  direction: "out" | "in";
  entity: Entity;
  chunk_ids: string[];
}
export interface DocumentMeta {
  id: string;
  title: string;
  type: string;
  lang: string;
  updated: string;
  version: number;
  acl: string[];
  chunks?: number;
}
export interface DocChunk {
  chunk_id: string;
  position: number;
  heading: string;
  text: string;
  start: number;
  end: number;
}
export interface Chunk {
  chunk_id: string;
  doc_id: string;
  title: string;
  heading: string;
  text: string;
  /** byte offsets in the document; absent when the graph store was down and the chunk index answered */
  start?: number;
  end?: number;
  doc_version: number;
  updated: string;
  lang: string;
  acl: string[];
}
export interface UIConfig {
  neo4j_browser_url: string;
}

/** APIError is an error response: {"error":{"code","message","request_id"}}. */
export class APIError extends Error {
  constructor(
    public status: number,
    public code: string,
    message: string,
    public requestID = "",
  ) {
    super(message);
  }
}

const KEY = "ariadne.apiKey";
export function apiKey(): string {
  return sessionStorage.getItem(KEY) ?? "";
}
export function setAPIKey(k: string) {
  if (k) sessionStorage.setItem(KEY, k);
  else sessionStorage.removeItem(KEY);
}

function headers(extra: Record<string, string> = {}): Headers {
  const h = new Headers(extra);
  const k = apiKey();
  if (k) h.set("Authorization", "Bearer " + k);
  return h;
}

async function failure(resp: Response): Promise<APIError> {
  try {
    const b = await resp.json();
    if (b && b.error) return new APIError(resp.status, b.error.code, b.error.message, b.error.request_id);
  } catch {
    /* not JSON */
  }
  return new APIError(resp.status, "http_" + resp.status, resp.statusText || "request failed");
}

export async function getJSON<T>(path: string, signal?: AbortSignal): Promise<T> {
  const resp = await fetch(path, { headers: headers({ Accept: "application/json" }), signal, credentials: "omit" });
  if (!resp.ok) throw await failure(resp);
  return (await resp.json()) as T;
}

export const enc = encodeURIComponent;

export interface StreamHandlers {
  route(d: Decision): void;
  retrieval(d: { hits: number; steps: Step[] | null; route: string }): void;
  verification(d: { attempt: number; ok: boolean; error?: string; status?: string; verified_claims?: number; failures?: unknown[] }): void;
  answer(r: QueryResponse): void;
}

/** ask posts the question with Accept: text/event-stream and dispatches the events. */
export async function ask(
  req: { question: string; mode: string; debug: boolean },
  h: StreamHandlers,
  signal?: AbortSignal,
): Promise<void> {
  const resp = await fetch("/v1/query", {
    method: "POST",
    headers: headers({ "Content-Type": "application/json", Accept: "text/event-stream" }),
    body: JSON.stringify(req),
    signal,
    credentials: "omit",
  });
  const ct = resp.headers.get("Content-Type") ?? "";
  if (!ct.startsWith("text/event-stream")) {
    // Validation and authentication errors come back as plain JSON before the stream starts.
    if (!resp.ok) throw await failure(resp);
    h.answer((await resp.json()) as QueryResponse);
    return;
  }
  if (!resp.body) throw new APIError(resp.status, "no_body", "the response has no body");
  let answered = false;
  let streamErr: APIError | null = null;
  await readEvents(resp.body, (e) => {
    let data: any;
    try {
      data = JSON.parse(e.data);
    } catch {
      return;
    }
    switch (e.event) {
      case "route":
        h.route(data);
        break;
      case "retrieval":
        h.retrieval(data);
        break;
      case "verification":
        h.verification(data);
        break;
      case "answer":
        answered = true;
        h.answer(data);
        break;
      case "error":
        streamErr = new APIError(400, data?.error?.code ?? "error", data?.error?.message ?? "error", data?.error?.request_id);
        break;
    }
  });
  if (streamErr) throw streamErr;
  if (!answered) throw new APIError(0, "stream_ended", "the stream ended before the answer");
}
