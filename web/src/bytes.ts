// Citation offsets are UTF-8 byte offsets into the chunk text; JavaScript strings are UTF-16.
// splitAtBytes cuts the text at the byte offsets by slicing its UTF-8 encoding, so a quote after
// Cyrillic letters (2 bytes each) or ₽ (3 bytes) is highlighted where the server found it.

const enc = new TextEncoder();
const dec = new TextDecoder("utf-8", { fatal: true });

export interface Split {
  before: string;
  quote: string;
  after: string;
}

/** splitAtBytes returns the text before [start, end), the quote, and the rest; null when the
 * offsets are out of range or not on character boundaries. */
export function splitAtBytes(text: string, start: number, end: number): Split | null {
  const b = enc.encode(text);
  if (!Number.isInteger(start) || !Number.isInteger(end) || start < 0 || end < start || end > b.length) return null;
  try {
    return { before: dec.decode(b.subarray(0, start)), quote: dec.decode(b.subarray(start, end)), after: dec.decode(b.subarray(end)) };
  } catch {
    return null; // an offset inside a multi-byte character
  }
}
