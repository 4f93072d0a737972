/** The reply of every list command: a page of items and whether more follow. */
export function listSchema(items: object) {
  return {
    type: 'object',
    required: ['object', 'data', 'has_more'],
    properties: { object: { const: 'list' }, data: { type: 'array', items }, has_more: { type: 'boolean' } },
  } as const;
}
