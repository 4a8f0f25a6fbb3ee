/** A page's query string as plain strings: a repeated parameter (`?q=a&q=b`) counts by its first value. */
export async function firstParams<K extends string>(
  searchParams: Promise<Partial<Record<K, string | string[]>>>,
): Promise<Partial<Record<K, string>>> {
  const entries = Object.entries(await searchParams) as [K, string | string[] | undefined][];
  return Object.fromEntries(entries.map(([k, v]) => [k, Array.isArray(v) ? v[0] : v])) as Partial<Record<K, string>>;
}
