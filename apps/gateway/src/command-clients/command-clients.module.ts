import { Global, Inject, Module, OnApplicationShutdown } from '@nestjs/common';
import { parseCommandSecrets } from '@payments/config';
import { CommandClient, ServiceClient } from '@payments/platform';
import { GatewayConfig } from '../config';
import type { ServiceName } from './service-names';

const COMMAND_CLIENT = Symbol('COMMAND_CLIENT');

/** Commands to the owning services, straight to their internal command ports (CommandClient). */
@Global()
@Module({
  providers: [
    {
      provide: COMMAND_CLIENT,
      inject: [GatewayConfig],
      useFactory: (config: GatewayConfig) => {
        const upstreams: Record<ServiceName, string[]> = {
          sessions: config.SESSIONS_URL,
          ledger: config.LEDGER_URL,
          refunds: config.REFUNDS_URL,
          webhooks: config.WEBHOOKS_URL,
        };
        return new CommandClient({
          upstreams,
          connections: config.COMMAND_CONNECTIONS,
          answerWindowMs: config.COMMAND_ANSWER_WINDOW_MS,
          secrets: parseCommandSecrets(config.COMMAND_SECRET),
        });
      },
    },
    {
      provide: ServiceClient,
      inject: [COMMAND_CLIENT, GatewayConfig],
      useFactory: (client: CommandClient, config: GatewayConfig) => new ServiceClient(client, config.REQUEST_TIMEOUT_MS),
    },
  ],
  exports: [ServiceClient],
})
export class CommandClientsModule implements OnApplicationShutdown {
  constructor(@Inject(COMMAND_CLIENT) private readonly client: CommandClient) {}

  async onApplicationShutdown(): Promise<void> {
    await this.client.close();
  }
}
