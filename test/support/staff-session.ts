/**
 * A staff member's dashboard session over HTTP, for tests that make staff writes the way the browser does: sign in
 * through next-auth's credentials provider, then call /api/staff routes with the session cookie and the app's own
 * Origin (a same-site request, as the dashboard sends it).
 */

/** Signs in and returns the session cookie (`next-auth.session-token=…`), or null when refused. */
export async function signIn(baseUrl: string, email: string, password: string): Promise<string | null> {
  const csrf = await fetch(`${baseUrl}/api/auth/csrf`);
  const cookies = csrf.headers.getSetCookie().map((c) => c.split(";")[0]);
  const { csrfToken } = (await csrf.json()) as { csrfToken: string };
  const res = await fetch(`${baseUrl}/api/auth/callback/credentials`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie: cookies.join("; "), origin: baseUrl },
    body: new URLSearchParams({ csrfToken, email, password, json: "true" }),
    redirect: "manual",
  });
  await res.arrayBuffer();
  const session = res.headers.getSetCookie().find((c) => c.startsWith("next-auth.session-token="));
  return session ? session.split(";")[0]! : null;
}

export interface StaffResponse {
  status: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  json: any;
}

/** A client for `/api/staff/{programId}…` as the signed-in staff member. */
export function staffClient(baseUrl: string, programId: string, cookie: string) {
  return async (method: string, path: string, body?: unknown): Promise<StaffResponse> => {
    const headers: Record<string, string> = { cookie, origin: baseUrl, "sec-fetch-site": "same-origin" };
    if (body !== undefined) headers["content-type"] = "application/json";
    const res = await fetch(`${baseUrl}/api/staff/${programId}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    return { status: res.status, json: text ? JSON.parse(text) : null };
  };
}
