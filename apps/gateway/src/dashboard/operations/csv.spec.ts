import { csvLine } from '../filters/csv-export';
import { csvFileName, csvLines } from './csv';

const csvCell = (value: string | number) => csvLine([value]).slice(0, -2);

async function collect(lines: AsyncGenerator<string>): Promise<string[]> {
  const out: string[] = [];
  for await (const line of lines) out.push(line);
  return out;
}

describe('CSV export', () => {
  it('neutralises every cell a spreadsheet would run as a formula', () => {
    expect(csvCell('=HYPERLINK("http://x")')).toBe(`"'=HYPERLINK(""http://x"")"`);
    expect(csvCell('+1+2')).toBe("'+1+2");
    expect(csvCell('-2+3')).toBe("'-2+3");
    expect(csvCell('@SUM(A1)')).toBe("'@SUM(A1)");
    expect(csvCell('\tcmd')).toBe("'\tcmd");
  });

  it("keeps plain numbers (a refund's negative amount) as numbers", () => {
    expect(csvCell('-12.50')).toBe('-12.50');
    expect(csvCell('74.00')).toBe('74.00');
    expect(csvCell(7)).toBe('7');
  });

  it('quotes commas, quotes and line breaks, and leaves absent values empty', () => {
    expect(csvLine(['a,b', 'say "hi"', 'two\nlines', null, undefined, 'plain'])).toBe('"a,b","say ""hi""","two\nlines",,,plain\r\n');
  });

  it('pages through the list command with starting_after and stops at the bound', async () => {
    const items = Array.from({ length: 7 }, (_, i) => ({ id: `p${7 - i}` }));
    const asked: Array<[string | undefined, number]> = [];
    const page = async (after: string | undefined, limit: number) => {
      asked.push([after, limit]);
      const start = after ? items.findIndex((item) => item.id === after) + 1 : 0;
      const data = items.slice(start, start + limit);
      return { data, has_more: start + limit < items.length };
    };
    const all = await collect(csvLines(['id'], (item) => [item.id], page, 100, 3));
    expect(all).toEqual(['id\r\n', ...items.map((item) => `${item.id}\r\n`)]);
    expect(asked).toEqual([
      [undefined, 3],
      ['p5', 3],
      ['p2', 3],
    ]);

    asked.length = 0;
    const bounded = await collect(csvLines(['id'], (item) => [item.id], page, 4, 3));
    expect(bounded).toEqual(['id\r\n', 'p7\r\n', 'p6\r\n', 'p5\r\n', 'p4\r\n']);
    expect(asked).toEqual([
      [undefined, 3],
      ['p5', 3],
    ]);
  });

  it('names the file by list, environment and day', () => {
    expect(csvFileName('payments', 'test', new Date('2026-11-27T10:00:00Z'))).toBe('payments-test-2026-11-27.csv');
  });
});
