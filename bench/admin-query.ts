import pg from 'pg';

/** One statement on a connection of its own: CREATE and DROP DATABASE for a bench's run. */
export async function adminQuery(adminUrl: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}
