import { Injectable } from '@nestjs/common';
import { REFUNDS_COMMANDS, REFUNDS_SERVICE, type RefundsCommandMap, type RefundsCommandName } from '@payments/contracts';
import { commandPattern, ServiceClient, type CommandOptions } from '@payments/platform';

/** Typed commands to the refunds service. */
@Injectable()
export class RefundsClient {
  private readonly patterns = new Map<RefundsCommandName, string>(Object.values(REFUNDS_COMMANDS).map((name) => [name, commandPattern(REFUNDS_SERVICE, name)]));

  constructor(private readonly services: ServiceClient) {}

  send<N extends RefundsCommandName>(name: N, body: RefundsCommandMap[N]['body'], caller: CommandOptions): Promise<RefundsCommandMap[N]['reply']> {
    return this.services.request(this.patterns.get(name)!, body, caller);
  }
}
