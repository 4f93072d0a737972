/**
 * Request/reply over Kafka: each command is a topic `<namespace>.<service>.commands.<name>`; the transport adds
 * `<topic>.reply`. The namespace (KAFKA_NAMESPACE) keeps deployments and test runs sharing a broker apart; it
 * is read when handler decorators are evaluated, so it comes from the environment directly.
 */
export function commandTopic(service: string, command: string, namespace = currentNamespace()): string {
  const topic = `${namespace}.${service}.commands.${command}`;
  declared.add(topic);
  return topic;
}

// Every topic named so far; decorators run at import, so by bootstrap this holds all the process serves.
const declared = new Set<string>();

/** Command topics this process has named: created before the command server subscribes to them. */
export function declaredCommandTopics(): string[] {
  return [...declared];
}

export function currentNamespace(): string {
  const value = process.env.KAFKA_NAMESPACE;
  return value && value.length > 0 ? value : 'payments';
}
