/** Log sink of the messaging classes; pino's `(obj, msg)` signature, so a pino logger can be passed as is. */
export interface MessagingLogger {
  debug(context: Record<string, unknown>, message: string): void;
  info(context: Record<string, unknown>, message: string): void;
  warn(context: Record<string, unknown>, message: string): void;
  error(context: Record<string, unknown>, message: string): void;
}

type Level = keyof MessagingLogger;
const LEVELS: Record<Level, number> = { debug: 20, info: 30, warn: 40, error: 50 };

/** JSON lines on stderr from `minLevel` up: what the classes use when no logger is given. */
export function jsonLogger(minLevel: Level = 'warn', name = 'messaging'): MessagingLogger {
  const write = (level: Level) => (context: Record<string, unknown>, message: string) => {
    if (LEVELS[level] < LEVELS[minLevel]) return;
    const line = JSON.stringify({ level: LEVELS[level], time: Date.now(), name, ...context, msg: message }, errorReplacer);
    process.stderr.write(`${line}\n`);
  };
  return { debug: write('debug'), info: write('info'), warn: write('warn'), error: write('error') };
}

function errorReplacer(_key: string, value: unknown): unknown {
  // No stack trace in a log line (DESIGN §5): the type and message say what failed.
  if (value instanceof Error) return { type: value.name, message: value.message };
  return value;
}

/** The message of anything thrown. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
