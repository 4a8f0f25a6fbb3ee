/**
 * The pure rules of referrals (lib/domain/referrals.ts has the database side): what a referral code and a link
 * template look like. Client-safe: the dashboard's form checks the template with the same rule.
 */

/** A code's characters: digits and capitals without look-alikes (no 0/O, 1/I/L); migration `referrals` draws 8. */
export const REFERRAL_CODE_ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ";

/** A typed code as stored: trimmed, upper case. */
export const normaliseReferralCode = (code: string) => code.trim().toUpperCase();

/** The placeholder a link template must hold. */
export const CODE_PLACEHOLDER = "{code}";

/** Why `template` is not a link template (an http(s) URL holding `{code}`), or null when it is one. */
export function linkTemplateProblem(template: string): string | null {
  if (!template.includes(CODE_PLACEHOLDER)) return `must contain ${CODE_PLACEHOLDER}`;
  let url: URL;
  try {
    url = new URL(template.replaceAll(CODE_PLACEHOLDER, "CODE"));
  } catch {
    return "must be a URL";
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return "must be an http or https URL";
  return null;
}

/** The customer's referral link: the template with their code (null without a template or a code). */
export const referralLink = (template: string | null, code: string | null) =>
  template && code ? template.replaceAll(CODE_PLACEHOLDER, code) : null;
