// Plain SQL helpers over TypeORM's pg driver, for any service or lib that writes its own statements.
export { assertSchemaName, migrationSchema, qualified } from './sql-names';
export { combineStatements, executePrepared, executePreparedIn, placeholdersShifted, type SqlStatement } from './sql-statement';
export { PG_SESSION_OPTIONS, pgClientConfig } from './pg-connection';
export { isDatabaseTimeout, postgresErrorCode } from './database-errors';
