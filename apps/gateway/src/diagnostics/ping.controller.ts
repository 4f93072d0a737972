import { Controller, Get, Param, Req } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { ApiError, PingAnswer, ServiceClient, commandTopic } from '@payments/platform';
import type { FastifyRequest } from 'fastify';
import { SERVICES, ServiceName } from '../services/service-topics';

/** Operators' check of the request/reply path to one service: 200 with its answer, 503 when it does not answer. */
@ApiExcludeController()
@Controller('internal/services')
export class PingController {
  constructor(private readonly services: ServiceClient) {}

  @Get(':service/ping')
  async ping(@Param('service') service: string, @Req() request: FastifyRequest): Promise<PingAnswer & { latency_ms: number }> {
    if (!SERVICES.includes(service as ServiceName)) throw new ApiError('not_found', `No service named ${service}`, 'service');
    const started = performance.now();
    const answer = await this.services.request<PingAnswer>(commandTopic(service, 'ping'), {}, String(request.id));
    return { ...answer, latency_ms: Math.round((performance.now() - started) * 10) / 10 };
  }
}
