// A server-sent events parser over a fetch() body (EventSource cannot POST).
// It follows the WHATWG rules that matter here: events end at a blank line, "event:" names the
// event (default "message"), several "data:" lines join with "\n", lines starting with ":" are
// comments, CRLF, CR and LF all end a line, and one optional space after the colon is dropped.

export interface SSEvent {
  event: string;
  data: string;
}

export class SSEParser {
  private buf = "";
  private event = "";
  private data: string[] = [];
  private sawCR = false;

  /** push decodes nothing: it takes text and returns the events it completed. */
  push(text: string): SSEvent[] {
    const out: SSEvent[] = [];
    if (this.sawCR && text.startsWith("\n")) text = text.slice(1);
    this.sawCR = false;
    this.buf += text;
    for (;;) {
      const m = /\r\n|\r|\n/.exec(this.buf);
      if (!m) break;
      if (m[0] === "\r" && m.index === this.buf.length - 1) {
        // A trailing CR may be the first half of CRLF: take the line, remember to skip an LF.
        this.sawCR = true;
      }
      const line = this.buf.slice(0, m.index);
      this.buf = this.buf.slice(m.index + m[0].length);
      this.line(line, out);
    }
    return out;
  }

  /** end flushes an event the stream did not terminate with a blank line. */
  end(): SSEvent[] {
    const out: SSEvent[] = [];
    if (this.buf !== "") this.line(this.buf, out);
    this.buf = "";
    this.line("", out);
    return out;
  }

  private line(line: string, out: SSEvent[]) {
    if (line === "") {
      if (this.data.length > 0) out.push({ event: this.event || "message", data: this.data.join("\n") });
      this.event = "";
      this.data = [];
      return;
    }
    if (line.startsWith(":")) return;
    const i = line.indexOf(":");
    const field = i < 0 ? line : line.slice(0, i);
    let value = i < 0 ? "" : line.slice(i + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "event") this.event = value;
    else if (field === "data") this.data.push(value);
  }
}

/** readEvents calls onEvent for each event of a streaming response body. */
export async function readEvents(body: ReadableStream<Uint8Array>, onEvent: (e: SSEvent) => void): Promise<void> {
  const reader = body.getReader();
  const dec = new TextDecoder("utf-8");
  const p = new SSEParser();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    for (const e of p.push(dec.decode(value, { stream: true }))) onEvent(e);
  }
  for (const e of p.push(dec.decode())) onEvent(e);
  for (const e of p.end()) onEvent(e);
}
