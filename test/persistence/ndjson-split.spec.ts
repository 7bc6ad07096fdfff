// The pipeline worker takes an NDJSON line apart (its stored hash, and the text the hash covers) by
// scanning its structure instead of parsing it (splitNdjson in chunk-work.ts); the main thread then
// parses a chunk's texts as one JSON array. The replay is only right if that pair reads exactly what
// the sequential verifier reads line by line: these properties say so against the parsing reference
// (splitParsed), on canonical lines and on token soup that is mostly not JSON at all.
import { expect } from 'chai';
import fc from 'fast-check';
import { canonicalJson } from '../../src/events/canonical.ts';
import { splitNdjson, splitParsed } from '../../src/server/persistence/pipeline/chunk-work.ts';

const hex64 = fc.stringMatching(/^[0-9a-f]{64}$/);
// Values with strings that hold JSON's own punctuation (quotes, braces, brackets, the hash member's text).
const trickyString = fc.oneof(fc.string(), fc.constantFrom('},{', '"', '\\', '","hash":"', ']', '[{', 'hash', '\\"}'));
const value = fc.letrec((tie) => ({
  v: fc.oneof({ depthSize: 'small' }, fc.integer(), fc.boolean(), fc.constant(null), trickyString, fc.array(tie('v'), { maxLength: 3 }), fc.dictionary(fc.oneof(fc.string(), fc.constant('hash')), tie('v'), { maxKeys: 4 })),
})).v;
const event = fc.dictionary(fc.string().filter((k) => k !== 'hash'), value, { maxKeys: 6 });

describe('NDJSON lines taken apart without parsing (pipeline worker)', () => {
  it('on every canonical line agrees with the parsing split, and takes every line without a backslash whose hash follows another member', () => {
    fc.assert(
      fc.property(event, hex64, (e, hash) => {
        const line = canonicalJson({ ...e, hash });
        const scanned = splitNdjson(line);
        const parsed = splitParsed(line);
        if (scanned !== null) expect(scanned).to.deep.equal(parsed);
        const hashFirst = Object.keys(e).every((k) => k > 'hash');
        if (!line.includes('\\') && !hashFirst) expect(scanned).to.not.equal(null);
        if (scanned !== null) expect(JSON.parse(scanned.text)).to.deep.equal(JSON.parse(canonicalJson(e)));
      }),
      { numRuns: 3000 },
    );
  });

  // Token soup: lines that are mostly not JSON. Whatever the scan accepts, if the chunk's texts then
  // parse as one array with one element a line, each line must be JSON on its own and its element
  // must be exactly the line without its hash member, as the sequential verifier would read it.
  const token = fc.constantFrom('{', '}', '[', ']', '"a"', '"hash"', ':', ',', '1', 'true', '"},{"', '"hash":"ab"', ',"hash":"ab"', ',"hash":"cd"', '"x\u0001"', '\t', '"\\""', ' ');
  const soup = fc.array(token, { maxLength: 14 }).map((t) => '{' + t.join(''));
  const objectLine = fc.tuple(event, hex64).map(([e, h]) => canonicalJson({ ...e, hash: h }));
  const line = fc.oneof(soup, objectLine, fc.tuple(objectLine, fc.nat(), fc.nat()).map(([l, a, b]) => {
    // A valid line with a slice cut out: unbalanced, or balanced and not JSON.
    const from = a % l.length;
    return l.slice(0, from) + l.slice(from + (b % 6));
  }));
  it('accepts nothing that would read differently through one array parse than line by line', () => {
    let arraysParsed = 0;
    fc.assert(
      fc.property(fc.array(line, { minLength: 1, maxLength: 4 }), (lines) => {
        const splits = lines.map(splitNdjson);
        // The worker vouches for a line only when its hash equals a SHA-256 in hex: hex digits only.
        if (splits.some((s) => s === null || !/^[0-9a-f]*$/.test(s.hash))) return;
        let elements: unknown;
        try {
          elements = JSON.parse(`[${splits.map((s) => s?.text).join(',')}]`);
        } catch {
          return;
        }
        if (!Array.isArray(elements) || elements.length !== lines.length) return;
        arraysParsed++;
        lines.forEach((l, i) => {
          const alone = splitParsed(l);
          expect(alone, l).to.not.equal(null);
          expect(alone?.hash).to.equal(splits[i]?.hash);
          const { hash: _h, ...rest } = JSON.parse(l) as Record<string, unknown>;
          expect(elements[i]).to.deep.equal(rest);
        });
      }),
      { numRuns: 20_000 },
    );
    // The property is not vacuous: many draws got as far as the array.
    expect(arraysParsed).to.be.greaterThan(1000);
  });

  it('refuses a line whose braces close before its end, a string left open, a hash first or twice, or one not a string', () => {
    const h = 'a'.repeat(64);
    expect(splitNdjson(`{"seq":1,"hash":"${h}"}`)).to.deep.equal({ hash: h, text: '{"seq":1}' });
    for (const bad of [`{"seq":1},{"hash":"${h}"}`, `{"seq":1,"hash":"${h}"`, `{"seq":"1,"hash":"${h}"}`, `{"hash":"${h}","seq":1}`, `{"seq":1,"hash":"${h}","hash":"${h}"}`, `{"seq":1,"hash":1}`, ` {"seq":1,"hash":"${h}"}`, `{"seq":1,"hash":"${h}"}\r`, `{"seq":1,"data":{"x":1,"hash":"${h}"}}`]) {
      expect(splitNdjson(bad), bad).to.equal(null);
    }
    // A line with an escape is parsed (the scan does not follow escapes).
    expect(splitNdjson(`{"name":"a\\"b","hash":"${h}"}`)).to.deep.equal({ hash: h, text: '{"name":"a\\"b"}' });
  });
});
