/**
 * The heading levels of the reference: it is the page (h1) at /docs and in the dashboard, or a part of one (h2).
 * Below the title: a tag (or Webhooks, Schemas), an operation (or event, schema), an operation's parts.
 */
export const headings = (level: 1 | 2) =>
  level === 1 ? (["h1", "h2", "h3", "h4"] as const) : (["h2", "h3", "h4", "h5"] as const);
