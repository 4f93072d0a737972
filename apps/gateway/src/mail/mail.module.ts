import { Module, type Provider } from '@nestjs/common';
import { randomBase62 } from '@payments/ids';
import { DataSource } from 'typeorm';
import { GatewayConfig } from '../config';
import { DevMailController } from './dev-mail.controller';
import { MailOutbox } from './mail-outbox';
import { MailOutboxRepository } from './mail-outbox.repository';
import { MailRecipients } from './mail-recipients';
import { parseRetryDelays } from './mail-retry.policy';
import { MailSender } from './mail.sender';
import { SmtpMailTransport } from './smtp-mail.transport';

/** Sends the outbox over SMTP, unless MAIL_TRANSPORT=page keeps every message for the development mail page. */
const senderProvider: Provider = {
  provide: MailSender,
  inject: [MailOutboxRepository, MailOutbox, GatewayConfig],
  useFactory: (repository: MailOutboxRepository, outbox: MailOutbox, config: GatewayConfig) =>
    config.MAIL_TRANSPORT === 'smtp'
      ? new MailSender(repository, new SmtpMailTransport(config.SMTP_URL, config.MAIL_FROM), outbox, {
          owner: `${config.INSTANCE_ID}:${randomBase62(8)}`,
          pollMs: config.MAIL_POLL_MS,
          delaysMs: parseRetryDelays(config.MAIL_RETRY_DELAYS_MS),
          giveUpAfterMs: config.MAIL_GIVE_UP_AFTER_MS,
        })
      : null,
};

/** E-mail to merchants: the outbox every feature writes to, its sender, and the development mail page. */
@Module({
  controllers: [DevMailController],
  providers: [
    { provide: MailOutboxRepository, inject: [DataSource, GatewayConfig], useFactory: (dataSource: DataSource, config: GatewayConfig) => new MailOutboxRepository(dataSource, config.DB_SCHEMA) },
    { provide: MailOutbox, inject: [MailOutboxRepository], useFactory: (repository: MailOutboxRepository) => new MailOutbox(repository) },
    { provide: MailRecipients, inject: [DataSource, GatewayConfig], useFactory: (dataSource: DataSource, config: GatewayConfig) => new MailRecipients(dataSource, config.DB_SCHEMA) },
    senderProvider,
  ],
  exports: [MailOutbox, MailRecipients],
})
export class MailModule {}
