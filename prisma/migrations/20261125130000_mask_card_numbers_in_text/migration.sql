-- Data only (no schema change): card numbers that earlier versions accepted in free text
-- (the reference, description or custom cells of a payroll row, the description and
-- customFields of createPayment) are masked where they were stored, as the gateway now
-- refuses them. (No quote marks or semicolons in these comments: a migration runner that
-- splits statements may not know comments.)
-- What counts is what src/batch/cell-text.ts cardNumbersIn() finds: a run of 13 to 19
-- digits (spaces, no-break spaces, dashes or dots allowed between digits) passing the Luhn
-- check, or such a group inside a longer grouped run. A 20-digit bank account and numbers
-- failing the check are kept. The mask is that of maskPan: first 4 and last 4 digits, the rest *.
-- The fields meant for a card (pan, account) and the sealed envelope ($sealed) are left to
-- the card-data protections, which still need them to pay rows stored in clear.
-- The functions live only for this migration. They are SQL functions with no semicolon
-- inside (the PostgreSQL driver adapter of Prisma splits a migration at every semicolon,
-- so PL/pgSQL cannot be used), and the text one is a single query with the Luhn check
-- written out twice: a SQL function calling another plans the callee again on every call,
-- which made a first version 25 times slower.

-- Whether a text may hold a card number: a run of 13 to 19 digits alone, or a long run with a
-- separator in it. Most stored texts are not candidates (a 20-digit account alone is not), so
-- only these reach the slower functions below. A plain expression: the planner inlines it.
CREATE FUNCTION "mask_card_numbers_candidate"(input TEXT) RETURNS BOOLEAN LANGUAGE sql IMMUTABLE AS $$
  SELECT input ~ '(^|[^0-9])[0-9]{13,19}([^0-9]|$)'
      OR (input ~ '[0-9](?:[ .\u00A0-]?[0-9]){12,}' AND input ~ '[0-9][ .\u00A0-][0-9]')
$$;

-- The text between the runs of digits and the runs, put back together in order: a run masked
-- whole when its digits are a card number (13 to 19, Luhn), else each group of it that is one.
CREATE FUNCTION "mask_card_numbers_text"(input TEXT) RETURNS TEXT LANGUAGE sql IMMUTABLE STRICT AS $$
  SELECT string_agg(p.piece || coalesce(r.masked, ''), '' ORDER BY p.n)
    FROM unnest(regexp_split_to_array(input, '[0-9](?:[ .\u00A0-]?[0-9]){12,}')) WITH ORDINALITY AS p(piece, n)
    LEFT JOIN (
      SELECT m.n,
             CASE WHEN (length(w.digits) BETWEEN 13 AND 19 AND (SELECT sum(CASE WHEN l.i % 2 = 0 THEN l.v WHEN l.v > 4 THEN l.v * 2 - 9 ELSE l.v * 2 END)
                   FROM (SELECT s.i, ascii(substr(w.digits, length(w.digits) - s.i, 1)) - 48 AS v FROM generate_series(0, length(w.digits) - 1) AS s(i)) AS l) % 10 = 0)
                  THEN left(w.digits, 4) || repeat('*', length(w.digits) - 8) || right(w.digits, 4)
                  ELSE (SELECT string_agg(
                                 CASE WHEN (length(g.part[1]) BETWEEN 13 AND 19 AND (SELECT sum(CASE WHEN l.i % 2 = 0 THEN l.v WHEN l.v > 4 THEN l.v * 2 - 9 ELSE l.v * 2 END)
                   FROM (SELECT s.i, ascii(substr(g.part[1], length(g.part[1]) - s.i, 1)) - 48 AS v FROM generate_series(0, length(g.part[1]) - 1) AS s(i)) AS l) % 10 = 0)
                                      THEN left(g.part[1], 4) || repeat('*', length(g.part[1]) - 8) || right(g.part[1], 4)
                                      ELSE g.part[1] END || g.part[2],
                                 '' ORDER BY g.k)
                          FROM regexp_matches(m.run[1], '([0-9]+)([^0-9]?)', 'g') WITH ORDINALITY AS g(part, k))
             END AS masked
        FROM regexp_matches(input, '([0-9](?:[ .\u00A0-]?[0-9]){12,})', 'g') WITH ORDINALITY AS m(run, n)
        CROSS JOIN LATERAL (SELECT regexp_replace(m.run[1], '[^0-9]', '', 'g') AS digits) AS w
    ) AS r ON r.n = p.n
