// The work a pipeline worker does on one chunk of a log (a run of whole lines): frame the lines, check
// every chain link, and hand back the events as one JSON array text, which the main thread parses in a
// single JSON.parse, checks the shape of when the source is not trusted (checkedEvents in
// chunk-pipeline.ts) and folds. A log of one chunk is processed on the calling thread, shape included.
// The worker parses no event: NDJSON lines are taken apart by a scan of their structure (splitNdjson),
// and the caller's one JSON.parse of the array is what proves their grammar.
//
// Every link is checked against the stored hash of the line before it (H(stored previous ‖ text) must
// equal the stored hash), so chunks are verified independently, in parallel; the main thread then
// checks that each chunk starts from the hash the previous one ended with, which makes the whole
// chain verified exactly as a sequential pass would. Anything unusual (a missing hash, a line that is
// not JSON, a broken link, a malformed event) makes the chunk `ok: false`: the main thread re-reads it
// with the sequential verifier, which names the fault exactly as it always has.
import { sha256Hex } from '../../../events/hash.ts';
import { copyUnescape } from '../postgres/copy-text.ts';

/** `copy`: rows of COPY (select seq, hash, canonical ...) TO STDOUT. `ndjson`: canonical events with a hash member. */
export type ChunkFormat = 'copy' | 'ndjson';

export interface ChunkRequest {
  readonly id: number;
  readonly format: ChunkFormat;
  /** Whole lines, each ending with a newline (the last chunk of a source may lack the final one). */
  readonly bytes: Uint8Array;
  /** The hash before the first line when known (the first chunk), else taken from `context`. */
  readonly prev: string | null;
  /** The line just before the chunk, whose stored hash the first line chains from. */
  readonly context: Uint8Array | null;
}

export interface ChunkResult {
  readonly id: number;
  /** The chunk's bytes, handed back for a sequential re-read if the main thread needs one. */
  readonly bytes: Uint8Array;
  /** Lines in the chunk, blank ones included (for NDJSON line numbers). */
  readonly lines: number;
  readonly ok: boolean;
  /** Whether each event's shape was checked here (otherwise the caller checks the parsed events). */
  readonly validated: boolean;
  /** Whether a worker thread processed it (else the calling thread did: a short log, or while the workers start). */
  readonly byWorker: boolean;
  /** The events as a JSON array text, in order. */
  readonly events: string;
  readonly count: number;
  /**
   * COPY rows: the seq column of the first row (the rows' columns run on from it by one, checked here);
   * the caller checks it continues its log, as the events' own seqs must. NaN for NDJSON.
   */
  readonly firstSeq: number;
  /** The hash the first event chains from, and the last event's hash. */
  readonly prevHash: string;
  readonly lastHash: string;
}

// A byte-order mark is kept, as the sequential reader keeps it (a line starting with one is not JSON):
// TextDecoder would drop one at the start of every chunk, and a log would read differently by chunk size.
const decoder = new TextDecoder('utf-8', { ignoreBOM: true });

function hashOfCopyLine(line: string): string | null {
  const t1 = line.indexOf('\t');
  const t2 = line.indexOf('\t', t1 + 1);
  return t1 < 0 || t2 < 0 ? null : line.slice(t1 + 1, t2);
}

/**
 * The stored hash of an NDJSON line, and the text it covers (the line without its hash member).
 *
 * A line as the exchange writes it (no backslash in it, the hash a top-level member after another) is
 * taken apart by scanning its structure, not parsed: JSON.parse of every line was half of a worker's
 * time and made the worker the bound of a replay on two cores (docs/benchmarks.md, Replay). The scan
 * proves the line is one object whose braces and brackets balance outside strings and close only at
 * its end, and finds its one top-level hash member; the caller's JSON.parse of the chunk's texts as
 * one array then proves the grammar, and, every text being balanced on its own, each array element is
 * exactly one line (a chunk whose array does not parse goes to the sequential verifier, which names the
 * line). Anything else (an escape, whitespace around the hash, a hash first or twice) is parsed here as
 * before, or left to the sequential verifier.
 */
