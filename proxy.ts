import { NextResponse, type NextRequest } from "next/server";
import { guardV1 } from "@/lib/api/edge-guard";

/** Runs before routing: /v1 requests no route could answer in contract are answered here (lib/api/edge-guard.ts). */
export function proxy(req: NextRequest) {
  if (req.nextUrl.pathname.startsWith("/v1")) return guardV1(req, req.nextUrl.pathname) ?? NextResponse.next();
  return NextResponse.next();
}

export const config = { matcher: ["/v1/:path*"] };
