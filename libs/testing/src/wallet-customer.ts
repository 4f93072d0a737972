// A customer signed in to their wallet (`togo`) the way a browser does it, for suites that drive the checkout
// without a browser (the fault suite, the benchmarks): the wallet page's e-mail form, the code read from the
// gateway's mail outbox (what the customer would read in their mailbox), the code form; then the session cookie and
// its form token, which every wallet form (pay, top up) needs.
import { Client } from 'pg';

export interface WalletCustomer {
  environment: 'live' | 'test';
  email: string;
  walletId: string;
  /** The gateway's origin (forms must name it). */
  origin: string;
  /** The cookies to send (name=value pairs). */
  cookie: string;
  /** The wallet session's form token. */
  csrf: string;
}

/** The cookies a response sets, over those already held. */
function withCookies(held: string, response: Response): string {
  const jar = new Map(held ? held.split('; ').map((pair) => [pair.split('=')[0]!, pair] as const) : []);
  for (const cookie of response.headers.getSetCookie()) {
    const pair = cookie.split(';')[0]!;
    jar.set(pair.split('=')[0]!, pair);
  }
  return [...jar.values()].join('; ');
}

function formTokenOf(html: string): string {
  const token = /name="_csrf" value="([^"]+)"/.exec(html)?.[1];
  if (!token) throw new Error('no form token on the wallet page');
  return token;
}

/**
 * Signs `email` in to its wallet in `environment` on the gateway at `origin` (the wallet is made at first sign-in).
 * `databaseUrl` is the gateway's database, where the e-mailed code is read from the mail outbox.
 */
export async function signInWalletCustomer(options: { origin: string; databaseUrl: string; environment: 'live' | 'test'; email: string }): Promise<WalletCustomer> {
  const { origin, environment } = options;
  const email = options.email.toLowerCase();
  const page = `${origin}/wallet/${environment}`;
  const post = async (path: string, cookie: string, fields: Record<string, string>) =>
    fetch(`${page}/${path}`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin, cookie },
      body: new URLSearchParams({ lang: 'en', from: 'wallet', ...fields }).toString(),
    });
  const first = await fetch(page);
  let cookie = withCookies('', first);
  cookie = withCookies(cookie, await post('code', cookie, { _csrf: formTokenOf(await first.text()), email }));
  const db = new Client({ connectionString: options.databaseUrl });
  await db.connect();
  try {
    const mail = await db.query<{ text: string }>(`SELECT text FROM gateway.mail_outbox WHERE recipient = $1 AND kind = 'wallet_code' ORDER BY created_at DESC LIMIT 1`, [email]);
    const code = /\b(\d{3} ?\d{3})\b/.exec(mail.rows[0]?.text ?? '')?.[1]?.replace(' ', '');
    if (!code) throw new Error(`no sign-in code was mailed to ${email}`);
    const codeForm = await fetch(page, { headers: { cookie } });
    cookie = withCookies(cookie, codeForm);
    const signedIn = await post('sign-in', cookie, { _csrf: formTokenOf(await codeForm.text()), code });
    cookie = withCookies(cookie, signedIn);
    const walletPage = await fetch(page, { headers: { cookie } });
    cookie = withCookies(cookie, walletPage);
    const html = await walletPage.text();
    const wallet = await db.query<{ id: string }>(`SELECT id FROM gateway.customer_wallets WHERE environment = $1 AND email = $2`, [environment, email]);
    if (!wallet.rows[0] || !html.includes('/top-up')) throw new Error(`${email} is not signed in to a ${environment} wallet (status ${walletPage.status})`);
    return { environment, email, walletId: wallet.rows[0].id, origin, cookie, csrf: formTokenOf(html) };
  } finally {
    await db.end();
  }
}
