import { combineStatements } from './sql-statement';

describe('combineStatements', () => {
  it('chains the statements as CTEs and renumbers their placeholders', () => {
    const combined = combineStatements([
      { text: 'INSERT INTO a (x, y) VALUES ($1, $2)', params: [1, 2] },
      { text: 'INSERT INTO b (x) VALUES ($1::jsonb), ($2::jsonb)', params: ['{}', '[]'] },
      { text: 'INSERT INTO c (x) VALUES ($1)', params: ['z'] },
    ]);
    expect(combined.text).toBe(
      'WITH s1 AS (INSERT INTO a (x, y) VALUES ($1, $2)), s2 AS (INSERT INTO b (x) VALUES ($3::jsonb), ($4::jsonb)) INSERT INTO c (x) VALUES ($5)',
    );
    expect(combined.params).toEqual([1, 2, '{}', '[]', 'z']);
  });

  it('keeps a single statement as it is and refuses none', () => {
    expect(combineStatements([{ text: 'SELECT $1', params: [1] }])).toEqual({ text: 'SELECT $1', params: [1] });
    expect(() => combineStatements([])).toThrow();
  });

  it('renumbers two-digit placeholders', () => {
    const ten = Array.from({ length: 10 }, (_, i) => `$${i + 1}`).join(', ');
    const combined = combineStatements([
      { text: `SELECT ${ten}`, params: Array(10).fill(0) },
      { text: 'SELECT $1, $10', params: Array(10).fill(1) },
    ]);
    expect(combined.text).toBe(`WITH s1 AS (SELECT ${ten}) SELECT $11, $20`);
  });
});
