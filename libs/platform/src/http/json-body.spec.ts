import { jsonBodyProblem, MAX_JSON_DEPTH } from './json-body';

describe('jsonBodyProblem (bodies Postgres or a recursive walk cannot take)', () => {
  it('passes ordinary bodies, emoji (paired surrogates) included', () => {
    expect(jsonBodyProblem({ amount: '1.00', description: 'café 🎉', customer: { name: 'Zoë' }, metadata: { a: [1, { b: 'c' }] } })).toBeUndefined();
  });

  it('names the field holding NUL or a lone surrogate', () => {
    expect(jsonBodyProblem({ description: 'a\u0000b' })).toMatchObject({ param: 'description' });
    expect(jsonBodyProblem({ customer: { name: 'x\uD800' } })).toMatchObject({ param: 'customer.name' });
    expect(jsonBodyProblem({ customer: { city: '\uDC00x' } })).toMatchObject({ param: 'customer.city' });
    expect(jsonBodyProblem({ metadata: { 'k\u0000': 'v' } })).toMatchObject({ param: 'metadata' });
    expect(jsonBodyProblem({ metadata: { k: ['ok', 'bad\uDFFF'] } })).toMatchObject({ param: 'metadata' });
    expect(jsonBodyProblem({ methods: ['togo', 'x\u0000'] })).toMatchObject({ param: 'methods' });
    expect(jsonBodyProblem('\u0000')).toMatchObject({ param: undefined });
  });

  it('names the field holding a number past double\'s range (JSON.parse makes it Infinity)', () => {
    expect(jsonBodyProblem(JSON.parse('{"expires_in":1e400}'))).toMatchObject({ param: 'expires_in' });
    expect(jsonBodyProblem(JSON.parse('{"foo":-1e400}'))).toMatchObject({ param: 'foo' });
    expect(jsonBodyProblem(JSON.parse('{"metadata":{"a":[1e400]}}'))).toMatchObject({ param: 'metadata' });
    expect(jsonBodyProblem(JSON.parse('{"expires_in":1e300}'))).toBeUndefined();
  });

  it(`refuses nesting deeper than ${MAX_JSON_DEPTH} levels, without recursing further`, () => {
    const nest = (levels: number) => {
      let value: unknown = 1;
      for (let i = 0; i < levels; i++) value = [value];
      return value;
    };
    expect(jsonBodyProblem({ metadata: { a: nest(MAX_JSON_DEPTH - 3) } })).toBeUndefined();
    expect(jsonBodyProblem({ metadata: { a: nest(MAX_JSON_DEPTH) } })).toMatchObject({ param: 'metadata' });
    // 20 KB of nested arrays, as found: refused, not a stack overflow.
    expect(jsonBodyProblem(JSON.parse(`{"metadata":${'['.repeat(10000)}${']'.repeat(10000)}}`))).toMatchObject({ param: 'metadata' });
  });
});
