import type { Metadata } from "next";
import { connection } from "next/server";
import "./globals.css";

export const metadata: Metadata = {
  title: "Loyalty",
  description: "Loyalty-program service: public /v1 API and staff dashboard",
};

export default async function RootLayout({ children }: { children: React.ReactNode }) {
  // Every page renders per request, so Next.js can put the request's CSP nonce (proxy.ts) on its scripts; a page
  // prerendered at build time would carry none and its scripts would be blocked.
  await connection();
  return (
    <html lang="en">
      <body className="min-h-screen bg-slate-50 text-slate-900 antialiased">{children}</body>
    </html>
  );
}
