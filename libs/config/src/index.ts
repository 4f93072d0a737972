// Service settings from the environment: one validated class per service, checked once at start.
export { ConfigError } from './config-error';
export { loadConfig } from './load-config';
export { ServiceConfig, trustProxyOption } from './service-config';
export { CommandUrls, NotDefaultInProduction, OffInProduction, Parses, parseFlag } from './config.validators';
export { DEVELOPMENT_COMMAND_SECRET, parseCommandSecrets, PUBLISHED_COMMAND_SECRETS } from './command-secret';
