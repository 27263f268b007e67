import type { Role } from '../config/api-key-entries.ts';

/** Who makes a request, as every path (GraphQL, page, CLI) and maker-checker see them. */
export interface Caller {
  role: Role;
  /**
   * Who acts, safe to show, log and store: `user:SUB` for a person or service of the identity
   * provider (signed in, by token, or by a key issued to them), `key:NAME` for a named key, else
   * `key:` and a keyed fingerprint; "anonymous" in key-less local use. Maker-checker compares
   * these, so one person is one identity on every path (GraphQL, page, CLI).
   */
  caller: string;
  /** How they came when it is not said by `caller`: `session`, `token`, or `key:NAME` of a key issued to a person. */
  via?: string | undefined;
}
