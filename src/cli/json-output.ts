import { maskPan } from '../log/mask.ts';

/** A list streamed into a --json document under `key`, so an export of any size keeps memory flat. */
export interface JsonList {
  key: string;
  items: AsyncIterable<unknown>;
}

/** One JSON document and a newline; the list, when given, is written item by item as the last key. */
export async function writeJsonDocument(target: NodeJS.WritableStream, doc: Record<string, unknown>, list?: JsonList): Promise<void> {
  const write = async (text: string) => {
    if (!target.write(text)) await new Promise<void>((resolve) => target.once('drain', () => resolve()));
  };
  if (list === undefined) {
    await write(`${JSON.stringify(doc)}\n`);
    return;
  }
  const head = JSON.stringify({ ...doc, [list.key]: [] });
  // `{"a":1,"rows":[]}` opened up before its final `]}`.
  await write(head.slice(0, -2));
  let first = true;
  for await (const item of list.items) {
    await write(`${first ? '' : ','}${JSON.stringify(item)}`);
    first = false;
  }
  await write(']}\n');
}

/** Report rows (header first, as batch-export.ts gives them) as objects keyed by the header. */
export async function* rowObjects(rows: AsyncIterable<string[]>): AsyncGenerator<Record<string, string>> {
  let header: string[] | undefined;
  for await (const row of rows) {
    if (header === undefined) {
      header = row;
      continue;
    }
    yield Object.fromEntries(header.map((name, i) => [name, row[i] ?? '']));
  }
}

/**
 * An error's message as --json carries it: a card number that reached a message from
 * somewhere unexpected (a library quoting its input) is masked like everywhere else.
 */
export function safeMessage(message: string): string {
  return message.replace(/\b\d(?:[ -]?\d){11,18}\b/g, (digits) => maskPan(digits));
}

/** The --json error object on stderr: what failed, as a stable code, and the exit code it ends with. */
export function errorLine(code: string, message: string, exitCode: number): string {
  return `${JSON.stringify({ error: { code, message: safeMessage(message), exitCode } })}\n`;
}
