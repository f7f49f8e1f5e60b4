/** One step of the schema (`PRAGMA user_version`). */
export interface Migration {
  version: number;
  description: string;
  sql: string;
}
