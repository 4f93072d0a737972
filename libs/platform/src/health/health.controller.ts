import { Controller, Get, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { Readiness } from './readiness';

/**
 * The probes on the service's own port: status only. What is down and why (error text of Postgres or Kafka) is on
 * the operations port, which is not published.
 */
@ApiExcludeController()
@Controller('health')
export class HealthController {
  constructor(private readonly readiness: Readiness) {}

  /** The process is alive and its event loop turns. */
  @Get('live')
  live(): { status: 'ok' } {
    return { status: 'ok' };
  }

  /** Ready only while its dependencies answer (Readiness); a 503 takes the instance out of the load balancer. */
  @Get('ready')
  async ready(@Res({ passthrough: true }) reply: FastifyReply): Promise<{ status: 'ok' | 'unavailable' }> {
    const { ready } = await this.readiness.check();
    if (!ready) void reply.status(503);
    return { status: ready ? 'ok' : 'unavailable' };
  }
}
