import { Controller, Get, Param } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { ApiError, commandPattern, ServiceClient, type CommandOptions, type PingAnswer } from '@payments/platform';
import { Auth } from '../auth/auth.decorator';
import { GatewayConfig } from '../config';
import type { AuthContext } from '../auth/auth-context';
import { Caller } from '../sessions-api/command-caller.decorator';
import { SERVICES, ServiceName } from '../services/service-names';

/**
 * Operators' check of the command path to one service: 200 with its answer, 503 when it does not answer. It
 * costs a hop to the service, so it takes an API key (and its rate limit) like any other route. `gateway`
 * answers from the gateway itself: the same route without the hop, so the two differ by what the hop costs.
 */
@ApiExcludeController()
@Controller('internal/services')
export class PingController {
  constructor(
    private readonly services: ServiceClient,
    private readonly config: GatewayConfig,
  ) {}

  @Get(':service/ping')
  async ping(@Auth() _auth: AuthContext, @Param('service') service: string, @Caller() caller: CommandOptions): Promise<PingAnswer & { latency_ms: number }> {
    if (service !== 'gateway' && !SERVICES.includes(service as ServiceName)) throw new ApiError('not_found', `No service named ${service}`, 'service');
    const started = performance.now();
    const answer =
      service === 'gateway'
        ? { service, instance: this.config.INSTANCE_ID, at: new Date().toISOString() }
        : await this.services.request<PingAnswer>(commandPattern(service, 'ping'), {}, caller);
    return { ...answer, latency_ms: Math.round((performance.now() - started) * 10) / 10 };
  }
}
