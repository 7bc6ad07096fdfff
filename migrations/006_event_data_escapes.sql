-- event_data() (migration 005) turned the escapes jsonb cannot hold (\u0000, a lone surrogate) into
-- \ufffd with a pattern that did not know an escaped backslash: the text `C:\u0000` in a message body
-- (canonical `C:\\u0000`, a backslash then "u0000") came back from the operator views as `C:\ufffd`.
-- Escaped backslashes are now set aside first (as U+0001, which canonical JSON always writes escaped,
-- so it never occurs raw in the text), then the escapes replaced, then the backslashes put back. The
-- views read the function and are unchanged.
create or replace function event_data(canonical text) returns jsonb
  language sql immutable strict parallel safe
  return (case when strpos(canonical, '\u') = 0 then canonical
               else replace(regexp_replace(replace(canonical, '\\', chr(1)), '\\u0000|\\ud[89a-f][0-9a-f]{2}', '\\ufffd', 'g'), chr(1), '\\') end)::jsonb -> 'data';
