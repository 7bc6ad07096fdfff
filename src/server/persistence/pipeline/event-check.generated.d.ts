// The types of event-check.generated.js (generated; see event-check-source.ts).
/** Whether a parsed value is a well-formed event of schema version 1 (no `v` member). */
export declare const v1: (value: unknown) => boolean;
/** Whether a parsed value is a well-formed event of schema version 2 (`v: 2`). */
export declare const v2: (value: unknown) => boolean;
/** Whether a parsed value is a well-formed event of schema version 3 (`v: 3`). */
export declare const v3: (value: unknown) => boolean;
