/**
 * The one e-mail rule (API.md §1 "Emails"): which strings are e-mail addresses, and the one form each is stored,
 * compared and answered in. Client-safe (no Node module): the WHATWG URL parser that does the IDNA mapping is in
 * browsers, Node and edge runtimes alike.
 *
 *  - Domain: internationalised domains are accepted and stored in their ASCII form (IDNA/UTS #46 "ToASCII", as
 *    `new URL()` and node:url's `domainToASCII` compute it): `bücher.de`, `BÜCHER.de`, `ｂüｃｈｅｒ.de` and
 *    `xn--bcher-kva.de` are one domain, stored `xn--bcher-kva.de`. That form is the one DNS and every mail system
 *    use, and the one every address accepted before this rule was already stored in (no stored row changes).
 *  - Local part (RFC 6531): ASCII letters, digits and `_ ' + -`, and any Unicode letter, mark or digit (`josé`,
 *    `用户`), in dot-separated runs (no leading, trailing or double dot); at most 64 bytes of UTF-8. Unicode
 *    normalised to NFC (a precomposed `é` and `e` + combining accent are one address), then lower-cased, so matching
 *    is case-insensitive in every script. Quoted local parts, other symbols, spaces and controls are refused.
 *  - The whole address, as stored: at most 254 characters.
 */

export const MAX_EMAIL_LENGTH = 254;
const MAX_LOCAL_BYTES = 64;

const LOCAL_PART = /^[\p{L}\p{M}\p{N}_'+-]+(?:\.[\p{L}\p{M}\p{N}_'+-]+)*$/u;
/** What a domain may be written with before IDNA: anything but ASCII other than letters, digits, `-` and `.`. */
const DOMAIN_INPUT = /^[^\s\p{Cc}\u0000-\u002c\u002f\u003a-\u0040\u005b-\u0060\u007b-\u007f]+$/u;
const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
/** A top-level domain: letters, or an internationalised one in its ASCII form. */
const TOP_LEVEL = /^(?:[a-z]{2,63}|xn--[a-z0-9-]{1,59})$/;

const ASCII = /^[\u0000-\u007f]*$/;
/** A domain written in ASCII letters, digits, `-` and `.` only, with no Punycode label: IDNA only lower-cases it. */
const PLAIN_DOMAIN = /^(?![\s\S]*xn--)[a-z0-9.-]+$/i;

const utf8Bytes = (text: string) => (ASCII.test(text) ? text.length : new TextEncoder().encode(text).length);

/** The domain's ASCII form (lower case), or null when it is not a domain name an address can have. */
export function asciiDomain(domain: string): string | null {
  // Almost every address: the URL parser would only lower-case it (its label and top-level checks follow below),
  // and it costs more than the rest of a customer read's edge work (bench/README.md).
  return checkedHost(PLAIN_DOMAIN.test(domain) ? domain.toLowerCase() : idnaHost(domain));
}

/** The domain through the URL parser's IDNA (UTS #46 ToASCII), or null. */
function idnaHost(domain: string): string | null {
  if (!DOMAIN_INPUT.test(domain)) return null;
  // The URL parser's IDNA does not check hyphens (UTS #46 CheckHyphens=false): no label starts or ends with one.
  if (domain.split(/[.\u3002\uff0e\uff61]/).some((label) => label.startsWith("-") || label.endsWith("-"))) return null;
  try {
    return new URL(`http://${domain}/`).hostname;
  } catch {
    return null;
  }
}

/**
 * `asciiDomain` without its fast path: every domain through the URL parser. For test/unit/email-and-origins.test.ts,
 * which checks that both give the same answer.
 */
export const asciiDomainThroughIdna = (domain: string) => checkedHost(idnaHost(domain));

/** The host if it is a domain name an address can have: labels of letters, digits and inner hyphens, a real top level. */
function checkedHost(host: string | null): string | null {
  if (host === null) return null;
  const labels = host.split(".");
  if (host.length > 253 || labels.length < 2) return null;
  if (!labels.every((label) => LABEL.test(label)) || !TOP_LEVEL.test(labels.at(-1)!)) return null;
  return host;
}

/** The address in its one stored form, or null when it is not an e-mail address by this rule. */
export function emailAddress(input: string): string | null {
  const email = input.trim();
  const at = email.lastIndexOf("@");
  if (at <= 0) return null;
  const written = email.slice(0, at);
  const local = (ASCII.test(written) ? written : written.normalize("NFC")).toLowerCase();
  if (!LOCAL_PART.test(local) || utf8Bytes(local) > MAX_LOCAL_BYTES) return null;
  const domain = asciiDomain(email.slice(at + 1));
  if (!domain) return null;
  const address = `${local}@${domain}`;
  return address.length <= MAX_EMAIL_LENGTH ? address : null;
}

/**
 * The stored form of an e-mail that names a customer (a path segment, a query value): that of `emailAddress`, or,
 * for a string that is no address, the same trimmed and lower-cased (it then names no customer: 404).
 */
export const normaliseEmail = (email: string) => emailAddress(email) ?? email.trim().toLowerCase();
