import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { buildAsyncApiDocument } from './asyncapi.document';

// docs/asyncapi.yaml is what consuming teams read: it must describe exactly the registered event types.
describe('docs/asyncapi.yaml', () => {
  it('equals the document built from the registered schemas (run `npm run build` to regenerate it)', () => {
    const file = parse(readFileSync(join(__dirname, '..', '..', '..', 'docs', 'asyncapi.yaml'), 'utf8')) as unknown;
    expect(file).toEqual(JSON.parse(JSON.stringify(buildAsyncApiDocument('payments'))));
  });
});
