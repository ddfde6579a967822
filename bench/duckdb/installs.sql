-- DuckDB benchmark peer: installs.csv (SPEC §4.1), UTC days.
-- An identity installs on the day of its first kept event; that day is the day of
-- its minimum instant, so min(day_num) is enough (the event_id tie-break cannot
-- change the day).
COPY (
    WITH firsts AS (
        SELECT 1 AS mode, min(day_num) AS day_num FROM ev WHERE device_id IS NOT NULL GROUP BY device_id
        UNION ALL
        SELECT 2, min(day_num) FROM ev WHERE customer_user_id IS NOT NULL GROUP BY customer_user_id
        UNION ALL
        SELECT 3, min(day_num) FROM ev WHERE profile_id IS NOT NULL GROUP BY profile_id
    ),
    per_day AS (
        SELECT day_num,
               count(*) FILTER (WHERE mode = 1) AS by_device_id,
               count(*) FILTER (WHERE mode = 2) AS by_customer_user_id,
               count(*) FILTER (WHERE mode = 3) AS by_profile_id
        FROM firsts
        GROUP BY day_num
    ),
    days AS (
        SELECT range AS day_num
        FROM range((SELECT min(day_num) FROM per_day), (SELECT max(day_num) FROM per_day) + 1)
    )
    SELECT CAST(DATE '1970-01-01' + CAST(days.day_num AS INTEGER) AS VARCHAR) AS date,
           coalesce(by_device_id, 0) AS by_device_id,
           coalesce(by_customer_user_id, 0) AS by_customer_user_id,
           coalesce(by_profile_id, 0) AS by_profile_id
    FROM days LEFT JOIN per_day USING (day_num)
    ORDER BY days.day_num
) TO {{out}} (FORMAT csv, HEADER, COMMENT '');
