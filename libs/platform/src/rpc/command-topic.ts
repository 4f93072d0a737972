/**
 * Request/reply over Kafka. A command is named `<namespace>.<service>.commands.<name>` (the handler's message
 * pattern); every command of a service travels on the service's one topic `<namespace>.<service>.commands`
 * with the command name in the `command` header, and replies go to the caller's one reply topic. One topic
 * per service instead of one per command keeps fetches small: kafkajs has no incremental fetch sessions, so
 * every fetch lists every partition a consumer holds. The namespace (KAFKA_NAMESPACE) keeps deployments and
 * test runs sharing a broker apart; it is read when handler decorators are evaluated, so it comes from the
 * environment directly.
 */
export function commandTopic(service: string, command: string, namespace = currentNamespace()): string {
  const name = `${namespace}.${service}.commands.${command}`;
  declared.add(name);
  return name;
}

/** The Kafka header that names the command a message on a service's command topic carries. */
export const COMMAND_HEADER = 'command';

/** The topic a command travels on: its service's command topic. */
export function serviceCommandTopic(command: string): string {
  const at = command.lastIndexOf('.commands.');
  if (at < 0) throw new Error(`not a command name: ${command}`);
  return command.slice(0, at + '.commands'.length);
}

/** Where a caller's replies come back, e.g. `payments.gateway.replies`. */
export function replyTopic(namespace: string, caller: string): string {
  return `${namespace}.${caller}.replies`;
}

// Every command named so far; decorators run at import, so by bootstrap this holds all the process serves.
const declared = new Set<string>();

/** Command topics of the commands this process has named: created before the command server subscribes. */
export function declaredCommandTopics(): string[] {
  return [...new Set([...declared].map(serviceCommandTopic))];
}

export function currentNamespace(): string {
  const value = process.env.KAFKA_NAMESPACE;
  return value && value.length > 0 ? value : 'payments';
}
