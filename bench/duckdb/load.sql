-- DuckDB benchmark peer, step 1 of 4: load one export into the table `ev`
-- (kept events), following SPEC §1-§2 as far as plain SQL reasonably can.
-- {{input}} is replaced by bench/duckdb_peer.py with a quoted SQL string literal, and
-- {{compression}} with 'gzip' or 'none', from the input's first two bytes (1f 8b): DuckDB
-- would go by the file's name, and read a gzipped export not named .gz as no lines.
--
-- Semantics (see docs/benchmark.md, "What DuckDB does not match"):
--  * read_json(ignore_errors) drops lines it cannot parse; type mismatches such as
--    "device_id": 12345 are cast to VARCHAR instead of being rejected.
--  * Input order = the order in which the scan inserts rows into `raw`
--    (preserve_insertion_order, DuckDB's default); `rowid` is that order. It only
--    decides which copy of a duplicated event_id is kept.
--  * Instants are (ts_s, ts_ns): UTC epoch seconds (floor) and nanoseconds 0..999999999,
--    exact at nanosecond precision like the engine (never a float).
--  * Days are UTC (the engine's default --timezone).

CREATE TEMP TABLE raw AS
SELECT
    event_id,
    event_type,
    "timestamp" AS ts_raw,
    device_id,
    profile_id,
    customer_user_id,
    CASE WHEN event_type = 'onboarding_state_updated'
         THEN json_extract_string(action, ['$.meta.onboardingId', '$.elementId', '$.params.type'])
    END AS q,
    CASE WHEN event_type = 'onboarding_state_updated'
         THEN json_extract(action, '$.params.value')
    END AS q_value
FROM read_json({{input}},
    format = 'newline_delimited',
    compression = {{compression}},   -- from the content's first bytes, as SPEC §1 says

    ignore_errors = true,
    columns = {
        event_id: 'VARCHAR',
        event_type: 'VARCHAR',
        "timestamp": 'VARCHAR',      -- RFC 3339 string, or epoch ms (a JSON integer, read as its digits)
        device_id: 'VARCHAR',
        profile_id: 'VARCHAR',
        customer_user_id: 'VARCHAR',
        action: 'JSON'
    });

CREATE TEMP TABLE ev AS
WITH parsed AS (
    SELECT
        rowid AS rn,
        *,
        regexp_full_match(ts_raw, '-?[0-9]+') AS is_ms,
        regexp_extract(ts_raw,
            '^([0-9]{4}-[0-9]{2}-[0-9]{2})[Tt]([0-9]{2}):([0-9]{2}):([0-9]{2})(?:\.([0-9]{1,9}))?(?:[Zz]|([+-])([0-9]{2}):([0-9]{2}))$',
            ['d', 'h', 'mi', 's', 'f', 'sg', 'oh', 'om']) AS p
    FROM raw
),
instants AS (
    SELECT
        *,
        CASE
            WHEN is_ms THEN TRY_CAST(ts_raw AS BIGINT)
        END AS ms,
        CASE
            WHEN p.d <> '' AND CAST(p.h AS INTEGER) <= 23 AND CAST(p.mi AS INTEGER) <= 59
                 AND CAST(p.s AS INTEGER) <= 59
                 AND (p.sg = '' OR (CAST(p.oh AS INTEGER) <= 23 AND CAST(p.om AS INTEGER) <= 59))
            THEN (CAST(TRY_CAST(p.d AS DATE) - DATE '1970-01-01' AS BIGINT)) * 86400
                 + CAST(p.h AS BIGINT) * 3600 + CAST(p.mi AS BIGINT) * 60 + CAST(p.s AS BIGINT)
                 - CASE WHEN p.sg = '' THEN 0
                        ELSE (CASE p.sg WHEN '-' THEN -1 ELSE 1 END)
                             * (CAST(p.oh AS BIGINT) * 3600 + CAST(p.om AS BIGINT) * 60)
                   END
        END AS rfc_s
    FROM parsed
),
timed AS (
    SELECT
        *,
        CASE WHEN is_ms THEN (ms - (((ms % 1000) + 1000) % 1000)) // 1000 ELSE rfc_s END AS ts_s,
        CASE WHEN is_ms THEN CAST((((ms % 1000) + 1000) % 1000) * 1000000 AS INTEGER)
             ELSE CAST(rpad(p.f, 9, '0') AS INTEGER) END AS ts_ns
    FROM instants
),
accepted AS (
    SELECT *
    FROM timed
    WHERE event_id <> ''
      AND event_type IS NOT NULL
      AND ts_s BETWEEN -62135596800 AND 253402300799          -- years 0001-9999, UTC
      AND (event_type NOT IN ('sdk_activate', 'identify', 'logout',
                              'onboarding_state_updated', 'onboarding_analytics')
           OR (device_id <> '' AND profile_id <> ''))
      AND (event_type <> 'identify' OR customer_user_id <> '')
      AND (event_type <> 'onboarding_state_updated'
           OR (q[1] IS NOT NULL AND q[2] IS NOT NULL AND q[3] IS NOT NULL))
)
SELECT
    rn,
    event_id,
    event_type,
    ts_s,
    ts_ns,
    CAST((ts_s - (((ts_s % 86400) + 86400) % 86400)) // 86400 AS INTEGER) AS day_num,  -- UTC day
    NULLIF(device_id, '') AS device_id,
    NULLIF(profile_id, '') AS profile_id,
    NULLIF(customer_user_id, '') AS customer_user_id,         -- null, absent and "" are anonymous
    q[1] AS q_onboarding_id,
    q[2] AS q_element_id,
    q[3] AS q_type,
    q_value
FROM accepted
-- De-duplication: the first copy of an event_id in input order is the kept one.
QUALIFY row_number() OVER (PARTITION BY event_id ORDER BY rn) = 1;

DROP TABLE raw;
