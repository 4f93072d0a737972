// A real SMTP server in the test process: services send to it as to any mail server, and a test reads what arrived.
import { simpleParser, type AddressObject } from 'mailparser';
import type { AddressInfo } from 'node:net';
import { SMTPServer, type SMTPServerSession } from 'smtp-server';
import { freePort } from './services';

export interface ReceivedMail {
  /** The envelope's recipients (RCPT TO). */
  to: string[];
  /** The envelope's sender (MAIL FROM). */
  from: string;
  /** The From header as written. */
  fromHeader: string;
  subject: string;
  text: string;
  html: string | null;
  messageId: string | null;
  /** The user the client logged in as, if it did. */
  user: string | null;
  at: number;
}

export interface TestSmtpServerOptions {
  /** When given, a client must log in with these (AUTH PLAIN/LOGIN over the plain connection). */
  auth?: { user: string; password: string };
  /** How long the server takes to accept each message (a slow server: senders overlap); changeable later. */
  answerDelayMs?: number;
}

type SmtpError = Error & { responseCode: number };

const smtpError = (code: number, message: string): SmtpError => Object.assign(new Error(message), { responseCode: code });

export class TestSmtpServer {
  readonly received: ReceivedMail[] = [];
  /** Attempts refused (by refuseNext), for a test that wants to see the retries happen. */
  refused = 0;
  /** How long the server takes to accept each message from now on. */
  answerDelayMs: number;
  private refusals: number[] = [];
  private server?: SMTPServer;
  private port = 0;

  constructor(private readonly options: TestSmtpServerOptions = {}) {
    this.answerDelayMs = options.answerDelayMs ?? 0;
  }

  /** Listens on loopback (on the port it had before a stop, or a free one); answers the port. */
  async start(): Promise<number> {
    const port = this.port || (await freePort());
    const server = this.create();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
    this.server = server;
    this.port = (server.server.address() as AddressInfo).port;
    return this.port;
  }

  /** `smtp://[user:password@]127.0.0.1:<port>`: what a service's SMTP_URL is set to. */
  get url(): string {
    const auth = this.options.auth ? `${encodeURIComponent(this.options.auth.user)}:${encodeURIComponent(this.options.auth.password)}@` : '';
    return `smtp://${auth}127.0.0.1:${this.port}`;
  }

  /** The next `count` messages are refused at MAIL FROM with `code` (451: try again later); nothing of them is kept. */
  refuseNext(count: number, code = 451): void {
    this.refusals.push(...Array.from({ length: count }, () => code));
  }

  /** Resolves with the first message `predicate` accepts, waiting for it up to `timeoutMs`. */
  async waitFor(predicate: (mail: ReceivedMail) => boolean, timeoutMs = 20_000): Promise<ReceivedMail> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.received.find(predicate);
      if (found) return found;
      if (Date.now() >= deadline) {
        const seen = this.received.map((mail) => `${mail.to.join(',')}: ${mail.subject}`).join('; ') || 'none';
        throw new Error(`timed out after ${timeoutMs} ms waiting for a message (received: ${seen})`);
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** The messages `predicate` accepts, as received so far. */
  matching(predicate: (mail: ReceivedMail) => boolean): ReceivedMail[] {
    return this.received.filter(predicate);
  }

  /** Stops listening and drops open connections (a server gone down); start() again brings it back on its port. */
  stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    return new Promise((resolve) => (server ? server.close(() => resolve()) : resolve()));
  }

  private create(): SMTPServer {
    const required = this.options.auth;
    return new SMTPServer({
      // Plain connections only: the sender talks to it as to a server on its own network.
      disabledCommands: required ? ['STARTTLS'] : ['STARTTLS', 'AUTH'],
      authOptional: !required,
      allowInsecureAuth: true,
      logger: false,
      // A stop is a server gone: connections left open are cut after this, not after the default 30 s.
      closeTimeout: 500,
      onAuth: (auth, _session, callback) => {
        if (required && auth.username === required.user && auth.password === required.password) callback(null, { user: auth.username });
        else callback(smtpError(535, 'Authentication failed'));
      },
      onMailFrom: (_address, _session, callback) => {
        const code = this.refusals.shift();
        if (code === undefined) return callback();
        this.refused++;
        callback(smtpError(code, code < 500 ? 'Try again later' : 'Refused'));
      },
      onData: (stream, session, callback) => {
        simpleParser(stream)
          .then(async (parsed) => {
            if (this.answerDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, this.answerDelayMs));
            this.received.push({
              to: session.envelope.rcptTo.map((rcpt) => rcpt.address),
              from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
              fromHeader: addressText(parsed.from),
              subject: parsed.subject ?? '',
              text: parsed.text ?? '',
              html: typeof parsed.html === 'string' ? parsed.html : null,
              messageId: parsed.messageId ?? null,
              user: userOf(session),
              at: Date.now(),
            });
            callback();
          })
          .catch((error: unknown) => callback(error instanceof Error ? error : new Error(String(error))));
      },
    });
  }
}

function addressText(address: AddressObject | AddressObject[] | undefined): string {
  if (!address) return '';
  return (Array.isArray(address) ? address : [address]).map((a) => a.text).join(', ');
}

function userOf(session: SMTPServerSession): string | null {
  return typeof session.user === 'string' ? session.user : null;
}

/** A started TestSmtpServer. */
export async function startTestSmtpServer(options: TestSmtpServerOptions = {}): Promise<TestSmtpServer> {
  const server = new TestSmtpServer(options);
  await server.start();
  return server;
}
