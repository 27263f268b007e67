-- Deliverers wake when events are recorded instead of polling (issue 41, docs/decisions/0034-workers-woken-not-polling.md):
-- every statement that records events tells every process at its commit, on the channel the
-- event target listens on (src/events/pg-event-target.ts, and on PGlite src/db/database.ts listen).
-- NOTIFY folds identical notices of one transaction into one.
-- The body is an E'' string with its semicolons written \x3B: Prisma's PostgreSQL adapter splits
-- a migration at every semicolon, inside a dollar-quoted body too.
CREATE FUNCTION "payout_outbound_event_notice"() RETURNS trigger LANGUAGE plpgsql AS
  E'BEGIN PERFORM pg_notify(\'payout_gateway_events\', \'{"o":"database","t":"outbound-events"}\')\x3B RETURN NULL\x3B END';

CREATE TRIGGER "OutboundEvent_notice" AFTER INSERT ON "OutboundEvent"
  FOR EACH STATEMENT EXECUTE FUNCTION "payout_outbound_event_notice"();
