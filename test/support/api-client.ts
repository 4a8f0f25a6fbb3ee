/** The one place for the HTTP tests' JSON client of /v1: the api-key header, JSON bodies, parsed answers. */

export interface ApiOptions {
  /** The `api-key` header. Default: the client's key; null sends none. */
  key?: string | null;
  /** JSON-serialised unless it is a string (sent as is). */
  body?: unknown;
  headers?: Record<string, string>;
}

export interface ApiResponse {
  status: number;
  headers: Headers;
  /** The raw body. */
  text: string;
  /** The body parsed as JSON, or null when it is empty or not JSON. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  json: any;
}

export type Api = (method: string, pathname: string, options?: ApiOptions) => Promise<ApiResponse>;

/** A JSON client for the app at `baseUrl`; `defaultKey` is sent as `api-key` unless the call says otherwise. */
export function apiClient(baseUrl: string, defaultKey?: string): Api {
  return async (method, pathname, options = {}) => {
    const headers: Record<string, string> = { ...options.headers };
    const key = options.key === undefined ? defaultKey : options.key;
    if (key) headers["api-key"] = key;
    let body: string | undefined;
    if (options.body !== undefined) {
      body = typeof options.body === "string" ? options.body : JSON.stringify(options.body);
      if (!Object.keys(headers).some((h) => h.toLowerCase() === "content-type"))
        headers["content-type"] = "application/json";
    }
    const res = await fetch(baseUrl + pathname, { method, headers, body });
    const text = await res.text();
    let json: unknown = null;
    if (text) {
      try {
        json = JSON.parse(text);
      } catch {
        json = null;
      }
    }
    return { status: res.status, headers: res.headers, text, json };
  };
}

/** `/v1/programs/{programId}/customers/{email}` with the e-mail URL-encoded. */
export const customerPath = (programId: string, email: string) =>
  `/v1/programs/${programId}/customers/${encodeURIComponent(email)}`;
