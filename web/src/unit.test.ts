// Unit tests of the page's parsers (node --test, via web/test.mjs): the SSE parser and the
// UTF-8 byte-offset split that highlights quotes.
import { test } from "node:test";
import assert from "node:assert/strict";
import { SSEParser } from "./sse";
import { splitAtBytes } from "./bytes";

test("SSE: events, multi-line data, comments, CRLF and split chunks", () => {
  const p = new SSEParser();
  const stream = ": hello\r\nevent:route\r\ndata:{\"a\":1}\r\n\r\nevent: answer\ndata: line1\ndata: line2\n\n";
  const got = [];
  for (let i = 0; i < stream.length; i += 3) got.push(...p.push(stream.slice(i, i + 3))); // split anywhere, even in CRLF
  got.push(...p.end());
  assert.deepEqual(got, [
    { event: "route", data: '{"a":1}' },
    { event: "answer", data: "line1\nline2" },
  ]);
});

test("SSE: an unterminated last event is flushed by end", () => {
  const p = new SSEParser();
  assert.deepEqual(p.push("data:x"), []);
  assert.deepEqual(p.end(), [{ event: "message", data: "x" }]);
});

test("bytes: offsets are UTF-8 bytes, not UTF-16 units", () => {
  const text = "Цена — 24 500 ₽ 😀 ok"; // 2-byte Cyrillic, 3-byte dash and ₽, 4-byte emoji
  const b = new TextEncoder().encode(text);
  const start = new TextEncoder().encode("Цена — ").length;
  const end = start + new TextEncoder().encode("24 500 ₽").length;
  assert.equal(start, 13);
  assert.deepEqual(splitAtBytes(text, start, end), { before: "Цена — ", quote: "24 500 ₽", after: " 😀 ok" });
  assert.equal(splitAtBytes(text, 0, b.length)?.quote, text);
  assert.equal(splitAtBytes(text, 1, 4), null); // inside «Ц»
  assert.equal(splitAtBytes(text, 5, b.length + 1), null);
  assert.equal(splitAtBytes(text, 6, 5), null);
});

test("graph: the Browser query finds an opaque uid: key by the node's uid", async () => {
  const { subgraphCypher } = await import("./graph");
  assert.equal(
    subgraphCypher([{ from: "clients/polyana", to: "uid:9f3", type: "CONTACT" }] as any, []),
    "OPTIONAL MATCH p0 = (:Entity {key: 'clients/polyana'})-[:`CONTACT`]-(:Entity {uid: '9f3'})\nRETURN p0",
  );
  assert.equal(
    subgraphCypher([], [{ key: "people/anna" }, { key: "uid:7a" }] as any),
    "MATCH (n:Entity) WHERE n.key IN ['people/anna'] OR n.uid IN ['7a'] RETURN n",
  );
});
