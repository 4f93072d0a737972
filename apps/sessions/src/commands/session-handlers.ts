import type { SessionsCommandName } from '@payments/contracts';
import type { StreamScope } from '../event-store/event-store';
import { parseCommand } from './command-input';
import { parseCreateCommand, type CreateSessionInput } from './session-inputs';

/**
 * What every kind's command handlers share: a create and a get, each body checked against its schema (a 400
 * naming the field) before its use case runs. Each kind adds its own commands (simulate, cancel).
 */
export abstract class SessionHandlers<R> {
  protected constructor(
    private readonly names: { readonly create: SessionsCommandName; readonly get: SessionsCommandName },
    private readonly creating: { execute(input: CreateSessionInput): Promise<R> },
    private readonly reading: { get(scope: StreamScope, id: string): Promise<R> },
  ) {}

  async create(body: unknown, correlationId: string): Promise<R> {
    return this.creating.execute(parseCreateCommand(this.names.create, body, correlationId));
  }

  async get(body: unknown): Promise<R> {
    const { command, ...scope } = parseCommand(this.names.get, body);
    return this.reading.get(scope, command.id as string);
  }
}