$$;

-- Every string in a nested JSON value, keys too, but for the card fields and the sealed
-- envelope. Made twice: a SQL function can call itself only once it exists. The columns are
-- objects whose members are walked by the statements below (so the text function is called
-- from them, planned once): this one is only for what is nested deeper.
CREATE FUNCTION "mask_card_numbers_json"(input JSONB) RETURNS JSONB LANGUAGE sql IMMUTABLE STRICT AS $$
  SELECT input
$$;
CREATE OR REPLACE FUNCTION "mask_card_numbers_json"(input JSONB) RETURNS JSONB LANGUAGE sql IMMUTABLE STRICT AS $$
  SELECT CASE jsonb_typeof(input)
    WHEN 'string' THEN to_jsonb("mask_card_numbers_text"(input #>> '{}'))
    WHEN 'object' THEN (
      SELECT coalesce(jsonb_object_agg(
               CASE WHEN e.key IN ('pan', 'account') OR e.key LIKE '$%' OR NOT "mask_card_numbers_candidate"(e.key) THEN e.key
                    ELSE "mask_card_numbers_text"(e.key) END,
               CASE WHEN e.key IN ('pan', 'account') OR e.key LIKE '$%' THEN e.value
                    WHEN jsonb_typeof(e.value) IN ('object', 'array') THEN "mask_card_numbers_json"(e.value)
                    WHEN jsonb_typeof(e.value) = 'string' AND "mask_card_numbers_candidate"(e.value #>> '{}') THEN "mask_card_numbers_json"(e.value)
                    ELSE e.value END), '{}'::jsonb)
        FROM jsonb_each(input) AS e)
    WHEN 'array' THEN (
      SELECT coalesce(jsonb_agg(
               CASE WHEN jsonb_typeof(a.element) IN ('object', 'array') THEN "mask_card_numbers_json"(a.element)
                    WHEN jsonb_typeof(a.element) = 'string' AND "mask_card_numbers_candidate"(a.element #>> '{}') THEN "mask_card_numbers_json"(a.element)
                    ELSE a.element END
               ORDER BY a.n), '[]'::jsonb)
        FROM jsonb_array_elements(input) WITH ORDINALITY AS a(element, n))
    ELSE input
  END
$$;

-- Only candidates are read through the functions, each once, and only changed rows written.
-- A JSON column (an object) is taken apart member by member and put together again.
UPDATE "BatchItem" AS t SET "reference" = m.masked
  FROM (SELECT x."id", "mask_card_numbers_text"(x."reference") AS masked FROM "BatchItem" AS x WHERE "mask_card_numbers_candidate"(x."reference")) AS m
  WHERE t."id" = m."id" AND m.masked <> t."reference";
UPDATE "BatchItem" AS t SET "errorMessage" = m.masked
  FROM (SELECT x."id", "mask_card_numbers_text"(x."errorMessage") AS masked FROM "BatchItem" AS x WHERE "mask_card_numbers_candidate"(x."errorMessage")) AS m
  WHERE t."id" = m."id" AND m.masked <> t."errorMessage";
UPDATE "BatchItem" AS t SET "customFields" = m.masked
  FROM (SELECT x."id", jsonb_object_agg(
               CASE WHEN e.key IN ('pan', 'account') OR e.key LIKE '$%' OR NOT "mask_card_numbers_candidate"(e.key) THEN e.key
                    ELSE "mask_card_numbers_text"(e.key) END,
               CASE WHEN e.key IN ('pan', 'account') OR e.key LIKE '$%' THEN e.value
                    WHEN jsonb_typeof(e.value) IN ('object', 'array') THEN "mask_card_numbers_json"(e.value)
                    WHEN jsonb_typeof(e.value) = 'string' AND "mask_card_numbers_candidate"(e.value #>> '{}')
                      THEN to_jsonb("mask_card_numbers_text"(e.value #>> '{}'))
                    ELSE e.value END) AS masked
          FROM "BatchItem" AS x CROSS JOIN LATERAL jsonb_each(x."customFields") AS e
          WHERE jsonb_typeof(x."customFields") = 'object' AND "mask_card_numbers_candidate"(x."customFields"::text)
          GROUP BY x."id") AS m
  WHERE t."id" = m."id" AND m.masked <> t."customFields";
UPDATE "BatchItem" AS t SET "fields" = m.masked
  FROM (SELECT x."id", jsonb_object_agg(
               CASE WHEN e.key IN ('pan', 'account') OR e.key LIKE '$%' OR NOT "mask_card_numbers_candidate"(e.key) THEN e.key
                    ELSE "mask_card_numbers_text"(e.key) END,
               CASE WHEN e.key IN ('pan', 'account') OR e.key LIKE '$%' THEN e.value
                    WHEN jsonb_typeof(e.value) IN ('object', 'array') THEN "mask_card_numbers_json"(e.value)
                    WHEN jsonb_typeof(e.value) = 'string' AND "mask_card_numbers_candidate"(e.value #>> '{}')
                      THEN to_jsonb("mask_card_numbers_text"(e.value #>> '{}'))
                    ELSE e.value END) AS masked
          FROM "BatchItem" AS x CROSS JOIN LATERAL jsonb_each(x."fields") AS e
          WHERE jsonb_typeof(x."fields") = 'object' AND "mask_card_numbers_candidate"(x."fields"::text)
          GROUP BY x."id") AS m
  WHERE t."id" = m."id" AND m.masked <> t."fields";

UPDATE "BatchProblem" AS t SET "message" = m.masked
  FROM (SELECT x."id", "mask_card_numbers_text"(x."message") AS masked FROM "BatchProblem" AS x WHERE "mask_card_numbers_candidate"(x."message")) AS m
  WHERE t."id" = m."id" AND m.masked <> t."message";
UPDATE "BatchProblem" AS t SET "column" = m.masked
  FROM (SELECT x."id", "mask_card_numbers_text"(x."column") AS masked FROM "BatchProblem" AS x WHERE "mask_card_numbers_candidate"(x."column")) AS m
  WHERE t."id" = m."id" AND m.masked <> t."column";

UPDATE "Payment" AS t SET "recipient" = m.masked
  FROM (SELECT x."paymentId", jsonb_object_agg(
               CASE WHEN e.key IN ('pan', 'account') OR e.key LIKE '$%' OR NOT "mask_card_numbers_candidate"(e.key) THEN e.key
                    ELSE "mask_card_numbers_text"(e.key) END,
               CASE WHEN e.key IN ('pan', 'account') OR e.key LIKE '$%' THEN e.value
                    WHEN jsonb_typeof(e.value) IN ('object', 'array') THEN "mask_card_numbers_json"(e.value)
                    WHEN jsonb_typeof(e.value) = 'string' AND "mask_card_numbers_candidate"(e.value #>> '{}')
                      THEN to_jsonb("mask_card_numbers_text"(e.value #>> '{}'))
                    ELSE e.value END) AS masked
          FROM "Payment" AS x CROSS JOIN LATERAL jsonb_each(x."recipient") AS e
          WHERE jsonb_typeof(x."recipient") = 'object' AND "mask_card_numbers_candidate"(x."recipient"::text)
          GROUP BY x."paymentId") AS m
  WHERE t."paymentId" = m."paymentId" AND m.masked <> t."recipient";
UPDATE "Payment" AS t SET "customFields" = m.masked
  FROM (SELECT x."paymentId", jsonb_object_agg(
               CASE WHEN e.key IN ('pan', 'account') OR e.key LIKE '$%' OR NOT "mask_card_numbers_candidate"(e.key) THEN e.key
                    ELSE "mask_card_numbers_text"(e.key) END,
               CASE WHEN e.key IN ('pan', 'account') OR e.key LIKE '$%' THEN e.value
                    WHEN jsonb_typeof(e.value) IN ('object', 'array') THEN "mask_card_numbers_json"(e.value)
                    WHEN jsonb_typeof(e.value) = 'string' AND "mask_card_numbers_candidate"(e.value #>> '{}')
                      THEN to_jsonb("mask_card_numbers_text"(e.value #>> '{}'))
                    ELSE e.value END) AS masked
          FROM "Payment" AS x CROSS JOIN LATERAL jsonb_each(x."customFields") AS e
          WHERE jsonb_typeof(x."customFields") = 'object' AND "mask_card_numbers_candidate"(x."customFields"::text)
          GROUP BY x."paymentId") AS m
  WHERE t."paymentId" = m."paymentId" AND m.masked <> t."customFields";
UPDATE "Payment" AS t SET "errorMessage" = m.masked
  FROM (SELECT x."paymentId", "mask_card_numbers_text"(x."errorMessage") AS masked FROM "Payment" AS x WHERE "mask_card_numbers_candidate"(x."errorMessage")) AS m
  WHERE t."paymentId" = m."paymentId" AND m.masked <> t."errorMessage";

UPDATE "PaymentStatusEvent" AS t SET "errorMessage" = m.masked
  FROM (SELECT x."id", "mask_card_numbers_text"(x."errorMessage") AS masked FROM "PaymentStatusEvent" AS x WHERE "mask_card_numbers_candidate"(x."errorMessage")) AS m
  WHERE t."id" = m."id" AND m.masked <> t."errorMessage";

UPDATE "WebhookDelivery" AS t SET "body" = m.masked
  FROM (SELECT x."id", jsonb_object_agg(
               CASE WHEN e.key IN ('pan', 'account') OR e.key LIKE '$%' OR NOT "mask_card_numbers_candidate"(e.key) THEN e.key
                    ELSE "mask_card_numbers_text"(e.key) END,
               CASE WHEN e.key IN ('pan', 'account') OR e.key LIKE '$%' THEN e.value
                    WHEN jsonb_typeof(e.value) IN ('object', 'array') THEN "mask_card_numbers_json"(e.value)
                    WHEN jsonb_typeof(e.value) = 'string' AND "mask_card_numbers_candidate"(e.value #>> '{}')
                      THEN to_jsonb("mask_card_numbers_text"(e.value #>> '{}'))
                    ELSE e.value END) AS masked
          FROM "WebhookDelivery" AS x CROSS JOIN LATERAL jsonb_each(x."body") AS e
          WHERE jsonb_typeof(x."body") = 'object' AND "mask_card_numbers_candidate"(x."body"::text)
          GROUP BY x."id") AS m
  WHERE t."id" = m."id" AND m.masked <> t."body";

UPDATE "ReconciliationUpstreamPayment" AS t SET "recipient" = m.masked
  FROM (SELECT x."runId", x."paymentId", jsonb_object_agg(
               CASE WHEN e.key IN ('pan', 'account') OR e.key LIKE '$%' OR NOT "mask_card_numbers_candidate"(e.key) THEN e.key
                    ELSE "mask_card_numbers_text"(e.key) END,
               CASE WHEN e.key IN ('pan', 'account') OR e.key LIKE '$%' THEN e.value
                    WHEN jsonb_typeof(e.value) IN ('object', 'array') THEN "mask_card_numbers_json"(e.value)
                    WHEN jsonb_typeof(e.value) = 'string' AND "mask_card_numbers_candidate"(e.value #>> '{}')
                      THEN to_jsonb("mask_card_numbers_text"(e.value #>> '{}'))
                    ELSE e.value END) AS masked
          FROM "ReconciliationUpstreamPayment" AS x CROSS JOIN LATERAL jsonb_each(x."recipient") AS e
          WHERE jsonb_typeof(x."recipient") = 'object' AND "mask_card_numbers_candidate"(x."recipient"::text)
          GROUP BY x."runId", x."paymentId") AS m
  WHERE t."runId" = m."runId" AND t."paymentId" = m."paymentId" AND m.masked <> t."recipient";

UPDATE "ReconciliationDiscrepancy" AS t SET "gatewayValue" = m.masked
  FROM (SELECT x."id", "mask_card_numbers_text"(x."gatewayValue") AS masked FROM "ReconciliationDiscrepancy" AS x WHERE "mask_card_numbers_candidate"(x."gatewayValue")) AS m
  WHERE t."id" = m."id" AND m.masked <> t."gatewayValue";
UPDATE "ReconciliationDiscrepancy" AS t SET "upstreamValue" = m.masked
  FROM (SELECT x."id", "mask_card_numbers_text"(x."upstreamValue") AS masked FROM "ReconciliationDiscrepancy" AS x WHERE "mask_card_numbers_candidate"(x."upstreamValue")) AS m
  WHERE t."id" = m."id" AND m.masked <> t."upstreamValue";

DROP FUNCTION "mask_card_numbers_json"(JSONB);
DROP FUNCTION "mask_card_numbers_text"(TEXT);
DROP FUNCTION "mask_card_numbers_candidate"(TEXT);
