import { DynamicModule, Logger, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ServiceConfig } from '@payments/config';
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
    extra: { max: config.DB_POOL_SIZE, connectionTimeoutMillis: 5000, idleTimeoutMillis: 30000 },
  };
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
            const dataSource = await new DataSource(dsOptions!).initialize();
            const schema = (dsOptions as { schema: string }).schema;
            const ran = await runMigrationsLocked(dataSource, schema);
            if (ran.length > 0) new Logger('Database').log({ schema, migrations: ran }, 'migrations applied');
            return dataSource;
          },
        }),
      ],
      providers: [TableStatisticsKeeper],
    };
  }
}
