import { createConnection } from 'node:net';

/** A command Redis's MONITOR reported: its name and arguments, and who sent it (`lua` for a script's own calls). */
export interface MonitoredCommand {
  args: string[];
  source: string;
}

/**
 * Reports every command Redis runs, from MONITOR on a plain socket. ioredis's own `monitor()` can fail with
 * "Command queue state error" when another client's command is logged in the same read as MONITOR's +OK (the
 * connection is not yet marked as monitoring): on a shared CI Redis that happens.
 */
export async function monitorRedis(url: string, onCommand: (command: MonitoredCommand) => void): Promise<{ stop(): void }> {
  const { hostname, port } = new URL(url);
  const socket = createConnection({ host: hostname || '127.0.0.1', port: Number(port || 6379) });
  let buffered = '';
  let started = false;
  await new Promise<void>((resolve, reject) => {
    socket.once('error', reject);
    socket.on('data', (chunk: Buffer) => {
      buffered += chunk.toString('utf8');
      let end: number;
      while ((end = buffered.indexOf('\r\n')) >= 0) {
        const line = buffered.slice(0, end);
        buffered = buffered.slice(end + 2);
        if (!started) {
          if (line !== '+OK') return reject(new Error(`MONITOR answered ${line}`));
          started = true;
          resolve();
          continue;
        }
        // +1339518083.107412 [0 127.0.0.1:60866] "keys" "*"   (a script's calls: [0 lua])
        const match = /^\+\S+ \[\d+ ([^\]]+)\] (.*)$/.exec(line);
        if (!match) continue;
        const args = [...match[2]!.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((arg) => arg[1]!.replace(/\\(.)/g, '$1'));
        onCommand({ args, source: match[1]! });
      }
    });
    socket.write('MONITOR\r\n');
  });
  socket.on('error', () => undefined);
  return { stop: () => socket.destroy() };
}
