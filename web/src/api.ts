// REST calls. A refusal becomes an ApiError carrying the API's own words ({"error": "..."}) so the page
// shows exactly what the service said; the machine-readable code comes from the x-error-code header.

export class ApiError extends Error {
  readonly status: number;
  readonly code: string | null;

  constructor(status: number, message: string, code: string | null) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
  }
}

export interface RequestOptions {
  readonly apiKey?: string | null;
  readonly adminToken?: string | null;
  readonly body?: unknown;
  /** Sent as is with this content type instead of `body` as JSON (a CSV upload). */
  readonly raw?: { readonly text: string; readonly contentType: string };
}

function errorText(status: number, text: string): string {
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed === 'object' && parsed !== null && 'error' in parsed && typeof parsed.error === 'string') return parsed.error;
  } catch {
    // Not JSON (a proxy's page, say): fall through to the raw text.
  }
  return text.trim() === '' ? `HTTP ${status}` : text.trim();
}

export async function apiRequest<T>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
  const headers: Record<string, string> = {};
  if (options.apiKey) headers['x-api-key'] = options.apiKey;
  if (options.adminToken) headers['authorization'] = `Bearer ${options.adminToken}`;
  let body: string | undefined;
  if (options.raw !== undefined) {
    headers['content-type'] = options.raw.contentType;
    body = options.raw.text;
  } else if (options.body !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(options.body);
  }
  let response: Response;
  try {
    response = await fetch(path, { method, headers, body, cache: 'no-store' });
  } catch (err) {
    throw new ApiError(0, `the service cannot be reached (${err instanceof Error ? err.message : String(err)})`, null);
  }
  const text = await response.text();
  if (!response.ok) throw new ApiError(response.status, errorText(response.status, text), response.headers.get('x-error-code'));
  return JSON.parse(text) as T;
}

/** The message to show for anything a call threw. */
export function describeError(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
