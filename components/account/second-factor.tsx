"use client";

import { useState } from "react";
import { useStaffForm, useStaffWrite } from "@/lib/staff/client";
import { TotpCodeForm, TotpDisableForm } from "@/lib/staff/forms/account";
import { accountApi } from "@/lib/staff/urls";
import type { QrCode } from "@/lib/staff/qr-code";
import { Badge, Card, InputField, buttonClass, secondaryButtonClass } from "@/components/ui";

/**
 * The account page's second factor (TOTP): set it up (a QR code of the otpauth:// URI to scan, drawn on the server,
 * or the secret and the URI to enter in an authenticator app, confirmed with a code), its recovery codes shown once, turning it off.
 */
export function SecondFactor({
  enabledAt,
  pending,
  codesLeft,
  required,
}: {
  enabledAt: Date | null;
  pending: { secret: string; uri: string; qr: QrCode } | null;
  codesLeft: number;
  /** Names of the account's programs that require a second factor. */
  required: string[];
}) {
  const [codes, setCodes] = useState<string[] | null>(null);
  const start = useStaffWrite<never, unknown>({ method: "POST", url: accountApi.totpSetup, success: "Secret created" });
  const confirm = useStaffForm<typeof TotpCodeForm, { recoveryCodes: string[] }>({
    schema: TotpCodeForm,
    method: "POST",
    url: accountApi.totpConfirm,
    success: "Second factor on",
    onSuccess: (data) => setCodes(data.recoveryCodes),
    read: (f) => ({ code: f.text("code") }),
  });
  const disable = useStaffForm<typeof TotpDisableForm, unknown>({
    schema: TotpDisableForm,
    method: "POST",
    url: accountApi.totpDisable,
    success: "Second factor off",
    read: (f) => ({ password: f.text("password") }),
  });
  return (
    <Card title="Second factor (authenticator app)">
      {required.length > 0 && <p className="mb-3 text-sm text-slate-700">Required by: {required.join(", ")}.</p>}
      {codes && (
        <div className="mb-4 rounded-md border border-amber-300 bg-amber-50 p-3" role="status">
          <p className="text-sm font-medium text-amber-950">
            Your recovery codes: keep them somewhere safe, each works once in place of a code. They will not be shown
            again.
          </p>
          <ul className="mt-2 grid grid-cols-2 gap-1 font-mono text-sm" data-testid="recovery-codes">
            {codes.map((c) => (
              <li key={c}>{c}</li>
            ))}
          </ul>
        </div>
      )}
      {enabledAt ? (
        <div className="space-y-3">
          <p className="text-sm text-slate-700">
            <Badge tone="green">on</Badge> since{" "}
            {new Date(enabledAt).toLocaleString("en-GB", { dateStyle: "medium", timeStyle: "short", timeZone: "UTC" })}{" "}
            UTC; {codesLeft} recovery code{codesLeft === 1 ? "" : "s"} left.
          </p>
          {required.length === 0 && (
            <form
              {...disable.form}
              aria-label="Turn the second factor off"
              className="flex flex-wrap items-end gap-2"
              noValidate
            >
              <InputField
                label="Password, to turn it off"
                id="disable-password"
                {...disable.field("password")}
                type="password"
                autoComplete="current-password"
              />
              <button type="submit" className={secondaryButtonClass} disabled={disable.pending}>
                Turn off
              </button>
            </form>
          )}
        </div>
      ) : pending ? (
        <div className="space-y-3">
          <p className="text-sm text-slate-700">
            Scan this QR code with your authenticator app (or add an account with the secret below, or paste the link if
            the app takes one), then enter the code it shows.
          </p>
          <svg
            viewBox={`0 0 ${pending.qr.size} ${pending.qr.size}`}
            width={Math.max(176, pending.qr.size * 4)}
            height={Math.max(176, pending.qr.size * 4)}
            shapeRendering="crispEdges"
            role="img"
            aria-label="QR code of the otpauth:// link, for an authenticator app"
            data-testid="totp-qr"
            className="rounded border border-slate-200"
          >
            <rect width={pending.qr.size} height={pending.qr.size} fill="#fff" />
            <path d={pending.qr.path} fill="#000" />
          </svg>
          <dl className="space-y-2 text-sm">
            <div>
              <dt className="font-medium">Secret</dt>
              <dd>
                <code className="break-all rounded bg-slate-100 px-2 py-1 font-mono" data-testid="totp-secret">
                  {pending.secret}
                </code>
              </dd>
            </div>
            <div>
              <dt className="font-medium">Link (otpauth://)</dt>
              <dd>
                <code className="break-all rounded bg-slate-100 px-2 py-1 font-mono text-xs" data-testid="totp-uri">
                  {pending.uri}
                </code>
              </dd>
            </div>
          </dl>
          <form
            {...confirm.form}
            aria-label="Confirm the second factor"
            className="flex flex-wrap items-end gap-2"
            noValidate
          >
            <InputField
              label="Code from the app"
              id="totp-code"
              {...confirm.field("code")}
              inputMode="numeric"
              autoComplete="one-time-code"
            />
            <button type="submit" className={buttonClass} disabled={confirm.pending}>
              Confirm
            </button>
          </form>
        </div>
      ) : (
        <div className="space-y-3">
          <p className="text-sm text-slate-700">
            <Badge>off</Badge> With a second factor, signing in also asks for the 6-digit code of an authenticator app
            (or a recovery code).
          </p>
          <button type="button" className={buttonClass} disabled={start.pending} onClick={() => start.submit()}>
            Set up a second factor
          </button>
        </div>
      )}
    </Card>
  );
}
