import "server-only";
import { isIPv4, isIPv6 } from "node:net";

/**
 * The one place that decides which IP addresses outbound deliveries (webhooks, push endpoint) may connect to: only
 * public unicast. Everything an attacker could use to reach the app's own network is refused: loopback, private
 * (RFC 1918, CGNAT 100.64/10, IPv6 ULA fc00::/7), link-local, cloud metadata, unspecified, multicast, and the
 * reserved/documentation ranges. IPv6 forms that carry an IPv4 address (IPv4-mapped ::ffff:a.b.c.d, NAT64
 * 64:ff9b::/96, 6to4 2002::/16, IPv4-compatible ::a.b.c.d) are judged by the IPv4 address inside. Pure: no DNS.
 */

export type AddressClass =
  "public" | "loopback" | "private" | "link-local" | "metadata" | "unspecified" | "multicast" | "reserved" | "invalid";

type Range = [base: bigint, prefix: number, cls: Exclude<AddressClass, "public" | "invalid">];

function ipv4ToBigInt(ip: string): bigint {
  return ip.split(".").reduce((acc, part) => (acc << 8n) | BigInt(Number(part)), 0n);
}

function ipv6ToBigInt(ip: string): bigint {
  let text = ip.toLowerCase();
  const zone = text.indexOf("%");
  if (zone >= 0) text = text.slice(0, zone);
  // A trailing dotted IPv4 (::ffff:1.2.3.4) is two groups.
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const v4 = ipv4ToBigInt(dotted[1]!);
    text = `${text.slice(0, dotted.index)}${(v4 >> 16n).toString(16)}:${(v4 & 0xffffn).toString(16)}`;
  }
  const [head, tail] = text.includes("::") ? text.split("::") : [text, null];
  const headGroups = head ? head.split(":") : [];
  const tailGroups = tail ? tail.split(":") : [];
  const missing = 8 - headGroups.length - tailGroups.length;
  const groups = tail === null ? headGroups : [...headGroups, ...Array<string>(missing).fill("0"), ...tailGroups];
  return groups.reduce((acc, g) => (acc << 16n) | BigInt(parseInt(g || "0", 16)), 0n);
}

const v4 = (cidr: string, cls: Range[2]): Range => {
  const [ip, bits] = cidr.split("/");
  return [ipv4ToBigInt(ip!), Number(bits), cls];
};
const v6 = (cidr: string, cls: Range[2]): Range => {
  const [ip, bits] = cidr.split("/");
  return [ipv6ToBigInt(ip!), Number(bits), cls];
};

// Most specific first: the first range that contains the address decides.
const IPV4_RANGES: Range[] = [
  v4("169.254.169.254/32", "metadata"), // AWS, GCP, Azure, OpenStack instance metadata
  v4("100.100.100.200/32", "metadata"), // Alibaba Cloud
  v4("0.0.0.0/8", "unspecified"),
  v4("127.0.0.0/8", "loopback"),
  v4("10.0.0.0/8", "private"),
  v4("172.16.0.0/12", "private"),
  v4("192.168.0.0/16", "private"),
  v4("100.64.0.0/10", "private"), // CGNAT (RFC 6598)
  v4("169.254.0.0/16", "link-local"),
  v4("192.0.0.0/24", "reserved"), // IETF protocol assignments
  v4("192.0.2.0/24", "reserved"), // documentation
  v4("198.18.0.0/15", "reserved"), // benchmarking
  v4("198.51.100.0/24", "reserved"),
  v4("203.0.113.0/24", "reserved"),
  v4("192.88.99.0/24", "reserved"), // 6to4 relay anycast
  v4("224.0.0.0/4", "multicast"),
  v4("240.0.0.0/4", "reserved"), // includes 255.255.255.255
];

const IPV6_RANGES: Range[] = [
  v6("fd00:ec2::254/128", "metadata"), // AWS instance metadata over IPv6
  v6("::/128", "unspecified"),
  v6("::1/128", "loopback"),
  v6("fc00::/7", "private"), // unique local
  v6("fec0::/10", "private"), // deprecated site-local
  v6("fe80::/10", "link-local"),
  v6("ff00::/8", "multicast"),
  v6("100::/64", "reserved"), // discard-only
  v6("2001:db8::/32", "reserved"), // documentation
  v6("2001::/23", "reserved"), // IETF protocol assignments (Teredo, ORCHID, …)
];

/** IPv6 prefixes whose low 32 bits are an IPv4 address that a gateway may connect to. */
const EMBEDS_IPV4: [base: bigint, prefix: number][] = [
  [ipv6ToBigInt("::ffff:0:0"), 96], // IPv4-mapped
  [ipv6ToBigInt("64:ff9b::"), 96], // NAT64 well-known prefix
  [ipv6ToBigInt("64:ff9b:1::"), 48], // local-use NAT64
  [ipv6ToBigInt("::"), 96], // IPv4-compatible (deprecated)
];

const inRange = (value: bigint, base: bigint, prefix: number, width: number) =>
  value >> BigInt(width - prefix) === base >> BigInt(width - prefix);

function classifyV4(value: bigint): AddressClass {
  for (const [base, prefix, cls] of IPV4_RANGES) if (inRange(value, base, prefix, 32)) return cls;
  return "public";
}

/** What `ip` (a literal IPv4 or IPv6 address, as DNS or the URL parser gives it) is. */
export function classifyAddress(ip: string): AddressClass {
  const text = ip.startsWith("[") && ip.endsWith("]") ? ip.slice(1, -1) : ip;
  if (isIPv4(text)) return classifyV4(ipv4ToBigInt(text));
  if (!isIPv6(text)) return "invalid";
  const value = ipv6ToBigInt(text);
  // :: and ::1 are IPv6's own, not IPv4-compatible 0.0.0.0 / 0.0.0.1.
  for (const [base, prefix, cls] of IPV6_RANGES.slice(0, 3)) if (inRange(value, base, prefix, 128)) return cls;
  for (const [base, prefix] of EMBEDS_IPV4)
    if (inRange(value, base, prefix, 128)) return classifyV4(value & 0xffffffffn);
  // 6to4: 2002:AABB:CCDD::/48 carries AA.BB.CC.DD.
  if (inRange(value, ipv6ToBigInt("2002::"), 16, 128)) {
    const embedded = classifyV4((value >> 80n) & 0xffffffffn);
    if (embedded !== "public") return embedded;
  }
  for (const [base, prefix, cls] of IPV6_RANGES) if (inRange(value, base, prefix, 128)) return cls;
  return "public";
}

/**
 * Whether a delivery may connect to `ip`. With the development setting (LOYALTY_ALLOW_HTTP_WEBHOOKS=1), loopback
 * is allowed too, so a receiver on this machine works in development and tests; nothing else is.
 */
export function addressAllowed(ip: string, allowLoopback: boolean): boolean {
  const cls = classifyAddress(ip);
  return cls === "public" || (allowLoopback && cls === "loopback");
}
