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
-- inside: the PostgreSQL driver adapter of Prisma splits a migration at every semicolon.

CREATE FUNCTION "mask_card_numbers_luhn"(digits TEXT) RETURNS BOOLEAN LANGUAGE sql IMMUTABLE AS $$
  SELECT length(digits) BETWEEN 13 AND 19 AND (
    SELECT sum(CASE WHEN i % 2 = 0 THEN d WHEN d > 4 THEN d * 2 - 9 ELSE d * 2 END)
      FROM (SELECT i, ascii(substr(digits, length(digits) - i, 1)) - 48 AS d FROM generate_series(0, length(digits) - 1) AS i) AS x
  ) % 10 = 0
$$;

CREATE FUNCTION "mask_card_numbers_digits"(digits TEXT) RETURNS TEXT LANGUAGE sql IMMUTABLE AS $$
  SELECT left(digits, 4) || repeat('*', length(digits) - 8) || right(digits, 4)
$$;

-- One run of digits: masked whole when it is a card number, else each group of it that is one.
CREATE FUNCTION "mask_card_numbers_run"(run TEXT) RETURNS TEXT LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE
    WHEN "mask_card_numbers_luhn"(x.digits) THEN "mask_card_numbers_digits"(x.digits)
    ELSE (
      SELECT string_agg(
               CASE WHEN "mask_card_numbers_luhn"(m.part[1]) THEN "mask_card_numbers_digits"(m.part[1]) ELSE m.part[1] END || m.part[2],
               '' ORDER BY m.n)
        FROM regexp_matches(run, '([0-9]+)([^0-9]?)', 'g') WITH ORDINALITY AS m(part, n))
  END
  FROM (SELECT regexp_replace(run, '[^0-9]', '', 'g') AS digits) AS x
$$;

-- The text between the runs and the runs, put back together in order with the runs masked.
CREATE FUNCTION "mask_card_numbers_text"(input TEXT) RETURNS TEXT LANGUAGE sql IMMUTABLE AS $$
  SELECT string_agg(p.piece || coalesce("mask_card_numbers_run"(r.run[1]), ''), '' ORDER BY p.n)
    FROM unnest(regexp_split_to_array(input, '[0-9](?:[ .\u00A0-]?[0-9]){12,}')) WITH ORDINALITY AS p(piece, n)
    LEFT JOIN regexp_matches(input, '([0-9](?:[ .\u00A0-]?[0-9]){12,})', 'g') WITH ORDINALITY AS r(run, n) ON r.n = p.n
$$;

-- Every string in a JSON value, keys too, but for the card fields and the sealed envelope.
-- Made twice: a SQL function can call itself only once it exists.
CREATE FUNCTION "mask_card_numbers_json"(input JSONB) RETURNS JSONB LANGUAGE sql IMMUTABLE AS $$
  SELECT input
