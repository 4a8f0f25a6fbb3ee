// next-auth's endpoints (sign-in, sign-out, session, CSRF), with a guard for malformed callbackUrl parameters.
import NextAuth from "next-auth";
import type { NextRequest } from "next/server";
import { problemResponse } from "@/lib/api/problem";
import { invalidCallbackUrl } from "@/lib/errors";
import { authOptions } from "@/lib/staff/auth";
import { appOrigin, isOwnUrl } from "@/lib/staff/request-origin";

const handler = NextAuth(authOptions);

type Ctx = { params: Promise<{ nextauth: string[] }> };

/**
 * next-auth answers a callbackUrl it cannot parse with a 500 page, and follows foreign ones only as far as the
 * redirect callback lets it. Off-site or malformed: a GET goes to the same endpoint without it (so sign-in ends on
 * the dashboard), any other method is a 400.
 */
async function auth(req: NextRequest, ctx: Ctx) {
  const callbackUrl = req.nextUrl.searchParams.get("callbackUrl");
  if (callbackUrl !== null && !isOwnUrl(callbackUrl, appOrigin(req.headers))) {
    if (req.method !== "GET") {
      const requestId = crypto.randomUUID();
      return problemResponse(invalidCallbackUrl(), requestId, new Headers({ "x-request-id": requestId }));
    }
    const params = new URLSearchParams(req.nextUrl.search);
    params.delete("callbackUrl");
    const query = params.toString();
    return new Response(null, {
      status: 302,
      headers: { location: `${req.nextUrl.pathname}${query ? `?${query}` : ""}` },
    });
  }
  return handler(req, ctx);
}

export { auth as GET, auth as POST };
