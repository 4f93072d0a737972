// The chain watcher: a process of its own beside the sessions service (same code, same schema), so a slow or
// failing JSON-RPC node never slows a payment command. Entry: dist/apps/sessions/src/chain-watcher/main.js.
import './tracing';
import 'reflect-metadata';
import { readCryptoSettings, type CryptoSettings } from '@payments/chain';
import { ConfigError } from '@payments/config';
import { bootstrapService } from '@payments/platform';
import { SESSIONS_MIGRATIONS } from '../migrations/sessions-schema';
import { ChainWatcherConfig, CHAIN_WATCHER_DEFAULTS } from './chain-watcher.config';
import { ChainWatcherModule } from './chain-watcher.module';
import { sessionsPorts } from './sessions-ports';

function cryptoSettingsOrExit(): CryptoSettings {
  try {
    return readCryptoSettings(process.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`chain-watcher: ${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
}

void bootstrapService({
  service: 'chain-watcher',
  imports: [ChainWatcherModule.forRoot(cryptoSettingsOrExit(), sessionsPorts)],
  configClass: ChainWatcherConfig,
  defaults: CHAIN_WATCHER_DEFAULTS,
  database: { migrations: SESSIONS_MIGRATIONS },
});
