/**
 * Staff sessions over HTTP, as a browser makes them: next-auth's CSRF cookie and token, the credentials callback,
 * the session cookie; staff writes carry the app's own Origin, as the dashboard's fetches do.
 */

export interface SignInResult {
  status: number;
  /** The session cookie (`next-auth.session-token=…`), or null when refused. */
  cookie: string | null;
  /** next-auth's error for a refused sign-in (`CredentialsSignin`, `TooManyAttempts`), or null. */
  error: string | null;
  /** Where next-auth would send the browser. */
  url: string | null;
}

/** next-auth's CSRF cookie and token: one pair serves any number of sign-in attempts. */
export async function csrf(baseUrl: string, headers: Record<string, string> = {}) {
  const res = await fetch(`${baseUrl}/api/auth/csrf`, { headers });
  const cookie = res.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .join("; ");
  const { csrfToken } = (await res.json()) as { csrfToken: string };
  return { cookie, csrfToken };
}

/** One sign-in attempt through the credentials provider. */
export async function attemptSignIn(
  baseUrl: string,
  email: string,
  password: string,
  options: {
    headers?: Record<string, string>;
    token?: { cookie: string; csrfToken: string };
    callbackUrl?: string;
    /** The second factor's code (TOTP or a recovery code), for an account that has one. */
    code?: string;
  } = {},
): Promise<SignInResult> {
  const token = options.token ?? (await csrf(baseUrl));
  const form = new URLSearchParams({ csrfToken: token.csrfToken, email, password, json: "true" });
  if (options.code !== undefined) form.set("code", options.code);
  if (options.callbackUrl !== undefined) form.set("callbackUrl", options.callbackUrl);
  const res = await fetch(`${baseUrl}/api/auth/callback/credentials`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie: token.cookie, ...options.headers },
    body: form,
    redirect: "manual",
  });
  const session = res.headers.getSetCookie().find((c) => /^(__Secure-)?next-auth\.session-token=[^;]/.test(c));
  const text = await res.text();
  let url: string | null = null;
  try {
    url = (JSON.parse(text) as { url?: string }).url ?? null;
  } catch {
    url = res.headers.get("location");
  }
  const error = url ? new URL(url, baseUrl).searchParams.get("error") : null;
  return { status: res.status, cookie: session ? session.split(";")[0]! : null, error, url };
}

/** Signs in and returns the session cookie, or null when refused. */
export async function signIn(baseUrl: string, email: string, password: string): Promise<string | null> {
  return (await attemptSignIn(baseUrl, email, password)).cookie;
}

/** Signs out the session `cookie` the way the dashboard's button does (POST with the CSRF token). */
export async function signOut(baseUrl: string, cookie: string): Promise<number> {
  const token = await csrf(baseUrl, { cookie });
  const res = await fetch(`${baseUrl}/api/auth/signout`, {
    method: "POST",
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      cookie: `${cookie}; ${token.cookie}`,
      origin: baseUrl,
    },
    body: new URLSearchParams({ csrfToken: token.csrfToken, json: "true" }),
    redirect: "manual",
  });
  await res.arrayBuffer();
  return res.status;
}

/** A call to a dashboard JSON route with the session `cookie` and, like a browser on the dashboard, its Origin. */
export async function staffCall(
  baseUrl: string,
  cookie: string | null,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
) {
  // A header given as "" is not sent (e.g. `{ origin: "" }`: no Origin).
  const h = Object.fromEntries(Object.entries({ origin: baseUrl, ...headers }).filter(([, v]) => v !== "")) as Record<
    string,
    string
  >;
  if (cookie) h.cookie = cookie;
  if (body !== undefined) h["content-type"] = "application/json";
  const res = await fetch(`${baseUrl}${path}`, {
    method,
    headers: h,
    body: body === undefined ? undefined : JSON.stringify(body),
    redirect: "manual",
  });
  const text = await res.text();
  let json: { code?: string; [k: string]: unknown } | null = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    json = null;
  }
  return { status: res.status, headers: res.headers, json, text };
}

/** `staffCall` bound to one program's `/api/staff/{programId}` routes and one session. */
export function staffClient(baseUrl: string, programId: string, cookie: string) {
  return (method: string, path: string, body?: unknown) =>
    staffCall(baseUrl, cookie, method, `/api/staff/${programId}${path}`, body);
}
