import { Transform } from 'class-transformer';
import { IsBoolean, IsString } from 'class-validator';
import { NotDefaultInProduction, OffInProduction, parseFlag, Parses } from './config.validators';
import { ConfigError, loadConfig, ServiceConfig } from './index';

const DEFAULT_TOKEN = 'development-token';

function parseToken(text: string): string {
  if (!/^[a-z-]{8,}$/.test(text)) throw new Error(`TOKEN must be 8 or more lower-case letters or dashes, got ${text.length} characters`);
  return text;
}

class Sample extends ServiceConfig {
  @IsString()
  @Parses(parseToken, 'a token')
  @NotDefaultInProduction(DEFAULT_TOKEN, { equals: (value, fallback) => String(value).trim() === fallback })
  TOKEN: string = DEFAULT_TOKEN;

  @Transform(parseFlag)
  @IsBoolean()
  @OffInProduction()
  DEBUG_ROUTES: boolean = false;
}

const load = (env: Record<string, string>) => () => loadConfig(Sample, env);

describe('config validators', () => {
  it('reads flags literally and keeps the default when unset', () => {
    expect(loadConfig(Sample, {}).DEBUG_ROUTES).toBe(false);
    expect(loadConfig(Sample, { DEBUG_ROUTES: 'Yes' }).DEBUG_ROUTES).toBe(true);
    expect(loadConfig(Sample, { DEBUG_ROUTES: 'false' }).DEBUG_ROUTES).toBe(false);
    expect(load({ DEBUG_ROUTES: 'sometimes' })).toThrow('DEBUG_ROUTES must be a boolean');
  });

  it('names what the parser refused without showing the value', () => {
    expect(load({ TOKEN: 'SECRET!' })).toThrow(ConfigError);
    expect(load({ TOKEN: 'SECRET!' })).toThrow('TOKEN must be a token: must be 8 or more lower-case letters or dashes, got 7 characters');
    expect(load({ TOKEN: 'SECRET!' })).not.toThrow('SECRET!');
  });

  it('refuses development defaults and switches in production', () => {
    expect(load({ NODE_ENV: 'production', TOKEN: ` ${DEFAULT_TOKEN}` })).toThrow('TOKEN must be set when NODE_ENV=production');
    expect(load({ NODE_ENV: 'production', TOKEN: 'real-token', DEBUG_ROUTES: '1' })).toThrow(
      'DEBUG_ROUTES is a development setting and is refused when NODE_ENV=production',
    );
    expect(loadConfig(Sample, { NODE_ENV: 'production', TOKEN: 'real-token', COMMAND_SECRET: 'c'.repeat(40) }).TOKEN).toBe('real-token');
    expect(loadConfig(Sample, { DEBUG_ROUTES: '1' }).DEBUG_ROUTES).toBe(true);
  });
});
