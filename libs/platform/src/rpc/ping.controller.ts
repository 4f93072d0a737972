import { Controller, Type } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { ServiceConfig } from '@payments/config';
import { commandPattern } from './command-pattern';
import type { RpcReply, RpcRequest } from './rpc-message';
import { serveCommand } from './serve-command';

export interface PingAnswer {
  service: string;
  instance: string;
  at: string;
}

/** A `ping` command every command-serving service answers: proves the command path end to end. */
export function createPingController(service: string): Type<unknown> {
  @Controller()
  class PingController {
    constructor(private readonly config: ServiceConfig) {}

    @MessagePattern(commandPattern(service, 'ping'))
    ping(@Payload() request: RpcRequest): Promise<RpcReply<PingAnswer>> {
      return serveCommand(request, async () => ({ service, instance: this.config.INSTANCE_ID, at: new Date().toISOString() }));
    }
  }
  return PingController;
}