$$;
CREATE OR REPLACE FUNCTION "mask_card_numbers_json"(input JSONB) RETURNS JSONB LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE jsonb_typeof(input)
    WHEN 'string' THEN to_jsonb("mask_card_numbers_text"(input #>> '{}'))
    WHEN 'object' THEN (
      SELECT coalesce(jsonb_object_agg(
               CASE WHEN e.key IN ('pan', 'account') OR e.key LIKE '$%' THEN e.key ELSE "mask_card_numbers_text"(e.key) END,
               CASE WHEN e.key IN ('pan', 'account') OR e.key LIKE '$%' THEN e.value ELSE "mask_card_numbers_json"(e.value) END), '{}'::jsonb)
        FROM jsonb_each(input) AS e)
    WHEN 'array' THEN (
      SELECT coalesce(jsonb_agg("mask_card_numbers_json"(a.element) ORDER BY a.n), '[]'::jsonb)
        FROM jsonb_array_elements(input) WITH ORDINALITY AS a(element, n))
    ELSE input
  END
$$;

-- Only rows with a long digit run are read through the functions, and only changed ones written.
UPDATE "BatchItem" SET "reference" = "mask_card_numbers_text"("reference")
  WHERE "reference" ~ '[0-9](?:[ .\u00A0-]?[0-9]){12,}' AND "mask_card_numbers_text"("reference") <> "reference";
UPDATE "BatchItem" SET "errorMessage" = "mask_card_numbers_text"("errorMessage")
  WHERE "errorMessage" ~ '[0-9](?:[ .\u00A0-]?[0-9]){12,}' AND "mask_card_numbers_text"("errorMessage") <> "errorMessage";
UPDATE "BatchItem" SET "customFields" = "mask_card_numbers_json"("customFields")
  WHERE "customFields"::text ~ '[0-9](?:[ .\u00A0-]?[0-9]){12,}' AND "mask_card_numbers_json"("customFields") <> "customFields";
UPDATE "BatchItem" SET "fields" = "mask_card_numbers_json"("fields")
  WHERE "fields"::text ~ '[0-9](?:[ .\u00A0-]?[0-9]){12,}' AND "mask_card_numbers_json"("fields") <> "fields";

UPDATE "BatchProblem" SET "message" = "mask_card_numbers_text"("message")
  WHERE "message" ~ '[0-9](?:[ .\u00A0-]?[0-9]){12,}' AND "mask_card_numbers_text"("message") <> "message";
UPDATE "BatchProblem" SET "column" = "mask_card_numbers_text"("column")
  WHERE "column" ~ '[0-9](?:[ .\u00A0-]?[0-9]){12,}' AND "mask_card_numbers_text"("column") <> "column";

UPDATE "Payment" SET "recipient" = "mask_card_numbers_json"("recipient")
  WHERE "recipient"::text ~ '[0-9](?:[ .\u00A0-]?[0-9]){12,}' AND "mask_card_numbers_json"("recipient") <> "recipient";
UPDATE "Payment" SET "customFields" = "mask_card_numbers_json"("customFields")
  WHERE "customFields"::text ~ '[0-9](?:[ .\u00A0-]?[0-9]){12,}' AND "mask_card_numbers_json"("customFields") <> "customFields";
UPDATE "Payment" SET "errorMessage" = "mask_card_numbers_text"("errorMessage")
  WHERE "errorMessage" ~ '[0-9](?:[ .\u00A0-]?[0-9]){12,}' AND "mask_card_numbers_text"("errorMessage") <> "errorMessage";
UPDATE "PaymentStatusEvent" SET "errorMessage" = "mask_card_numbers_text"("errorMessage")
  WHERE "errorMessage" ~ '[0-9](?:[ .\u00A0-]?[0-9]){12,}' AND "mask_card_numbers_text"("errorMessage") <> "errorMessage";
UPDATE "WebhookDelivery" SET "body" = "mask_card_numbers_json"("body")
  WHERE "body"::text ~ '[0-9](?:[ .\u00A0-]?[0-9]){12,}' AND "mask_card_numbers_json"("body") <> "body";

UPDATE "ReconciliationUpstreamPayment" SET "recipient" = "mask_card_numbers_json"("recipient")
  WHERE "recipient"::text ~ '[0-9](?:[ .\u00A0-]?[0-9]){12,}' AND "mask_card_numbers_json"("recipient") <> "recipient";
UPDATE "ReconciliationDiscrepancy" SET "gatewayValue" = "mask_card_numbers_text"("gatewayValue")
  WHERE "gatewayValue" ~ '[0-9](?:[ .\u00A0-]?[0-9]){12,}' AND "mask_card_numbers_text"("gatewayValue") <> "gatewayValue";
UPDATE "ReconciliationDiscrepancy" SET "upstreamValue" = "mask_card_numbers_text"("upstreamValue")
  WHERE "upstreamValue" ~ '[0-9](?:[ .\u00A0-]?[0-9]){12,}' AND "mask_card_numbers_text"("upstreamValue") <> "upstreamValue";

DROP FUNCTION "mask_card_numbers_json"(JSONB);
DROP FUNCTION "mask_card_numbers_text"(TEXT);
DROP FUNCTION "mask_card_numbers_run"(TEXT);
DROP FUNCTION "mask_card_numbers_digits"(TEXT);
DROP FUNCTION "mask_card_numbers_luhn"(TEXT);
