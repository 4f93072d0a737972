// Test helpers over the real infrastructure: databases, Kafka topics, service processes and the whole stack,
// a Kafka broker and a PostgreSQL cluster of a test's own (to stop and restart), a DNS server whose answers a
// test controls, a merchant's verifying webhook endpoint, and an SMTP server that keeps what services e-mail.
export {
  COMMAND_URL_SETTINGS,
  exitOf,
  freePort,
  REPO_ROOT,
  startService,
  type AppName,
  type RunningService,
} from './services';
export { createTestDatabase, uniqueName, type TestDatabase } from './postgres';
export {
  collectMessages,
  deleteNamespaceTopics,
  groupLag,
  TEST_KAFKA_BROKERS,
  topicMessages,
  testKafka,
  uniqueTopic,
  waitFor,
  type CollectedMessage,
} from './kafka';
export { callGateway, commandUrlSettings, startStack, type ApiResponse, type Stack, type TestMerchant } from './stack';
export { startTestDnsServer, type TestDnsServer, type TestDnsServerOptions } from './dns-server';
export { HangingUpProxy, PrivateKafka, PrivatePostgres } from './private-infra';
export { LahzaStandIn, localCertificate, type LahzaStandInOptions, type LocalCertificate, type StandInRefund } from './lahza-standin';
export { TestWebhookReceiver, type TestWebhookReceiverOptions, type WebhookArrival } from './webhook-receiver';
export { TestTraceCollector, type CollectedSpan } from './trace-collector';
export { startInMemoryTracing, type InMemoryTracing } from './in-memory-tracing';
export { startTestSmtpServer, TestSmtpServer, type ReceivedMail, type TestSmtpServerOptions } from './smtp-server';
export { signInWalletCustomer, type WalletCustomer } from './wallet-customer';
export { PgCountingProxy, tallyMinus, type PgTally } from './pg-counting-proxy';
export { recordStatements, type IssuedStatement, type StatementRecorder } from './statements';
export { monitorRedis, type MonitoredCommand } from './redis-monitor';
export { anvilBinary, startAnvil, type AnvilOptions, type RunningAnvil } from './anvil';
export {
  ANVIL_MNEMONIC,
  anvilDevAccount,
  blockHashAt,
  chainHead,
  compiledTestToken,
  deployTestToken,
  ERC20_TEST_ABI,
  mineBlocks,
  mintToken,
  rawTransaction,
  reorgChain,
  resendTransaction,
  rollbackChain,
  rpc,
  sendToken,
  testChainClient,
  tokenBalance,
  type ChainHead,
  type ReorgRawTransaction,
  type ReorgTransfer,
  type SendTokenOptions,
  type TestTokenSpec,
} from './test-chain';
