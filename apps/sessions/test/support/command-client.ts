// A command client built like the gateway's: sends sessions commands to the given instances' command ports.
import { DEVELOPMENT_COMMAND_SECRET } from '@payments/config';
import { commandPattern, CommandClient, ServiceClient, type CommandOptions, type PingAnswer } from '@payments/platform';
import { uniqueName, type RunningService } from '@payments/testing';
import { SESSIONS_SERVICE, type SessionsCommandMap } from '@payments/contracts';

export interface SessionsCommandClient {
  request<K extends keyof SessionsCommandMap>(
    command: K,
    body: SessionsCommandMap[K]['body'],
    correlationId?: string,
    options?: Omit<CommandOptions, 'correlationId'>,
  ): Promise<SessionsCommandMap[K]['reply']>;
  /** The platform's ping: which instance answered. */
  ping(): Promise<PingAnswer>;
  close(): Promise<void>;
}

export function connectSessionsCommandClient(instances: Array<RunningService | string>, timeoutMs = 20_000): SessionsCommandClient {
  const urls = instances.map((instance) => (typeof instance === 'string' ? instance : instance.commandUrl!));
  const client = new CommandClient({ upstreams: { [SESSIONS_SERVICE]: urls }, secrets: [DEVELOPMENT_COMMAND_SECRET] });
  const service = new ServiceClient(client, timeoutMs);
  return {
    request: (command, body, correlationId = uniqueName('req'), options = {}) =>
      service.request(commandPattern(SESSIONS_SERVICE, command), body, { ...options, correlationId }),
    ping: () => service.request(commandPattern(SESSIONS_SERVICE, 'ping'), {}, { correlationId: uniqueName('ping') }),
    close: () => client.close(),
  };
}
