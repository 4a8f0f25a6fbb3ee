import type { NextRequest } from "next/server";
import { securePage } from "@/lib/staff/security-headers";

/** Pages and /api/auth: CSP nonce, HSTS, trusted host (lib/staff/security-headers.ts). /v1 and the probes (/healthz, /readyz, /metrics) are not matched. */
export function proxy(request: NextRequest) {
  return securePage(request);
}

export const config = {
  matcher: ["/((?!v1/|v1$|api/staff/|_next/static/|_next/image/|favicon.ico|healthz$|readyz$|metrics$).*)"],
};
