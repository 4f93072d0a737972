import { Logger } from '@nestjs/common';
import { ClientKafka, KafkaHeaders, type ReadPacket, type WritePacket } from '@nestjs/microservices';
import { createKafka, ensureTopics } from '@payments/messaging';
import { Partitioners, type Message, type Producer } from 'kafkajs';
import { withBatchedSends } from './batching-producer';
import { COMMAND_HEADER, serviceCommandTopic } from './command-topic';
import { ServiceClient } from './service-client';

/**
 * The Nest Kafka client, routed the way command-topic.ts describes: a command goes to its service's command
 * topic with its name in a header, and every reply comes back on this client's one reply topic.
 */
export class CommandClientKafka extends ClientKafka {
  constructor(
    options: ConstructorParameters<typeof ClientKafka>[0],
    private readonly replies: string,
  ) {
    super(options);
    this.responsePatterns.push(replies);
  }

  override subscribeToResponseOf(): void {
    // Replies of every command share the one reply topic, subscribed from the start.
  }

  protected override getResponsePatternName(): string {
    return this.replies;
  }

  protected override publish(partialPacket: ReadPacket, callback: (packet: WritePacket) => unknown): () => void {
    const packet = this.assignPacketId(partialPacket);
    this.routingMap.set(packet.id, callback);
    const cleanup = () => this.routingMap.delete(packet.id);
    const fail = (err: unknown) => {
      cleanup();
      callback({ err });
    };
    try {
      const command = this.normalizePattern(partialPacket.pattern);
      const replyPartition = this.getReplyTopicPartition(this.replies);
      Promise.resolve(this.serializer.serialize(packet.data, { pattern: command }))
        .then((message: Message & { headers: Record<string, string> }) => {
          message.headers[KafkaHeaders.CORRELATION_ID] = packet.id;
          message.headers[KafkaHeaders.REPLY_TOPIC] = this.replies;
          message.headers[KafkaHeaders.REPLY_PARTITION] = replyPartition;
          message.headers[COMMAND_HEADER] = command;
          return this._producer!.send({ topic: serviceCommandTopic(command), messages: [message], ...(this.options.send ?? {}) });
        })
        .catch(fail);
      return cleanup;
    } catch (err) {
      fail(err);
      return () => undefined;
    }
  }
}

export interface CommandClientOptions {
  brokers: string[];
  clientId: string;
  /** Consumer group of the reply topic; all instances of one caller share it (each gets its own partitions). */
  groupId: string;
  /** This caller's reply topic (see replyTopic()). */
  replies: string;
  /** Commands it will send: their services' command topics are created if missing. */
  commands: string[];
  timeoutMs: number;
  commandPartitions?: number;
  replyPartitions?: number;
}

export interface ConnectedCommandClient {
  client: CommandClientKafka;
  service: ServiceClient;
}

/** Creates the topics, connects, batches the sends of concurrent callers and waits for a reply partition. */
export async function connectCommandClient(options: CommandClientOptions): Promise<ConnectedCommandClient> {
  const kafka = createKafka({ brokers: options.brokers, clientId: `${options.clientId}-setup` });
  await ensureTopics(kafka, [...new Set(options.commands.map(serviceCommandTopic))], options.commandPartitions ?? 3);
  await ensureTopics(kafka, [options.replies], options.replyPartitions ?? 6);
  const client = new CommandClientKafka(
    {
      postfixId: '',
      client: { clientId: options.clientId, brokers: options.brokers },
      consumer: { groupId: options.groupId, allowAutoTopicCreation: false },
      producer: { allowAutoTopicCreation: false, createPartitioner: Partitioners.DefaultPartitioner },
      // A new reply group must not start at "latest": a reply written before its offsets are first resolved
      // would be skipped and its request time out. Old replies it reads find no waiting request.
      subscribe: { fromBeginning: true },
      // Replies are matched to waiting requests in memory; their offsets matter little, so commit rarely.
      run: { autoCommitInterval: 5000 },
    },
    options.replies,
  );
  await client.connect();
  // Requests from concurrent callers leave in one produce request per event-loop turn.
  const internals = client as unknown as { _producer: Producer };
  internals._producer = withBatchedSends(internals._producer);
  await waitForReplyPartition(client, options.replies);
  return { client, service: new ServiceClient(client, options.timeoutMs) };
}

/** The transport needs a reply partition before it can send; joining the group takes a moment. */
async function waitForReplyPartition(client: ClientKafka, replies: string, timeoutMs = 30000): Promise<void> {
  const started = Date.now();
  while (Date.now() - started < timeoutMs) {
    if (client.getConsumerAssignments()[replies] !== undefined) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  new Logger('CommandClient').warn({ replies }, 'no reply partition assigned yet; requests fail with 503 until one is');
}
