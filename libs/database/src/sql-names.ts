const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/** Schema names come from configuration and end up in SQL text and channel names: only plain identifiers. */
export function assertSchemaName(schema: string): string {
  if (!SCHEMA_NAME.test(schema)) {
    throw new Error(`invalid schema name "${schema}": lower-case letters, digits and underscores only`);
  }
  return schema;
}

/** `"schema"."table"` for a checked schema name. */
export function qualified(schema: string, table: string): string {
  return `"${assertSchemaName(schema)}"."${table}"`;
}

/** The schema a migration runs in: the one its DataSource is configured with (`public` without one). */
export function migrationSchema(queryRunner: { connection: { options: object } }): string {
  return (queryRunner.connection.options as { schema?: string }).schema ?? 'public';
}
