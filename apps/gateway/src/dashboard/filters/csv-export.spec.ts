import { csvLine, everyItem } from './csv-export';

describe('csvLine', () => {
  it('quotes what needs quoting and leaves the rest', () => {
    expect(csvLine(['pi_1', '12.50', 'a, b', 'say "hi"', 'two\nlines', null, undefined, 3, true])).toBe('pi_1,12.50,"a, b","say ""hi""","two\nlines",,,3,true\r\n');
  });

  it('keeps text a spreadsheet would run as a formula as text', () => {
    expect(csvLine(['=HYPERLINK("x")', '+1', '-2+1', '@SUM(A1)', 'ok'])).toBe(`"'=HYPERLINK(""x"")",'+1,'-2+1,'@SUM(A1),ok\r\n`);
    // A negative number is a number, not text from a customer (a refund's amount in a balance export stays summable).
    expect(csvLine([-2, '-7.50'])).toBe('-2,-7.50\r\n');
  });
});

describe('everyItem', () => {
  const pages = [
    { data: [{ id: 'a' }, { id: 'b' }], has_more: true },
    { data: [{ id: 'c' }, { id: 'd' }], has_more: true },
    { data: [{ id: 'e' }], has_more: false },
  ];

  it('walks every page once, each from the last id of the one before', async () => {
    const asked: Array<string | undefined> = [];
    const items: string[] = [];
    for await (const item of everyItem(async (after) => {
      asked.push(after);
      return pages[asked.length - 1]!;
    }, 100)) {
      items.push(item.id);
    }
    expect(items).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(asked).toEqual([undefined, 'b', 'd']);
  });

  it('stops at maxRows without asking for more pages', async () => {
    let asked = 0;
    const items: string[] = [];
    for await (const item of everyItem(async () => pages[asked++]!, 3)) items.push(item.id);
    expect(items).toEqual(['a', 'b', 'c']);
    expect(asked).toBe(2);
  });
});
