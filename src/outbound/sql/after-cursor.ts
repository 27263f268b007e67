/** What the next events after a subscription's cursor are; only committed ones older than any running transaction. */
export const AFTER_CURSOR = `(e.xid, e.seq) > (s."cursorXid", s."cursorSeq") AND (cardinality(s.types) = 0 OR e.type = ANY(s.types))`;
