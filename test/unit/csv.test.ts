/** The dashboard's CSV builder (issue 40, part 5): quoting, formula injection, the panels' and chart's files. */
import { describe, expect, it } from 'vitest';
import { breakdownCsv, csvCell, csvFileName, seriesCsv, toCsv } from '#dashboard/ui/csv.ts';

describe('csv cells', () => {
  it('quote quotes, commas and line breaks, and double the quotes', () => {
    expect(csvCell('plain')).toBe('plain');
    expect(csvCell('a,b')).toBe('"a,b"');
    expect(csvCell('say "hi"')).toBe('"say ""hi"""');
    expect(csvCell('two\nlines')).toBe('"two\nlines"');
    expect(csvCell('cr\rhere')).toBe('"cr\rhere"');
    expect(csvCell('')).toBe('');
    expect(csvCell(null)).toBe('');
  });

  it("prefix what a spreadsheet would run as a formula with ' (and quote it when needed)", () => {
    expect(csvCell('=HYPERLINK("http://evil.example","x")')).toBe(`"'=HYPERLINK(""http://evil.example"",""x"")"`);
    expect(csvCell('+1')).toBe("'+1");
    expect(csvCell('-2+3')).toBe("'-2+3");
    expect(csvCell('@SUM(A1)')).toBe("'@SUM(A1)");
    expect(csvCell('\t=1')).toBe("'\t=1");
    expect(csvCell('\r=1')).toBe(`"'\r=1"`);
    expect(csvCell('/pricing?a=1')).toBe('/pricing?a=1');
    expect(csvCell('a=b')).toBe('a=b');
  });

  it('write numbers as numbers, negative ones too, and nothing for NaN', () => {
    expect(csvCell(12)).toBe('12');
    expect(csvCell(-3)).toBe('-3');
    expect(csvCell(0.25)).toBe('0.25');
    expect(csvCell(Number.NaN)).toBe('');
  });
});

describe('csv files', () => {
  it('end every line with CRLF, header first', () => {
    expect(toCsv(['a', 'b'], [['x', 1], [null, 'y,z']])).toBe('a,b\r\nx,1\r\n,"y,z"\r\n');
    expect(toCsv(['a'], [])).toBe('a\r\n');
  });

  it('hold a breakdown panel’s rows: name, visitors, and its value by the panel’s label', () => {
    const rows = [
      { name: '/', visitors: 3, value: 5 },
      { name: '=cmd', visitors: 1, value: 1 },
    ];
    expect(breakdownCsv(rows, 'Pageviews')).toBe("name,visitors,pageviews\r\n/,3,5\r\n'=cmd,1,1\r\n");
    expect(breakdownCsv([{ name: 'NL', visitors: 2 }], null)).toBe('name,visitors\r\nNL,2\r\n');
  });

  it('hold the chart’s buckets as UTC times with pageviews and visitors', () => {
    expect(seriesCsv([{ t: 1_700_000_000, pageviews: 4, visitors: 2 }])).toBe('bucket_start,pageviews,visitors\r\n2023-11-14T22:13:20.000Z,4,2\r\n');
  });

  it('are named from their parts', () => {
    expect(csvFileName('blog.example.com', 'Top pages', '2025-01-01')).toBe('blog.example.com-top-pages-2025-01-01.csv');
    expect(csvFileName('a/../b', '')).toBe('a-..-b.csv');
  });
});