export function splitNdjson(line: string): { hash: string; text: string } | null {
  if (line.indexOf('\\') >= 0) return splitParsed(line);
  const n = line.length;
  if (line.charCodeAt(0) !== 123) return null;
  let depth = 0;
  let hashAt = -1;
  for (let i = 0; i < n; i++) {
    const c = line.charCodeAt(i);
    if (c === 34) {
      // A string, without escapes in this line: it ends at the next quote.
      const close = line.indexOf('"', i + 1);
      if (close < 0) return null;
      if (depth === 1 && close === i + 5 && line.charCodeAt(close + 1) === 58 && line.startsWith('hash', i + 1)) {
        if (hashAt >= 0) return null;
        hashAt = i;
      }
      i = close;
    } else if (c === 123 || c === 91) depth++;
    else if (c === 125 || c === 93) {
      depth--;
      if (depth === 0 && i !== n - 1) return null;
    }
  }
  if (depth !== 0 || hashAt < 2 || line.charCodeAt(hashAt - 1) !== 44 || line.charCodeAt(hashAt + 7) !== 34) return null;
  // The comma must follow a member's value: cut from `{,"hash":"…"}`, it would leave `{}`, valid where
  // the line is not.
  const before = line.charCodeAt(hashAt - 2);
  if (before === 123 || before === 44 || before === 58 || before === 91 || before <= 32) return null;
  const end = line.indexOf('"', hashAt + 8);
  const after = line.charCodeAt(end + 1);
  if (after !== 44 && after !== 125) return null;
  const member = line.slice(hashAt - 1, end + 1);
  // The member once in the line, as the sequential verifier requires of the text it cuts it from.
  if (line.indexOf(member) !== hashAt - 1 || line.indexOf(member, hashAt) >= 0) return null;
  // The hash's own characters are not checked here: the caller compares it with a SHA-256 in hex, so a
  // line is only vouched for when it is 64 hex digits.
  return { hash: line.slice(hashAt + 8, end), text: line.slice(0, hashAt - 1) + line.slice(end + 1) };
}

/** splitNdjson by parsing the line: for lines with escapes, and for a chunk's context line. */
export function splitParsed(line: string): { hash: string; text: string } | null {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return null;
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return null;
  const hash = (value as { hash?: unknown }).hash;
  if (typeof hash !== 'string') return null;
  // A hash as the exchange writes it needs no escaping; anything else is looked for as JSON encodes it.
  let member = `,"hash":"${hash}"`;
  let at = line.indexOf(member);
  if (at < 0) {
    member = `,"hash":${JSON.stringify(hash)}`;
    at = line.indexOf(member);
  }
  if (at < 0 || line.indexOf(member, at + 1) >= 0) return null;
  return { hash, text: line.slice(0, at) + line.slice(at + member.length) };
}

function contextHash(format: ChunkFormat, context: Uint8Array): string | null {
  let line = decoder.decode(context);
  if (line.endsWith('\n')) line = line.slice(0, -1);
  if (format === 'copy') return hashOfCopyLine(line);
  return splitParsed(line)?.hash ?? null;
}

/**
 * Frames and hash-checks one chunk; with `wellFormed` (the check of one event's text,
 * well-formed-event.ts, zod) it also validates each event's shape (an untrusted source). Only the
 * calling thread validates (a log of one chunk), so the workers never load the schemas, which were most
 * of a worker's start (about 40-110 ms of 65-140).
 */
export function processChunk(request: ChunkRequest, wellFormed?: (text: string) => boolean, byWorker = false): ChunkResult {
  const text = decoder.decode(request.bytes);
  let lines = 0;
  const failed = (): ChunkResult => {
    return { id: request.id, bytes: request.bytes, lines: countLines(text), ok: false, validated: false, byWorker, events: '', count: 0, firstSeq: Number.NaN, prevHash: '', lastHash: '' };
  };
  const prevHash = request.prev ?? (request.context === null ? null : contextHash(request.format, request.context));
  if (prevHash === null) return failed();
  let prev = prevHash;
  const texts: string[] = [];
  let firstSeq = Number.NaN;
  let start = 0;
  while (start < text.length) {
    let nl = text.indexOf('\n', start);
    if (nl < 0) nl = text.length;
    const line = text.slice(start, nl);
    start = nl + 1;
    lines++;
    let hash: string;
    let body: string;
    if (request.format === 'copy') {
      const t1 = line.indexOf('\t');
      const t2 = line.indexOf('\t', t1 + 1);
      if (t1 < 0 || t2 < 0) return failed();
      // The seq column, as the row-by-row reader checks it against the event: a row whose column was
      // changed must not pass here unnoticed (the next start would find the log's seqs broken).
      const seq = Number(line.slice(0, t1));
      if (texts.length === 0) firstSeq = seq;
      if (!Number.isSafeInteger(seq) || seq !== firstSeq + texts.length) return failed();
      hash = line.slice(t1 + 1, t2);
      body = copyUnescape(line.slice(t2 + 1));
      if (wellFormed !== undefined && !wellFormed(body)) return failed();
    } else {
      if (line.trim() === '') continue;
      const split = splitNdjson(line);
      if (split === null) return failed();
      // The text without its hash member is what gets folded, so that is what is checked (a line with
      // two top-level hash members keeps one in the text: it must fail here as it does in the caller).
      if (wellFormed !== undefined && !wellFormed(split.text)) return failed();
      hash = split.hash;
      body = split.text;
    }
    if (sha256Hex(prev + body) !== hash) return failed();
    texts.push(body);
    prev = hash;
  }
  return { id: request.id, bytes: request.bytes, lines, ok: true, validated: wellFormed !== undefined, byWorker, events: `[${texts.join(',')}]`, count: texts.length, firstSeq, prevHash, lastHash: prev };
}

function countLines(text: string): number {
  let n = 0;
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) n++;
  return text.length > 0 && !text.endsWith('\n') ? n + 1 : n;
}
