-- DuckDB benchmark peer: quiz_answers.csv (SPEC §4.3).
-- Empty strings are written through NULLIF so that DuckDB's CSV writer leaves the
-- field empty (it writes '' as "" to tell it from NULL; the engine writes nothing).
COPY (
    WITH answers AS (
        SELECT event_id, ts_s, ts_ns, profile_id,
               q_onboarding_id AS onboarding_id, q_element_id AS element_id, q_type,
               CASE q_type
                   WHEN 'select' THEN [from_json(q_value, '{"id":"VARCHAR","value":"VARCHAR","label":"VARCHAR"}')]
                   ELSE from_json(q_value, '[{"id":"VARCHAR","value":"VARCHAR","label":"VARCHAR"}]')
               END AS opts
        FROM ev
        WHERE event_type = 'onboarding_state_updated' AND q_type IN ('select', 'multiSelect')
    ),
    options_raw AS (
        SELECT event_id, ts_s, ts_ns, onboarding_id, element_id,
               unnest(opts) AS o, generate_subscripts(opts, 1) AS idx
        FROM answers
    ),
    options AS (   -- an id repeated inside one multiSelect counts once, first occurrence wins
        SELECT event_id, ts_s, ts_ns, onboarding_id, element_id,
               o.id AS option_id, o.value AS option_value, o.label AS option_label
        FROM options_raw
        QUALIFY row_number() OVER (PARTITION BY event_id, o.id ORDER BY idx) = 1
    ),
    finals AS (    -- each respondent's latest event per question
        SELECT event_id, onboarding_id, element_id
        FROM answers
        QUALIFY row_number() OVER (PARTITION BY onboarding_id, element_id, profile_id
                                   ORDER BY ts_s DESC, ts_ns DESC, event_id DESC) = 1
    ),
    questions AS (
        SELECT onboarding_id, element_id, q_type AS question_type
        FROM answers
        QUALIFY row_number() OVER (PARTITION BY onboarding_id, element_id
                                   ORDER BY ts_s DESC, ts_ns DESC, event_id DESC) = 1
    ),
    totals AS (
        SELECT onboarding_id, element_id, count(*) AS respondents_total
        FROM finals GROUP BY ALL
    ),
    respondents AS (
        SELECT o.onboarding_id, o.element_id, o.option_id, count(*) AS respondents
        FROM options o JOIN finals f USING (event_id)
        GROUP BY ALL
    ),
    selections AS (
        SELECT onboarding_id, element_id, option_id, count(*) AS selections
        FROM options GROUP BY ALL
    ),
    latest_text AS (   -- value and label from the latest event that selected the option
        SELECT onboarding_id, element_id, option_id, option_value, option_label
        FROM options
        QUALIFY row_number() OVER (PARTITION BY onboarding_id, element_id, option_id
                                   ORDER BY ts_s DESC, ts_ns DESC, event_id DESC) = 1
    ),
    rows AS (
        SELECT s.onboarding_id, s.element_id, q.question_type, s.option_id,
               l.option_value, l.option_label,
               coalesce(r.respondents, 0) AS respondents,
               t.respondents_total,
               s.selections
        FROM selections s
        JOIN questions q USING (onboarding_id, element_id)
        JOIN totals t USING (onboarding_id, element_id)
        JOIN latest_text l USING (onboarding_id, element_id, option_id)
        LEFT JOIN respondents r USING (onboarding_id, element_id, option_id)
    ),
    shares AS (    -- 4 decimals, half away from zero, in integer arithmetic
        SELECT *, (2 * respondents * 10000 + respondents_total) // (2 * respondents_total) AS share_e4
        FROM rows
    )
    SELECT NULLIF(onboarding_id, '') AS onboarding_id,
           NULLIF(element_id, '') AS element_id,
           NULLIF(question_type, '') AS question_type,
           NULLIF(option_id, '') AS option_id,
           NULLIF(option_value, '') AS option_value,
           NULLIF(option_label, '') AS option_label,
           respondents,
           CAST(share_e4 // 10000 AS VARCHAR) || '.' || lpad(CAST(share_e4 % 10000 AS VARCHAR), 4, '0') AS share,
           selections
    FROM shares
    -- the output columns are NULLIF'd: sort on the strings ('' first, byte-wise)
    ORDER BY coalesce(onboarding_id, ''), coalesce(element_id, ''), respondents DESC, coalesce(option_id, '')
) TO {{out}} (FORMAT csv, HEADER, COMMENT '');
