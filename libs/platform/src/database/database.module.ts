import { DynamicModule, Logger, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ServiceConfig } from '@payments/config';
import { PG_SESSION_OPTIONS } from '@payments/database';
import { DataSource, DataSourceOptions, EntitySchema, MixedList } from 'typeorm';
import { runMigrationsLocked } from './run-migrations';
import { TableStatisticsKeeper } from './table-statistics';

export interface DatabaseOptions {
  entities?: MixedList<Function | string | EntitySchema>;
  migrations?: MixedList<Function | string>;
}

export function dataSourceOptions(config: ServiceConfig, options: DatabaseOptions): DataSourceOptions {
  return {
    type: 'postgres',
    url: config.DATABASE_URL,
    schema: config.DB_SCHEMA,
    entities: options.entities ?? [],
    migrations: options.migrations ?? [],
    migrationsTableName: 'migrations',
    migrationsRun: false,
    synchronize: false,
    applicationName: `${config.KAFKA_NAMESPACE}:${config.DB_SCHEMA}`,
    extra: {
      max: config.DB_POOL_SIZE,
      connectionTimeoutMillis: 5000,
      // 0 keeps idle connections (pg-pool's own default would close them after 10 s): see DB_POOL_IDLE_TIMEOUT_MS.
      idleTimeoutMillis: config.DB_POOL_IDLE_TIMEOUT_MS,
      // A kept connection the network dropped (a NAT's idle limit, a lost node) is found and replaced while idle,
      // not by the next payment's statement.
      keepAlive: true,
      keepAliveInitialDelayMillis: 10000,
      // Session settings of every pooled connection (pg sends them at connect; 0 leaves the server's default).
      lock_timeout: config.DB_LOCK_TIMEOUT_MS,
      statement_timeout: config.DB_STATEMENT_TIMEOUT_MS,
      // A session whose service died ends within a second, with its locks, even mid-statement.
      options: PG_SESSION_OPTIONS,
    },
  };
}

/**
 * The same database without the pool's lock and statement limits: a migration may wait for another instance's
 * (the advisory lock) and run long. Two connections: the lock's, and the one the migrations run on.
 */
export function migrationDataSourceOptions(options: DataSourceOptions): DataSourceOptions {
  const extra = (options.extra ?? {}) as Record<string, unknown>;
  return { ...options, extra: { ...extra, max: 2, lock_timeout: 0, statement_timeout: 0 } } as DataSourceOptions;
}

/**
 * The service's own Postgres schema through TypeORM; migrations run at boot under an advisory lock, and young
 * tables get planner statistics as they grow (TableStatisticsKeeper).
 */
@Module({})
export class DatabaseModule {
  static forRoot(options: DatabaseOptions): DynamicModule {
    return {
      module: DatabaseModule,
      imports: [
        TypeOrmModule.forRootAsync({
          inject: [ServiceConfig],
          useFactory: (config: ServiceConfig) => dataSourceOptions(config, options),
          dataSourceFactory: async (dsOptions) => {
            const schema = (dsOptions as { schema: string }).schema;
            const migrator = await new DataSource(migrationDataSourceOptions(dsOptions!)).initialize();
            try {
              const ran = await runMigrationsLocked(migrator, schema);
              if (ran.length > 0) new Logger('Database').log({ schema, migrations: ran }, 'migrations applied');
            } finally {
              await migrator.destroy();
            }
            return new DataSource(dsOptions!).initialize();
          },
        }),
      ],
      providers: [TableStatisticsKeeper],
    };
  }
}
