import type postgres from 'postgres'

/**
 * Records the value of a setting (a GUC such as synchronous_commit) as each
 * row inserted into `requests` sees it, from a row trigger that fires
 * `when` the row is written (AFTER is where the foreign-key checks run);
 * resolves with a function that reads the values recorded so far, in order.
 */
export async function recordSettingOnInsert(
  sql: postgres.Sql,
  setting: string,
  when: 'BEFORE' | 'AFTER',
): Promise<() => Promise<string[]>> {
  await sql`CREATE TABLE seen_settings (seq bigserial PRIMARY KEY, value text NOT NULL)`
  await sql.unsafe(`
    CREATE FUNCTION record_seen_setting() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO seen_settings (value) VALUES (current_setting('${setting.replaceAll("'", "''")}'));
      RETURN ${when === 'BEFORE' ? 'NEW' : 'NULL'};
    END $$`)
  await sql.unsafe(`CREATE TRIGGER record_seen_setting ${when} INSERT ON requests FOR EACH ROW EXECUTE FUNCTION record_seen_setting()`)
  return async () => (await sql<{ value: string }[]>`SELECT value FROM seen_settings ORDER BY seq`).map((row) => row.value)
}
