// Version 1 of the event vocabulary: the events of the first logs, which carry no `v`. The types that
// version 2 changed are spelled out here as they were written then; the rest are unchanged.
import type { EventBody } from '../types.ts';

export type V1EventBody = EventBody;

/** A version-1 event as the first logs hold it. */
export type V1Event = V1EventBody & { readonly seq: number; readonly time: string; readonly v?: undefined };
