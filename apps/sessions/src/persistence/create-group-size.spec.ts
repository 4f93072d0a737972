import type { SqlStatement } from '@payments/database';
import { CREATE_GROUP_SIZES, createGroupSize, MAX_BIND_PARAMETERS } from './create-group-size';

const create = (params: number): SqlStatement[] => [
  { text: 'INSERT', params: Array<unknown>(params - 1).fill(0) },
  { text: 'INSERT', params: [0] },
];
const creates = (n: number, params = 32) => Array.from({ length: n }, () => create(params));

describe('createGroupSize', () => {
  it('takes every waiting create when their count is one of the sizes', () => {
    for (const size of CREATE_GROUP_SIZES) expect(createGroupSize(creates(size))).toBe(size);
  });

  it('rounds down to a size, so group sizes make few statement texts', () => {
    expect(createGroupSize(creates(5))).toBe(4);
    expect(createGroupSize(creates(50))).toBe(48);
    expect(createGroupSize(creates(2100))).toBe(64);
  });

  it('keeps a group within the bind parameters one statement may have, and always takes one', () => {
    const big = Math.floor(MAX_BIND_PARAMETERS / 10);
    expect(createGroupSize(creates(64, big))).toBe(8); // 10 fit, 8 is the size below
    expect(createGroupSize(creates(3, MAX_BIND_PARAMETERS))).toBe(1);
  });
});
