import type { FastifyReply } from 'fastify';
import { Readable } from 'node:stream';

/**
 * Sends CSV lines as a download. The header line and the first page are read before anything is sent, so a
 * refused or unavailable list still answers with its error page; a failure after that cuts the download short.
 */
export async function sendCsv(reply: FastifyReply, fileName: string, lines: AsyncGenerator<string>): Promise<void> {
  const first: string[] = [];
  for (let i = 0; i < 2; i += 1) {
    const next = await lines.next();
    if (next.done) break;
    first.push(next.value);
  }
  async function* all(): AsyncGenerator<string> {
    yield* first;
    yield* lines;
  }
  await reply
    .code(200)
    .headers({
      'content-type': 'text/csv; charset=utf-8',
      'content-disposition': `attachment; filename="${fileName}"`,
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
    })
    .send(Readable.from(all()));
}
