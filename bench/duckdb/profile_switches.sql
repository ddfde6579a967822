-- DuckDB benchmark peer: profile_switches.csv (SPEC §4.2), UTC days.
-- Per device, its sdk_activate / identify / logout events in ordering-key order
-- (instant at full precision, then event_id byte-wise); a switch is an event whose
-- profile_id differs from the previous such event's.
COPY (
    WITH ordered AS (
        SELECT device_id, event_type, day_num, profile_id,
               lag(profile_id) OVER (PARTITION BY device_id ORDER BY ts_s, ts_ns, event_id) AS previous_profile
        FROM ev
        WHERE event_type IN ('sdk_activate', 'identify', 'logout')
    )
    SELECT CAST(DATE '1970-01-01' + day_num AS VARCHAR) AS date,
           event_type AS "trigger",
           count(*) AS switches,
           count(DISTINCT device_id) AS devices
    FROM ordered
    WHERE previous_profile IS NOT NULL AND previous_profile <> profile_id
    GROUP BY day_num, event_type
    ORDER BY day_num, event_type
) TO {{out}} (FORMAT csv, HEADER, COMMENT '');
