/**
 * The streaming CSV parser of imports (csv-stream.mjs): records must come out
 * whole however the body is cut into network chunks.
 */
import { describe, expect, it } from 'vitest';
import { createCsvStream } from '#adapters/simpleanalytics/csv-stream.mjs';

interface Parsed {
  records: string[][];
  ended: boolean;
  error: string | null;
}

function parse(chunks: readonly (string | Uint8Array)[]): Parsed {
  const out: Parsed = { records: [], ended: false, error: null };
  const stream = createCsvStream({
    record: (values) => void out.records.push(values),
    end: () => void (out.ended = true),
    fail: (message) => void (out.error = message),
  });
  for (const c of chunks) stream.write(typeof c === 'string' ? Buffer.from(c) : c);
  stream.end();
  return out;
}

/** Every way of cutting `bytes` in two, and one byte at a time. */
function cuts(bytes: Buffer): Buffer[][] {
  const all: Buffer[][] = [[...bytes].map((b) => Buffer.from([b]))];
  for (let i = 0; i <= bytes.length; i++) all.push([bytes.subarray(0, i), bytes.subarray(i)]);
  return all;
}

const SAMPLE = 'added_unix,uuid,path,document_referrer\n1,a,"/one, two",\n2,b,"/say ""hi""","line1\nline2"\n\n3,c,/straße,\n';
const EXPECTED = [
  ['added_unix', 'uuid', 'path', 'document_referrer'],
  ['1', 'a', '/one, two', ''],
  ['2', 'b', '/say "hi"', 'line1\nline2'],
  ['3', 'c', '/straße', ''],
];

describe('createCsvStream', () => {
  it('yields the same records wherever the body is cut, multi-byte characters included', () => {
    for (const chunks of cuts(Buffer.from(SAMPLE))) {
      expect(parse(chunks)).toEqual({ records: EXPECTED, ended: true, error: null });
    }
  });

  it('reads CRLF line ends, drops a byte-order mark, and takes a last line without its line end', () => {
    const crlf = `\uFEFF${SAMPLE.replace(/\n(?!line2)/g, '\r\n').trimEnd()}`;
    for (const chunks of cuts(Buffer.from(crlf))) {
      expect(parse(chunks).records).toEqual(EXPECTED);
    }
  });

  it('fails on an unclosed quote, text after a closing quote and a record with a different column count; reads a quote inside a bare field as text', () => {
    expect(parse(['a,b\n1,"x\n'])).toMatchObject({ ended: false, error: expect.stringMatching(/quote/i) });
    expect(parse(['a,b\n1,"ab"c\n'])).toMatchObject({ ended: false, error: expect.stringMatching(/quote/i) });
    expect(parse(['a,b\n1,x"y"z\n'])).toEqual({ records: [['a', 'b'], ['1', 'x"y"z']], ended: true, error: null });
    const short = parse(['a,b,c\n1,2,3\n', '4,5\n6,7,8\n']);
    expect(short).toMatchObject({ records: [['a', 'b', 'c'], ['1', '2', '3']], ended: false });
    expect(short.error).toBe('record 3 has 2 fields, the header 3');
  });

  it('refuses a record that never ends instead of holding the whole body', () => {
    const out: Parsed = { records: [], ended: false, error: null };
    const stream = createCsvStream({ record: (v) => void out.records.push(v), end: () => void (out.ended = true), fail: (m) => void (out.error = m) });
    stream.write(Buffer.from('a,b\n1,"'));
    const block = Buffer.alloc(64 * 1024, 'x');
    for (let i = 0; i < 20 && out.error === null; i++) stream.write(block);
    expect(out.error).toMatch(/longer than/);
    expect(out.records).toEqual([['a', 'b']]);
  });
});
