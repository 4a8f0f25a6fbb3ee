/**
 * A QR code drawn on the server (the `uqr` library: no dependencies, no network): the account page shows the TOTP
 * enrolment's otpauth:// URI as one, so an authenticator app can scan it. The secret goes to no third party (no QR
 * web service) and no script in the browser builds it; the page renders the answer as a plain inline <svg> (no inline
 * style, so the page's CSP holds).
 */
import "server-only";
import { encode } from "uqr";

/** A QR code as SVG data: the side in modules (the quiet zone included) and one path of its dark modules. */
export interface QrCode {
  size: number;
  path: string;
}

/** `text` as a QR code: error correction M (15%), a quiet zone of 4 modules as the standard asks. */
export function qrCode(text: string): QrCode {
  const { size, data } = encode(text, { ecc: "M", border: 4 });
  let path = "";
  data.forEach((row, y) =>
    row.forEach((dark, x) => {
      if (dark) path += `M${x} ${y}h1v1h-1z`;
    }),
  );
  return { size, path };
}
